"""Helper functions that derivative rules call (registered for generated code).

Rules whose adjoint is more than one expression call one of these. Each takes
the output cotangent `g` (exactly the output's shape unless noted) and the
primal values it needs, and returns the argument's cotangent.
"""

import math

import numpy as np

from ..runtime import HELPERS, helper, full, is_zero

HELPERS["math"] = math


def _axes(axis, ndim):
    if axis is None:
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
    g = np.asarray(g)
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
    x = np.asarray(x)
    g = expand_to(g, x, axis, keepdims)
    ans = expand_to(ans, x, axis, keepdims)
    if np.all(x != 0):
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
    """max/min: the cotangent goes to the extremal elements, shared equally among ties."""
    g = expand_to(g, x, axis, keepdims)
    ans = expand_to(ans, x, axis, keepdims)
    mask = (np.asarray(x) == ans)
    count = np.sum(mask, axis=axis, keepdims=True) if axis is not None or np.ndim(x) else 1
    return g * mask / count


@helper
def var_vjp(g, x, axis, ddof, keepdims):
    x = np.asarray(x)
    n = reduced_size(x, axis) - ddof
    g = expand_to(g, x, axis, keepdims)
    return g * 2.0 * (x - np.mean(x, axis=axis, keepdims=True)) / n


@helper
def std_vjp(g, x, ans, axis, ddof, keepdims):
    ans = expand_to(ans, x, axis, keepdims)
    g = expand_to(g, x, axis, keepdims)
    return var_vjp(g / (2.0 * ans), x, axis, ddof, True)


@helper
def cumsum_vjp(g, x, axis):
    if axis is None:
        return np.reshape(np.cumsum(g[::-1])[::-1], np.shape(x))
    return np.flip(np.cumsum(np.flip(g, axis), axis), axis)


@helper
def cumprod_vjp(g, x, ans, axis):
    x = np.asarray(x)
    if axis is None:
        return np.reshape(cumprod_vjp(g, x.ravel(), ans, 0), x.shape)
    if np.all(x != 0):
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


# -- matrix products ----------------------------------------------------------------------

@helper
def matmul_dx(g, x, y):
    """Cotangent of x in x @ y."""
    xn, yn = np.ndim(x), np.ndim(y)
    if yn == 1:
        if xn == 1:
            return g * y
        if xn == 2:
            return np.multiply.outer(g, y)
        return np.asarray(g)[..., None] * y
    if xn == 2 and yn == 2:
        return np.matmul(g, np.transpose(y))
    g = np.asarray(g)
    if xn == 1:
        return sum_leading(np.matmul(g[..., None, :], np.swapaxes(y, -1, -2))[..., 0, :], np.shape(x))
    return sum_leading(np.matmul(g, np.swapaxes(y, -1, -2)), np.shape(x))


@helper
def matmul_dy(g, x, y):
    """Cotangent of y in x @ y."""
    xn, yn = np.ndim(x), np.ndim(y)
    if xn == 2 and yn <= 2:
        return np.matmul(np.transpose(x), g)
    if xn == 1:
        if yn == 1:
            return g * x
        if yn == 2:
            return np.multiply.outer(x, g)
        return sum_leading(np.matmul(np.asarray(x)[:, None], np.expand_dims(g, -2)), np.shape(y))
    g = np.asarray(g)
    if yn == 1:
        return sum_leading(np.matmul(np.swapaxes(x, -1, -2), g[..., None])[..., 0], np.shape(y))
    return sum_leading(np.matmul(np.swapaxes(x, -1, -2), g), np.shape(y))


@helper
def sum_leading(a, shape):
    """Sum a over the leading (batch) axes it has beyond `shape`, and over broadcast batch axes."""
    shape = tuple(shape)
    if a.shape == shape:
        return a
    lead = a.ndim - len(shape)
    if lead > 0:
        a = a.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, (s, t) in enumerate(zip(a.shape, shape)) if t == 1 and s != 1)
    if axes:
        a = a.sum(axis=axes, keepdims=True)
    return a


