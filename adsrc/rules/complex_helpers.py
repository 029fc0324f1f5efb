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

import inspect
import linecache

import numpy as np

from ..errors import TransformError
from ..runtime import helper, is_zero
from . import FUNCTIONS, elementwise, general


@helper
def real_only(contrib, name, *args):
    """The contribution of a rule that is not complex-ready, after checking that its arguments are real."""
    for a in args:
        if _has_complex(a):
            raise TransformError(
                f"adsrc's derivative rule for {name} is not written for complex arguments, and a complex value "
                "reached it. adsrc refuses rather than return a gradient under an undefined convention. Give "
                "that computation a complex-ready rule with adsrc.defvjp (JAX's convention: for a real loss L "
                "of z = x + iy the gradient is dL/dx - i dL/dy), or split it into real and imaginary parts.")
    return contrib


def _has_complex(a):
    if isinstance(a, (tuple, list)):
        return any(_has_complex(v) for v in a)
    if isinstance(a, dict):
        return any(_has_complex(v) for v in a.values())
    return isinstance(a, (complex, np.complexfloating)) or (isinstance(a, np.ndarray) and a.dtype.kind == "c")


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
def sign_cot(g, x, ans):
    """Cotangent of x in sign(x): none for a real x (piecewise constant); for a complex x, sign(x) = x / |x|
    (NumPy 2), whose cotangent is (g - conj(g) conj(sign(x))^2) / (2 |x|) (0 at x = 0)."""
    if not np.iscomplexobj(x):
        return 0.0
    r = np.abs(x)
    safe = np.where(r == 0, 1.0, r)
    return np.where(r == 0, 0.0, (g - np.conjugate(g) * np.conjugate(ans) ** 2) / (2 * safe))


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
def nan_to_num_fill_cot(g, x, which):
    """The cotangent of the value nan_to_num puts in place of NaN (which=0), +inf (1) or -inf (2): g where it
    did (in the real and imaginary parts of complex values separately)."""
    test = (np.isnan, np.isposinf, np.isneginf)[which]
    if np.iscomplexobj(x):
        return np.real(g) * test(np.real(x)) + np.imag(g) * test(np.imag(x))
    return g * test(x)


@helper
def nan_to_num_cot(g, x):
    """nan_to_num replaces non-finite values by constants; a complex value's real and imaginary parts
    separately: the cotangent is Re(g) [Re x finite] + i Im(g) [Im x finite]."""
    if np.iscomplexobj(x):
        return np.real(g) * np.isfinite(np.real(x)) + 1j * np.imag(g) * np.isfinite(np.imag(x))
    return g * np.isfinite(x)


@helper
def real_if_close_cot(g, a, ans):
    """Cotangent of a in np.real_if_close(a): Re(g) when the result dropped the imaginary parts."""
    if np.iscomplexobj(a) and not np.iscomplexobj(ans):
        return _real(g)
    return g


@helper
def real_like(contrib, x):
    """The contribution to x, real when x is real (its cotangent's imaginary part means nothing)."""
    if not np.iscomplexobj(x) and np.iscomplexobj(contrib):
        return np.real(contrib)
    return contrib


def _projecting(pname, text, params):
    """A template for pname that takes the real part when another operand is a complex literal (1j * x)."""
    def template(**static):
        if any(isinstance(static.get(q), complex) for q in params if q != pname):
            return f"real_like({text}, {pname})"
        return text
    template.forward = text      # J t needs no projection: a real tangent times 1j is the tangent of 1j x
    return template


def _mixing_rules():
    """Arithmetic with a complex literal makes a complex value from a real one: project its cotangent."""
    for fn in (np.add, np.subtract, np.multiply, np.true_divide):
        rule = FUNCTIONS[fn]
        for pname in list(dict.keys(rule.vjps)):
            text = dict.__getitem__(rule.vjps, pname)
            if isinstance(text, str):
                rule.vjps[pname] = _projecting(pname, text, rule.param_names)


# -- rules ---------------------------------------------------------------------------------------------
for _fn, _name in ((np.absolute, "np.absolute"), (np.fabs, "np.fabs")):
    elementwise(_fn, _name, "abs_cot(g, x, ans)")
