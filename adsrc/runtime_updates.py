"""Helpers of functional updates (index_update and its pullbacks, list appends) and of dict views and
other iterables. Gathered by runtime.py."""

import copy
import weakref

import numpy as np

from .arrays import is_duck
from .runtime_accumulate import _is_basic_index, item_cot, owned
from .runtime_core import _nd, full, helper, is_zero, shape, unbroadcast


# -- functional updates -------------------------------------------------------------------------

@helper
def index_update(x, idx, v):
    """A copy of x with x[idx] = v (what `x[idx] = v` computes, without mutating x)."""
    if isinstance(x, list):
        out = list(x)
        out[idx] = v
        return out
    if isinstance(x, tuple):        # (a view held in a tuple changed: the tuple holding its new value)
        out = list(x)
        out[idx] = v
        return type(x)(*out) if hasattr(x, "_fields") else tuple(out)
    if isinstance(x, dict):
        out = dict(x) if type(x) is dict else copy.copy(x)     # keeps a defaultdict's default
        out[idx] = v
        return out
    out = x.copy() if is_duck(x) else np.array(x, copy=True)
    out[idx] = v
    if type(x) is _nd:
        _SUPERSEDED[id(x)] = weakref.ref(x, lambda _, key=id(x): _SUPERSEDED.pop(key, None))
    return out


# arrays index_update replaced by an updated copy: a view of one that is still held is stale (check_current)
_SUPERSEDED = {}


def check_current(x):
    """Refuse a change in place through x when x is a view of an array an earlier change replaced by an
    updated copy: the change would not reach the copy (views held in a list, tuple or dict)."""
    base = x.base
    while isinstance(base, _nd):
        ref = _SUPERSEDED.get(id(base))
        if ref is not None and ref() is base:
            from .errors import TransformError
            raise TransformError("adsrc cannot follow this change in place: the array changed is a view of an "
                                 "array an earlier change made a new copy of (views held in a list, tuple or "
                                 "dict, changed one after another). Change the array through its indices "
                                 "(`a[0:2] *= 3.0`), or compute new values (`rows = [r * 3.0 for r in rows]`).")
        base = base.base


@helper
def index_update_inplace(x, idx, v):
    """x[idx] = v in place, returning x: for arrays only this code holds whose old values are not needed."""
    if type(x) is _nd or is_duck(x):
        x[idx] = v
        return x
    return index_update(x, idx, v)


@helper
def snapshot(x):
    """x itself, or a copy if x is an array view (of an array about to be updated in place)."""
    if type(x) is _nd and x.base is not None or is_duck(x) and getattr(x, "base", None) is not None:
        return x.copy()
    return x


@helper
def zero_at(g, x, idx):
    """The cotangent of x in index_update(x, idx, v), made in place from g (a buffer only we hold)."""
    if (type(g) is _nd and type(x) is _nd or is_duck(g) and type(g) is type(x)) and g.shape == x.shape:
        g[idx] = 0.0
        return g
    return index_update_vjp_base(g, x, idx)


@helper
def index_update_vjp_value(g, x, idx, v):
    """Cotangent of v in index_update(x, idx, v) given the output cotangent g."""
    if type(x) is _nd or isinstance(x, np.generic) or is_duck(x):
        part = full(g, x)
        part = (np.asarray(part) if np.ndim(part) == 0 else part)[idx]      # (a 0-d array's cotangent: a number)
        if getattr(part, "base", None) is not None:
            part = part.copy()       # g may be zeroed in place next (zero_at): do not hand out a view
        if not _is_basic_index(idx):
            part = part * _last_writes(idx, shape(x))    # repeated indices: the last write wins
        if x.dtype.kind in "biu":
            part = np.zeros(np.shape(part))      # written into integers: truncated, no derivative
        return unbroadcast(part, v, part)
    if isinstance(idx, slice) and isinstance(x, list) and not is_zero(g):
        return [item_cot(g, p) for p in _slice_positions(x, idx, v)]
    return item_cot(g, idx)


def _slice_positions(x, idx, v):
    """Where the items of v are in index_update(x, idx, v) for a list x (slices may change its length)."""
    start, stop, step = idx.indices(len(x))
    if step == 1:
        return range(start, start + len(v))
    return range(start, stop, step)


