"""numba versions of the helpers of the derivative rules (rules/helpers.py, rules/complex_helpers.py):
products, powers, reductions and reshapes, for numbers, vectors and matrices (see helpers.py)."""

import numpy as np
from numba import types
from .helper_cache import overload

from ..rules import complex_helpers
from ..rules import helpers as rule_helpers
from . import products, reductions
from .shapes import _array, _broadcast, _number


@overload(rule_helpers.matmul_dx)
def matmul_dx(g, x, y):
    """The cotangent of x in x @ y, for vectors and matrices (products.py: loops, numba's quickest to compile
    and run on small ones)."""
    if _array(x, 1) and _array(y, 1):
        return lambda g, x, y: g * y
    if not products.floats(g, x, y):
        return None
    dtype = products.result(g, y)
    if _array(x, 2) and _array(y, 1):
        return lambda g, x, y: products.outer(g, y, dtype)
    if _array(x, 2) and _array(y, 2):
        return lambda g, x, y: products.matmat(g, y.T, dtype)
    if _array(x, 1) and _array(y, 2):
        return lambda g, x, y: products.matvec(y, g, dtype)
    return None


@overload(rule_helpers.matmul_dy)
def matmul_dy(g, x, y):
    """The cotangent of y in x @ y, for vectors and matrices."""
    if _array(x, 1) and _array(y, 1):
        return lambda g, x, y: g * x
    if not products.floats(g, x, y):
        return None
    dtype = products.result(g, x)
    if _array(x, 2) and _array(y, 1):
        return lambda g, x, y: products.vecmat(g, x, dtype)
    if _array(x, 2) and _array(y, 2):
        return lambda g, x, y: products.matmat(x.T, g, dtype)
    if _array(x, 1) and _array(y, 2):
        return lambda g, x, y: products.outer(x, g, dtype)
    return None


@overload(rule_helpers.dot_dx)
def dot_dx(g, x, y):
    """The cotangent of x in np.dot(x, y): matmul's for vectors and matrices, a product for numbers."""
    if _number(x):
        return lambda g, x, y: np.sum(g * y)
    if _number(y):
        return lambda g, x, y: g * y
    return matmul_dx(g, x, y)


@overload(rule_helpers.dot_dy)
def dot_dy(g, x, y):
    if _number(y):
        return lambda g, x, y: np.sum(g * x)
    if _number(x):
        return lambda g, x, y: g * x
    return matmul_dy(g, x, y)


@overload(rule_helpers.power_dx)
def power_dx(g, x, y):
    """d x**y / dx = y x**(y-1), 0 where y == 0."""
    if _number(y):
        return lambda g, x, y: g * (y * np.power(x, y - 1.0)) if y != 0 else g * (0.0 * x)
    if _array(y):
        return lambda g, x, y: g * np.where(y == 0, 0.0, y * np.power(x, np.where(y == 0, 1.0, y - 1.0)))
    return None


@overload(rule_helpers.power_dy)
def power_dy(g, x, ans):
    """d x**y / dy = x**y log x, 0 where x == 0."""
    if _number(x):
        return lambda g, x, ans: g * (ans * np.log(x)) if x != 0 else g * (0.0 * ans)
    if _array(x):
        return lambda g, x, ans: g * np.where(x == 0, 0.0, ans * np.log(np.where(x == 0, 1.0, x)))
    return None


@overload(complex_helpers.abs_cot)
def abs_cot(g, x, ans):
    if _number(x) or (_array(x) and not isinstance(x.dtype, types.Complex)):
        return lambda g, x, ans: g * np.sign(x)
    return None


@overload(rule_helpers.expand_to)
def expand_to(g, x, axis, keepdims):
    """The cotangent of a reduction's input: g with the reduced axis put back (an array of x's rank)."""
    if _number(x):
        return lambda g, x, axis, keepdims: g
    if not _array(x):
        return None
    if _number(g):
        return lambda g, x, axis, keepdims: _broadcast(g, x)
    if _array(g, x.ndim):
        return lambda g, x, axis, keepdims: g
    if _array(g, x.ndim - 1) and isinstance(axis, types.Integer):
        return lambda g, x, axis, keepdims: np.expand_dims(g, axis if axis >= 0 else axis + x.ndim)
    return None


@overload(rule_helpers.mean_vjp)
def mean_vjp(g, x, axis, keepdims):
    if _number(x) or isinstance(axis, (types.NoneType, types.Omitted)):
        return lambda g, x, axis, keepdims: rule_helpers.expand_to(g, x, axis, keepdims) / np.asarray(x).size
    if isinstance(axis, types.Integer) and _array(x):
        return lambda g, x, axis, keepdims: rule_helpers.expand_to(g, x, axis, keepdims) / x.shape[axis]
    return None


