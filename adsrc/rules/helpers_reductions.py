"""Helpers of the derivative rules of reductions (sums, means, products, extrema, variances,
cumulative and order statistics) and of broadcasting; the shared small utilities of the helper modules.

Each takes the output cotangent `g` and the primal values it needs, and returns the argument's cotangent
(registered for generated code by @helper; rules/helpers.py gathers them)."""

import numpy as np

from ..arrays import as_array, is_lazy, need_values
from ..runtime import helper


def _zeros(shape, g):
    """A zero buffer for cotangents like g: complex when g is (a float buffer would drop imaginary parts)."""
    return np.zeros(shape, dtype=complex if np.iscomplexobj(g) else float)


def _bincount(src, weights, n):
    """np.bincount with weights, for complex weights too."""
    if np.iscomplexobj(weights):
        return np.bincount(src, np.real(weights), n) + 1j * np.bincount(src, np.imag(weights), n)
    return np.bincount(src, weights=weights, minlength=n)


def _conj(x):
    """conj(x) for complex x; x itself otherwise (no copy)."""
    return np.conjugate(x) if np.iscomplexobj(x) else x


def _re(g):
    """The real part of the cotangent of a real value (its imaginary part means nothing)."""
    return np.real(g) if np.iscomplexobj(g) else g


def _axes_tuple(order):
    """Axes as a tuple of ints (NumPy takes an array; Dask's transpose wants a tuple)."""
    return tuple(int(a) for a in order)


def _axes(axis, ndim):
    if axis is None or ndim == 0:       # (NumPy takes axis 0 or -1 of a 0-d array: nothing to reduce)
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(sorted(a % ndim for a in axis))
    return (axis % ndim,)


@helper
def expand_to(g, x, axis, keepdims):
    """Cotangent of a reduction input: g with the reduced axes put back (broadcastable to x)."""
    if keepdims or axis is None and np.ndim(g) == 0:
        return g
    nd = np.ndim(x)
    g = as_array(g)
    for a in _axes(axis, nd):
        g = np.expand_dims(g, a)
    return g


@helper
def reduced_size(x, axis):
    shp = np.shape(x)
    return int(np.prod([shp[a] for a in _axes(axis, len(shp))])) if shp else 1


@helper
def mean_vjp(g, x, axis, keepdims):
    return expand_to(g, x, axis, keepdims) / reduced_size(x, axis)


