"""Helper functions that derivative rules call (registered for generated code).

Rules whose adjoint is more than one expression call one of these. Each takes
the output cotangent `g` (exactly the output's shape unless noted) and the
primal values it needs, and returns the argument's cotangent.
"""

import math

import numpy as np

from ..arrays import as_array, as_float, is_duck, is_lazy, need_values
from ..facade import size as array_size
from ..runtime import HELPERS, helper, full, is_zero, item_cot, onehot_scatter

HELPERS["math"] = math


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


# -- matrix products ----------------------------------------------------------------------

def _ndim(v):
    return v.ndim if type(v) is np.ndarray else np.ndim(v)


@helper
def matmul_dx(g, x, y):
    """Cotangent of x in x @ y."""
    xn, yn = _ndim(x), _ndim(y)
    if yn == 1:
        if xn == 1:
            return g * y
        return as_array(g)[..., None] * y
    if xn == 2 and yn == 2:
        return np.matmul(g, y.T if type(y) is np.ndarray else np.transpose(y))
    g = as_array(g)
    if xn == 1:
        return sum_leading(np.matmul(g[..., None, :], np.swapaxes(y, -1, -2))[..., 0, :], np.shape(x))
    return sum_leading(np.matmul(g, np.swapaxes(y, -1, -2)), np.shape(x))


@helper
def matmul_dy(g, x, y):
    """Cotangent of y in x @ y."""
    xn, yn = _ndim(x), _ndim(y)
    if xn == 2 and yn <= 2:
        if hasattr(x, "tocsr"):         # a scipy.sparse matrix (data): its own product
            return x.T @ as_array(g)
        return np.matmul(x.T if type(x) is np.ndarray else np.transpose(x), g)
    if xn == 1:
        if yn == 1:
            return g * x
        if yn == 2:
            return as_array(x)[:, None] * g
        return sum_leading(np.matmul(as_array(x)[:, None], np.expand_dims(g, -2)), np.shape(y))
    g = as_array(g)
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
    if type(x) is np.ndarray and type(y) is np.ndarray and 0 < x.ndim <= 2 and y.ndim <= 2 and y.ndim > 0:
        if y.ndim == 2:
            return np.matmul(g, y.T)                            # g @ y^T (x a vector or a matrix)
        return g * y if x.ndim == 1 else as_array(g)[:, None] * y     # vector . vector, matrix . vector
    x, y = as_array(x), as_array(y)
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
    if type(x) is np.ndarray and type(y) is np.ndarray and 0 < x.ndim <= 2 and y.ndim <= 2 and y.ndim > 0:
        if x.ndim == 2:
            return np.matmul(x.T, g)                            # x^T @ g (y a vector or a matrix)
        return g * x if y.ndim == 1 else x[:, None] * g         # vector . vector, vector . matrix
    x, y = as_array(x), as_array(y)
    if x.ndim == 0 or y.ndim == 0:
        return np.sum(g * x) if y.ndim == 0 else g * x
    lead = list(range(x.ndim - 1))
    res = np.tensordot(x, g, axes=(lead, lead))      # (k,) + y.shape[:-2] + y.shape[-1:]
    return np.moveaxis(res, 0, -2) if y.ndim > 1 else res


def tensordot_plan(axes, nx, ny, k):
    """(g's axes and the other operand's to contract, the transposition of the result) for the cotangent of
    operand k of np.tensordot: constants, from the ranks and the axes (numpy_rules.py makes it nondiff, so the
    helpers below are differentiated again through their products only)."""
    xa, ya = _tensordot_axes(axes, nx, ny)
    x_free = [i for i in range(nx) if i not in xa]
    y_free = [i for i in range(ny) if i not in ya]
    if k == 0:      # g (x_free..., y_free...) with y over y_free: x_free, then y's contracted axes in increasing order
        g_axes, other = list(range(len(x_free), len(x_free) + len(y_free))), y_free
        order = x_free + [xa[ya.index(a)] for a in sorted(ya)]
    else:           # x over x_free with g: x's contracted axes in increasing order, then y_free
        g_axes, other = list(range(len(x_free))), x_free
        order = [ya[xa.index(a)] for a in sorted(xa)] + y_free
    return g_axes, other, _axes_tuple(np.argsort(order))


@helper
def tensordot_dx(g, x, y, axes):
    x, y = as_array(x), as_array(y)
    g_axes, y_axes, perm = tensordot_plan(axes, x.ndim, y.ndim, 0)
    return np.transpose(np.tensordot(g, y, axes=(g_axes, y_axes)), perm)


@helper
def tensordot_dy(g, x, y, axes):
    x, y = as_array(x), as_array(y)
    g_axes, x_axes, perm = tensordot_plan(axes, x.ndim, y.ndim, 1)
    return np.transpose(np.tensordot(x, g, axes=(x_axes, g_axes)), perm)


def _tensordot_axes(axes, nx, ny):
    if isinstance(axes, (int, np.integer)):
        return list(range(nx - axes, nx)), list(range(axes))
    xa, ya = axes
    xa = [xa] if isinstance(xa, (int, np.integer)) else list(xa)
    ya = [ya] if isinstance(ya, (int, np.integer)) else list(ya)
    return [a % nx for a in xa], [a % ny for a in ya]


@helper
def outer_dx(g, x, y):
    return np.reshape(np.dot(np.reshape(g, (array_size(x), array_size(y))), np.ravel(y)), np.shape(x))


@helper
def outer_dy(g, x, y):
    return np.reshape(np.dot(np.ravel(x), np.reshape(g, (array_size(x), array_size(y)))), np.shape(y))


@helper
def inner_dx(g, x, y):
    x, y = as_array(x), as_array(y)
    if x.ndim == 0 or y.ndim == 0:
        return np.sum(g * y) if x.ndim == 0 else g * y
    # inner contracts the last axes: out = x_free + y_free
    nfx = x.ndim - 1
    g_axes = list(range(nfx, np.ndim(g)))
    y_axes = list(range(y.ndim - 1))
    return np.tensordot(g, y, axes=(g_axes, y_axes))


@helper
def inner_dy(g, x, y):
    x, y = as_array(x), as_array(y)
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
    return np.transpose(g, _axes_tuple(np.argsort([ax % nd for ax in axes])))


@helper
def transpose_method_vjp(g, axes):
    """a.transpose(*axes): axes is None or () or (None,) (reverse), one tuple, or the axes one by one."""
    if axes is None or len(axes) == 0 or len(axes) == 1 and axes[0] is None:
        return np.transpose(g)
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = axes[0]
    return transpose_vjp(g, axes)


@helper
def item_vjp(g, x, args):
    """a.item(*args) reads one element: by flat index, by a tuple of indices, or the only one."""
    out = _zeros(np.shape(x), g)
    if not args:
        out[...] = g
    elif len(args) == 1 and np.ndim(args[0]) == 0:
        out.reshape(-1)[args[0]] = g        # a view: out is contiguous
    else:
        out[tuple(args[0]) if len(args) == 1 else tuple(args)] = g
    return out


