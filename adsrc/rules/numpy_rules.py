"""Derivative rules for NumPy functions, one line per function.

Template names: the parameters in the signature, `g` (the output
cotangent) and `ans` (the output). Helpers such as `expand_to` live in
`helpers.py`; `unbroadcast` is applied automatically to elementwise rules.
"""

import numpy as np

from . import NOT_STATIC, elementwise, general, nondiff

# -- elementwise, one argument -----------------------------------------------------------------
UNARY = {
    np.negative: "-g",
    np.positive: "g",
    np.exp: "g * ans",
    np.exp2: "g * ans * 0.6931471805599453",
    np.expm1: "g * (ans + 1.0)",
    np.log: "g / x",
    np.log2: "g / (x * 0.6931471805599453)",
    np.log10: "g / (x * 2.302585092994046)",
    np.log1p: "g / (1.0 + x)",
    np.sqrt: "g * 0.5 / ans",
    np.cbrt: "g / (3.0 * ans * ans)",
    np.square: "g * 2.0 * x",
    np.reciprocal: "-g * ans * ans",
    np.sin: "g * np.cos(x)",
    np.cos: "-g * np.sin(x)",
    np.tan: "g * (1.0 + ans * ans)",
    np.arcsin: "g / np.sqrt(1.0 - x * x)",
    np.arccos: "-g / np.sqrt(1.0 - x * x)",
    np.arctan: "g / (1.0 + x * x)",
    np.sinh: "g * np.cosh(x)",
    np.cosh: "g * np.sinh(x)",
    np.tanh: "g * (1.0 - ans * ans)",
    np.arcsinh: "g / np.sqrt(x * x + 1.0)",
    np.arccosh: "g / np.sqrt(x * x - 1.0)",
    np.arctanh: "g / (1.0 - x * x)",
    np.absolute: "g * np.sign(x)",
    np.fabs: "g * np.sign(x)",
    np.deg2rad: "g * 0.017453292519943295",
    np.rad2deg: "g * 57.29577951308232",
    np.sinc: "g * sinc_deriv(x)",
    np.conjugate: "np.conjugate(g)",
    np.real: "np.real(g)",
}
for _fn, _t in UNARY.items():
    elementwise(_fn, "np." + _fn.__name__, _t)
elementwise(np.radians, "np.radians", UNARY[np.deg2rad])
elementwise(np.degrees, "np.degrees", UNARY[np.rad2deg])

# -- elementwise, two arguments (summed back over broadcast axes automatically) ------------------
BINARY = {
    np.add: ("g", "g"),
    np.subtract: ("g", "-g"),
    np.multiply: ("g * y", "g * x"),
    np.true_divide: ("g / y", "-g * ans / y"),
    np.float_power: ("power_dx(g, x, y)", "power_dy(g, x, ans)"),
    np.mod: ("g", "-g * np.floor_divide(x, y)"),
    np.fmod: ("g", "-g * np.trunc(x / y)"),
    np.maximum: ("g * (x >= y)", "g * (x < y)"),
    np.minimum: ("g * (x <= y)", "g * (x > y)"),
    np.fmax: ("g * (x >= y)", "g * (x < y)"),
    np.fmin: ("g * (x <= y)", "g * (x > y)"),
    np.logaddexp: ("g * np.exp(x - ans)", "g * np.exp(y - ans)"),
    np.logaddexp2: ("g * np.exp2(x - ans)", "g * np.exp2(y - ans)"),
    np.hypot: ("g * x / ans", "g * y / ans"),
    np.copysign: ("g * np.sign(x) * np.sign(ans)", None),
}
for _fn, (_tx, _ty) in BINARY.items():
    elementwise(_fn, "np." + _fn.__name__, _tx, _ty)


def _power_x(y=NOT_STATIC, **_):
    """x ** c for a constant c needs no helper."""
    if y is NOT_STATIC or not isinstance(y, (int, float)) or y == 0:
        return "power_dx(g, x, y)"
    if y == 1:
        return "g"
    if y == 2:
        return "g * 2.0 * x"
    return f"g * {float(y)!r} * x ** {float(y - 1)!r}"


elementwise(np.power, "np.power", _power_x, "power_dy(g, x, ans)")
# arctan2(x1, x2) = arctan(x1 / x2)
elementwise(np.arctan2, "np.arctan2", "g * y / (x * x + y * y)", "-g * x / (x * x + y * y)")
elementwise(np.where, "np.where", None, "np.where(condition, g, 0.0)", "np.where(condition, 0.0, g)",
            signature="condition, x, y, /")
elementwise(np.clip, "np.clip", "g * clip_mask(a, a_min, a_max)", None, None,
            signature="a, a_min=None, a_max=None")

# -- reductions ---------------------------------------------------------------------------------


def _full_reduction(axis=NOT_STATIC, keepdims=False, **_):
    return axis is None and keepdims is False


def _sum(axis=NOT_STATIC, keepdims=False, **_):
    return "g" if _full_reduction(axis, keepdims) else "expand_to(g, a, axis, keepdims)"


