"""Custom forward-mode rules: @custom_jvp (as in JAX) and defjvp for existing functions (as in autograd).

    @adsrc.custom_jvp
    def f(x):
        return np.log1p(np.exp(x))

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), t / (1.0 + np.exp(-x))       # (output, output tangent)

Forward mode (adsrc.jvp, jacfwd, hessian) calls the rule. Reverse mode
transposes it: the rule's tangent output is linear in the tangents, so the
cotangent of the arguments is the pullback of `tangents -> rule(primals,
tangents)[1]`, which adsrc computes from the rule's own source (adsrc.vjp).
Higher order follows the rule's source too.
"""

import functools

import numpy as np

from . import rules, runtime
from .custom import _arguments, _rule_name, custom_vjp, register_helper, rule_parameters
from .tangents import tangent_output, zeros_tangent


class custom_jvp(custom_vjp):
    """A function with a hand-written forward-mode rule, with JAX's protocol (see the module docstring)."""

    def __init__(self, fun):
        super().__init__(fun)
        self.jvp = None

    def defjvp(self, jvp):
        """Set the rule `jvp(primals, tangents) -> (output, output tangent)`; returns jvp (usable as a decorator)."""
        self.jvp = jvp
        what = f"the reverse rule adsrc derives for the custom_jvp function `{self.__name__}`"

        def fwd(*args):
            return self._fwd(*args)

        def bwd(res, g):
            return self._bwd(res, g)
        for f in (fwd, bwd):
            f._adsrc_derivative = what       # second derivatives through it are refused by name
        self.fwd, self.bwd = fwd, bwd
        return jvp

    def _fwd(self, *args):
        return self.fun(*args), args

    def _bwd(self, args, g):
        """The transpose of the rule's tangent map at these primals (held fixed: a partial's data)."""
        from .checks import _leaves
        from .pullback import vjp
        zeros = tuple(zeros_tangent(a) for a in args)
        if not any(np.any(leaf) for _, leaf in _leaves(g)):
            # a zero cotangent (the rule's own primal output, when the rule calls the function itself)
            return zeros
        out, pullback = vjp(functools.partial(self.jvp, args), zeros)
        (cot,) = pullback((zeros_tangent(out[0]), tangent_output(g, out[1])))    # g: exactly out's shape
        return tuple(cot)

    def __repr__(self):
        return f"<adsrc.custom_jvp {getattr(self.fun, '__qualname__', self.fun)}>"


@runtime.helper
def custom_jvp_call(rule, primals, tangents):
    """(output, output tangent) from a custom_jvp rule (forward code calls the rule through this helper)."""
    out, t = rule(primals, tangents)
    return out, t


def defjvp(fun, *jvps, signature=None, elementwise=None):
    """Give an existing function (without Python source) a forward-mode rule, as autograd's defjvp.

        adsrc.defjvp(my_c_function, lambda g, ans, x: g * 3.0 * x ** 2)

    Each jvp (one per positional parameter, None for parameters that are not
    differentiated) returns the output tangent contributed by that argument's
    tangent g, called as `jvp(g, ans, *args, **kwargs)`. If the function has
    no reverse rule (adsrc.defvjp) yet, reverse mode transposes the jvps
    (exact, one call per element of the argument: give it a vjp for speed).
    """
    existing = rules.FUNCTIONS.get(fun)
    signature, _, elementwise, sig, positional, fname = rule_parameters(fun, jvps, signature, elementwise,
                                                                        "defjvp", "jvps")
    args = _arguments(sig, lambda name: True)
    forward, reverse = {}, {}
    for pname, jvp in zip(positional, jvps):
        if jvp is None:
            continue
        helper_name = register_helper(f"{fname}_jvp_{pname}", jvp)
        forward[pname] = f"{helper_name}(g, ans{args})"
        reverse[pname] = f"transpose_linear({helper_name}, 0, g, (zeros_tangent({pname}), ans{args}))"
    if existing is None:
        existing = rules.Rule(_rule_name(fun, fname), signature, reverse,
                              kind="elementwise" if elementwise else "general")
        rules.register(fun, existing)
    existing.jvps = forward
    return fun
