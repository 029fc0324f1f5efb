"""Helpers of the forward templates in jvp_more.py: NumPy reductions, orderings, cumulative products,
interpolation and the like (linear algebra and SciPy: jvp_linalg.py).

Each takes `g`, the tangent of one argument, and the primal values it needs, and returns the
tangent of the output (exactly its shape). Complex values: a holomorphic function's tangent is
J t; for a function from complex to real values it is the real directional derivative.

Reductions along axes (prod, max, var, median, norms...) read each input element into one output
element only, so their Jacobian is a diagonal of partial derivatives per reduced fiber: J t =
sum over the reduced axes of D * t with D the reverse rule's cotangent for g = ones. Reusing the
reverse helper keeps the conventions (ties shared equally, NaNs skipped, zeros exact) identical
in both modes; for a real output of a complex input the real part is the directional derivative
under JAX's convention (rules/__init__.py).
"""

import numpy as np

from ..runtime import helper, is_zero
from . import helpers as rev
from .helpers_reductions import _axis_last, _quantile_weights, expand_to
from .helpers_shapes import _pad_sources
from .numpy_more_helpers import index_concat_tags


class TangentTuple(tuple):
    """The tangent of a tuple output of a rule with several differentiable arguments: the per-argument
    templates are summed with `+`, which adds these item by item (a plain tuple would concatenate)."""

    def __add__(self, other):
        return TangentTuple(a + b for a, b in zip(self, other))

    __radd__ = __add__


def _shape_like(t, ans):
    """t (broadcastable to ans) with exactly ans's shape, real when ans is real."""
    if not np.iscomplexobj(ans) and np.iscomplexobj(t):
        t = np.real(t)
    if np.shape(t) != np.shape(ans):
        t = np.array(np.broadcast_to(t, np.shape(ans)))
    return t


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _fiber(g, d, ans, axis, keepdims):
    """sum of d * g over the reduced axes (None: all), shaped like ans (its real part for a real ans: d is then
    the cotangent of a real output, which pairs with a complex tangent by the real part)."""
    s = np.sum(np.asarray(d) * g, axis=_axis(axis), keepdims=bool(keepdims))
    if np.iscomplexobj(s) and not np.iscomplexobj(ans):
        s = np.real(s)
    return _shape_like(np.reshape(s, np.shape(ans)) if np.size(s) == np.size(ans) else s, ans)


def _ones(ans):
    return np.ones(np.shape(ans))


# -- reductions --------------------------------------------------------------------------------------------------

@helper
def prod_jvp(g, a, ans, axis, keepdims):
    return _fiber(g, rev.prod_vjp(_ones(ans), a, ans, axis, keepdims), ans, axis, keepdims)


@helper
def nanprod_jvp(g, a, ans, axis, keepdims):
    return _fiber(g, rev.nanprod_vjp(_ones(ans), a, ans, axis, keepdims), ans, axis, keepdims)


@helper
def extremum_jvp(g, a, ans, axis, keepdims):
    """max / min: the mean of the tangents at the extremal elements (ties shared as in reverse mode)."""
    return _fiber(g, rev.extremum_vjp(_ones(ans), a, ans, axis, keepdims), ans, axis, keepdims)


@helper
def ptp_jvp(g, a, ans, axis, keepdims):
    return _fiber(g, rev.ptp_vjp(_ones(ans), a, axis, keepdims), ans, axis, keepdims)


@helper
def var_jvp(g, a, ans, axis, ddof, keepdims, nan):
    d = (rev.nanvar_vjp if nan else rev.var_vjp)(_ones(ans), a, axis, ddof, keepdims)
    return _fiber(g, d, ans, axis, keepdims)


@helper
def std_jvp(g, a, ans, axis, ddof, keepdims, nan):
    d = (rev.nanstd_vjp if nan else rev.std_vjp)(_ones(ans), a, ans, axis, ddof, keepdims)
    return _fiber(g, d, ans, axis, keepdims)


@helper
def nansum_jvp(g, a, axis, keepdims):
    """NaNs of a are skipped, so their tangents are too (np.nansum of the tangent would add them)."""
    return np.sum(np.where(np.isnan(a), 0.0, g), axis=_axis(axis), keepdims=bool(keepdims))