def _mean(axis=NOT_STATIC, keepdims=False, **_):
    return "g / np.size(a)" if _full_reduction(axis, keepdims) else "mean_vjp(g, a, axis, keepdims)"


_RED = "a, axis=None, dtype=None, out=None, keepdims=False"
general(np.sum, "np.sum", "a, axis=None, dtype=None, keepdims=False", lazy=True,
        scalar_out=_full_reduction, a=_sum)
general(np.mean, "np.mean", "a, axis=None, dtype=None, keepdims=False", lazy=True,
        scalar_out=_full_reduction, a=_mean)
general(np.prod, "np.prod", "a, axis=None, dtype=None, keepdims=False", lazy=True,
        scalar_out=_full_reduction, a="prod_vjp(g, a, ans, axis, keepdims)")
for _fn in (np.max, np.min, np.amax, np.amin):
    general(_fn, "np." + _fn.__name__, "a, axis=None, keepdims=False", lazy=True,
            scalar_out=_full_reduction, a="extremum_vjp(g, a, ans, axis, keepdims)")
general(np.var, "np.var", "a, axis=None, dtype=None, ddof=0, keepdims=False",
        scalar_out=_full_reduction, a="var_vjp(g, a, axis, ddof, keepdims)")
general(np.std, "np.std", "a, axis=None, dtype=None, ddof=0, keepdims=False",
        scalar_out=_full_reduction, a="std_vjp(g, a, ans, axis, ddof, keepdims)")
general(np.cumsum, "np.cumsum", "a, axis=None", a="cumsum_vjp(g, a, axis)")
general(np.cumprod, "np.cumprod", "a, axis=None", a="cumprod_vjp(g, a, ans, axis)")

# -- products -------------------------------------------------------------------------------------
general(np.matmul, "np.matmul", "x, y, /", x="matmul_dx(g, x, y)", y="matmul_dy(g, x, y)")
general(np.dot, "np.dot", "a, b", a="dot_dx(g, a, b)", b="dot_dy(g, a, b)")
general(np.inner, "np.inner", "a, b, /", a="inner_dx(g, a, b)", b="inner_dy(g, a, b)")
general(np.outer, "np.outer", "a, b", a="outer_dx(g, a, b)", b="outer_dy(g, a, b)")
general(np.vdot, "np.vdot", "a, b, /", scalar_out=lambda **_: True,
        a="np.reshape(g * np.conjugate(np.ravel(b)), np.shape(a))",
        b="np.reshape(g * np.ravel(a), np.shape(b))")
general(np.tensordot, "np.tensordot", "a, b, axes=2", a="tensordot_dx(g, a, b, axes)",
        b="tensordot_dy(g, a, b, axes)")

# -- shapes ---------------------------------------------------------------------------------------
general(np.reshape, "np.reshape", "a, newshape=None, order='C', *, shape=None", a="reshape_like(g, a)")
general(np.ravel, "np.ravel", "a, order='C'", a="reshape_like(g, a)")
general(np.squeeze, "np.squeeze", "a, axis=None", a="reshape_like(g, a)")
general(np.expand_dims, "np.expand_dims", "a, axis", a="reshape_like(g, a)")
general(np.transpose, "np.transpose", "a, axes=None", a="transpose_vjp(g, axes)")
general(np.concatenate, "np.concatenate", "arrays, axis=0", arrays="split_cot(g, arrays, axis)")
general(np.stack, "np.stack", "arrays, axis=0", arrays="unstack_axis(g, arrays, axis)")
general(np.array, "np.array", "object, dtype=None", object="array_cot(g, object)")
general(np.asarray, "np.asarray", "a, dtype=None", a="array_cot(g, a)")
general(np.broadcast_to, "np.broadcast_to", "array, shape", array="unbroadcast(g, array, ans)")
general(np.full, "np.full", "shape, fill_value, dtype=None", fill_value="np.sum(g)")
general(np.full_like, "np.full_like", "a, fill_value, dtype=None", fill_value="np.sum(g)")

# -- never differentiated ----------------------------------------------------------------------------
for _fn in (np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like, np.empty_like, np.arange,
            np.linspace, np.eye, np.identity, np.sign, np.floor, np.ceil, np.round, np.rint, np.trunc,
            np.fix, np.argmax, np.argmin, np.argsort, np.nonzero, np.flatnonzero, np.isnan, np.isinf,
            np.isfinite, np.shape, np.ndim, np.size, np.floor_divide, np.greater, np.greater_equal,
            np.less, np.less_equal, np.equal, np.not_equal, np.logical_and, np.logical_or,
            np.logical_not, np.logical_xor, np.all, np.any, np.count_nonzero, np.allclose,
            np.isclose, np.array_equal, np.searchsorted, np.digitize, np.bincount, np.unique,
            np.random.rand, np.random.randn, np.random.normal, np.random.uniform,
            np.random.default_rng, np.result_type, np.promote_types, np.dtype, np.iscomplexobj,
            np.isscalar, np.broadcast_shapes, np.indices, np.meshgrid, np.tri, np.heaviside):
    nondiff(_fn, "np." + getattr(_fn, "__name__", str(_fn)))