@helper
def reshape_like(g, x, order="C"):
    """Cotangent of x from the cotangent of a reshape (or ravel) of x that read it in `order`."""
    if np.ndim(g) == 0 and np.size(x) != 1:
        return full(g, x)            # a number standing for its broadcast (the symbolic zero, say)
    if order in (None, "C", "F"):
        return np.reshape(g, np.shape(x), order=order or "C")
    x = as_array(x)
    if order == "A":
        return np.reshape(g, x.shape, order="F" if np.isfortran(x) else "C")
    # 'K' (ravel only): memory order; find where each element of x went
    where = np.empty_like(x, dtype=np.intp)
    where[...] = np.arange(x.size).reshape(x.shape)
    out = np.zeros(x.size, dtype=np.result_type(g, float))
    out[where.ravel(order="K")] = np.ravel(g)
    return out.reshape(x.shape)


@helper
def split_cot(g, arrays, axis):
    """Cotangents of the arrays given to concatenate(arrays, axis)."""
    if axis is None:
        sizes = [array_size(a) for a in arrays]
        parts = split_sizes(np.ravel(g), sizes, 0)
        return [np.reshape(p, np.shape(a)) for p, a in zip(parts, arrays)]
    ax = axis % max(np.ndim(arrays[0]), 1)
    sizes = [np.shape(a)[ax] for a in arrays]
    return split_sizes(g, sizes, ax)


def split_sizes(g, sizes, axis):
    """g cut along `axis` into pieces of these sizes (np.split by slicing, which every array library has)."""
    g = as_array(g)
    ends = np.cumsum(sizes)
    index = [slice(None)] * g.ndim
    parts = []
    for start, stop in zip([0] + list(ends[:-1]), ends):
        index[axis] = slice(int(start), int(stop))
        parts.append(g[tuple(index)])
    return parts


@helper
def unstack_axis(g, arrays, axis):
    """Cotangents of the arrays given to stack(arrays, axis)."""
    n = len(arrays)
    g = np.moveaxis(g, axis, 0)
    return [g[i] for i in range(n)]


@helper
def cast_cot(g, dtype):
    """Cotangent through a conversion to dtype: none when the values become integers or booleans; the
    real part when they become real (a complex value's cotangent from its real part's)."""
    if dtype is None:
        return g
    kind = np.dtype(dtype).kind
    if kind == "f" and np.iscomplexobj(g):
        return np.real(g)
    return g if kind in "fc" else 0.0


@helper
def view_cot(g, a, dtype):
    """Cotangent through `a.view()`: the same values, unless the view reads a's bytes as another dtype."""
    if dtype is None or isinstance(dtype, type) and issubclass(dtype, np.ndarray) or np.dtype(dtype) == a.dtype:
        return g
    from ..errors import TransformError
    raise TransformError(f"adsrc cannot differentiate `.view({np.dtype(dtype)})`, which reads an array of "
                         f"{a.dtype} as another dtype's bytes. Use `.astype(...)` to convert the values.")


@helper
def tolist_cot(g, a):
    """Cotangent of `a` from the cotangent of `a.tolist()` (nested lists of Python numbers)."""
    if is_zero(g):
        return 0.0
    if np.ndim(a) == 0:
        return g
    return np.stack([np.broadcast_to(tolist_cot(item_cot(g, i), a[i]), np.shape(a)[1:]) for i in range(len(a))])


@helper
def array_cot(g, obj):
    """Cotangent of the object given to np.array/np.asarray (a nested list or an array)."""
    if isinstance(obj, (list, tuple)):
        if np.ndim(g) == 0:       # a number standing for the array it broadcasts to (a one-element output's seed)
            g = np.broadcast_to(g, np.shape(obj))
        return [array_cot(g[i], o) for i, o in enumerate(obj)]
    return g


@helper
def clip_mask(x, lo, hi):
    """d clip(x, lo, hi) / dx, clip = minimum(maximum(x, lo), hi): 1 inside, 0 outside, and a tie shared
    evenly as np.maximum's (0.5 at a bound, as JAX and autograd)."""
    x = as_array(x)
    m = x if lo is None else np.maximum(x, lo)
    up = 1.0 if lo is None else (x > lo) + 0.5 * (x == lo)
    return up * (1.0 if hi is None else (m < hi) + 0.5 * (m == hi)) * np.ones(np.shape(x))


@helper
def clip_low_mask(x, lo, hi):
    """d clip(x, lo, hi) / d lo."""
    x = as_array(x)
    m = np.maximum(x, lo)
    down = 1.0 if hi is None else (m < hi) + 0.5 * (m == hi)
    return ((lo > x) + 0.5 * (lo == x)) * down


@helper
def clip_high_mask(x, lo, hi):
    """d clip(x, lo, hi) / d hi."""
    m = as_array(x) if lo is None else np.maximum(x, lo)
    return (hi < m) + 0.5 * (hi == m)


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
    x = as_array(x)
    safe = np.where(x == 0, 1.0, x)
    if not is_lazy(x) and not np.any(x < 0):
        return g * np.where(x == 0, 0.0, ans * np.log(safe))
    # the log of a negative number has no real value: NaN, but where no derivative flows (a zero tangent of a
    # constant exponent carried with others) the contribution is 0
    with np.errstate(invalid="ignore"):
        d = np.where(x == 0, 0.0, ans * np.log(safe))
    return np.where(g == 0, 0.0, g * d)


@helper
def sinc_deriv(x):
    x = as_array(x)
    px = np.pi * x
    safe = np.where(x == 0, 1.0, px)
    return np.where(x == 0, 0.0, (np.cos(safe) * safe - np.sin(safe)) / (safe * safe) * np.pi)


@helper
def iterable_sum_cot(g, seq):
    """Cotangents of the elements of seq in the builtin sum(seq) (an array's rows for an array)."""
    if type(seq) is np.ndarray:
        return np.broadcast_to(g, np.shape(seq))
    return [g] * len(seq)


@helper
def extremum_items_cot(g, seq, ans):
    """Builtin max/min over a sequence: the cotangent goes to the first extremal element."""
    array = type(seq) is np.ndarray
    out = np.zeros(np.shape(seq), dtype=np.result_type(seq, float)) if array else [0.0] * len(seq)
    for i, v in enumerate(seq):
        if np.all(v == ans):
            out[i] = g
            break
    return out


@helper
def where_mask(c):
    return c


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


# -- more shape functions ---------------------------------------------------------------------

@helper
def rollaxis_vjp(g, x, axis, start):
    """Undo np.rollaxis by applying the inverse of the axis permutation it made."""
    nd = np.ndim(x)
    probe = np.broadcast_to(0.0, tuple(range(2, nd + 2)))    # distinct sizes reveal the permutation
    perm = [s - 2 for s in np.shape(np.rollaxis(probe, axis, start))]
    return np.transpose(g, _axes_tuple(np.argsort(perm)))


def _pieces_cot(g, arrays, axis, promote):
    """Cotangents of arrays joined along `axis` after `promote` gave each at least some dimensions."""
    sizes = [np.shape(promote(a))[axis] for a in arrays]
    parts = split_sizes(g, sizes, axis)
    return [np.reshape(p, np.shape(a)) for p, a in zip(parts, arrays)]


