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
Higher order follows the rule's source too: the reverse rule is itself Python
source (see _reverse_rule).
"""

import numpy as np

from . import nondiff_args, pytree_nodes, rules, runtime
from .custom import _arguments, _rule_name, custom_vjp, register_helper, rule_parameters
from .frontend.source import define
from .names import identifier
from .tangents import zeros_tangent


class custom_jvp(custom_vjp):
    """A function with a hand-written forward-mode rule, with JAX's protocol (see the module docstring)."""

    def __init__(self, fun, nondiff_argnums=()):
        super().__init__(fun, nondiff_argnums)
        self.jvp = None

    def defjvp(self, jvp):
        """Set the rule `jvp(primals, tangents) -> (output, output tangent)`; returns jvp (usable as a decorator).
        With nondiff_argnums, `jvp(*those, primals, tangents)` gets the others' primals and tangents (JAX's)."""
        rule = nondiff_args.jvp_rule(identifier(self.__name__), self.nargs, self.nondiff, jvp) if self.nondiff \
            else jvp
        self.jvp = rule
        self.fwd, self.bwd = _reverse_rule(self, rule)
        return jvp

    def defjvps(self, *jvps):
        """JAX's rule argument by argument: `jvps[i](t_i, ans, *primals)` is the output tangent the tangent of
        argument i contributes (None: none). The rule is their sum."""
        if self.nondiff:
            raise NotImplementedError(f"`{self.__name__}.defjvps` with nondiff_argnums: give one rule with "
                                      "`defjvp` instead.")
        if len(jvps) != self.nargs:
            raise TypeError(f"`{self.__name__}.defjvps` takes one function (or None) per argument of "
                            f"`{self.__name__}`: {self.nargs}, not {len(jvps)}")
        self.defjvp(_summed_rule(identifier(self.__name__), self.fun, jvps))

    def __repr__(self):
        return f"<adsrc.custom_jvp {getattr(self.fun, '__qualname__', self.fun)}>"


def _summed_rule(name, fun, jvps):
    """The rule `rule(primals, tangents)` summing defjvps's per-argument rules, as source adsrc reads."""
    xs = [f"x{i}" for i in range(len(jvps))]
    terms = [f"jvp{i}(t{i}, ans, {', '.join(xs)})" for i, jvp in enumerate(jvps) if jvp is not None]
    total = terms[0] if terms else "zeros_tangent(ans)"
    for term in terms[1:]:
        total = f"add_cot({total}, {term})"
    source = (f"def {name}_jvps(primals, tangents):\n"
              f"    {nondiff_args.tuple_source(xs)} = primals\n"
              f"    {nondiff_args.tuple_source([f't{i}' for i in range(len(jvps))])} = tangents\n"
              f"    ans = fun({', '.join(xs)})\n"
              f"    return ans, {total}\n")
    namespace = {"fun": fun, "add_cot": runtime.add_cot, "zeros_tangent": zeros_tangent}
    namespace.update({f"jvp{i}": jvp for i, jvp in enumerate(jvps) if jvp is not None})
    return define(source, f"{name}_jvps", namespace, f"rule of the custom_jvp function {name} (defjvps)")


def _reverse_rule(f, jvp):
    """custom_vjp's (fwd, bwd) for a custom_jvp function f, as Python source adsrc reads when it differentiates
    them again (higher order). With n arguments:

        def f_fwd(x0, ..):                  # the residuals are the arguments
            return f(x0, ..), (x0, ..)

        def f_tangent_map(t0, .., x0, .., g):
            return tree_vdot(g, jvp((x0, ..), (t0, ..))[1])

        def f_bwd(res, g):                  # the transpose of t -> jvp(res, t)[1], at t = 0
            x0, .., = res
            return grad_tangent_map(zeros_tangent(x0), .., x0, .., g)

    where grad_tangent_map is adsrc.grad(f_tangent_map, argnums=(0, .., n - 1)).
    """
    from .api import grad
    n = f.nargs
    diff = [i for i in range(n) if i not in f.nondiff]        # (the tangents of the nondiff arguments: None)
    name = identifier(f.__name__)
    xs = ", ".join(f"x{i}" for i in range(n))
    ts = ", ".join(f"t{i}" for i in diff)
    every = ", ".join(f"t{i}" if i in diff else "None" for i in range(n))
    cots = "".join(f"c{i}, " for i in diff)
    zeros = ", ".join(f"zeros_tangent(x{i})" for i in diff)
    fwd = (f"def {name}_fwd({xs}):\n"
           f"    return f({xs}), ({xs},)\n")
    tangent_map = (f"def {name}_tangent_map({ts}, {xs}, g):\n"
                   f"    return tree_vdot(g, jvp(({xs},), ({every},))[1])\n")
    bwd = (f"def {name}_bwd(res, g):\n"
           f"    {xs}, = res\n"
           + (f"    return grad_tangent_map({zeros}, {xs}, g)\n" if len(diff) == n else
              f"    ({cots}) = grad_tangent_map({zeros}, {xs}, g)\n"
              f"    return ({', '.join(f'c{i}' if i in diff else 'None' for i in range(n))},)\n"))
    # one namespace: bwd calls the gradient of the tangent map, made once the map is defined
    names = {"f": f, "jvp": jvp, "tree_vdot": tree_vdot, "zeros_tangent": zeros_tangent}
    label = f"reverse rule of the custom_jvp function {name}"
    names["grad_tangent_map"] = grad(define(tangent_map, f"{name}_tangent_map", names, label),
                                     argnums=tuple(range(len(diff))))
    return define(fwd, f"{name}_fwd", names, label), define(bwd, f"{name}_bwd", names, label)


@runtime.helper
def tree_vdot(a, b):
    """The sum of a * b over the leaves of two pytrees of one structure (0.0 is zero): <g, jvp(..)[1]>."""
    if runtime.is_zero(a) or runtime.is_zero(b):
        return 0.0
    from .checks import _leaves
    if isinstance(a, (tuple, list, dict)) or pytree_nodes.node_of(a) is not None or hasattr(a, "__dataclass_fields__"):
        left, right = dict(_leaves(a)), dict(_leaves(b))
        return sum((tree_vdot(v, right[k]) for k, v in left.items() if k in right), 0.0)
    return np.sum(a * b)


@runtime.helper
def tree_scale(c, a):
    """c * a leaf by leaf (c a number)."""
    from .checks import _map
    if runtime.is_zero(c) or runtime.is_zero(a):
        return 0.0
    if isinstance(a, (tuple, list, dict)) or pytree_nodes.node_of(a) is not None or hasattr(a, "__dataclass_fields__"):
        return _map(a, lambda path, v: c * v)
    return c * a


def _install():
    for fn, name, vjps in ((tree_vdot, "tree_vdot", dict(a="tree_scale(g, b)", b="tree_scale(g, a)")),
                           (tree_scale, "tree_scale", dict(c="tree_vdot(g, a)", a="tree_scale(c, g)"))):
        rule = rules.general(fn, name, "a, b, /" if name == "tree_vdot" else "c, a, /", **vjps)
        rule.jvp_form = "multilinear"
        rule.any_output = name == "tree_scale"


_install()


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
