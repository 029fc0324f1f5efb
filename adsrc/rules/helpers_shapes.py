"""Helpers of the derivative rules of shape functions: transposes, reshapes, splits, stacks, casts,
pads, takes, diagonals, clips and masks.

Each takes the output cotangent `g` and the primal values it needs, and returns the argument's cotangent
(registered for generated code by @helper; rules/helpers.py gathers them)."""

import numpy as np

from ..arrays import as_array, is_duck, is_lazy, need_values
from ..errors import TransformError
from ..facade import size as array_size
from ..runtime import helper, full, is_zero, item_cot, onehot_scatter
from .helpers_reductions import _axes_tuple, _bincount, _zeros


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
