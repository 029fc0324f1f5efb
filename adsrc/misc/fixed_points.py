"""autograd's `fixed_point(f, a, x0, distance, tol)`, differentiable with respect to `a` by the implicit
function theorem: the backward pass iterates the adjoint equation `v = g + v J_x` to the same tolerance
instead of going back through the forward iterations (which it never keeps).

    def newton_sqrt_iter(a):
        return lambda x: 0.5 * (x + a / x)

    def sqrt(a):
        return fixed_point(newton_sqrt_iter, a, 10.0, lambda x, y: np.abs(x - y), 1e-10)

    adsrc.grad(sqrt)(2.0)          # 1 / (2 sqrt(2))
"""

import weakref

import numpy as np

from ..custom import custom_vjp
from ..frontend.source import define

__all__ = ["fixed_point"]
_APPLIED = weakref.WeakKeyDictionary()      # f -> applied(a, x) = f(a)(x)
MAX_ITERATIONS = 100_000


@custom_vjp
def fixed_point(f, a, x0, distance, tol):
    """x = f(a)(x), iterated from x0 until distance(new x, x) < tol (for scalars or arrays x)."""
    step = f(a)
    x, previous = step(x0), x0
    for _ in range(MAX_ITERATIONS):
        if distance(x, previous) < tol:
            return x
        x, previous = step(x), x
    raise RuntimeError(f"fixed_point did not converge to tol={tol} in {MAX_ITERATIONS} iterations")


def _fixed_point_fwd(f, a, x0, distance, tol):
    x = fixed_point.fun(f, a, x0, distance, tol)
    return x, (f, a, x, distance, tol)


def _fixed_point_bwd(res, g):
    from ..pullback import vjp
    f, a, x, distance, tol = res
    _, pullback = vjp(_applied(f), a, x)
    if isinstance(x, np.ndarray):
        g = np.broadcast_to(g, x.shape).astype(x.dtype)       # g may arrive as a number standing for it
    v = g
    for _ in range(MAX_ITERATIONS):
        new = g + pullback(v)[1]
        if distance(new, v) < tol:
            v = new
            break
        v = new
    else:
        raise RuntimeError(f"fixed_point's backward pass did not converge to tol={tol}")
    return None, pullback(v)[0], None, None, None


fixed_point.defvjp(_fixed_point_fwd, _fixed_point_bwd)


def _applied(f):
    """`applied(a, x) = f(a)(x)`, from registered source in a namespace of its own, so that adsrc
    differentiates it like the user's code; one per f (so its vjp is transformed once)."""
    try:
        made = _APPLIED.get(f)
    except TypeError:           # not weakly referable
        made = None
    if made is None:
        made = _make_applied(f)
        try:
            _APPLIED[f] = made
        except TypeError:
            pass
    return made


def _make_applied(f):
    source = "def applied(a, x):\n    return f(a)(x)\n"
    return define(source, "applied", {"__name__": "adsrc_fixed_point", "f": f}, "fixed_point")