@overload(rule_helpers.extremum_vjp)
def extremum_vjp(g, x, ans, axis, keepdims):
    """max/min over all elements: the cotangent shared equally among the extremal elements."""
    if _number(x):
        return lambda g, x, ans, axis, keepdims: g
    if _array(x) and isinstance(axis, (types.NoneType, types.Omitted)) and _number(g):
        def impl(g, x, ans, axis, keepdims):
            mask = (x == ans) * 1.0
            return g * mask / max(np.sum(mask), 1.0)        # (no extremal element: NaN, or initial=)
        return impl
    if _array(x, 1) and isinstance(axis, types.Integer) and (_number(g) or _array(g, 1)):
        def vector(g, x, ans, axis, keepdims):          # a vector along its one axis (keepdims: arrays of one)
            mask = (x == np.asarray(ans).ravel()[0]) * 1.0
            return np.asarray(g).ravel()[0] * mask / max(np.sum(mask), 1.0)
        return vector
    if _array(x, 2) and isinstance(axis, types.Integer) and _array(g) and _array(ans):
        def along(g, x, ans, axis, keepdims):       # along an axis of a matrix: ties shared in each line
            mask = (x == rule_helpers.expand_to(ans, x, axis, keepdims)) * 1.0
            count = np.maximum(reductions.axis_sum(mask, axis, True), 1.0)
            return rule_helpers.expand_to(g, x, axis, keepdims) * mask / count
        return along
    return None


@overload(rule_helpers.iterable_sum_cot)
def iterable_sum_cot(g, seq):
    if _array(seq):
        return lambda g, seq: _broadcast(g, seq)
    return None


@overload(rule_helpers.reshape_like)
def reshape_like(g, x, order="C"):
    if not (isinstance(order, (types.Omitted, types.NoneType)) or getattr(order, "literal_value", None) == "C"):
        return None
    if _number(x):
        return lambda g, x, order="C": np.sum(g)
    if _array(x) and _array(g):
        return lambda g, x, order="C": np.ascontiguousarray(g).reshape(x.shape)
    if _array(x) and _number(g):
        return lambda g, x, order="C": _broadcast(g, x)
    return None


@overload(rule_helpers.cast_cot)
def cast_cot(g, dtype):
    """The cotangent through `astype(dtype)`: g for a real dtype; none for integers and booleans (complex values
    are refused: their real part would be needed)."""
    target = getattr(dtype, "instance_type", None)      # np.float32 and the like: a class of numba numbers
    real_g = _number(g) or (_array(g) and not isinstance(g.dtype, types.Complex))
    if isinstance(target, types.Float) and real_g:
        return lambda g, dtype: g
    if isinstance(target, (types.Integer, types.Boolean)) and real_g:
        return lambda g, dtype: 0.0
    return None


@overload(rule_helpers.outer_dx)
def outer_dx(g, x, y):
    """np.outer(x, y) = ravel(x)[:, None] * ravel(y)[None, :]: the cotangent of x is g @ ravel(y)."""
    if _array(g, 2) and _array(x) and _array(y) and products.floats(g):
        dtype = products.result(g, y)
        return lambda g, x, y: products.matvec(g, np.ascontiguousarray(y).ravel(), dtype).reshape(x.shape)
    return None


@overload(rule_helpers.outer_dy)
def outer_dy(g, x, y):
    if _array(g, 2) and _array(x) and _array(y) and products.floats(g):
        dtype = products.result(g, x)
        return lambda g, x, y: products.vecmat(np.ascontiguousarray(x).ravel(), g, dtype).reshape(y.shape)
    return None


@overload(rule_helpers.cumsum_vjp)
def cumsum_vjp(g, x, axis):
    """The cotangent through np.cumsum over all elements (or a vector's one axis): the sums from the end."""
    if _array(g, 1) and _array(x) and (isinstance(axis, (types.NoneType, types.Omitted))
                                       or (x.ndim == 1 and isinstance(axis, types.Integer))):
        return lambda g, x, axis: np.ascontiguousarray(np.cumsum(g[::-1])[::-1]).reshape(x.shape)
    return None


@overload(rule_helpers.prod_vjp)
def prod_vjp(g, x, ans, axis, keepdims):
    """np.prod over all elements: each element's cotangent is g times the product of the others (exact with
    zeros: products from the left and from the right)."""
    if _number(x):
        return lambda g, x, ans, axis, keepdims: g
    if not (_array(x) and _number(g) and isinstance(axis, (types.NoneType, types.Omitted))):
        return None

    def impl(g, x, ans, axis, keepdims):
        flat = np.ascontiguousarray(x).ravel()
        out = np.empty(flat.size, dtype=np.float64)
        left = 1.0
        for i in range(flat.size):
            out[i] = left
            left *= flat[i]
        right = 1.0
        for i in range(flat.size - 1, -1, -1):
            out[i] *= right * g
            right *= flat[i]
        return out.reshape(x.shape)
    return impl


