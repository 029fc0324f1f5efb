"""Derivative rules for NumPy functions, one line per function, grouped by kind.

Template names: the parameters in the signature, `g` (the output
cotangent) and `ans` (the output). Helpers such as `expand_to` live in
`helpers.py`; `unbroadcast` is applied automatically to elementwise rules.
A general rule's template returns a cotangent of exactly its argument's
shape (`sum_like` sums a broadcast cotangent down to it), unless the rule is
`lazy`. np.linalg lives in `linalg_rules.py`.

Functions available only in newer NumPy versions are registered when present
(`_np("name")` is None otherwise).
"""

import numpy as np

from . import NOT_STATIC, elementwise, general, helpers, helpers_products, nondiff


def _np(name, module=np):
    return getattr(module, name, None)


def _always(**_):
    return True


# -- elementwise, one argument -----------------------------------------------------------------
UNARY = {
    np.negative: "-g",
    np.positive: "g",
    np.exp: "g * ans",
    np.exp2: "g * ans * 0.6931471805599453",           # d 2^x = 2^x ln 2
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
    np.deg2rad: "g * 0.017453292519943295",
    np.rad2deg: "g * 57.29577951308232",
    np.sinc: "g * sinc_deriv(x)",
    np.conjugate: "np.conjugate(g)",
}
for _fn, _t in UNARY.items():
    elementwise(_fn, "np." + _fn.__name__, _t)
elementwise(np.radians, "np.radians", UNARY[np.deg2rad])
elementwise(np.degrees, "np.degrees", UNARY[np.rad2deg])
# nan_to_num replaces non-finite values by constants (no `copy=False`: it would write into x)
# (the values put in place of NaN and infinities get the cotangent where they went)
elementwise(np.nan_to_num, "np.nan_to_num", "nan_to_num_cot(g, x)", "nan_to_num_fill_cot(g, x, 0)",
            "nan_to_num_fill_cot(g, x, 1)", "nan_to_num_fill_cot(g, x, 2)",
            signature="x, *, nan=0.0, posinf=None, neginf=None")
elementwise(np.copy, "np.copy", "g", signature="a, order='K'")