@helper
def hstack_cot(g, arrays):
    axis = 0 if np.ndim(np.atleast_1d(arrays[0])) == 1 else 1
    return _pieces_cot(g, arrays, axis, np.atleast_1d)


@helper
def vstack_cot(g, arrays):
    return _pieces_cot(g, arrays, 0, np.atleast_2d)


@helper
def dstack_cot(g, arrays):
    return _pieces_cot(g, arrays, 2, np.atleast_3d)


@helper
def column_stack_cot(g, arrays):
    def promote(a):
        return np.reshape(a, (-1, 1)) if np.ndim(a) < 2 else a
    return _pieces_cot(g, arrays, 1, promote)


@helper
def append_vjp(g, arr, values, axis, k):
    """np.append(arr, values, axis): a concatenation (of raveled inputs when axis is None)."""
    x = arr if k == 0 else values
    if axis is None:
        n = array_size(arr)
        flat = np.ravel(g)
        return np.reshape(flat[:n] if k == 0 else flat[n:], np.shape(x))
    n = np.shape(arr)[axis]
    idx = np.arange(n) if k == 0 else np.arange(n, np.shape(g)[axis])
    return np.take(g, idx, axis=axis)


@helper
def split_vjp(g, ary, axis):
    """Cotangent of the array given to np.split and friends: the pieces' cotangents joined again."""
    return np.reshape(np.concatenate(g, axis=axis), np.shape(ary))


@helper
def hsplit_vjp(g, ary):
    return split_vjp(g, ary, 0 if np.ndim(ary) == 1 else 1)


@helper
def tile_vjp(g, x, reps):
    """np.tile: the output, viewed as (reps_0, n_0, reps_1, n_1, ...), summed over the reps axes."""
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    xs = np.shape(x)
    d = max(len(xs), len(reps))
    xs_p = (1,) * (d - len(xs)) + tuple(xs)
    reps_p = (1,) * (d - len(reps)) + reps
    g = np.reshape(g, [v for pair in zip(reps_p, xs_p) for v in pair])
    return np.reshape(np.sum(g, axis=tuple(range(0, 2 * d, 2))), xs)


def _scatter_add(shape, axis, idx, g):
    """zeros(shape) with g[j] added at position idx[j] along axis (repeats accumulate)."""
    if is_duck(g):      # a duck array has no ufunc.at: sum through a one-hot product instead
        gm = np.moveaxis(g, axis, 0)
        return np.moveaxis(onehot_scatter(shape[axis], np.ravel(idx), gm), 0, axis)
    out = _zeros(shape, g)
    moved = np.moveaxis(out, axis, 0)
    np.add.at(moved, as_array(idx), np.moveaxis(as_array(g), axis, 0))
    return out


@helper
def repeat_vjp(g, x, repeats, axis):
    """np.repeat: each output element came from one input element; sum the cotangents back."""
    if axis is None:
        n = array_size(x)
        src = np.repeat(np.arange(n), repeats)
        return np.reshape(_bincount(src, np.ravel(g), n), np.shape(x))
    ax = axis % np.ndim(x)
    src = np.repeat(np.arange(np.shape(x)[ax]), repeats)
    return _scatter_add(np.shape(x), ax, src, g)


@helper
def roll_vjp(g, shift, axis):
    return np.roll(g, np.negative(shift), axis)


@helper
def resize_vjp(g, x, new_shape):
    """np.resize repeats the flattened input cyclically."""
    n = array_size(x)
    src = np.arange(array_size(g)) % n
    return np.reshape(_bincount(src, np.ravel(g), n), np.shape(x))


_INDEX_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def _pad_sources(shape, pad_width, mode):
    """For each element of np.pad's output: the flat index of the input element it copies (-1: a constant)."""
    if mode not in _INDEX_PAD_MODES:
        raise NotImplementedError(f"adsrc differentiates np.pad only with mode in {_INDEX_PAD_MODES}, "
                                  f"not {mode!r}")
    idx = np.arange(int(np.prod(shape))).reshape(shape)
    if mode == "constant":
        return np.pad(idx, pad_width, mode="constant", constant_values=-1)
    return np.pad(idx, pad_width, mode=mode)


@helper
def pad_vjp(g, x, pad_width, mode):
    src = _pad_sources(np.shape(x), pad_width, mode)
    keep = src >= 0
    n = array_size(x)
    return np.reshape(_bincount(src[keep], as_array(g)[keep], n), np.shape(x))


@helper
def pad_value_vjp(g, x, pad_width, constant_values):
    """Cotangent of a scalar constant_values: the sum of g over the padding."""
    if np.ndim(constant_values) != 0:
        raise NotImplementedError("adsrc differentiates np.pad's constant_values only when it is a scalar")
    src = _pad_sources(np.shape(x), pad_width, "constant")
    return np.sum(np.where(src < 0, g, 0.0))


def _take_indices(indices, n, mode):
    indices = as_array(indices)
    if mode == "wrap":
        return indices % n
    if mode == "clip":
        return np.clip(indices, 0, n - 1)
    return np.where(indices < 0, indices + n, indices)


@helper
def take_vjp(g, x, indices, axis, mode):
    """np.take: scatter-add g back to the taken positions."""
    x_shape = np.shape(x)
    if axis is None:
        n = int(np.prod(x_shape))
        idx = _take_indices(indices, n, mode)
        return np.reshape(_bincount(np.ravel(idx), np.ravel(g), n), x_shape)
    ax = axis % len(x_shape)
    idx = _take_indices(indices, x_shape[ax], mode)
    # g has shape x[:ax] + idx.shape + x[ax+1:]: flatten the index axes into one
    g = as_array(g)
    gs = g.shape
    g = np.reshape(g, gs[:ax] + (-1,) + gs[ax + idx.ndim:])
    return _scatter_add(x_shape, ax, np.ravel(idx), g)


@helper
def take_along_axis_vjp(g, x, indices, axis):
    x = as_array(x)
    if axis is None:
        return np.reshape(take_vjp(g, np.ravel(x), indices, 0, "raise"), x.shape)
    ax = axis % x.ndim
    idx = as_array(indices)
    full_idx = []
    for d in range(x.ndim):
        if d == ax:
            full_idx.append(np.where(idx < 0, idx + x.shape[ax], idx))
        else:
            shp = [1] * x.ndim
            shp[d] = -1
            full_idx.append(np.arange(x.shape[d]).reshape(shp))
    shape = np.broadcast_shapes(*[i.shape for i in full_idx])
    full_idx = [np.broadcast_to(i, shape) for i in full_idx]
    out = _zeros(x.shape, g)
    np.add.at(out, tuple(full_idx), g)
    return out


@helper
def compress_vjp(g, condition, x, axis):
    """np.compress keeps the positions where condition is true (along axis, or of the raveled array)."""
    if is_lazy(condition):
        need_values("np.compress", condition)
    sel = np.flatnonzero(as_array(condition))
    if axis is None:
        return np.reshape(_scatter_add((array_size(x),), 0, sel, g), np.shape(x))
    return _scatter_add(np.shape(x), axis % np.ndim(x), sel, g)


