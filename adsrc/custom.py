"""Custom derivative rules: @custom_vjp (as in JAX) and defvjp for existing functions."""

import functools
import inspect
import itertools

from . import rules, runtime
from .names import identifier


class custom_vjp:
    """A function with a hand-written reverse-mode rule, exactly as JAX defines it.

        @adsrc.custom_vjp
        def f(x, y):
            return np.sin(x) * y

        def f_fwd(x, y):
            return f(x, y), (np.cos(x), np.sin(x), y)      # (output, residuals)

        def f_bwd(res, g):
            cos_x, sin_x, y = res
            return (cos_x * g * y, sin_x * g)             # one cotangent per argument

        f.defvjp(f_fwd, f_bwd)

    Called normally, f runs its own body. Inside a function adsrc
    differentiates, a call to f runs `f_fwd` forward and `f_bwd` backward;
    both are called as they are, never transformed. `bwd` must return a
    tuple with one cotangent per positional argument (None for zero).
    """

    def __init__(self, fun):
        functools.update_wrapper(self, fun, updated=())   # not fun.__dict__: it would shadow attributes
        self.fun = fun
        self.fwd = None
        self.bwd = None
        params = list(inspect.signature(fun).parameters.values())
        self.nargs = len([p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])

    def defvjp(self, fwd, bwd):
        self.fwd = fwd
        self.bwd = bwd
        return self

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def __repr__(self):
        return f"<adsrc.custom_vjp {getattr(self.fun, '__qualname__', self.fun)}>"


@runtime.helper
def custom_bwd(bwd, res, g, nargs, fname):
    """Call a custom_vjp's bwd and check it returned one cotangent per argument."""
    out = bwd(res, g)
    if not isinstance(out, (tuple, list)) or len(out) != nargs:
        got = f"a {type(out).__name__}" + (f" of {len(out)} elements" if isinstance(out, (tuple, list)) else "")
        raise TypeError(f"the custom_vjp rule of `{fname}`: its bwd must return a tuple of {nargs} cotangent"
                        f"{'s' if nargs != 1 else ''} (one per argument of `{fname}`), but it returned {got}")
    return tuple(0.0 if c is None else c for c in out)


_counter = itertools.count()


def defvjp(fun, *vjps, signature=None, elementwise=False):
    """Give an existing function (a C function, a third-party ufunc...) a derivative rule.

        adsrc.defvjp(scipy.special.expit, lambda g, ans, x: g * ans * (1.0 - ans))

    Each vjp (one per positional argument, None for arguments that are not
    differentiated) is called as `vjp(g, ans, *args)` with the output
    cotangent g and the output ans, and returns that argument's cotangent.
    With elementwise=True (a broadcasting elementwise function), g may be any
    array broadcastable to the output and cotangents are summed back over
    broadcast axes for you. `signature` names the parameters (like "x, y, /")
    when Python cannot tell. Code differentiated afterwards uses the rule; the
    generated source calls it by name (`expit_vjp_x(...)`).
    """
    if signature is None:
        try:
            params = [p.name for p in inspect.signature(fun).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            signature = ", ".join(params)
        except (TypeError, ValueError):
            n = getattr(fun, "nin", len(vjps))
            signature = ", ".join(f"x{i}" if n > 3 else "xyz"[i] for i in range(n)) + ", /"
    params = [p.name for p in rules.parse_signature(signature) if p.kind != "var"]
    if len(vjps) > len(params):
        raise TypeError(f"defvjp got {len(vjps)} vjps for a function of {len(params)} arguments ({signature})")
    fname = identifier(getattr(fun, "__name__", None) or type(fun).__name__)
    templates = {}
    for pname, vjp in zip(params, vjps):
        if vjp is None:
            continue
        helper_name = f"{fname}_vjp_{pname}"
        if helper_name in runtime.HELPERS and runtime.HELPERS[helper_name] is not vjp:
            helper_name += f"_{next(_counter)}"
        runtime.HELPERS[helper_name] = vjp
        templates[pname] = f"{helper_name}(g, ans, {', '.join(params)})"
    name = f"{getattr(fun, '__module__', None) or ''}.{getattr(fun, '__name__', fname)}".lstrip(".")
    rule = rules.Rule(name, signature, templates, kind="elementwise" if elementwise else "general")
    rules.register(fun, rule)
    return fun
