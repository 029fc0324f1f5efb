"""Custom derivative rules: @custom_vjp (as in JAX) and defvjp for existing functions."""

import ast
import functools
import inspect
import itertools
import sys

import numpy as np

from . import nondiff_args, rules, runtime
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
    `nondiff_argnums` (JAX's) names arguments that are not differentiated,
    such as a function: bwd then takes them first, `bwd(*those, res, g)`,
    and returns cotangents of the others only.
    """

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun, updated=())   # not fun.__dict__: it would shadow attributes
        self.fun = fun
        self.fwd = None
        self.bwd = None
        params = list(inspect.signature(fun).parameters.values())
        self.nargs = len([p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
        self.nondiff = nondiff_args.checked(nondiff_argnums, self.nargs, self.__name__)

    def defvjp(self, fwd, bwd):
        """Set the rules; with nondiff_argnums, bwd takes those arguments first (JAX's protocol)."""
        if self.nondiff:
            fwd, bwd = nondiff_args.vjp_rules(identifier(self.__name__), self.nargs, self.nondiff, fwd, bwd)
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
    return custom_cots(bwd(res, g), nargs, fname)


@runtime.helper
def custom_cots(out, nargs, fname):
    """What a custom_vjp's bwd returned, checked: one cotangent per argument (None: zero).

    Generated code calls bwd itself and passes its result here, so that the
    call stays a call of the user's function (followed when differentiating again)."""
    if not isinstance(out, (tuple, list)) or len(out) != nargs:
        got = f"a {type(out).__name__}" + (f" of {len(out)} elements" if isinstance(out, (tuple, list)) else "")
        raise TypeError(f"the custom_vjp rule of `{fname}`: its bwd must return a tuple of {nargs} cotangent"
                        f"{'s' if nargs != 1 else ''} (one per argument of `{fname}`), but it returned {got}")
    return tuple(0.0 if c is None else c for c in out)


_counter = itertools.count()

_P = inspect.Parameter


class _NotLiteral:
    """The default of a parameter whose default is not a Python literal: left out of the vjp's call."""

    def __repr__(self):
        return "<default not passed>"


NOT_LITERAL = _NotLiteral()


def defvjp(fun, *vjps, signature=None, elementwise=None):
    """Give an existing function (a C function, a NumPy or SciPy ufunc...) a derivative rule.

        adsrc.defvjp(scipy.special.expit, lambda g, ans, x: g * ans * (1.0 - ans))

    Each vjp (one per positional parameter, None for parameters that are not
    differentiated) returns that argument's cotangent. It is called as
    `vjp(g, ans, *args, **kwargs)` with the output cotangent g, the output ans
    and the call's arguments: every positional parameter by position and
    every keyword-only one by name, defaults filled in (a default that is
    not a Python literal, like a sentinel object, is left out when the call
    leaves it out: give the vjp the same default).

    The parameters are read from the function: a ufunc takes its `nin`
    inputs by position (its keywords `out=`, `where=`, `dtype=`... are
    refused in differentiated code), anything else its signature with
    defaults. `signature` (like "x, y, /" or "x, scale=1.0") overrides it
    when Python cannot tell. With elementwise=True, the default for ufuncs,
    the function broadcasts elementwise: g may be any array broadcastable to
    the output, and cotangents are summed back over broadcast axes for you.
    Code differentiated afterwards uses the rule; the generated source calls
    it by name (`expit_vjp_x(...)`). autograd's form is accepted too: a vjp
    with one positional parameter fewer, `maker(ans, *args)`, returns the
    function of g (`defvjp(f, lambda ans, x: lambda g: g * ans)`).
    """
    signature, not_literal, elementwise, sig, positional, fname = rule_parameters(fun, vjps, signature, elementwise,
                                                                                  "defvjp", "vjps")
    vjps = [_from_maker(v) if _is_maker(v, len(positional)) else v for v in vjps]
    templates = {}
    for pname, vjp in zip(positional, vjps):
        if vjp is None:
            continue
        helper_name = register_helper(f"{fname}_vjp_{pname}", vjp)
        templates[pname] = _template(helper_name, sig, not_literal) if not_literal else \
            f"{helper_name}(g, ans{_arguments(sig, lambda name: True)})"
    rule = rules.Rule(_rule_name(fun, fname), signature, templates,
                      kind="elementwise" if elementwise else "general")
    for p in rule.params:
        if p.name in not_literal:
            p.default = NOT_LITERAL
    rules.register(fun, rule)
    return fun


def _is_maker(vjp, nargs):
    """Is vjp autograd's form, `maker(ans, *args) -> (lambda g: cotangent)`: one positional parameter fewer
    than adsrc's `vjp(g, ans, *args)` (and no *args of its own, which would leave it ambiguous)?"""
    if vjp is None:
        return False
    try:
        params = inspect.signature(vjp).parameters.values()
    except (TypeError, ValueError):
        return False
    if any(p.kind == _P.VAR_POSITIONAL for p in params):
        return False
    return len([p for p in params if p.kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)]) == nargs + 1


def _from_maker(maker):
    """adsrc's vjp(g, ans, *args, **kwargs) from autograd's maker(ans, *args, **kwargs)(g)."""
    @functools.wraps(maker)
    def vjp(g, ans, *args, **kwargs):
        return maker(ans, *args, **kwargs)(g)
    if getattr(maker, "__name__", None) == "<lambda>":
        # the source adsrc reads (differentiating the rule again) is this def, not a lambda of the user's line
        vjp.__name__ = vjp.__qualname__ = "vjp_from_maker"
    return vjp


def primitive(fun):
    """autograd's `@primitive`: fun as it is. adsrc follows a function's source unless it has a rule, so a
    primitive needs nothing more; `defvjp(fun, ...)` then gives it its rule."""
    return fun


def rule_parameters(fun, given, signature, elementwise, what, plural):
    """(signature text, parameters whose default is not a literal, elementwise, parsed signature,
    positional parameter names, identifier of fun) for a rule given by defvjp or defjvp."""
    not_literal = set()
    if signature is None:
        signature, not_literal = _signature_text(fun, len(given))
    if elementwise is None:
        elementwise = isinstance(fun, np.ufunc)
    sig = rules.parse_signature(signature)
    positional = [p.name for p in sig if p.kind in ("pos", "any")]
    if len(given) > len(positional):
        raise TypeError(f"{what} got {len(given)} {plural} for a function of {len(positional)} positional "
                        f"parameter{'s' if len(positional) != 1 else ''} ({signature})")
    fname = identifier(getattr(fun, "__name__", None) or type(fun).__name__)
    return signature, not_literal, elementwise, sig, positional, fname


def register_helper(name, fn):
    """Register fn as a runtime helper under name (numbered if the name holds another function)."""
    if name in runtime.HELPERS and runtime.HELPERS[name] is not fn:
        name += f"_{next(_counter)}"
    runtime.HELPERS[name] = fn
    return name


def _arguments(sig, passed):
    """', x, y, scale=scale': the parameters a vjp is called with (those `passed` says)."""
    out, by_name = [], False
    for p in sig:
        if p.kind == "var":
            continue
        if not passed(p.name):
            by_name = True        # a later positional parameter goes by name
            continue
        out.append(f"{p.name}={p.name}" if by_name or p.kind == "kw" else p.name)
    return "".join(", " + a for a in out)


def _template(helper_name, sig, not_literal):
    """A template that leaves out parameters whose default is not a literal, when the call leaves them out."""
    def template(**static):
        return f"{helper_name}(g, ans{_arguments(sig, lambda n: static.get(n) is not NOT_LITERAL)})"
    return template


def _signature_text(fun, nvjps):
    """(signature text, names of parameters whose default is not a literal) read from fun."""
    if isinstance(fun, np.ufunc):
        try:
            names = [p.name for p in inspect.signature(fun).parameters.values() if p.kind == _P.POSITIONAL_ONLY]
        except (TypeError, ValueError):
            names = []
        if len(names) != fun.nin:
            names = ["x"] if fun.nin == 1 else [f"x{i + 1}" for i in range(fun.nin)]
        return ", ".join(names) + ", /", set()
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        n = getattr(fun, "nin", nvjps)
        return ", ".join(f"x{i}" if n > 3 else "xyz"[i] for i in range(n)) + ", /", set()
    parts, not_literal = [], set()
    for i, p in enumerate(params):
        if p.kind in (_P.VAR_POSITIONAL, _P.VAR_KEYWORD):
            continue
        if p.kind == _P.KEYWORD_ONLY and "*" not in parts:
            parts.append("*")
        text = p.name
        if p.default is not _P.empty:
            literal = _literal(p.default)
            if literal is None:
                not_literal.add(p.name)
                literal = "None"        # replaced by NOT_LITERAL in the rule
            text += "=" + literal
        parts.append(text)
        if p.kind == _P.POSITIONAL_ONLY and (i + 1 == len(params) or params[i + 1].kind != _P.POSITIONAL_ONLY):
            parts.append("/")
    return ", ".join(parts), not_literal


def _literal(value):
    """The source text of a default that Python can read back as the same value, else None."""
    if type(value) not in (int, float, complex, str, bytes, bool, type(None), tuple):
        return None
    text = repr(value)
    try:
        back = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return text if type(back) is type(value) and back == value else None


def _rule_name(fun, fname):
    """How messages and `python -m adsrc rules` name the function: scipy.special.expit, np.cbrt, mod.f."""
    name = getattr(fun, "__name__", fname)
    if isinstance(fun, np.ufunc):
        for module, shown in (("numpy", "np"), ("scipy.special", "scipy.special")):
            if getattr(sys.modules.get(module), name, None) is fun:
                return f"{shown}.{name}"
    return f"{getattr(fun, '__module__', None) or ''}.{name}".lstrip(".")