# -- elementwise, two arguments (summed back over broadcast axes automatically) ------------------
BINARY = {
    np.add: ("g", "g"),
    np.subtract: ("g", "-g"),
    np.multiply: ("g * y", "g * x"),
    np.true_divide: ("g / y", "-g * ans / y"),
    np.float_power: ("power_dx(g, x, y)", "power_dy(g, x, ans)"),
    np.mod: ("g", "-g * np.floor_divide(x, y)"),               # x - floor(x / y) y
    np.fmod: ("g", "-g * np.trunc(x / y)"),                    # x - trunc(x / y) y
    # a tie shared evenly (as JAX and autograd, and as np.max does among equal elements)
    np.maximum: ("g * ((x > y) + 0.5 * (x == y))", "g * ((x < y) + 0.5 * (x == y))"),
    np.minimum: ("g * ((x < y) + 0.5 * (x == y))", "g * ((x > y) + 0.5 * (x == y))"),
    np.fmax: ("g * ((x > y) + 0.5 * (x == y) + np.isnan(y))", "g * ((x < y) + 0.5 * (x == y) + np.isnan(x))"),
    np.fmin: ("g * ((x < y) + 0.5 * (x == y) + np.isnan(y))", "g * ((x > y) + 0.5 * (x == y) + np.isnan(x))"),
    np.logaddexp: ("g * np.exp(x - ans)", "g * np.exp(y - ans)"),
    np.logaddexp2: ("g * np.exp2(x - ans)", "g * np.exp2(y - ans)"),
    np.hypot: ("g * x / ans", "g * y / ans"),
    np.copysign: ("g * np.sign(x) * np.sign(ans)", None),      # |x| sign(y): constant in y
    np.ldexp: ("g * np.ldexp(1.0, y)", None),                  # x 2^y, y an integer
    np.heaviside: (None, "g * (x == 0)"),                      # the value at x == 0 is y
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
# np.where(condition) alone returns index arrays (never differentiated)
elementwise(np.where, "np.where", None, "np.where(condition, g, 0.0)", "np.where(condition, 0.0, g)",
            signature="condition, x=None, y=None, /")
# clip(a, lo, hi) = minimum(maximum(a, lo), hi)
elementwise(np.clip, "np.clip", "g * clip_mask(a, a_min, a_max)", "g * clip_low_mask(a, a_min, a_max)",
            "g * clip_high_mask(a, a_min, a_max)", signature="a, a_min=None, a_max=None")

# -- elementwise with tuple outputs (g is a tuple of exact cotangents) -----------------------------
general(np.modf, "np.modf", "x, /", tuple_output=True, x="g[0]")                  # (x - trunc x, trunc x)
general(np.divmod, "np.divmod", "x, y, /", tuple_output=True, x="divmod_vjp(g, x, y, ans, 0)",
        y="divmod_vjp(g, x, y, ans, 1)")

# -- reductions ---------------------------------------------------------------------------------


def _full_reduction(axis=NOT_STATIC, keepdims=False, **_):
    return axis is None and keepdims is False


def _sum(axis=NOT_STATIC, keepdims=False, **_):
    return "g" if _full_reduction(axis, keepdims) else "expand_to(g, a, axis, keepdims)"


def _mean(axis=NOT_STATIC, keepdims=False, **_):
    return "g / np.size(a)" if _full_reduction(axis, keepdims) else "mean_vjp(g, a, axis, keepdims)"


_RED = "a, axis=None, dtype=None, out=None, keepdims=False"   # (NumPy's order; `out=buf` is an assignment: calls.py)
_VAR = "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False"
general(np.sum, "np.sum", _RED, lazy=True, scalar_out=_full_reduction, a=_sum)
general(np.mean, "np.mean", _RED, lazy=True, scalar_out=_full_reduction, a=_mean)
general(np.prod, "np.prod", _RED, lazy=True, scalar_out=_full_reduction, a="prod_vjp(g, a, ans, axis, keepdims)")
for _fn in (np.max, np.min, np.amax, np.amin, np.nanmax, np.nanmin):     # NaN never equals the extremum
    general(_fn, "np." + _fn.__name__, "a, axis=None, out=None, keepdims=False, *, initial=None", lazy=True,
            scalar_out=_full_reduction, a="extremum_vjp(g, a, ans, axis, keepdims)")
general(np.var, "np.var", _VAR, scalar_out=_full_reduction, a="var_vjp(g, a, axis, ddof, keepdims)")
general(np.std, "np.std", _VAR, scalar_out=_full_reduction, a="std_vjp(g, a, ans, axis, ddof, keepdims)")
general(np.ptp, "np.ptp", "a, axis=None, out=None, keepdims=False", scalar_out=_full_reduction,
        a="ptp_vjp(g, a, axis, keepdims)")
general(np.median, "np.median", "a, axis=None, out=None, overwrite_input=False, keepdims=False",
        scalar_out=_full_reduction,
        a="median_vjp(g, a, axis, keepdims)")
general(np.average, "np.average", "a, axis=None, weights=None, *, keepdims=False", scalar_out=_full_reduction,
        a="average_vjp(g, a, axis, weights, keepdims, 0)", weights="average_vjp(g, a, axis, weights, keepdims, 1)")
general(np.quantile, "np.quantile", "a, q, axis=None, *, keepdims=False",
        a="quantile_vjp(g, a, q, axis, keepdims, 1.0, 0)", q="quantile_vjp(g, a, q, axis, keepdims, 1.0, 1)")
general(np.percentile, "np.percentile", "a, q, axis=None, *, keepdims=False",
        a="quantile_vjp(g, a, q, axis, keepdims, 100.0, 0)", q="quantile_vjp(g, a, q, axis, keepdims, 100.0, 1)")
general(np.nansum, "np.nansum", _RED, lazy=True, scalar_out=_full_reduction, a="nansum_vjp(g, a, axis, keepdims)")
general(np.nanmean, "np.nanmean", _RED, lazy=True, scalar_out=_full_reduction,
        a="nanmean_vjp(g, a, axis, keepdims)")
general(np.nanprod, "np.nanprod", _RED, lazy=True, scalar_out=_full_reduction,
        a="nanprod_vjp(g, a, ans, axis, keepdims)")
general(np.nanvar, "np.nanvar", _VAR, scalar_out=_full_reduction, a="nanvar_vjp(g, a, axis, ddof, keepdims)")
general(np.nanstd, "np.nanstd", _VAR, scalar_out=_full_reduction, a="nanstd_vjp(g, a, ans, axis, ddof, keepdims)")

# -- cumulative and differences -----------------------------------------------------------------
general(np.cumsum, "np.cumsum", "a, axis=None, dtype=None", a="cumsum_vjp(g, a, axis)")
general(np.cumprod, "np.cumprod", "a, axis=None, dtype=None", a="cumprod_vjp(g, a, ans, axis)")
general(np.nancumsum, "np.nancumsum", "a, axis=None, dtype=None", a="nancumsum_vjp(g, a, axis)")
general(np.nancumprod, "np.nancumprod", "a, axis=None, dtype=None", a="nancumprod_vjp(g, a, ans, axis)")
if _np("cumulative_sum"):
    general(np.cumulative_sum, "np.cumulative_sum", "x, /, *, axis=None, dtype=None, include_initial=False",
            x="cumulative_vjp(g, x, ans, axis, include_initial, 'sum')")
    general(np.cumulative_prod, "np.cumulative_prod", "x, /, *, axis=None, dtype=None, include_initial=False",
            x="cumulative_vjp(g, x, ans, axis, include_initial, 'prod')")
general(np.diff, "np.diff", "a, n=1, axis=-1", a="diff_vjp(g, a, n, axis)")
if _np("trapezoid"):
    general(np.trapezoid, "np.trapezoid", "y, x=None, dx=1.0, axis=-1", y="trapezoid_vjp(g, y, x, dx, axis, 0)",
            x="trapezoid_vjp(g, y, x, dx, axis, 1)", dx="trapezoid_vjp(g, y, x, dx, axis, 2)")
general(np.convolve, "np.convolve", "a, v, mode='full'", a="convolve_vjp(g, a, v, mode, 0)",
        v="convolve_vjp(g, a, v, mode, 1)")
general(np.correlate, "np.correlate", "a, v, mode='valid'", a="correlate_vjp(g, a, v, mode, 0)",
        v="correlate_vjp(g, a, v, mode, 1)")

# -- products -------------------------------------------------------------------------------------
general(np.matmul, "np.matmul", "x, y, /", x="matmul_dx(g, x, y)", y="matmul_dy(g, x, y)")
general(np.dot, "np.dot", "a, b", a="dot_dx(g, a, b)", b="dot_dy(g, a, b)")
general(np.inner, "np.inner", "a, b, /", a="inner_dx(g, a, b)", b="inner_dy(g, a, b)")
general(np.outer, "np.outer", "a, b", a="outer_dx(g, a, b)", b="outer_dy(g, a, b)")
general(np.vdot, "np.vdot", "a, b, /", scalar_out=_always,
        a="np.reshape(np.conjugate(g * np.ravel(b)), np.shape(a))",        # vdot conjugates a
        b="np.reshape(g * np.conjugate(np.ravel(a)), np.shape(b))")
general(np.tensordot, "np.tensordot", "a, b, axes=2", a="tensordot_dx(g, a, b, axes)",
        b="tensordot_dy(g, a, b, axes)")
general(np.kron, "np.kron", "a, b", a="kron_vjp(g, a, b, 0)", b="kron_vjp(g, a, b, 1)")
general(np.cross, "np.cross", "a, b, axisa=-1, axisb=-1, axisc=-1, axis=None",
        a="cross_any_vjp(g, a, b, axisa, axisb, axisc, axis, 0)",
        b="cross_any_vjp(g, a, b, axisa, axisb, axisc, axis, 1)")
# einsum's arguments are parameters of their own, so each can be differentiated: the operands after a
# subscripts string (up to 15), or operands and sublists alternating (the sublist form, up to 7 operands)
_EINSUM_ARGS = ("subscripts",) + tuple(f"x{i}" for i in range(15))


def _einsum(k):
    def template(**static):
        given = ", ".join(o for o in _EINSUM_ARGS if static[o] is not None)
        return f"einsum_any_vjp(g, ({given},), {k})"
    return template


general(np.einsum, "np.einsum", ", ".join(_EINSUM_ARGS[:2]) + ", " + ", ".join(f"{o}=None" for o in _EINSUM_ARGS[2:])
        + ", /, *, optimize=False", **{o: _einsum(k) for k, o in enumerate(_EINSUM_ARGS)})
general(helpers.einsum_of, "einsum_of", "subscripts, operands", operands="einsum_operands_vjp(g, subscripts, operands)")
nondiff(helpers_products._einsum_labels, "einsum_labels")      # labels of shapes: a constant
nondiff(helpers.tensordot_plan, "tensordot_plan")
for _int in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.intp, np.bool_):
    nondiff(_int, f"np.{_int.__name__}")         # np.int64(x): integers (indices), no derivative