@helper
def dot_dx(g, x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.ndim == 0 or y.ndim == 0:
        return np.sum(g * y) if x.ndim == 0 else g * y
    if y.ndim == 1:
        return np.expand_dims(g, -1) * y
    # dot sums x's last axis against y's second-to-last: out = x.shape[:-1] + y.shape[:-2] + y.shape[-1:]
    g_axes = list(range(x.ndim - 1, x.ndim - 1 + y.ndim - 1))
    y_axes = list(range(y.ndim - 2)) + [y.ndim - 1]
    return np.tensordot(g, y, axes=(g_axes, y_axes))


@helper
def dot_dy(g, x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.ndim == 0 or y.ndim == 0:
        return np.sum(g * x) if y.ndim == 0 else g * x
    lead = list(range(x.ndim - 1))
    res = np.tensordot(x, g, axes=(lead, lead))      # (k,) + y.shape[:-2] + y.shape[-1:]
    return np.moveaxis(res, 0, -2) if y.ndim > 1 else res


@helper
def tensordot_dx(g, x, y, axes):
    x, y = np.asarray(x), np.asarray(y)
    xa, ya = _tensordot_axes(axes, x.ndim, y.ndim)
    x_free = [i for i in range(x.ndim) if i not in xa]
    y_free = [i for i in range(y.ndim) if i not in ya]
    g_y = list(range(len(x_free), len(x_free) + len(y_free)))
    res = np.tensordot(g, y, axes=(g_y, y_free))      # x_free..., y's contracted (in y order of ya? no)
    # res axes: x_free then y's remaining axes = ya in increasing order
    ya_sorted = sorted(ya)
    order_src = x_free + [xa[ya.index(a)] for a in ya_sorted]
    return np.transpose(res, np.argsort(order_src))


@helper
def tensordot_dy(g, x, y, axes):
    x, y = np.asarray(x), np.asarray(y)
    xa, ya = _tensordot_axes(axes, x.ndim, y.ndim)
    x_free = [i for i in range(x.ndim) if i not in xa]
    y_free = [i for i in range(y.ndim) if i not in ya]
    g_x = list(range(len(x_free)))
    res = np.tensordot(x, g, axes=(x_free, g_x))       # x's contracted (increasing), then y_free
    xa_sorted = sorted(xa)
    order_src = [ya[xa.index(a)] for a in xa_sorted] + y_free
    return np.transpose(res, np.argsort(order_src))


def _tensordot_axes(axes, nx, ny):
    if isinstance(axes, (int, np.integer)):
        return list(range(nx - axes, nx)), list(range(axes))
    xa, ya = axes
    xa = [xa] if isinstance(xa, (int, np.integer)) else list(xa)
    ya = [ya] if isinstance(ya, (int, np.integer)) else list(ya)
    return [a % nx for a in xa], [a % ny for a in ya]


@helper
def outer_dx(g, x, y):
    return np.reshape(np.dot(np.reshape(g, (np.size(x), np.size(y))), np.ravel(y)), np.shape(x))


@helper
def outer_dy(g, x, y):
    return np.reshape(np.dot(np.ravel(x), np.reshape(g, (np.size(x), np.size(y)))), np.shape(y))


@helper
def inner_dx(g, x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.ndim == 0 or y.ndim == 0:
        return np.sum(g * y) if x.ndim == 0 else g * y
    # inner contracts the last axes: out = x_free + y_free
    nfx = x.ndim - 1
    g_axes = list(range(nfx, np.ndim(g)))
    y_axes = list(range(y.ndim - 1))
    return np.tensordot(g, y, axes=(g_axes, y_axes))


@helper
def inner_dy(g, x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.ndim == 0 or y.ndim == 0:
        return np.sum(g * x) if y.ndim == 0 else g * x
    nfx = x.ndim - 1
    res = np.tensordot(g, x, axes=(list(range(nfx)), list(range(nfx))))  # y_free..., k
    return res


# -- shape functions ----------------------------------------------------------------------

@helper
def transpose_vjp(g, axes):
    """transpose(a, axes) moves axis axes[i] to position i; the inverse permutation undoes it."""
    if axes is None:
        return np.transpose(g)
    nd = np.ndim(g)
    return np.transpose(g, np.argsort([ax % nd for ax in axes]))


@helper
def transpose_method_vjp(g, axes):
    """a.transpose(*axes): axes is () or (None,) (reverse), one tuple, or the axes one by one."""
    if len(axes) == 0 or len(axes) == 1 and axes[0] is None:
        return np.transpose(g)
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = axes[0]
    return transpose_vjp(g, axes)


@helper
def reshape_like(g, x):
    return np.reshape(g, np.shape(x))


@helper
def split_cot(g, arrays, axis):
    """Cotangents of the arrays given to concatenate(arrays, axis)."""
    if axis is None:
        sizes = [np.size(a) for a in arrays]
        parts = np.split(np.ravel(g), np.cumsum(sizes)[:-1])
        return [np.reshape(p, np.shape(a)) for p, a in zip(parts, arrays)]
    ax = axis % max(np.ndim(arrays[0]), 1)
    sizes = [np.shape(a)[ax] for a in arrays]
    return np.split(g, np.cumsum(sizes)[:-1], axis=ax)


@helper
def unstack_axis(g, arrays, axis):
    """Cotangents of the arrays given to stack(arrays, axis)."""
    n = len(arrays)
    g = np.moveaxis(g, axis, 0)
    return [g[i] for i in range(n)]


@helper
def array_cot(g, obj):
    """Cotangent of the object given to np.array/np.asarray (a nested list or an array)."""
    if isinstance(obj, (list, tuple)):
        return [array_cot(g[i], o) for i, o in enumerate(obj)]
    return g


@helper
def clip_mask(x, lo, hi):
    m = np.ones(np.shape(x), dtype=bool)
    if lo is not None:
        m &= np.asarray(x) >= lo
    if hi is not None:
        m &= np.asarray(x) <= hi
    return m


@helper
def power_dx(g, x, y):
    """d x**y / dx = y x**(y-1), taken as 0 where y == 0."""
    if np.ndim(y) == 0 and not isinstance(y, np.ndarray):
        if y == 0:
            return 0.0 * g
        return g * y * np.power(x, y - 1)
    return g * np.where(y == 0, 0.0, y * np.power(x, np.where(y == 0, 1.0, y - 1)))


@helper
def power_dy(g, x, ans):
    """d x**y / dy = x**y log x, taken as 0 where x == 0."""
    x = np.asarray(x)
    safe = np.where(x == 0, 1.0, x)
    return g * np.where(x == 0, 0.0, ans * np.log(safe))


@helper
def sinc_deriv(x):
    x = np.asarray(x, dtype=float)
    px = np.pi * x
    safe = np.where(x == 0, 1.0, px)
    return np.where(x == 0, 0.0, (np.cos(safe) * safe - np.sin(safe)) / (safe * safe) * np.pi)


@helper
def iterable_sum_cot(g, seq):
    """Cotangents of the elements of seq in the builtin sum(seq)."""
    return [g] * len(seq)


@helper
def extremum_items_cot(g, seq, ans):
    """Builtin max/min over a sequence: the cotangent goes to the first extremal element."""
    out = [0.0] * len(seq)
    for i, v in enumerate(seq):
        if np.all(v == ans):
            out[i] = g
            break
    return out


@helper
def where_mask(c):
    return c


_ = (full, is_zero, math)