@helper
def extract_vjp(g, condition, x):
    if is_lazy(condition):
        need_values("np.extract", condition)
    sel = np.flatnonzero(np.ravel(condition))
    return np.reshape(_scatter_add((array_size(x),), 0, sel, g), np.shape(x))


@helper
def delete_vjp(g, x, obj, axis):
    """np.delete: the kept elements get their cotangents back, the deleted ones zero."""
    if axis is None:
        n = array_size(x)
        keep = np.delete(np.arange(n), obj)
        out = _zeros(n, g)
        out[keep] = np.ravel(g)
        return np.reshape(out, np.shape(x))
    ax = axis % np.ndim(x)
    keep = np.delete(np.arange(np.shape(x)[ax]), obj)
    return _scatter_add(np.shape(x), ax, keep, g)


@helper
def diagonal_vjp(g, x, offset, axis1, axis2):
    """np.diagonal: g (the diagonal, on the last axis) written back onto the diagonal of zeros."""
    nd = np.ndim(x)
    a1, a2 = axis1 % nd, axis2 % nd
    out = _zeros(np.shape(x), g)
    moved = np.moveaxis(out, (a1, a2), (-2, -1))     # a view: writing to it writes out
    n = np.shape(g)[-1]
    rows = np.arange(n) + max(-offset, 0)
    cols = np.arange(n) + max(offset, 0)
    if is_duck(g):      # no item assignment through index arrays: a product with a 0/1 tensor instead
        place = np.zeros(moved.shape[-2:] + (n,))
        place[rows, cols, np.arange(n)] = 1.0
        return np.moveaxis(np.einsum("...j,rcj->...rc", g, place), (-2, -1), (a1, a2))
    moved[..., rows, cols] = g
    return out


@helper
def trace_vjp(g, x, offset, axis1, axis2):
    """np.trace sums the diagonal: each diagonal element gets g."""
    d = np.diagonal(np.zeros(np.shape(x)), offset, axis1, axis2)
    return diagonal_vjp(np.broadcast_to(np.expand_dims(g, -1), d.shape), x, offset, axis1, axis2)


@helper
def diag_vjp(g, v, k):
    """np.diag builds a matrix from a vector (cotangent: g's diagonal) or takes a matrix's diagonal."""
    if np.ndim(v) == 1:
        return np.diagonal(g, k)
    return diagonal_vjp(g, v, k, 0, 1)


@helper
def sort_vjp(g, x, axis):
    """np.sort permutes: element j of the output is element perm[j] of the input."""
    if is_lazy(x):
        need_values('np.sort', x)     # it sorts the values
    x = as_array(x)
    if axis is None:
        perm = np.argsort(x, axis=None, kind="stable")
        out = _zeros(x.size, g)
        out[perm] = np.ravel(g)
        return np.reshape(out, x.shape)
    perm = np.argsort(x, axis=axis, kind="stable")
    out = _zeros(x.shape, g)
    np.put_along_axis(out, perm, g, axis=axis)
    return out


def _select_masks(condlist, shape):
    """For np.select: masks[i] is where choice i is taken (the first true condition), and the default mask."""
    taken = np.zeros(shape, dtype=bool)
    masks = []
    for c in condlist:
        m = np.broadcast_to(c, shape) & ~taken
        masks.append(m)
        taken = taken | m
    return masks, ~taken


@helper
def select_vjp(g, condlist, choicelist):
    masks, _ = _select_masks(condlist, np.shape(g))
    return [sum_like(np.where(m, g, 0.0), c) for m, c in zip(masks, choicelist)]


@helper
def select_default_vjp(g, condlist, default):
    _, rest = _select_masks(condlist, np.shape(g))
    return sum_like(np.where(rest, g, 0.0), default)


@helper
def meshgrid_vjp(g, xs, k, indexing):
    """Output k of np.meshgrid is input k (raveled) laid along one axis: sum g[k] over the other axes."""
    n = sum(x is not None for x in xs)
    ax = k
    if indexing == "xy" and n >= 2 and k < 2:
        ax = 1 - k
    gk = as_array(g[k])
    other = tuple(i for i in range(gk.ndim) if i != ax)
    return np.reshape(np.sum(gk, axis=other), np.shape(xs[k]))


@helper
def linspace_vjp(g, start, stop, num, endpoint, axis, k):
    """linspace = start + t (stop - start) with t = i / (num - 1) (or i / num without the endpoint)."""
    div = (num - 1) if endpoint else num
    t = np.arange(num) / div if div > 0 else np.zeros(num)
    w = t if k == 1 else 1.0 - t
    r = np.tensordot(w, np.moveaxis(as_array(g), axis, 0), axes=(0, 0))
    return sum_like(r, stop if k == 1 else start)


@helper
def arange_vjp(g, start, stop, step, k):
    """arange(start, stop, step)[i] = start + i step; arange(stop) does not depend on stop's value."""
    if k == 0:
        return 0.0 * np.sum(g) if stop is None else np.sum(g)
    return np.sum(g * np.arange(array_size(g)))


@helper
def unique_vjp(g, x):
    """np.unique(x) (values only): each output value is shared equally by the inputs equal to it."""
    if is_lazy(x):
        need_values('np.unique', x)     # it sorts the values
    _, inv, counts = np.unique(x, return_inverse=True, return_counts=True)
    return np.reshape((as_array(g) / counts)[np.ravel(inv)], np.shape(x))


@helper
def diff_vjp(g, x, n, axis):
    """np.diff: y_i = x_{i+1} - x_i, so dx_j = g_{j-1} - g_j (zero outside); applied n times."""
    g = as_array(g)
    ax = axis % g.ndim
    for _ in range(n):
        lo = [(0, 0)] * g.ndim
        hi = [(0, 0)] * g.ndim
        lo[ax] = (1, 0)
        hi[ax] = (0, 1)
        g = np.pad(g, lo) - np.pad(g, hi)
    return g


def _conv_full_cot(g, a, v, mode, start):
    """g (the cotangent of a slice of the full convolution) placed into a zero full-length cotangent."""
    full_len = len(a) + len(v) - 1
    gf = _zeros(full_len, g)
    gf[start:start + len(g)] = g
    return gf