for _name, _vjp in (("vecdot", "vecdot_vjp(g, x1, x2, axis, {k})"), ("matvec", "matvec_vjp(g, x1, x2, {k})"),
                    ("vecmat", "vecmat_vjp(g, x1, x2, {k})")):
    if _np(_name):      # ufuncs of NumPy >= 2.0 / 2.2
        general(_np(_name), "np." + _name, "x1, x2, /" + (", *, axis=-1" if _name == "vecdot" else ""),
                x1=_vjp.format(k=0), x2=_vjp.format(k=1))
general(np.polyval, "np.polyval", "p, x", p="polyval_vjp(g, p, x, 0)", x="polyval_vjp(g, p, x, 1)")
general(np.interp, "np.interp", "x, xp, fp, left=None, right=None",
        x="interp_vjp(g, x, xp, fp, left, right, 0)", xp="interp_vjp(g, x, xp, fp, left, right, 1)",
        fp="interp_vjp(g, x, xp, fp, left, right, 2)", left="interp_vjp(g, x, xp, fp, left, right, 3)",
        right="interp_vjp(g, x, xp, fp, left, right, 4)")

# -- shapes ---------------------------------------------------------------------------------------
general(np.reshape, "np.reshape", "a, newshape=None, order='C', *, shape=None", a="reshape_like(g, a, order)")
general(np.ravel, "np.ravel", "a, order='C'", a="reshape_like(g, a, order)")
general(np.squeeze, "np.squeeze", "a, axis=None", a="reshape_like(g, a)")
general(np.expand_dims, "np.expand_dims", "a, axis", a="reshape_like(g, a)")
general(np.atleast_1d, "np.atleast_1d", "a, /", a="reshape_like(g, a)")
general(np.atleast_2d, "np.atleast_2d", "a, /", a="reshape_like(g, a)")
general(np.atleast_3d, "np.atleast_3d", "a, /", a="reshape_like(g, a)")
general(np.transpose, "np.transpose", "a, axes=None", a="transpose_vjp(g, axes)")
general(np.swapaxes, "np.swapaxes", "a, axis1, axis2", a="np.swapaxes(g, axis1, axis2)")
general(np.moveaxis, "np.moveaxis", "a, source, destination", a="np.moveaxis(g, destination, source)")
general(np.rollaxis, "np.rollaxis", "a, axis, start=0", a="rollaxis_vjp(g, a, axis, start)")
if _np("matrix_transpose"):
    general(np.matrix_transpose, "np.matrix_transpose", "x, /", x="np.swapaxes(g, -1, -2)")