@helper
def nanmean_jvp(g, a, ans, axis, keepdims):
    return _fiber(g, rev.nanmean_vjp(_ones(ans), a, axis, keepdims), ans, axis, keepdims)


@helper
def median_jvp(g, a, ans, axis, keepdims):
    return _fiber(g, rev.median_vjp(_ones(ans), a, axis, keepdims), ans, axis, keepdims)


@helper
def norm_jvp(g, x, ans, ord, axis, keepdims):
    """np.linalg.norm reduces over `axis` (None: all axes, as a vector or a 2-D matrix)."""
    return _fiber(g, rev.norm_vjp(_ones(ans), x, ans, ord, axis, keepdims), ans, axis, keepdims)


@helper
def vector_norm_jvp(g, x, ans, ord, axis, keepdims):
    return _fiber(g, rev.vector_norm_vjp(_ones(ans), x, ans, ord, axis, keepdims), ans, axis, keepdims)


@helper
def matrix_norm_jvp(g, x, ans, ord, keepdims):
    return _fiber(g, rev.matrix_norm_vjp(_ones(ans), x, ans, ord, keepdims), ans, (-2, -1), keepdims)


@helper
def average_jvp(g, a, axis, weights, keepdims, ans, k):
    """average = sum(w a) / sum(w) along axis: linear in a; d/dw = sum(dw (a - average)) / sum(w).
    Weights not of a's shape lie along the axes (1-D along an int axis), as np.average reads them."""
    a = np.asarray(a)
    if k == 0:
        return _shape_like(np.average(g, axis=axis, weights=weights, keepdims=bool(keepdims)), ans)
    w = np.asarray(weights)
    t = np.asarray(g)
    if w.shape != a.shape:          # weights along the axes (1-D along an int axis)
        shp = [1] * a.ndim
        for ax, n in zip(sorted(ax % a.ndim for ax in (axis if isinstance(axis, tuple) else (axis,))), w.shape):
            shp[ax] = n
        w, t = np.reshape(w, shp), np.reshape(t, shp)
    total = np.sum(np.broadcast_to(w, a.shape), axis=_axis(axis), keepdims=True)
    avg = np.sum(a * w, axis=_axis(axis), keepdims=True) / total
    s = np.sum(np.broadcast_to((a - avg) * t, a.shape) / total, axis=_axis(axis), keepdims=bool(keepdims))
    return _shape_like(np.reshape(s, np.shape(ans)), ans)


@helper
def quantile_jvp(g, a, q, axis, keepdims, ans, scale, k):
    """np.quantile / np.percentile (method 'linear'): fixed weights on the sorted values (stable order,
    as in reverse mode) for a; for q the slope between the two sorted values it falls between."""
    a = np.asarray(a, dtype=float)
    qs = np.asarray(q, dtype=float) / scale
    flat = _axis_last(a, axis)
    n = flat.shape[-1]
    w, dw = _quantile_weights(qs, n)
    order = np.argsort(flat, axis=-1, kind="stable")
    if k == 0:
        tflat = _axis_last(np.broadcast_to(g, a.shape), axis)
        out = np.tensordot(w, np.take_along_axis(tflat, order, axis=-1), axes=([-1], [-1]))
    else:
        srt = np.take_along_axis(flat, order, axis=-1)
        out = np.tensordot(dw * (np.asarray(g, dtype=float) / scale)[..., None], srt, axes=([-1], [-1]))
    return _shape_like(np.reshape(out, np.shape(ans)), ans)


# -- orderings ---------------------------------------------------------------------------------------------------

@helper
def sort_jvp(g, a, axis):
    """np.sort permutes: the tangents in the stable order of the values."""
    a = np.asarray(a)
    g = np.broadcast_to(g, a.shape)
    if axis is None:
        return np.ravel(g)[np.argsort(a, axis=None, kind="stable")]
    return np.take_along_axis(g, np.argsort(a, axis=axis, kind="stable"), axis=axis)


@helper
def partition_jvp(g, a, ans, axis):
    """np.partition moves a's elements: matched by rank (a stable sort of each), as in reverse mode."""
    a = np.asarray(a)
    g = np.broadcast_to(g, a.shape)
    if axis is None:
        a, g, axis = np.ravel(a), np.ravel(g), -1
    by_rank = np.take_along_axis(g, np.argsort(a, axis=axis, kind="stable"), axis=axis)
    out = np.zeros(np.shape(ans), dtype=np.result_type(g.dtype, float))
    np.put_along_axis(out, np.argsort(ans, axis=axis, kind="stable"), by_rank, axis=axis)
    return out


