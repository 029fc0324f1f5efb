"""Complex numbers: the rules between complex and real values, and the refusal of the others.

The convention is JAX's (see `rules/__init__.py`): for a real-valued loss L of
z = x + iy, the gradient is dL/dx - i dL/dy, and a holomorphic function's rule
multiplies the cotangent by its derivative. For a function f from complex to
real values with real cotangent c, the cotangent of z is c (df/dx - i df/dy):

    |z|       c conj(z) / |z|
    real(z)   c
    imag(z)   -i c
    angle(z)  -i c / z          (angle = atan2(y, x))

The cotangent of a real value may carry a meaningless imaginary part (see
`rules/__init__.py`), so these rules take the real part of `g` first.
"""

import numpy as np

from ..errors import TransformError
from ..runtime import helper, is_zero
from . import elementwise, general


@helper
def real_only(contrib, name, *args):
    """The contribution of a rule that is not complex-ready, after checking that its arguments are real."""
    for a in args:
        if a is not None and np.iscomplexobj(a):
            raise TransformError(
                f"adsrc's derivative rule for {name} is not written for complex arguments, and a complex value "
                "reached it. adsrc refuses rather than return a gradient under an undefined convention. Give "
                "that computation a complex-ready rule with adsrc.defvjp (JAX's convention: for a real loss L "
                "of z = x + iy the gradient is dL/dx - i dL/dy), or split it into real and imaginary parts.")
    return contrib


def _real(g):
    """The real part of a cotangent (a meaningless imaginary part dropped), symbolic zeros kept."""
    return np.real(g) if np.iscomplexobj(g) else g


@helper
def abs_cot(g, x, ans):
    """Cotangent of x in |x|: g sign(x) for reals, Re(g) conj(x) / |x| for complex x (0 at x = 0)."""
    if not np.iscomplexobj(x):
        return g * np.sign(x)
    safe = np.where(ans == 0, 1.0, ans)
    return _real(g) * np.where(ans == 0, 0.0, np.conjugate(x) / safe)


@helper
def imag_cot(g, x):
    """Cotangent of x in imag(x): -i Re(g); none for a real x (imag(x) is then a constant 0)."""
    if not np.iscomplexobj(x):
        return 0.0
    return -1j * _real(g)


@helper
def real_cot(g, x):
    """Cotangent of x in real(x): Re(g) (a real value for a real x)."""
    return _real(g)


@helper
def angle_cot(g, z, deg):
    """Cotangent of z in angle(z) = atan2(imag z, real z): -i Re(g) / z (constant for a real z)."""
    if not np.iscomplexobj(z):
        return 0.0
    scale = 180.0 / np.pi if deg else 1.0
    safe = np.where(z == 0, 1.0, z)
    return np.where(z == 0, 0.0, -1j * scale * _real(g) / safe)


@helper
def real_if_close_cot(g, a, ans):
    """Cotangent of a in np.real_if_close(a): Re(g) when the result dropped the imaginary parts."""
    if np.iscomplexobj(a) and not np.iscomplexobj(ans):
        return _real(g)
    return g


@helper
def cast_to_cot(g, x, dtype):
    """Cotangent of x in a conversion to dtype: none for integers and booleans, Re(g) for complex to real."""
    if dtype is None:
        return g
    kind = np.dtype(dtype).kind
    if kind not in "fc":
        return 0.0
    if kind == "f" and not is_zero(g):
        return _real(g)
    return g


# -- rules ---------------------------------------------------------------------------------------------
for _fn, _name in ((np.absolute, "np.absolute"), (np.fabs, "np.fabs")):
    elementwise(_fn, _name, "abs_cot(g, x, ans)")
elementwise(np.real, "np.real", "real_cot(g, val)", signature="val")
elementwise(np.imag, "np.imag", "imag_cot(g, val)", signature="val")
elementwise(np.angle, "np.angle", "angle_cot(g, z, deg)", signature="z, deg=False")
general(np.real_if_close, "np.real_if_close", "a, tol=100", a="real_if_close_cot(g, a, ans)")