general(np.broadcast_to, "np.broadcast_to", "array, shape", array="sum_like(g, array)")
general(np.broadcast_arrays, "np.broadcast_arrays", "x, y=None, z=None, /", tuple_output=True,
        x="sum_like_tuple(g, x, 0)", y="sum_like_tuple(g, y, 1)", z="sum_like_tuple(g, z, 2)")


def _copies(copy=True, **_):
    if copy is not True:
        raise TypeError("adsrc's rule for np.array supports only `copy=True` (a new array); for an array that "
                        "may be the argument itself, call np.asarray")


general(np.array, "np.array", "object, dtype=None, *, copy=True", check=_copies,
        object="array_cot(cast_cot(g, dtype), object)")
general(np.asarray, "np.asarray", "a, dtype=None", a="array_cot(cast_cot(g, dtype), a)")
general(np.asanyarray, "np.asanyarray", "a, dtype=None", a="array_cot(cast_cot(g, dtype), a)")
general(np.resize, "np.resize", "a, new_shape", a="resize_vjp(g, a, new_shape)")

# -- joining and splitting (a list argument gets a list of cotangents) -------------------------------
_CAST = "*, dtype=None, casting='same_kind'"      # NumPy >= 1.24
general(np.concatenate, "np.concatenate", f"arrays, axis=0, {_CAST}", arrays="cast_pieces(split_cot(g, arrays, axis), dtype)")
general(np.stack, "np.stack", f"arrays, axis=0, {_CAST}", arrays="cast_pieces(unstack_axis(g, arrays, axis), dtype)")
general(np.hstack, "np.hstack", f"tup, {_CAST}", tup="cast_pieces(hstack_cot(g, tup), dtype)")
general(np.vstack, "np.vstack", f"tup, {_CAST}", tup="cast_pieces(vstack_cot(g, tup), dtype)")
general(np.dstack, "np.dstack", "tup", tup="dstack_cot(g, tup)")
general(np.column_stack, "np.column_stack", "tup", tup="column_stack_cot(g, tup)")
general(np.append, "np.append", "arr, values, axis=None", arr="append_vjp(g, arr, values, axis, 0)",
        values="append_vjp(g, arr, values, axis, 1)")