@helper
def prod_vjp(g, x, ans, axis, keepdims):
    """d prod / d x_i = product of the other elements (exact with zeros present)."""
    x = as_array(x)
    g = expand_to(g, x, axis, keepdims)
    ans = expand_to(ans, x, axis, keepdims)
    if not is_lazy(x) and np.all(x != 0):     # a lazy array takes the exact path (no values to test)
        return g * ans / x
    axes = _axes(axis, x.ndim)
    moved = np.moveaxis(x, axes, range(-len(axes), 0))
    flat = moved.reshape(moved.shape[:moved.ndim - len(axes)] + (-1,))
    left = np.cumprod(np.concatenate([np.ones_like(flat[..., :1]), flat[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([np.ones_like(flat[..., :1]), flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    others = (left * right).reshape(moved.shape)
    others = np.moveaxis(others, range(-len(axes), 0), axes)
    return g * others


@helper
def extremum_vjp(g, x, ans, axis, keepdims):
    """max/min: the cotangent goes to the extremal elements, shared equally among ties (none where an
    `initial=` value is the extremum)."""
    g = expand_to(g, x, axis, keepdims)
    ans = expand_to(ans, x, axis, keepdims)
    mask = (as_array(x) == ans)
    count = np.maximum(np.sum(mask, axis=axis, keepdims=True), 1) if axis is not None or np.ndim(x) else 1
    return g * mask / count


@helper
def var_vjp(g, x, axis, ddof, keepdims):
    x = as_array(x)
    n = reduced_size(x, axis) - ddof
    g = expand_to(_re(g), x, axis, keepdims)
    return g * 2.0 * _conj(x - np.mean(x, axis=axis, keepdims=True)) / n


@helper
def std_vjp(g, x, ans, axis, ddof, keepdims):
    """d std = d var / (2 std); where std is 0 (an axis of length 1, or equal values) the gradient is
    taken as 0: exact for one element (std is then 0 whatever x), a subgradient for equal values."""
    ans = expand_to(ans, x, axis, keepdims)
    g = expand_to(g, x, axis, keepdims)
    return var_vjp(_half_ratio(g, ans), x, axis, ddof, True)


def _half_ratio(g, ans):
    """g / (2 ans), 0 where ans is 0."""
    zero = ans == 0
    return np.where(zero, 0.0, g / (2.0 * np.where(zero, 1.0, ans)))


@helper
def cumsum_vjp(g, x, axis):
    if axis is None:
        return np.reshape(np.cumsum(g[::-1])[::-1], np.shape(x))
    return np.flip(np.cumsum(np.flip(g, axis), axis), axis)


@helper
def cumprod_vjp(g, x, ans, axis):
    x = as_array(x)
    if axis is None:
        return np.reshape(cumprod_vjp(g, x.ravel(), ans, 0), x.shape)
    if not is_lazy(x) and np.all(x != 0):     # a lazy array takes the exact path (no values to test)
        return cumsum_vjp(g * ans, x, axis) / x
    # slow path: one column per element of the reduction axis
    out = np.zeros_like(x, dtype=np.result_type(x, float))
    n = x.shape[axis]
    for k in range(n):
        e = np.zeros(n)
        e[k] = 1.0
        shape = [1] * x.ndim
        shape[axis] = n
        e = e.reshape(shape)
        # d ans_j / d x_k = prod_{i<=j, i!=k} x_i for j >= k
        xk1 = np.where(e == 1, 1.0, x)
        prods = np.cumprod(xk1, axis=axis)
        mask = np.cumsum(e, axis=axis)
        out_k = np.sum(g * prods * mask, axis=axis, keepdims=True)
        idx = [slice(None)] * x.ndim
        idx[axis] = slice(k, k + 1)
        out[tuple(idx)] = out_k
    return out



# -- broadcasting ---------------------------------------------------------------------------

@helper
def sum_like(g, x):
    """g (broadcastable to a shape x was broadcast to) summed down to exactly x's shape."""
    xs = np.shape(x)
    g = as_array(g)
    if g.shape == xs:
        return g
    lead = g.ndim - len(xs)
    if lead > 0:
        g = np.sum(g, axis=tuple(range(lead)))
    elif lead < 0:
        g = np.reshape(g, (1,) * -lead + g.shape)
    axes = tuple(i for i, (s, t) in enumerate(zip(g.shape, xs)) if t == 1 and s != 1)
    if axes:
        g = np.sum(g, axis=axes, keepdims=True)
    return g if g.shape == xs else np.broadcast_to(g, xs)


@helper
def sum_like_tuple(g, x, k):
    """Cotangent of argument k of a function broadcasting its arguments: g[k] summed to x's shape."""
    return sum_like(g[k], x)


# -- more reductions --------------------------------------------------------------------------

def _expanded(g, x, axis, keepdims):
    """The cotangent of a reduction, broadcast back to x's full shape."""
    return np.broadcast_to(expand_to(g, x, axis, keepdims), np.shape(x))


@helper
def nansum_vjp(g, x, axis, keepdims):
    return np.where(np.isnan(x), 0.0, expand_to(g, x, axis, keepdims))


@helper
def nanmean_vjp(g, x, axis, keepdims):
    valid = ~np.isnan(x)
    count = np.sum(valid, axis=axis, keepdims=True)
    return np.where(valid, expand_to(g, x, axis, keepdims) / count, 0.0)


@helper
def nanvar_vjp(g, x, axis, ddof, keepdims):
    """d/dx_i of sum over valid j of (x_j - m)^2 / (n - ddof) is 2 (x_i - m) / (n - ddof)."""
    x = as_array(x)
    valid = ~np.isnan(x)
    n = np.sum(valid, axis=axis, keepdims=True)
    m = np.nanmean(x, axis=axis, keepdims=True)
    return np.where(valid, expand_to(_re(g), x, axis, keepdims) * 2.0 * _conj(x - m) / (n - ddof), 0.0)


@helper
def nanstd_vjp(g, x, ans, axis, ddof, keepdims):
    return nanvar_vjp(_half_ratio(expand_to(g, x, axis, keepdims), expand_to(ans, x, axis, keepdims)),
                      x, axis, ddof, True)


@helper
def nanprod_vjp(g, x, ans, axis, keepdims):
    """NaNs count as ones (their cotangent is zero)."""
    nan = np.isnan(x)
    return np.where(nan, 0.0, prod_vjp(g, np.where(nan, 1.0, x), ans, axis, keepdims))


@helper
def nancumsum_vjp(g, x, axis):
    return np.where(np.isnan(x), 0.0, cumsum_vjp(g, x, axis))


@helper
def nancumprod_vjp(g, x, ans, axis):
    nan = np.isnan(x)
    return np.where(nan, 0.0, cumprod_vjp(g, np.where(nan, 1.0, x), ans, axis))


@helper
def cumulative_vjp(g, x, ans, axis, include_initial, kind):
    """np.cumulative_sum / cumulative_prod: like cumsum / cumprod, with an optional leading identity."""
    if include_initial:
        ax = 0 if axis is None else axis
        g = np.take(g, np.arange(1, np.shape(g)[ax]), axis=ax)
        ans = np.take(ans, np.arange(1, np.shape(ans)[ax]), axis=ax)
    if axis is None and np.ndim(x) == 1:
        axis = 0
    if kind == "sum":
        return cumsum_vjp(g, x, axis)
    return cumprod_vjp(g, x, ans, axis)


@helper
def ptp_vjp(g, x, axis, keepdims):
    """ptp = max - min: the cotangent goes to the maximal elements, and its negative to the minimal ones."""
    g = expand_to(g, x, axis, keepdims)
    hi = np.max(x, axis=axis, keepdims=True)
    lo = np.min(x, axis=axis, keepdims=True)
    return extremum_vjp(g, x, hi, axis, True) - extremum_vjp(g, x, lo, axis, True)


@helper
def average_vjp(g, a, axis, weights, keepdims, k):
    """average = sum(w a) / sum(w) along axis; k = 0 for a, 1 for the weights."""
    a = as_array(a)
    if weights is None:
        return np.broadcast_to(mean_vjp(g, a, axis, keepdims), a.shape)
    w = as_array(weights)
    wb = w
    axes = () if axis is None else tuple(sorted(ax % a.ndim for ax in (axis if isinstance(axis, tuple) else (axis,))))
    if w.shape != a.shape:      # weights along the axes (1-D along an int axis)
        shp = [1] * a.ndim
        for ax, n in zip(axes, w.shape):
            shp[ax] = n
        wb = np.reshape(w, shp)
    wfull = np.broadcast_to(wb, a.shape)
    total = np.sum(wfull, axis=axis, keepdims=True)
    ge = expand_to(g, a, axis, keepdims)
    if k == 0:
        return np.broadcast_to(ge * wb / total, a.shape)
    avg = np.sum(a * wb, axis=axis, keepdims=True) / total
    dw = np.broadcast_to(ge * (a - avg) / total, a.shape)
    if w.shape != a.shape:
        dw = np.sum(dw, axis=tuple(i for i in range(a.ndim) if i not in axes))
    return dw


def _axis_last(x, axis):
    """x with the axes `axis` (None: all) moved to the end and flattened into one (_axis_back undoes it)."""
    x = as_array(x)
    axes = _axes(axis, x.ndim)
    moved = np.moveaxis(x, axes, range(x.ndim - len(axes), x.ndim))
    return np.reshape(moved, moved.shape[:x.ndim - len(axes)] + (-1,))


def _axis_back(y, x, axis):
    """y, of the shape _axis_last(x, axis) has, with its last axis put back where `axis` was in x."""
    x = as_array(x)
    axes = _axes(axis, x.ndim)
    moved_shape = np.moveaxis(np.empty(x.shape, dtype=bool), axes, range(x.ndim - len(axes), x.ndim)).shape
    return np.moveaxis(np.reshape(y, moved_shape), range(x.ndim - len(axes), x.ndim), axes)


def _order_stat_vjp(gk, x, axis, weights):
    """Cotangent of sum_j weights[..., j] * sorted(x)[..., j] along axis (gk: g with the axis kept).

    weights has the flattened reduction axis last (shape broadcastable to the sorted array).
    """
    flat = _axis_last(x, axis)
    gflat = _axis_last(np.broadcast_to(gk, np.shape(x)), axis)
    perm = np.argsort(flat, axis=-1, kind="stable")
    out = _zeros(flat.shape, gflat)
    np.put_along_axis(out, perm, gflat[..., :1] * weights, axis=-1)
    return _axis_back(out, x, axis)


@helper
def median_vjp(g, x, axis, keepdims):
    """The median is the middle element (or the mean of the two middle ones) of the sorted values."""
    if is_lazy(x):
        need_values('np.median', x)     # it sorts the values
    x = as_array(x)
    n = reduced_size(x, axis)
    w = np.zeros(n)
    if n % 2:
        w[n // 2] = 1.0
    else:
        w[n // 2 - 1] = w[n // 2] = 0.5
    return _order_stat_vjp(expand_to(g, x, axis, keepdims), x, axis, w)


def _quantile_weights(q, n):
    """Weights on the sorted values for the 'linear' quantile at q (q in [0, 1]), and d weights / dq."""
    pos = np.asarray(q, dtype=float) * (n - 1)
    lo = np.clip(np.floor(pos), 0, max(n - 2, 0)).astype(int)
    frac = pos - lo
    w = np.zeros(np.shape(q) + (n,))
    dw = np.zeros(np.shape(q) + (n,))
    idx = np.indices(np.shape(q))
    if n == 1:
        w[..., 0] = 1.0
        return w, dw
    w[tuple(idx) + (lo,)] = 1.0 - frac
    w[tuple(idx) + (lo + 1,)] += frac
    dw[tuple(idx) + (lo,)] = -(n - 1)
    dw[tuple(idx) + (lo + 1,)] += n - 1
    return w, dw


@helper
def quantile_vjp(g, a, q, axis, keepdims, scale, k):
    """np.quantile / np.percentile with method='linear' (q divided by `scale` first); k = 0: a, 1: q."""
    if is_lazy(a):
        need_values('np.quantile / np.percentile', a)     # it sorts the values
    a = np.asarray(a, dtype=float)
    qs = np.asarray(q, dtype=float) / scale
    n = reduced_size(a, axis)
    w, dw = _quantile_weights(qs, n)
    g = as_array(g)
    nq = qs.ndim
    if k == 0:
        out = _zeros(a.shape, g)
        for j in np.ndindex(qs.shape):
            out += _order_stat_vjp(expand_to(g[j], a, axis, keepdims), a, axis, w[j])
        return out
    flat = _axis_last(a, axis)
    srt = np.sort(flat, axis=-1)
    dq = np.zeros(qs.shape)
    for j in np.ndindex(qs.shape):
        gj = expand_to(g[j], a, axis, keepdims)
        gflat = _axis_last(np.broadcast_to(gj, a.shape), axis)
        dq[j] = np.sum(gflat[..., 0] * np.sum(srt * dw[j], axis=-1)) / scale
    return dq if nq else dq[()]
