"""NumPy functions that build, place and apply, written in plain NumPy that adsrc differentiates like the
user's code (see by_source.py, whose tables map NumPy's functions to these): `np.insert`, `np.ediff1d`,
`np.block`, `np.choose`, `np.put` and `np.put_along_axis`'s indices and values, `np.apply_along_axis`,
`np.piecewise`'s parts, `np.vectorize`d calls, and the ufunc methods `outer`, `reduce`, `accumulate` and
`np.add.reduceat`.
"""

import numpy as np

from . import nondiff
from .by_source_more import _unsupported


def insert_positions(shape, obj, values_shape, axis):
    """Where np.insert(arr, obj, values, axis) puts arr's elements and values' (positions in each, -1 for the
    other's), found by NumPy's own insert on index arrays."""
    size = int(np.prod(shape))
    from_arr = np.insert(np.reshape(np.arange(size), shape), obj, -1, axis=axis)
    from_values = np.insert(np.full(shape, -1), obj, np.reshape(np.arange(int(np.prod(values_shape))), values_shape),
                            axis=axis)
    return from_arr, from_values


nondiff(insert_positions, "insert_positions")


def insert(arr, obj, values, axis=None):
    """Through index arrays: where arr's elements and values' elements go (insert_positions)."""
    arr = np.asarray(arr)
    if axis is None:
        arr = np.ravel(arr)
        axis = 0
    from_arr, from_values = insert_positions(arr.shape, obj, np.shape(values), axis)
    kept = np.ravel(arr)[np.maximum(from_arr, 0)]
    if np.size(values) == 0:
        return kept
    new = np.ravel(np.asarray(values, dtype=arr.dtype))[np.maximum(from_values, 0)]
    return np.where(from_arr >= 0, kept, new)


def ediff1d(ary, to_end=None, to_begin=None):
    parts = [np.ravel(to_begin)] if to_begin is not None else []
    flat = np.ravel(ary)
    parts.append(flat[1:] - flat[:-1])
    if to_end is not None:
        parts.append(np.ravel(to_end))
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def block(arrays):
    """Lists nested one or two deep; the innermost are joined along the last axis."""
    if not isinstance(arrays, list):
        return np.asarray(arrays)
    if not any(isinstance(a, list) for a in arrays):
        return np.concatenate([np.atleast_1d(a) for a in arrays], axis=-1)
    if any(isinstance(b, list) for a in arrays for b in a) or any(np.ndim(b) > 2 for a in arrays for b in a):
        _unsupported("np.block", "lists nested more than two deep or arrays of more than two dimensions")
    rows = [np.concatenate([np.atleast_2d(b) for b in a], axis=-1) for a in arrays]
    return np.concatenate(rows, axis=-2)


def choose(a, choices, out=None, mode="raise"):
    if out is not None or mode != "raise":
        _unsupported("np.choose", "out= or mode=")
    a = np.asarray(a)
    if np.any((a < 0) | (a >= len(choices))):
        raise ValueError("invalid entry in choice array")
    result = np.zeros(np.broadcast_shapes(a.shape, *[np.shape(c) for c in choices]))
    for k in range(len(choices)):
        result = np.where(a == k, choices[k], result)
    return result


def put_index(a, ind):
    """The index tuple of the elements np.put(a, ind, v) writes (ind counts a's elements in C order)."""
    flat = np.asarray(ind, dtype=np.intp)
    size = np.size(a)
    if np.any((flat >= size) | (flat < -size)):
        raise IndexError(f"index out of range for array of size {size}")
    return np.unravel_index(flat % size, np.shape(a)) if size else (flat,)


def along_axis_index(a, indices, axis):
    """The index tuple of the elements np.put_along_axis(a, indices, v, axis) writes."""
    a = np.asarray(a)
    indices = np.asarray(indices)
    if axis is None:
        return np.unravel_index(indices % a.size, a.shape)
    axis = axis % a.ndim
    if indices.ndim != a.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    out = []
    for k in range(a.ndim):
        if k == axis:
            out.append(indices)
        else:
            shape = [1] * a.ndim
            shape[k] = a.shape[k]
            out.append(np.arange(a.shape[k]).reshape(shape))
    return tuple(np.broadcast_arrays(*out))