@helper
def index_update_vjp_base(g, x, idx):
    """Cotangent of x in index_update(x, idx, v): g with the overwritten part zeroed."""
    if type(x) is _nd or isinstance(x, np.generic) or is_duck(x):
        out = owned(g, x)
        out[idx] = 0.0
        return out
    if is_zero(g):
        return 0.0
    if isinstance(idx, slice) and isinstance(x, list):
        start, stop, step = idx.indices(len(x))
        replaced = range(start, stop, step)
        if step == 1:           # the items of x[idx] were replaced by len(g) - len(x) + len(replaced) items
            return list(g[:start]) + [0.0] * len(replaced) + list(g[start + len(g) - len(x) + len(replaced):])
        out = list(g)
        for p in replaced:
            out[p] = 0.0
        return out
    out = list(g) if isinstance(g, (list, tuple)) else dict(g)
    out[idx] = 0.0
    return out


def _last_writes(idx, shp):
    """1 where an element of x[idx] = v is the last write to its position (NumPy keeps that one), else 0."""
    flat = np.arange(int(np.prod(shp))).reshape(shp)[idx]
    order = np.ravel(flat)
    if np.unique(order).size == order.size:
        return 1.0
    mask = np.zeros(order.size)
    _, last = np.unique(order[::-1], return_index=True)
    mask[order.size - 1 - last] = 1.0
    return mask.reshape(np.shape(flat))


@helper
def list_append(lst, v):
    """lst + [v] (what `lst.append(v)` computes, without mutating lst)."""
    out = list(lst)
    out.append(v)
    return out


@helper
def list_append_inplace(lst, v):
    """lst.append(v), returning lst: for lists only this code holds that nothing else reads."""
    lst.append(v)
    return lst


@helper
def list_copy(g):
    """A list only this code holds, from a list (or tuple) cotangent; other cotangents as they are."""
    return list(g) if isinstance(g, (list, tuple)) else g


@helper
def split_last(g):
    """(cotangent of a list before an append, cotangent of the appended value) from the list's cotangent.

    A list g (only this code holds it) loses its last element in place; an
    array or tuple is sliced; a scalar stands for every element alike.
    """
    if isinstance(g, list):
        return g, (g.pop() if g else 0.0)
    if isinstance(g, tuple) or ((type(g) is _nd or is_duck(g)) and g.ndim > 0):
        return g[:-1], g[-1]
    return g, g


# -- dict views and other iterables ----------------------------------------------------------------

@helper
def dict_values(d):
    """d.values() as a list (what a loop or sum over it sees)."""
    return list(d.values())


@helper
def dict_items(d):
    return list(d.items())


@helper
def dict_keys(d):
    return list(d.keys())


@helper
def values_cot(g, d):
    """Cotangent of d from the cotangent of list(d.values())."""
    return {k: item_cot(g, i) for i, k in enumerate(d)}


@helper
def items_cot(g, d):
    """Cotangent of d from the cotangent of list(d.items()) (pairs of key and value)."""
    return {k: item_cot(item_cot(g, i), 1) for i, k in enumerate(d)}


@helper
def stack_cot(parts, x):
    """Cotangent of an array x unpacked into its rows (`a, b = x`) from the rows' cotangents."""
    if type(x) is not _nd and not isinstance(x, np.generic) and not is_duck(x):
        return tuple(parts)
    rows = shape(x)[1:]
    return np.stack([np.broadcast_to(p, rows) for p in parts])


@helper
def sequence_cot(g, x):
    """Cotangent of x from the cotangent of list(x) or tuple(x)."""
    if isinstance(x, dict):
        return 0.0          # list(d) is d's keys: no derivative reaches d's values through them
    if type(x) is _nd or is_duck(x):
        if is_zero(g):
            return 0.0
        return np.stack([np.broadcast_to(item_cot(g, i), shape(x)[1:]) for i in range(len(x))])
    return g


@helper
def iterated_cot(g, x):
    """Cotangent of x from the cotangent of sequence(x): none for a dict's or set's keys."""
    if isinstance(x, (dict, set, frozenset)):
        return 0.0
    return g


@helper
def sequence(x):
    """x if it can be indexed (a list, tuple, array, range), else a list of its items."""
    if isinstance(x, (list, tuple, np.ndarray, range, str)) or is_duck(x):
        return x
    return list(x)