general(np.split, "np.split", "ary, indices_or_sections, axis=0", tuple_output=True, ary="split_vjp(g, ary, axis)")
general(np.array_split, "np.array_split", "ary, indices_or_sections, axis=0", tuple_output=True,
        ary="split_vjp(g, ary, axis)")
general(np.hsplit, "np.hsplit", "ary, indices_or_sections", tuple_output=True, ary="hsplit_vjp(g, ary)")
general(np.vsplit, "np.vsplit", "ary, indices_or_sections", tuple_output=True, ary="split_vjp(g, ary, 0)")
general(np.dsplit, "np.dsplit", "ary, indices_or_sections", tuple_output=True, ary="split_vjp(g, ary, 2)")
if _np("unstack"):
    general(np.unstack, "np.unstack", "x, /, *, axis=0", tuple_output=True, x="np.stack(g, axis=axis)")

# -- rearranging ----------------------------------------------------------------------------------
general(np.flip, "np.flip", "m, axis=None", m="np.flip(g, axis)")
general(np.fliplr, "np.fliplr", "m", m="np.fliplr(g)")
general(np.flipud, "np.flipud", "m", m="np.flipud(g)")
general(np.roll, "np.roll", "a, shift, axis=None", a="roll_vjp(g, shift, axis)")
general(np.rot90, "np.rot90", "m, k=1, axes=(0, 1)", m="np.rot90(g, -k, axes)")
general(np.tile, "np.tile", "A, reps", A="tile_vjp(g, A, reps)")
general(np.repeat, "np.repeat", "a, repeats, axis=None", a="repeat_vjp(g, a, repeats, axis)")
general(np.pad, "np.pad", "array, pad_width, mode='constant', *, constant_values=0, stat_length=None",
        array="pad_any_vjp(g, array, pad_width, mode, stat_length)",
        constant_values="pad_value_vjp(g, array, pad_width, constant_values)")
general(np.sort, "np.sort", "a, axis=-1, kind=None", a="sort_vjp(g, a, axis)")
general(np.unique, "np.unique", "ar", ar="unique_vjp(g, ar)")        # the values only

# -- indexing and selecting ------------------------------------------------------------------------
general(np.take, "np.take", "a, indices, axis=None, mode='raise'", a="take_vjp(g, a, indices, axis, mode)")
general(np.take_along_axis, "np.take_along_axis", "arr, indices, axis=-1",
        arr="take_along_axis_vjp(g, arr, indices, axis)")
general(np.compress, "np.compress", "condition, a, axis=None", a="compress_vjp(g, condition, a, axis)")
general(np.extract, "np.extract", "condition, arr", arr="extract_vjp(g, condition, arr)")
general(np.delete, "np.delete", "arr, obj, axis=None", arr="delete_vjp(g, arr, obj, axis)")
general(np.select, "np.select", "condlist, choicelist, default=0",
        choicelist="select_vjp(g, condlist, choicelist)", default="select_default_vjp(g, condlist, default)")
general(np.bincount, "np.bincount", "x, /, weights=None, minlength=0", weights="g[x]")   # sum of weights per bin