@helper
def unique_jvp(g, ar, ans):
    """np.unique(ar): each value's tangent is the mean of the tangents of the inputs equal to it
    (the transpose of the reverse rule, which shares the cotangent equally among them)."""
    _, inv, counts = np.unique(ar, return_inverse=True, return_counts=True)
    out = np.zeros(np.shape(ans), dtype=np.result_type(np.asarray(g).dtype, float))
    np.add.at(out, np.ravel(inv), np.ravel(np.broadcast_to(g, np.shape(ar))))
    return out / counts


# -- cumulative ---------------------------------------------------------------------------------------------------

def _cumprod_tangent(t, x, ans, axis):
    """Tangent of cumprod along an int axis: ans * cumsum(t / x) without zeros, else the recurrence
    y'_k = y'_{k-1} x_k + y_{k-1} t_k (exact with zeros)."""
    if np.all(x != 0):
        return ans * np.cumsum(t / x, axis=axis)
    xm, tm, am = (np.moveaxis(np.asarray(v), axis, 0) for v in (x, np.broadcast_to(t, np.shape(x)), ans))
    out = np.zeros(am.shape, dtype=np.result_type(tm.dtype, am.dtype, float))
    out[0] = tm[0]
    for k in range(1, out.shape[0]):
        out[k] = out[k - 1] * xm[k] + am[k - 1] * tm[k]
    return np.moveaxis(out, 0, axis)


@helper
def cumprod_jvp(g, a, ans, axis):
    a = np.asarray(a)
    if axis is None:
        return _cumprod_tangent(np.ravel(np.broadcast_to(g, a.shape)), np.ravel(a), ans, 0)
    return _cumprod_tangent(np.broadcast_to(g, a.shape), a, ans, axis)


@helper
def nancumprod_jvp(g, a, ans, axis):
    """NaNs count as ones with no tangent."""
    nan = np.isnan(a)
    return cumprod_jvp(np.where(nan, 0.0, g), np.where(nan, 1.0, a), ans, axis)


@helper
def nancumsum_jvp(g, a, axis):
    return np.cumsum(np.where(np.isnan(a), 0.0, g), axis=axis)


@helper
def cumulative_prod_jvp(g, x, ans, axis, include_initial):
    """np.cumulative_prod: cumprod with an optional leading 1 (whose tangent is 0)."""
    ax = 0 if axis is None else axis
    if not include_initial:
        return cumprod_jvp(g, x, ans, ax)
    rest = np.take(ans, np.arange(1, np.shape(ans)[ax]), axis=ax)
    t = cumprod_jvp(g, x, rest, ax)
    zero = np.zeros_like(np.take(t, [0], axis=ax))
    return np.concatenate([zero, t], axis=ax)


# -- element-wise outputs with several parts, constructors and draws -----------------------------------------------

@helper
def modf_jvp(g, ans):
    """modf(x) = (x - trunc x, trunc x)."""
    return TangentTuple((_shape_like(g, ans[0]), np.zeros(np.shape(ans[1]))))


@helper
def divmod_jvp(g, x, y, ans, k):
    """divmod(x, y) = (floor(x / y), x - floor(x / y) y): only the remainder has a tangent."""
    rem = g if k == 0 else -g * ans[0]
    return TangentTuple((np.zeros(np.shape(ans[0])), _shape_like(rem, ans[1])))


@helper
def full_jvp(g, ans):
    """np.full / np.full_like / x.fill(v): the tangent of the fill value everywhere (none for integers)."""
    if np.asarray(ans).dtype.kind not in "fc":
        return np.zeros(np.shape(ans))
    return np.array(np.broadcast_to(g, np.shape(ans)), dtype=np.result_type(g, ans))


@helper
def array_jvp(g, dtype, ans):
    """np.array / np.asarray / np.asanyarray(a, dtype): the tangents as an array of that dtype; a cast to
    integers or booleans has no tangent (zeros)."""
    if np.asarray(ans).dtype.kind not in "fc":
        return np.zeros(np.shape(ans))
    t = np.array(g)
    if np.iscomplexobj(t) and not np.iscomplexobj(ans):
        t = np.real(t)
    return _shape_like(t.astype(np.asarray(ans).dtype), ans)