@helper
def convolve_vjp(g, a, v, mode, k):
    """Full convolution c_n = sum_i a_i v_{n-i}: da_i = sum_n g_n v_{n-i}, a correlation of g with v."""
    m, n = len(a), len(v)
    start = {"full": 0, "same": (min(m, n) - 1) // 2, "valid": min(m, n) - 1}[mode]
    gf = _conv_full_cot(g, a, v, mode, start)
    return np.correlate(gf, _conj(v), "valid") if k == 0 else np.correlate(gf, _conj(a), "valid")


@helper
def correlate_vjp(g, a, v, mode, k):
    """correlate(a, v) = sum_n a_{n+k} conj(v_n) is the full convolution of a with conj(v) reversed,
    sliced by mode: holomorphic in a, and v's cotangent is the conjugate of conj(v)'s."""
    if np.iscomplexobj(a) or np.iscomplexobj(v) or np.iscomplexobj(g):
        w = np.conjugate(v)
        if k == 0:
            return _correlate_plain_vjp(g, a, w, mode, 0)
        return np.conjugate(_correlate_plain_vjp(g, a, w, mode, 1))
    return _correlate_plain_vjp(g, a, v, mode, k)


def _correlate_plain_vjp(g, a, v, mode, k):
    """The cotangents of c_k = sum_n a_{n+k} v_n (no conjugate), sliced by mode."""
    m, n = len(a), len(v)
    p = min(m, n)
    start = {"full": 0, "same": (p - 1) // 2 if m >= n else p // 2, "valid": n - 1 if m >= n else m - 1}[mode]
    gf = _conv_full_cot(g, a, v, mode, start)
    vr = as_array(v)[::-1]
    if k == 0:
        return np.correlate(gf, _conj(vr), "valid")
    return np.correlate(gf, _conj(as_array(a)), "valid")[::-1]


@helper
def trapezoid_vjp(g, y, x, dx, axis, k):
    """trapezoid = sum_i d_i (y_i + y_{i+1}) / 2 along axis; k = 0: y, 1: x, 2: dx."""
    y = as_array(y)
    ax = axis % y.ndim
    n = y.shape[ax]
    g = np.expand_dims(as_array(g), ax)
    if x is None:
        d = np.full(n - 1, dx)
    else:
        d = np.diff(as_array(x), axis=axis if np.ndim(x) > 1 else 0)
    if np.ndim(d) == 1:
        shp = [1] * y.ndim
        shp[ax] = -1
        d = np.reshape(d, shp)
    if k == 0:
        lo = [(0, 0)] * y.ndim
        hi = [(0, 0)] * y.ndim
        lo[ax] = (1, 0)
        hi[ax] = (0, 1)
        w = (np.pad(d, lo) + np.pad(d, hi)) / 2.0   # y_i is in the intervals i - 1 and i
        return np.broadcast_to(g * w, y.shape)
    m = (np.take(y, np.arange(n - 1), axis=ax) + np.take(y, np.arange(1, n), axis=ax)) / 2.0
    if k == 2:
        return 0.0 if x is not None else np.sum(g * m)
    gm = g * m                                  # cotangent of each d_i
    lo = [(0, 0)] * y.ndim
    hi = [(0, 0)] * y.ndim
    lo[ax] = (1, 0)
    hi[ax] = (0, 1)
    dxs = np.pad(gm, lo) - np.pad(gm, hi)       # d_i = x_{i+1} - x_i
    if np.ndim(x) == 1:
        return np.sum(dxs, axis=tuple(i for i in range(y.ndim) if i != ax))
    return sum_like(dxs, x)


@helper
def interp_vjp(g, x, xp, fp, left, right, k):
    """np.interp (piecewise linear through (xp, fp)); k = 0: x, 1: xp, 2: fp, 3: left, 4: right."""
    x = np.asarray(x, dtype=float)
    xp = np.asarray(xp, dtype=float)
    fp = as_array(fp)                          # complex values interpolate too
    g = np.broadcast_to(as_array(g), x.shape)
    below = x < xp[0]
    above = x > xp[-1]
    inside = ~(below | above)
    j = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, len(xp) - 2)
    width = xp[j + 1] - xp[j]
    slope = (fp[j + 1] - fp[j]) / width
    t = (x - xp[j]) / width
    if k == 0:
        return _re(np.where(inside, g * slope, 0.0))       # x is real
    if k == 3:
        return np.sum(np.where(below, g, 0.0))
    if k == 4:
        return np.sum(np.where(above, g, 0.0))
    out = _zeros(len(xp), g)
    gi = np.where(inside, g, 0.0)
    if k == 2:
        np.add.at(out, j, gi * (1.0 - t))
        np.add.at(out, j + 1, gi * t)
        if left is None:
            out[0] += np.sum(np.where(below, g, 0.0))
        if right is None:
            out[-1] += np.sum(np.where(above, g, 0.0))
        return out
    out = _zeros(len(xp), gi * slope)
    np.add.at(out, j, gi * slope * (t - 1.0))
    np.add.at(out, j + 1, -gi * slope * t)
    return _re(out)                                      # xp is real


@helper
def polyval_vjp(g, p, x, k):
    """polyval(p, x) = sum_i p_i x^(n-1-i)."""
    p = as_array(p)
    if k == 1:
        return g * np.polyval(np.polyder(p), x) if len(p) > 1 else 0.0 * g
    powers = as_array(x)[..., None] ** np.arange(len(p) - 1, -1, -1)
    return np.tensordot(as_array(g), powers, axes=np.ndim(g))


# -- products ------------------------------------------------------------------------------------

_EINSUM_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _einsum_labels(subscripts, shapes):
    """Per-operand label lists and the output labels of an einsum, with '...' and broadcast expanded.

    Every label gets one size; a dimension of size 1 that broadcasts against a larger one gets a
    label of its own.
    """
    if not isinstance(subscripts, str):
        raise NotImplementedError("adsrc differentiates np.einsum only with a subscripts string")
    s = subscripts.replace(" ", "")
    ins, out = s.split("->") if "->" in s else (s, None)
    ins = ins.split(",")
    if len(ins) != len(shapes):
        raise ValueError(f"einsum: {len(ins)} operand subscripts for {len(shapes)} operands")
    fresh = iter(c for c in _EINSUM_LETTERS if c not in s)
    ell_nd = max((len(shape) - len(spec) + 3 for spec, shape in zip(ins, shapes) if "..." in spec), default=0)
    ell = [next(fresh) for _ in range(ell_nd)]
    labels = []
    for spec, shape in zip(ins, shapes):
        if "..." in spec:
            pre, post = spec.split("...")
            n = len(shape) - len(pre) - len(post)
            labels.append(list(pre) + ell[ell_nd - n:] + list(post))
        else:
            labels.append(list(spec))
    if out is None:
        counts = {}
        for spec in ins:
            for c in spec.replace("...", ""):
                counts[c] = counts.get(c, 0) + 1
        out_labels = ell + sorted(c for c, m in counts.items() if m == 1)
    elif "..." in out:
        pre, post = out.split("...")
        out_labels = list(pre) + ell + list(post)
    else:
        out_labels = list(out)
    size = {}
    for lab, shape in zip(labels, shapes):
        for c, d in zip(lab, shape):
            if d != 1 or c not in size:
                size[c] = d
    for lab, shape in zip(labels, shapes):
        for i, (c, d) in enumerate(zip(lab, shape)):
            if d == 1 and size[c] != 1:
                lab[i] = next(fresh)
                size[lab[i]] = 1
    return labels, out_labels, size


def einsum_of(subscripts, operands):
    """np.einsum(subscripts, *operands), for a list of operands of any length (its rule in numpy_rules.py: the
    helpers below are differentiated again through it, for higher order)."""
    return np.einsum(subscripts, *operands)


@helper
def einsum_operands_vjp(g, subscripts, operands):
    """The cotangents of einsum_of's operands, one per operand, in a list."""
    return [einsum_vjp(g, subscripts, operands, k) for k in range(len(operands))]


@helper
def einsum_vjp(g, subscripts, operands, k):
    """Cotangent of operand k of np.einsum: contract g with the other operands onto operand k's labels.

    Labels only operand k has (summed in the forward pass) are broadcast back; labels it repeats
    (a diagonal) receive the cotangent on that diagonal only.
    """
    ops = [as_array(o) for o in operands if o is not None]
    labels, out_labels, size = _einsum_labels(subscripts, [o.shape for o in ops])
    mine = labels[k]
    uniq = list(dict.fromkeys(mine))
    seen = set(out_labels)
    for j, lab in enumerate(labels):
        if j != k:
            seen.update(lab)
    avail = [c for c in uniq if c in seen]
    spec = ",".join(["".join(out_labels)] + ["".join(lab) for j, lab in enumerate(labels) if j != k])
    r = einsum_of(spec + "->" + "".join(avail), [g] + [o for j, o in enumerate(ops) if j != k])
    r = np.reshape(r, [size[c] if c in seen else 1 for c in uniq])
    r = np.broadcast_to(r, [size[c] for c in uniq])
    if len(uniq) == len(mine):
        return np.transpose(r, [uniq.index(c) for c in mine]) if uniq != mine else r
    # r goes on the diagonal: each of its elements to the one place whose repeated labels share its index
    grid = np.indices([size[c] for c in uniq])
    out = _zeros(ops[k].shape, r)
    out[tuple(grid[uniq.index(c)] for c in mine)] = r
    return out


@helper
def kron_vjp(g, a, b, k):
    """kron(a, b)[i * nb + j] = a[i] b[j] per axis: view g as (na_0, nb_0, na_1, nb_1, ...)."""
    a, b = as_array(a), as_array(b)
    d = max(a.ndim, b.ndim)
    ash = (1,) * (d - a.ndim) + a.shape
    bsh = (1,) * (d - b.ndim) + b.shape
    gr = np.reshape(g, [v for pair in zip(ash, bsh) for v in pair])
    la, lb = _EINSUM_LETTERS[:d], _EINSUM_LETTERS[26:26 + d]
    gl = "".join(x + y for x, y in zip(la, lb))
    if k == 0:
        return np.reshape(np.einsum(f"{gl},{lb}->{la}", gr, np.reshape(b, bsh)), a.shape)
    return np.reshape(np.einsum(f"{gl},{la}->{lb}", gr, np.reshape(a, ash)), b.shape)


@helper
def cross_vjp(g, a, b, axisa, axisb, axisc, axis, k):
    """c = a x b: <g, a x b> = <a, b x g> = <b, g x a> (3-vectors)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    am = np.moveaxis(as_array(a), axisa, -1)
    bm = np.moveaxis(as_array(b), axisb, -1)
    if am.shape[-1] != 3 or bm.shape[-1] != 3:
        raise NotImplementedError("adsrc differentiates np.cross only for 3-component vectors")
    gm = np.moveaxis(as_array(g), axisc, -1)
    if k == 0:
        return np.moveaxis(sum_like(np.cross(bm, gm), am), -1, axisa)
    return np.moveaxis(sum_like(np.cross(gm, am), bm), -1, axisb)


@helper
def vecdot_vjp(g, x1, x2, axis, k):
    """vecdot(x1, x2) = sum(conj(x1) * x2, axis) with broadcasting: holomorphic in x2, and x1's
    cotangent is the conjugate of what conj(x1)'s would be."""
    ge = np.expand_dims(as_array(g), axis)
    if k == 0:
        return sum_like(_conj(ge * x2), x1)
    return sum_like(ge * _conj(x1), x2)


@helper
def matvec_vjp(g, x1, x2, k):
    """matvec(A, v)_i = sum_j A_ij v_j (stacked, broadcasting)."""
    g = as_array(g)
    if k == 0:
        return sum_like(g[..., :, None] * as_array(x2)[..., None, :], x1)
    return sum_like(np.einsum("...ij,...i->...j", x1, g), x2)


@helper
def vecmat_vjp(g, x1, x2, k):
    """vecmat(v, A)_j = sum_i conj(v_i) A_ij (stacked, broadcasting)."""
    g = as_array(g)
    if k == 0:
        return sum_like(_conj(np.einsum("...ij,...j->...i", x2, g)), x1)
    return sum_like(_conj(as_array(x1))[..., :, None] * g[..., None, :], x2)


@helper
def divmod_vjp(g, x, y, ans, k):
    """divmod(x, y) = (floor(x / y), x - floor(x / y) y): only the remainder depends on x and y."""
    g1 = g[1]
    return sum_like(g1, x) if k == 0 else sum_like(-g1 * ans[0], y)


@helper
def random_vjp(g, ans, p, q, k, kind):
    """Pathwise derivatives of a draw, holding the underlying standard draw fixed.

    normal(loc=p, scale=q) = p + q z; uniform(low=p, high=q) = p + (q - p) u.
    """
    g = as_array(g)
    if kind == "normal":
        return sum_like(g, p) if k == 0 else sum_like(g * (ans - p) / q, q)
    u = (ans - p) / (as_array(q) - p)
    return sum_like(g * (1.0 - u), p) if k == 0 else sum_like(g * u, q)


# -- linear algebra (stacks of matrices on the last two axes) ------------------------------------

def _T(x):
    return np.swapaxes(x, -1, -2)


def _sym(x):
    return 0.5 * (x + _T(x))


def _from_triangle(s_bar, lower):
    """Cotangent of A for a function that reads only one triangle of A as a symmetric matrix S.

    s_bar is the (symmetric) cotangent of S: each off-diagonal entry of the triangle read stands
    for two entries of S.
    """
    if lower:
        return np.tril(2.0 * s_bar) - _diag_embed(np.diagonal(s_bar, 0, -2, -1))
    return np.triu(2.0 * s_bar) - _diag_embed(np.diagonal(s_bar, 0, -2, -1))


def _diag_embed(d):
    n = np.shape(d)[-1]
    return d[..., :, None] * np.eye(n)


@helper
def inv_vjp(g, ans):
    """d(A^-1) = -A^-1 dA A^-1."""
    return -np.matmul(np.matmul(_T(ans), g), _T(ans))


@helper
def solve_vjp(g, a, b, ans, k):
    """x = A^-1 b: db = A^-T g, dA = -db x^T (b a vector when x has one axis fewer than A)."""
    a = as_array(a)
    vector = np.ndim(ans) == a.ndim - 1
    if vector:
        db = np.linalg.solve(_T(a), as_array(g)[..., None])[..., 0]
        if k == 1:
            return sum_like(db, b)
        return sum_like(-db[..., :, None] * as_array(ans)[..., None, :], a)
    db = np.linalg.solve(_T(a), g)
    if k == 1:
        return sum_like(db, b)
    return sum_like(-np.matmul(db, _T(ans)), a)


@helper
def det_vjp(g, a, ans):
    """d det A = tr(adj(A) dA), with adj(A) = det A A^-1 when A is invertible."""
    if np.any(ans == 0):        # singular (no try: this helper is itself differentiated for higher order)
        return as_array(g)[..., None, None] * _cofactors(as_array(a))
    return (as_array(g) * ans)[..., None, None] * _T(np.linalg.inv(a))


def _cofactors(a):
    """The cofactor matrix adj(A)^T, also for singular A: from A = U S V^T, det(U V^T) U adj(S) V^T."""
    u, s, vt = np.linalg.svd(a)
    n = s.shape[-1]
    others = np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(n)], axis=-1)
    sign = np.linalg.det(u) * np.linalg.det(vt)
    return sign[..., None, None] * _conj(np.matmul(u * others[..., None, :], vt))