@overload(rule_helpers.sort_vjp)
def sort_vjp(g, x, axis):
    """np.sort of a vector permutes it: element j of the result is element perm[j] of x (a stable sort)."""
    if _array(g, 1) and _array(x, 1) and (isinstance(axis, (types.NoneType, types.Omitted, types.Integer))):
        def impl(g, x, axis):
            out = np.zeros(x.shape[0], dtype=g.dtype)
            out[np.argsort(x, kind="mergesort")] = g
            return out
        return impl
    return None


@overload(complex_helpers.real_only)
def real_only(contrib, name, *args):
    """A rule that is not written for complex values, on real ones: its contribution."""
    if any(isinstance(getattr(a, "dtype", a), types.Complex) for a in args):
        return None
    return lambda contrib, name, *args: contrib


@overload(rule_helpers.norm_vjp)
def norm_vjp(g, x, ans, ord, axis, keepdims):
    """np.linalg.norm(x) (the 2-norm of all elements): x / norm, times g."""
    nothing = (types.NoneType, types.Omitted)
    if _number(g) and _array(x) and isinstance(ord, nothing) and isinstance(axis, nothing):
        return lambda g, x, ans, ord, axis, keepdims: g * x / ans
    return None


def _none(v):
    return isinstance(v, (types.NoneType, types.Omitted)) or v is None


@overload(rule_helpers.clip_mask)
def clip_mask(x, lo, hi):
    """d np.clip(x, lo, hi) / dx (a bound of None: no bound), a tie at a bound shared evenly."""
    if not (_array(x) or _number(x)) or not (_none(lo) or _number(lo)) or not (_none(hi) or _number(hi)):
        return None
    if _none(lo) and _none(hi):
        return lambda x, lo, hi: np.ones(np.shape(x))
    if _none(lo):
        return lambda x, lo, hi: (x < hi) + 0.5 * (x == hi)
    if _none(hi):
        return lambda x, lo, hi: (x > lo) + 0.5 * (x == lo)
    return lambda x, lo, hi: ((x > lo) + 0.5 * (x == lo)) * ((np.maximum(x, lo) < hi) +
                                                             0.5 * (np.maximum(x, lo) == hi))


@overload(rule_helpers.clip_low_mask)
def clip_low_mask(x, lo, hi):
    """d np.clip(x, lo, hi) / d lo."""
    if not (_array(x) or _number(x)) or not _number(lo) or not (_none(hi) or _number(hi)):
        return None
    if _none(hi):
        return lambda x, lo, hi: (lo > x) + 0.5 * (lo == x)
    return lambda x, lo, hi: ((lo > x) + 0.5 * (lo == x)) * ((np.maximum(x, lo) < hi) +
                                                             0.5 * (np.maximum(x, lo) == hi))


@overload(rule_helpers.clip_high_mask)
def clip_high_mask(x, lo, hi):
    """d np.clip(x, lo, hi) / d hi."""
    if not (_array(x) or _number(x)) or not (_none(lo) or _number(lo)) or not _number(hi):
        return None
    if _none(lo):
        return lambda x, lo, hi: (hi < x) + 0.5 * (hi == x)
    return lambda x, lo, hi: (hi < np.maximum(x, lo)) + 0.5 * (hi == np.maximum(x, lo))


@overload(rule_helpers.diff_vjp)
def diff_vjp(g, x, n, axis):
    """np.diff of a vector, n times: dx_j = g_{j-1} - g_j (zero outside), applied n times."""
    if not (_array(g, 1) and _array(x, 1)):
        return None

    def impl(g, x, n, axis):
        out = g
        for _ in range(n):
            wider = np.zeros(out.shape[0] + 1, out.dtype)
            wider[1:] += out
            wider[:-1] -= out
            out = wider
        return out
    return impl


@overload(rule_helpers.diag_vjp)
def diag_vjp(g, v, k):
    """np.diag: from a vector (its cotangent: g's k-th diagonal) or of a matrix (g on the k-th diagonal)."""
    if _array(v, 1) and _array(g, 2):
        return lambda g, v, k: np.diag(g, k).copy()

    if _array(v, 2) and _array(g, 1):
        def impl(g, v, k):
            out = np.zeros(v.shape, g.dtype)
            for i in range(g.shape[0]):
                r, c = (i, i + k) if k >= 0 else (i - k, i)
                out[r, c] = g[i]
            return out
        return impl
    return None