@helper
def arange_jvp(g, stop, ans, k):
    """arange(start, stop, step)[i] = start + i step; arange(stop) does not depend on stop's value."""
    if k == 0:
        return np.zeros(np.shape(ans)) if stop is None else np.full(np.shape(ans), g, dtype=float)
    return g * np.arange(np.size(ans), dtype=float)


@helper
def random_jvp(g, ans, p, q, k, kind):
    """Pathwise: normal(loc=p, scale=q) = p + q z; uniform(low=p, high=q) = p + (q - p) u."""
    if kind == "normal":
        return _shape_like(g if k == 0 else g * (ans - p) / q, ans)
    u = (ans - p) / (np.asarray(q) - p)
    return _shape_like(g * (1.0 - u) if k == 0 else g * u, ans)


@helper
def multi_dot_jvp(g, arrays):
    """Product rule over the chained matrices (a zero tangent's term is skipped)."""
    parts = []
    for i, t in enumerate(g):
        if is_zero(t) or not np.any(t):
            continue
        parts.append(np.linalg.multi_dot([t if j == i else x for j, x in enumerate(arrays)]))
    if not parts:
        return np.zeros(np.shape(np.linalg.multi_dot(arrays)))
    return sum(parts[1:], parts[0])


# -- interpolation, polynomials, padding -----------------------------------------------------------------------------

@helper
def interp_jvp(g, x, xp, fp, left, right, ans, k):
    """np.interp (piecewise linear through (xp, fp)); k = 0: x, 1: xp, 2: fp, 3: left, 4: right."""
    x = np.asarray(x, dtype=float)
    xp = np.asarray(xp, dtype=float)
    fp = np.asarray(fp)
    below, above = x < xp[0], x > xp[-1]
    inside = ~(below | above)
    if k == 2:      # linear in fp (left / right fixed when given, else fp's end values)
        zero = None if left is None else 0.0
        return _shape_like(np.interp(x, xp, g, left=zero, right=None if right is None else 0.0), ans)
    if k == 3:
        return _shape_like(np.where(below, g, 0.0), ans)
    if k == 4:
        return _shape_like(np.where(above, g, 0.0), ans)
    j = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, len(xp) - 2)
    width = xp[j + 1] - xp[j]
    slope = (fp[j + 1] - fp[j]) / width
    if k == 0:
        return _shape_like(np.where(inside, slope * g, 0.0), ans)
    t = (x - xp[j]) / width
    g = np.asarray(g, dtype=float)
    return _shape_like(np.where(inside, slope * ((t - 1.0) * g[j] - t * g[j + 1]), 0.0), ans)


@helper
def pad_jvp(g, array, pad_width, mode, stat_length):
    """np.pad is linear in the array for the modes adsrc differentiates (copies, constants, means)."""
    if mode == "mean":
        return np.pad(g, pad_width, mode="mean", stat_length=stat_length)
    _pad_sources(np.shape(array), pad_width, mode)      # refuses the modes reverse mode refuses
    return np.pad(g, pad_width, mode=mode)


@helper
def pad_value_jvp(g, array, pad_width, ans):
    """The tangent of a scalar constant_values, in the padding."""
    if np.ndim(g) != 0:
        raise NotImplementedError("adsrc differentiates np.pad's constant_values only when it is a scalar")
    return np.pad(np.zeros(np.shape(array), dtype=np.result_type(g, float)), pad_width, constant_values=g)


@helper
def index_concat_jvp(g, which, items, k):
    """Tangent from item k of np.r_[items] / np.c_[items]: its tangents where its elements went (found
    with the imaginary tags of index_concat_vjp)."""
    tags = index_concat_tags(which, items, k)
    out = np.zeros(tags.shape, dtype=np.result_type(np.asarray(g).dtype, float))
    keep = tags > 0
    out[keep] = np.ravel(np.broadcast_to(g, np.shape(items[k])))[tags[keep] - 1]
    return out


@helper
def fiber_sum_jvp(g, d, ans, axis, keepdims):
    """sum(d * g) over the reduced axes, shaped like ans (used by SciPy's reductions)."""
    return _fiber(g, d, ans, axis, keepdims)


_ = expand_to