if np.lib.NumpyVersion(np.__version__) >= "2.0.0":        # sign(z) = z / |z| (before: the sign of its real part)
    elementwise(np.sign, "np.sign", "sign_cot(g, x, ans)")
elementwise(np.real, "np.real", "real_cot(g, val)", signature="val")
elementwise(np.imag, "np.imag", "imag_cot(g, val)", signature="val")
elementwise(np.angle, "np.angle", "angle_cot(g, z, deg)", signature="z, deg=False")
general(np.real_if_close, "np.real_if_close", "a, tol=100", a="real_if_close_cot(g, a, ans)")

_mixing_rules()


# -- products and joins of real and complex arrays ----------------------------------------------------------
# Helper name -> which of its arguments the cotangent it returns is for (a complex result for a real
# argument is projected to its real part, so that buffers of real cotangents stay real).
_FOR_ARG = {
    "matmul_dx": lambda a: a[1], "matmul_dy": lambda a: a[2], "dot_dx": lambda a: a[1], "dot_dy": lambda a: a[2],
    "inner_dx": lambda a: a[1], "inner_dy": lambda a: a[2], "outer_dx": lambda a: a[1],
    "outer_dy": lambda a: a[2], "tensordot_dx": lambda a: a[1], "tensordot_dy": lambda a: a[2],
    "kron_vjp": lambda a: a[1 + a[3]], "einsum_vjp": lambda a: [o for o in a[2] if o is not None][a[3]],
    "einsum_any_vjp": lambda a: a[1][a[2]], "cross_any_vjp": lambda a: a[1 + a[7]],
    "convolve_vjp": lambda a: a[1 + a[4]], "matvec_vjp": lambda a: a[1 + a[3]],
    "solve_vjp": lambda a: a[1 + a[4]], "polyval_vjp": lambda a: a[1 + a[3]],
    "append_vjp": lambda a: a[1 + a[4]],
}
# helper name -> the argument holding the list of arrays whose cotangents it returns
_FOR_PIECES = {"split_cot": 1, "unstack_axis": 1, "hstack_cot": 1, "vstack_cot": 1, "dstack_cot": 1,
               "column_stack_cot": 1, "multi_dot_vjp": 1, "array_cot": 1}


def _project_tree(c, x):
    if isinstance(c, list) and isinstance(x, (list, tuple)):
        return [_project_tree(ci, xi) for ci, xi in zip(c, x)]
    return real_like(c, x)


_WRAPPER = """def _make(_fn, _target):
    def {name}({params}):
        out = _fn({params})
        if type(out) is np.ndarray and out.dtype.kind != "c" or type(out) is float:
            return out          # real: nothing to project (the common case, kept cheap)
        return _project_tree(out, _target(({params},)))
    return {name}
"""


def _projected(fn, target):
    """fn, its result projected to real where its argument is real. The wrapper has fn's own parameters
    when they are plain, else `*args` (its source is registered like a file's; fn and target are its
    closure): with fn's own parameters, the forward code adsrc
    derives from it for higher order then packs the arguments, and makes zero tangents for the others,
    only when it must project."""
    params = list(inspect.signature(fn).parameters.values())
    plain = params and all(p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in params)
    source = _WRAPPER.format(name=fn.__name__, params=", ".join(p.name for p in params) if plain else "*args")
    filename = f"<adsrc projection of {fn.__name__}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    made = {}
    exec(compile(source, filename, "exec"), globals(), made)     # this module's globals: np, _project_tree
    wrapper = made["_make"](fn, target)
    wrapper.__doc__ = fn.__doc__
    return wrapper


def install_projections():
    """Wrap the helpers above in HELPERS (the names generated code calls)."""
    from ..runtime import HELPERS
    for name, target in _FOR_ARG.items():
        HELPERS[name] = _projected(HELPERS[name], target)
    for name, pos in _FOR_PIECES.items():
        HELPERS[name] = _projected(HELPERS[name], lambda a, pos=pos: a[pos])
