"""autograd's `fixed_point(f, a, x0, distance, tol)`, differentiable with respect to `a` by the implicit
function theorem, at first and second order: the backward pass iterates the adjoint equation
`v = g + v J_x` to the same tolerance instead of going back through the forward iterations (which it never
keeps), and that backward pass has its own rule, which iterates the tangent equation `z = J_a u + J_x z`.

    def newton_sqrt_iter(a):
        return lambda x: 0.5 * (x + a / x)

    def sqrt(a):
        return fixed_point(newton_sqrt_iter, a, 10.0, lambda x, y: np.abs(x - y), 1e-10)

    adsrc.grad(sqrt)(2.0)                   # 1 / (2 sqrt(2))
    adsrc.grad(adsrc.grad(sqrt))(2.0)       # -1 / (4 sqrt(2)^3)

With F(a, x) = f(a)(x) and x* its fixed point, the first derivative's cotangent of `a` is ā = J_a^T v, with
v = g + J_x^T v (`adjoint`). Given a cotangent u of ā, the second derivative needs z = J_a u + J_x z; then
the cotangents of (a, x*) are those of <v, J_a u + J_x z> (a Hessian-vector product of <v, F>), and g's is z.
Both iterations start where autograd's do and stop by the same test, so the values are autograd's.
"""

import functools
import weakref

import numpy as np

from ..custom import custom_vjp
from ..frontend.source import define

__all__ = ["fixed_point"]
_MADE = weakref.WeakKeyDictionary()      # f -> (applied(a, x) = f(a)(x), paired(a, x, v) = <v, f(a)(x)>)
MAX_ITERATIONS = 100_000


@functools.partial(custom_vjp, nondiff_argnums=(0, 3, 4))
def fixed_point(f, a, x0, distance, tol):
    """x = f(a)(x), iterated from x0 until distance(new x, x) < tol (for scalars or arrays x)."""
    step = f(a)
    x, previous = step(x0), x0
    for _ in range(MAX_ITERATIONS):
        if distance(x, previous) < tol:
            return x
        x, previous = step(x), x
    raise RuntimeError(f"fixed_point did not converge to tol={tol} in {MAX_ITERATIONS} iterations")


def _iterate(step, start, distance, tol, what):
    """The fixed point of step from start, to tolerance tol (autograd's stopping test)."""
    v = start
    for _ in range(MAX_ITERATIONS):
        new = step(v)
        if distance(new, v) < tol:
            return new
        v = new
    raise RuntimeError(f"fixed_point's {what} did not converge to tol={tol}")


def _like(g, x):
    """The cotangent g as x's kind of value (g may arrive as a number standing for an array)."""
    return np.broadcast_to(g, x.shape).astype(x.dtype) if isinstance(x, np.ndarray) else g


@functools.partial(custom_vjp, nondiff_argnums=(0, 1, 2))
def adjoint(f, distance, tol, a, x, g):
    """ā = J_a^T v with v = g + J_x^T v: the cotangent of `a` that fixed_point's backward pass returns."""
    return _adjoint(f, distance, tol, a, x, g)[0]


def _adjoint(f, distance, tol, a, x, g):
    from ..pullback import vjp
    _, pullback = vjp(_made(f)[0], a, x)
    g = _like(g, x)
    v = _iterate(lambda v: g + pullback(v)[1], np.zeros_like(g), distance, tol, "backward pass")
    return pullback(v)[0], v


def _adjoint_fwd(f, distance, tol, a, x, g):
    abar, v = _adjoint(f, distance, tol, a, x, g)
    return abar, (a, x, v)


def _adjoint_bwd(f, distance, tol, res, u):
    from ..api import grad
    from ..forward_api import jvp
    a, x, v = res
    applied, paired = _made(f)
    z = _iterate(lambda z: jvp(applied, (a, x), (u, z))[1], np.zeros_like(v), distance, tol,
                 "second-order tangent")
    cot_a, cot_x = jvp(grad(paired, argnums=(0, 1)), (a, x, v), (u, z, None))[1]
    return cot_a, cot_x, z


adjoint.defvjp(_adjoint_fwd, _adjoint_bwd)


def _made(f):
    """(applied, paired) for f, from registered source in a namespace of their own, so that adsrc
    differentiates them like the user's code; one pair per f (so their derivatives are transformed once)."""
    try:
        made = _MADE.get(f)
    except TypeError:           # not weakly referable
        made = None
    if made is None:
        made = _make(f)
        try:
            _MADE[f] = made
        except TypeError:
            pass
    return made


def _make(f):
    namespace = {"__name__": "adsrc_fixed_point", "f": f, "np": np}
    applied = define("def applied(a, x):\n    return f(a)(x)\n", "applied", namespace, "fixed_point")
    paired = define("def paired(a, x, v):\n    return np.sum(v * f(a)(x))\n", "paired", namespace, "fixed_point")
    return applied, paired


# the rules of fixed_point, as source adsrc reads (so that a gradient of fixed_point can be differentiated
# again): forward, the fixed point itself (its own rule differentiates it); backward, `adjoint` (its rule
# gives the second derivative)
_RULES = {"__name__": "adsrc_fixed_point", "fixed_point": fixed_point, "adjoint": adjoint}
_fwd = define("def fixed_point_fwd(f, a, x0, distance, tol):\n"
              "    x = fixed_point(f, a, x0, distance, tol)\n"
              "    return x, (a, x)\n", "fixed_point_fwd", _RULES, "fixed_point")
_bwd = define("def fixed_point_bwd(f, distance, tol, res, g):\n"
              "    a, x = res\n"
              "    return adjoint(f, distance, tol, a, x, g), None\n", "fixed_point_bwd", _RULES, "fixed_point")
fixed_point.defvjp(_fwd, _bwd)


def _applied(f):
    """applied(a, x) = f(a)(x) for f (made once per f)."""
    return _made(f)[0]