def put_values(v, index):
    """v as np.put writes it at index: repeated over the elements when it has fewer (NumPy's rule)."""
    n = np.size(index[0])
    flat = np.ravel(v)
    if flat.shape[0] == n or flat.shape[0] == 1 or np.ndim(v) > 1:
        return v
    return np.reshape(np.tile(flat, -(-n // flat.shape[0]))[:n], np.shape(index[0]))


nondiff(put_index, "put_index")
nondiff(along_axis_index, "along_axis_index")


# -- applying functions ---------------------------------------------------------------------------------------

def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    arr = np.asarray(arr)
    axis = axis % arr.ndim
    moved = np.moveaxis(arr, axis, -1)
    lead = moved.shape[:-1]
    rows = np.reshape(moved, (-1, moved.shape[-1]))
    results = np.stack([np.asarray(func1d(rows[i], *args, **kwargs)) for i in range(rows.shape[0])])
    out = np.reshape(results, lead + results.shape[1:])
    k = results.ndim - 1
    if k == 0:
        return out
    return np.moveaxis(out, tuple(range(len(lead), len(lead) + k)), tuple(range(axis, axis + k)))


def piecewise_conditions(x, condlist, n):
    """np.piecewise's conditions as boolean arrays of x's shape, with the "otherwise" one when there are n
    functions for n - 1 conditions."""
    x = np.asarray(x)
    if isinstance(condlist, (bool, np.bool_)) or not isinstance(condlist, list) and np.ndim(condlist) == x.ndim:
        condlist = [condlist]
    conditions = [np.broadcast_to(np.asarray(c, dtype=bool), x.shape) for c in condlist]
    if n == len(conditions) + 1:
        rest = ~np.any(np.stack(conditions), axis=0) if conditions else np.ones(x.shape, dtype=bool)
        conditions.append(rest)
    return conditions


def piecewise_start(x):
    x = np.asarray(x)
    return np.zeros(x.shape, dtype=x.dtype)


def piecewise_part(out, x, cond, fn, *args, **kw):
    """out with fn of x's values where cond holds written there (fn sees only those values)."""
    new = out.copy()
    new[cond] = fn(np.asarray(x)[cond], *args, **kw)
    return new


def piecewise_value(out, cond, value):
    new = out.copy()
    new[cond] = value
    return new


def vectorized_1(pyfunc, a):
    """np.vectorize(pyfunc)(a): pyfunc of each element (vectorized_2, _3: of the broadcast arguments')."""
    flat = np.ravel(a)
    return np.reshape(np.array([pyfunc(flat[i]) for i in range(flat.shape[0])]), np.shape(a))


def vectorized_2(pyfunc, a, b):
    shape = np.broadcast_shapes(np.shape(a), np.shape(b))
    fa, fb = np.ravel(np.broadcast_to(a, shape)), np.ravel(np.broadcast_to(b, shape))
    return np.reshape(np.array([pyfunc(fa[i], fb[i]) for i in range(fa.shape[0])]), shape)


def vectorized_3(pyfunc, a, b, c):
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    fa, fb, fc = [np.ravel(np.broadcast_to(v, shape)) for v in (a, b, c)]
    return np.reshape(np.array([pyfunc(fa[i], fb[i], fc[i]) for i in range(fa.shape[0])]), shape)


VECTORIZED = {1: vectorized_1, 2: vectorized_2, 3: vectorized_3}


def signature_core_ndims(signature, nargs):
    """The number of core dimensions of each of the nargs inputs of a np.vectorize signature with one output
    (`"(n,n),(n)->(n)"`: (2, 1))."""
    ins, _, outs = signature.replace(" ", "").partition("->")
    parts = ins[1:-1].split("),(")
    if not outs or outs.count("(") != 1 or len(parts) != nargs:
        raise NotImplementedError(f"adsrc follows np.vectorize with signature={signature!r} for one output and "
                                  f"as many inputs as the call passes ({nargs})")
    return tuple(len([d for d in p.split(",") if d]) for p in parts)


nondiff(signature_core_ndims, "signature_core_ndims")


def _loop_rows(a, loop, nd):
    """a broadcast over the loop dimensions, one row per loop index, each of a's core shape."""
    core = np.shape(a)[np.ndim(a) - nd:]
    return np.reshape(np.broadcast_to(a, loop + core), (-1,) + core)


def vectorized_signature_1(pyfunc, signature, a):
    """np.vectorize(pyfunc, signature=...)(a): pyfunc of each core block, stacked over the loop dimensions."""
    nd = signature_core_ndims(signature, 1)
    loop = np.shape(a)[:np.ndim(a) - nd[0]]
    ra = _loop_rows(a, loop, nd[0])
    out = np.stack([pyfunc(ra[i]) for i in range(ra.shape[0])])
    return np.reshape(out, loop + np.shape(out)[1:])


def vectorized_signature_2(pyfunc, signature, a, b):
    nd = signature_core_ndims(signature, 2)
    loop = np.broadcast_shapes(np.shape(a)[:np.ndim(a) - nd[0]], np.shape(b)[:np.ndim(b) - nd[1]])
    ra, rb = _loop_rows(a, loop, nd[0]), _loop_rows(b, loop, nd[1])
    out = np.stack([pyfunc(ra[i], rb[i]) for i in range(ra.shape[0])])
    return np.reshape(out, loop + np.shape(out)[1:])


VECTORIZED_SIGNATURE = {1: vectorized_signature_1, 2: vectorized_signature_2}


def ufunc_outer(ufunc, a, b):
    a, b = np.asarray(a), np.asarray(b)
    return ufunc(np.reshape(a, a.shape + (1,) * b.ndim), b)


def ufunc_reduce(ufunc, array, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    if dtype is not None or out is not None or where is not True:
        _unsupported(f"np.{ufunc.__name__}.reduce", "dtype=, out= or where=")
    array = np.asarray(array)
    if axis is None:
        moved = np.reshape(array, (-1,))
        axis_ = 0
    else:
        axis_ = axis % array.ndim
        moved = np.moveaxis(array, axis_, 0)
    acc = moved[0] if initial is None else ufunc(initial, moved[0])
    for i in range(1, moved.shape[0]):
        acc = ufunc(acc, moved[i])
    if keepdims:
        return np.reshape(acc, (1,) * array.ndim) if axis is None else np.expand_dims(acc, axis_)
    return acc


def ufunc_accumulate(ufunc, array, axis=0, dtype=None, out=None):
    if dtype is not None or out is not None:
        _unsupported(f"np.{ufunc.__name__}.accumulate", "dtype= or out=")
    array = np.asarray(array)
    moved = np.moveaxis(array, axis, 0)
    acc = moved[0]
    steps = [acc]
    for i in range(1, moved.shape[0]):
        acc = ufunc(acc, moved[i])
        steps.append(acc)
    return np.moveaxis(np.stack(steps), 0, axis)


def add_reduceat(a, indices, axis=0):
    """np.add.reduceat: the sum of each segment [indices[i], indices[i + 1]), or the item at indices[i] where
    the next index is not larger."""
    a = np.moveaxis(np.asarray(a), axis, 0)
    n = a.shape[0]
    parts = []
    for i in range(len(indices)):
        start = indices[i]
        stop = indices[i + 1] if i + 1 < len(indices) else n
        parts.append(np.sum(a[start:stop], axis=0) if start < stop else a[start])
    return np.moveaxis(np.stack(parts), 0, axis)


# -- polynomials as coefficient arrays, highest degree first (np.polyder, np.polyint, np.polyadd, np.polysub)

def polyder(p, m=1):
    p = np.asarray(p)
    for _ in range(int(m)):
        p = p[:-1] * np.arange(len(p) - 1, 0, -1)
    return p


def polyint(p, m=1, k=None):
    m = int(m)
    ks = np.zeros(m) if k is None else np.atleast_1d(k)
    if len(ks) == 1 and m > 1:
        ks = ks[0] * np.ones(m)
    p = np.asarray(p)
    for j in range(m):
        p = np.concatenate((p / np.arange(len(p), 0, -1), ks[j:j + 1]))
    return p


def _aligned(a1, a2):
    """a1 and a2 as 1-d arrays of one length, the shorter padded with leading zeros (its low terms aligned)."""
    a1, a2 = np.atleast_1d(a1), np.atleast_1d(a2)
    n = max(len(a1), len(a2))
    return (np.concatenate((np.zeros(n - len(a1), dtype=a1.dtype), a1)),
            np.concatenate((np.zeros(n - len(a2), dtype=a2.dtype), a2)))


def polyadd(a1, a2):
    b1, b2 = _aligned(a1, a2)
    return b1 + b2


def polysub(a1, a2):
    b1, b2 = _aligned(a1, a2)
    return b1 - b2