@helper
def slogdet_vjp(g, a):
    """d log det A = tr(A^-1 dA); log|det A| is its real part and, for complex A, sign = exp(i Im log det A).
    So A_bar = (Re g_logdet + i Im(g_sign sign)) A^-T (for real A the sign is locally constant)."""
    c = _re(as_array(g[1]))
    if np.iscomplexobj(a):
        sign = np.linalg.slogdet(a)[0]
        c = c + 1j * np.imag(as_array(g[0]) * sign)
    return c[..., None, None] * _T(np.linalg.inv(a))


def _H(x):
    return np.conjugate(_T(x))


def _gap(w):
    """F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it."""
    eye = np.eye(np.shape(w)[-1], dtype=bool)
    return np.where(eye, 0.0, 1.0 / np.where(eye, 1.0, w[..., None, :] - w[..., :, None]))


def _fold_hermitian(s_bar, lower):
    """Cotangent of A for a function reading one triangle of A as the Hermitian (real: symmetric) matrix S whose
    cotangent is s_bar: an entry of the triangle stands for itself and for the conjugate across the diagonal,
    and the diagonal's imaginary part is not read."""
    m = s_bar + _H(s_bar)
    return (np.tril(m) if lower else np.triu(m)) - 0.5 * _diag_embed(np.diagonal(m, 0, -2, -1))