# -- matrices: diagonals and triangles -------------------------------------------------------------
general(np.diag, "np.diag", "v, k=0", v="diag_vjp(g, v, k)")
general(np.diagflat, "np.diagflat", "v, k=0", v="np.reshape(np.diagonal(g, k), np.shape(v))")
general(np.diagonal, "np.diagonal", "a, offset=0, axis1=0, axis2=1", a="diagonal_vjp(g, a, offset, axis1, axis2)")
general(np.trace, "np.trace", "a, offset=0, axis1=0, axis2=1, dtype=None",
        a="trace_vjp(g, a, offset, axis1, axis2)")
general(np.triu, "np.triu", "m, k=0", m="np.triu(g, k)")
general(np.tril, "np.tril", "m, k=0", m="np.tril(g, k)")

# -- constructors whose values depend on float arguments -------------------------------------------
general(np.full, "np.full", "shape, fill_value, dtype=None", fill_value="sum_like(g, fill_value)")
general(np.full_like, "np.full_like", "a, fill_value, dtype=None", fill_value="sum_like(g, fill_value)")
general(np.linspace, "np.linspace", "start, stop, num=50, endpoint=True, dtype=None, axis=0",
        start="linspace_vjp(g, start, stop, num, endpoint, axis, 0)",
        stop="linspace_vjp(g, start, stop, num, endpoint, axis, 1)")
general(np.arange, "np.arange", "start, /, stop=None, step=None, *, dtype=None",
        start="arange_vjp(g, start, stop, step, 0)", step="arange_vjp(g, start, stop, step, 1)")
general(np.meshgrid, "np.meshgrid", "x, y=None, z=None, /, *, sparse=False, indexing='xy'",        # copies
        tuple_output=True, x="meshgrid_vjp(g, (x, y, z), 0, indexing)", y="meshgrid_vjp(g, (x, y, z), 1, indexing)",
        z="meshgrid_vjp(g, (x, y, z), 2, indexing)")
# a draw with float parameters, differentiated with the standard draw held fixed (pathwise)
general(np.random.normal, "np.random.normal", "loc=0.0, scale=1.0, size=None",
        loc="random_vjp(g, ans, loc, scale, 0, 'normal')", scale="random_vjp(g, ans, loc, scale, 1, 'normal')")
general(np.random.uniform, "np.random.uniform", "low=0.0, high=1.0, size=None",
        low="random_vjp(g, ans, low, high, 0, 'uniform')", high="random_vjp(g, ans, low, high, 1, 'uniform')")

# -- never differentiated: integer, boolean or shape results, or derivative zero wherever it exists --
_CONSTANT = [
    # constructors from shapes, and *_like (the values do not depend on the argument's values)
    np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like, np.empty_like, np.eye, np.identity, np.tri,
    np.indices,
    # piecewise constant: zero derivative except at jumps (np.sign too, for real values: complex_helpers.py)
    np.floor, np.ceil, np.round, np.around, np.rint, np.trunc, np.fix, np.floor_divide, np.spacing,
    # indices and positions
    np.argmax, np.argmin, np.nanargmax, np.nanargmin, np.argsort, np.argpartition, np.lexsort, np.nonzero,
    np.flatnonzero, np.argwhere, np.searchsorted, np.digitize, np.tril_indices, np.triu_indices,
    np.diag_indices, np.tril_indices_from, np.triu_indices_from, np.diag_indices_from, np.unravel_index,
    np.ravel_multi_index,
    # booleans and counts
    np.isnan, np.isinf, np.isfinite, np.isneginf, np.isposinf, np.signbit, np.isreal, np.iscomplex,
    np.greater, np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal, np.logical_and,
    np.logical_or, np.logical_not, np.logical_xor, np.all, np.any, np.count_nonzero, np.allclose, np.isclose,
    np.array_equal, np.array_equiv, np.isin,
    # shapes, types and random draws without float parameters
    np.shape, np.ndim, np.size, np.result_type, np.promote_types, np.dtype, np.iscomplexobj, np.isscalar,
    np.broadcast_shapes, np.can_cast, np.random.rand, np.random.randn, np.random.default_rng,
]
for _fn in _CONSTANT:
    _mod = getattr(_fn, "__module__", None) or ""
    nondiff(_fn, ("np.random." if _mod.startswith("numpy.random") or _fn in (np.random.rand, np.random.randn)
                  else "np.") + getattr(_fn, "__name__", str(_fn)))