@helper
def cholesky_vjp(g, ans, upper):
    """A = L L^H, reading one triangle of A (U = L^H when upper). With X = L^-1 dS L^-H, dL = L Phi(X), where
    Phi takes the lower triangle and halves the diagonal. Transposed with the gradient G = conj(L_bar):
    S_bar = conj(L^-H herm(Phi(L^H G)) L^-1), herm(P) = (P + P^H) / 2."""
    L = _H(ans) if upper else ans
    gl = np.conjugate(_H(g) if upper else as_array(g))
    P = np.matmul(_H(L), gl)
    P = np.tril(P) - 0.5 * _diag_embed(np.diagonal(P, 0, -2, -1))
    Linv = np.linalg.inv(L)
    z = np.matmul(np.matmul(_H(Linv), 0.5 * (P + _H(P))), Linv)
    return np.conjugate(_fold_hermitian(z, lower=not upper))


@helper
def eigh_vjp(g, ans, UPLO):
    """A V = V diag(w), A Hermitian: with C = V^H dS V, dw = Re diag(C) and dV = V (F o C) (distinct eigenvalues;
    F from _gap). Transposed under the pairing Re sum(cot * tangent): S_bar = conj(V) (diag(w_bar) +
    F o (V^T V_bar)) V^T. For complex A, a loss must not depend on the phase of each eigenvector."""
    w, v = ans
    w_bar, v_bar = g
    inner = _diag_embed(np.real(as_array(w_bar)))
    if v_bar is not None and np.any(v_bar):     # eigenvectors used: needs distinct eigenvalues
        inner = inner + _gap(w) * np.matmul(_T(v), v_bar)
    s_bar = np.matmul(np.matmul(np.conjugate(v), inner), _T(v))
    return _fold_hermitian(s_bar, lower=UPLO in ("L", "l"))


@helper
def eigvalsh_vjp(g, a, UPLO):
    w, v = np.linalg.eigh(a, UPLO=UPLO)
    return eigh_vjp((g, None), (w, v), UPLO)


@helper
def pinv_vjp(g, a, ans):
    """For A of constant rank, dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P."""
    a, P, G = as_array(a), as_array(ans), as_array(g)
    m, n = a.shape[-2:]
    Q = np.eye(m) - np.matmul(a, P)
    R = np.eye(n) - np.matmul(P, a)
    return (-np.matmul(np.matmul(_T(P), G), _T(P))
            + np.matmul(np.matmul(Q, _T(G)), np.matmul(P, _T(P)))
            + np.matmul(np.matmul(_T(P), P), np.matmul(_T(G), R)))


@helper
def qr_vjp(g, ans):
    """A = QR (reduced, m >= n): with C = Q^T dA R^-1, Q^T dQ is the antisymmetric part built from C's
    strict lower triangle and dR = (C - Q^T dQ) R; so A_bar = (Q_bar + Q N) R^-T with M = R_bar R^T - Q^T Q_bar
    and N its upper triangle mirrored."""
    q, r = ans
    q_bar, r_bar = g
    m, n = np.shape(q)[-2], np.shape(r)[-1]
    if np.shape(r)[-2] != n:
        raise NotImplementedError("adsrc differentiates np.linalg.qr only for matrices with at least as many "
                                  "rows as columns in 'reduced' mode")
    M = np.matmul(r_bar, _T(r)) - np.matmul(_T(q), q_bar)
    N = np.triu(M) + _T(np.triu(M, 1))
    return np.matmul(q_bar + np.matmul(q, N), _T(np.linalg.inv(r)))


@helper
def svd_vjp(g, a, ans, full_matrices):
    """A = U diag(s) V^H (reduced, k = min(m, n); distinct nonzero singular values when U or V is used). With
    P = U^H dA V and F = _gap(s^2): ds = Re diag(P); dU = U (F o (P S + S P^H) + i Im diag(P) / s)
    + (I - U U^H) dA V S^-1; dV = V (F o (S P + P^H S)) + (I - V V^H) dA^H U S^-1 (the phases put in U).
    Transposed with the gradients G_U = conj(U_bar), G_V = Vh_bar^T, J = U^H G_U and K = V^H G_V:
    G_P = diag(s_bar) + (F o (J - J^H)) S + S (F o (K - K^H)) + i Im diag(J) / s;
    A_bar = conj(U G_P V^H + (I - U U^H) G_U S^-1 V^H + U S^-1 G_V^H (I - V V^H)).
    For complex A, a loss must not depend on the phases of the singular vectors."""
    u, s, vh = ans
    u_bar, s_bar, vh_bar = g
    a = as_array(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    if full_matrices and (np.any(u_bar[..., :, k:]) or np.any(vh_bar[..., k:, :])):
        raise NotImplementedError("the singular vectors np.linalg.svd adds with full_matrices=True to complete "
                                  "a basis are not unique, so they have no derivative; use full_matrices=False")
    u, u_bar = u[..., :, :k], u_bar[..., :, :k]
    vh, vh_bar = vh[..., :k, :], vh_bar[..., :k, :]
    s_bar = np.real(as_array(s_bar))
    if not (np.any(u_bar) or np.any(vh_bar)):      # singular values only
        return np.conjugate(np.matmul(u * s_bar[..., None, :], vh))
    gu, gv = np.conjugate(u_bar), _T(vh_bar)
    J = np.matmul(_H(u), gu)
    K = np.matmul(vh, gv)
    F = _gap(s * s)
    S = _diag_embed(s)
    gp = np.matmul(F * (J - _H(J)), S) + _diag_embed(s_bar) + np.matmul(S, F * (K - _H(K)))
    if np.iscomplexobj(J):
        gp = gp + 1j * _diag_embed(np.imag(np.diagonal(J, 0, -2, -1)) / s)
    out = np.matmul(np.matmul(u, gp), vh)
    sinv = 1.0 / s
    if m > k:
        proj_u = np.eye(m) - np.matmul(u, _H(u))
        out = out + np.matmul(np.matmul(proj_u, gu) * sinv[..., None, :], vh)
    if n > k:
        proj_v = np.eye(n) - np.matmul(_H(vh), vh)
        out = out + np.matmul(u * sinv[..., None, :], np.matmul(_H(gv), proj_v))
    return np.conjugate(out)


@helper
def svdvals_vjp(g, a):
    """d s_i = Re(u_i^H dA v_i)."""
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    return np.conjugate(np.matmul(u * np.real(as_array(g))[..., None, :], vh))


@helper
def matrix_power_vjp(g, a, n):
    """A^n: sum over k of (A^T)^k G (A^T)^(n-1-k); through A^-1 for negative n."""
    a = as_array(a)
    if n == 0:
        return np.zeros(a.shape)
    base = np.linalg.inv(a) if n < 0 else a
    m = abs(n)
    powers = [np.broadcast_to(np.eye(a.shape[-1]), a.shape)]
    for _ in range(m - 1):
        powers.append(np.matmul(powers[-1], base))
    b_bar = sum(np.matmul(np.matmul(_T(powers[k]), g), _T(powers[m - 1 - k])) for k in range(m))
    if n < 0:
        return inv_vjp(b_bar, base)
    return b_bar


@helper
def multi_dot_vjp(g, arrays):
    """Cotangents of the matrices of a chained product (a 1-D first or last factor is a row or column)."""
    mats = [as_array(x) for x in arrays]
    if mats[0].ndim == 1:
        mats[0] = mats[0][None, :]
    if mats[-1].ndim == 1:
        mats[-1] = mats[-1][:, None]
    G = np.reshape(g, (mats[0].shape[0], mats[-1].shape[1]))
    n = len(mats)
    left = [np.eye(mats[0].shape[0])]
    for x in mats[:-1]:
        left.append(left[-1] @ x)
    right = [np.eye(mats[-1].shape[1])]
    for x in mats[:0:-1]:
        right.append(x @ right[-1])
    right = right[::-1]
    return [np.reshape(left[i].T @ G @ right[i].T, np.shape(arrays[i])) for i in range(n)]


def _csign(x):
    """d|x| / dx in adsrc's convention: sign(x) for real x, conj(x) / |x| for complex x (0 at 0)."""
    if not np.iscomplexobj(x):
        return np.sign(x)
    r = np.abs(x)
    return np.where(r == 0, 0.0, np.conjugate(x) / np.where(r == 0, 1.0, r))


def _vector_norm_vjp(g, x, ans, ord, axis, keepdims):
    """Cotangent of a vector p-norm over `axis` (an int, a tuple, or None for all axes); complex x too (the
    norm of |x|: each element's |.| contributes conj(x) / |x|)."""
    x = x if np.iscomplexobj(x) else as_float(x)
    ge = expand_to(g, x, axis, keepdims)
    ae = expand_to(ans, x, axis, keepdims)
    if ord is None or ord == 2:
        return np.broadcast_to(ge * np.conjugate(x) / ae, x.shape)
    if ord == 0:
        return np.zeros(x.shape)
    if ord == 1:
        return np.broadcast_to(ge * _csign(x), x.shape)
    if np.isinf(ord):       # max or min of |x|: shared among ties
        mask = np.abs(x) == ae
        count = np.sum(mask, axis=axis, keepdims=True)
        return ge * _csign(x) * mask / count
    return ge * _csign(x) * (np.abs(x) / ae) ** (ord - 1)


def _matrix_norm_vjp(g, x, ans, ord, axes, keepdims):
    x = x if np.iscomplexobj(x) else as_float(x)
    nd = x.ndim
    r, c = axes[0] % nd, axes[1] % nd
    xm = np.moveaxis(x, (r, c), (-2, -1))
    gm = np.moveaxis(as_array(expand_to(g, x, (r, c), keepdims)), (r, c), (-2, -1))
    am = np.moveaxis(as_array(expand_to(ans, x, (r, c), keepdims)), (r, c), (-2, -1))
    if ord is None or ord == "fro":
        out = gm * np.conjugate(xm) / am
    elif ord == "nuc":          # (the conjugates: complex x, whose singular values move by Re(u^H dx v))
        u, _, vh = np.linalg.svd(xm, full_matrices=False)
        out = gm * np.conjugate(np.matmul(u, vh))
    elif ord in (2, -2):        # the largest / smallest singular value
        u, _, vh = np.linalg.svd(xm, full_matrices=False)
        i = 0 if ord == 2 else -1
        out = gm * np.conjugate(u[..., :, i, None] * vh[..., None, i, :])
    elif ord in (1, -1, np.inf, -np.inf):   # max / min column (1) or row (inf) sum of |x|
        sums = np.sum(np.abs(xm), axis=-2 if ord in (1, -1) else -1, keepdims=True)
        mask = sums == am
        out = gm * _csign(xm) * mask / np.sum(mask, axis=(-2, -1), keepdims=True)
    else:
        raise NotImplementedError(f"adsrc cannot differentiate the matrix norm with ord={ord!r}")
    return np.moveaxis(np.broadcast_to(out, xm.shape), (-2, -1), (r, c))


@helper
def norm_vjp(g, x, ans, ord, axis, keepdims):
    """np.linalg.norm: a vector norm or, over two axes (or a 2-D x with an ord), a matrix norm."""
    nd = np.ndim(x)
    if isinstance(axis, (tuple, list)) and len(axis) == 2:
        return _matrix_norm_vjp(g, x, ans, ord, tuple(axis), keepdims)
    if axis is None and ord is not None and nd == 2:
        return _matrix_norm_vjp(g, x, ans, ord, (0, 1), keepdims)
    if isinstance(axis, (tuple, list)):
        axis = axis[0]
    return _vector_norm_vjp(g, x, ans, ord, axis, keepdims)


@helper
def vector_norm_vjp(g, x, ans, ord, axis, keepdims):
    if isinstance(axis, list):
        axis = tuple(axis)
    return _vector_norm_vjp(g, x, ans, ord, axis, keepdims)


@helper
def matrix_norm_vjp(g, x, ans, ord, keepdims):
    return _matrix_norm_vjp(g, x, ans, ord, (-2, -1), keepdims)


_ = (full, is_zero, math)
