"""Helpers (and their rules) for lists, dicts and objects changed in place, and builtins that pass values through.

`lowering/functionalize.py` rewrites `lst.insert(i, v)`, `d.update(e)`,
`x.sort()`, ... into these helpers, which return the changed object's new
value without changing the old one, and brings the names sharing an object
up to date with `same_part`, `replace_obj`, `replace_field` and
`view_assign`. `map`, `zip`, `enumerate`, `reversed`, `sorted` and `dict`
used as values become `zip_lists`, `enumerate_list`, ...

Cotangents of lists, tuples and dicts are lists, tuples and dicts of
cotangents, or 0.0 (zero); see runtime.py.
"""

import copy
import dataclasses

import numpy as np

from ..runtime import HELPERS, add_cot, full, helper, is_zero, item_cot, unbroadcast
from . import general, nondiff

_nd = np.ndarray


def _mutable(x):
    return isinstance(x, (_nd, list, dict, set)) or (hasattr(x, "__dict__") and not isinstance(x, type))


# -- sharing ------------------------------------------------------------------------------------------

@helper
def is_mutable(x):
    """Does `x op= v` change x's object in place (arrays, lists) rather than rebind the name?"""
    return isinstance(x, (_nd, list, dict, set, bytearray))


@helper
def same_part(a, b):
    """Is a the object b, or a view of exactly the same memory (so a change to one is a change to the other)?"""
    if a is b:
        return _mutable(a)
    if type(a) is _nd and type(b) is _nd:
        ia, ib = a.__array_interface__, b.__array_interface__
        return ia["data"] == ib["data"] and a.shape == b.shape and a.strides == b.strides and a.dtype == b.dtype
    return False


def _shares(a, old):
    if a is old:
        return _mutable(a)
    if type(a) is _nd and type(old) is _nd:
        return np.shares_memory(a, old)
    if isinstance(a, (list, tuple)):
        return any(_shares(x, old) for x in a)
    if isinstance(a, dict):
        return any(_shares(x, old) for x in a.values())
    return False


@helper
def check_unshared(a, old, message):
    """Raise if a shares memory with old (changed in place) in a way adsrc could not follow."""
    if _shares(a, old):
        from ..errors import TransformError
        raise TransformError(message)


def _positions(m, old, path=()):
    """Paths (tuples of keys) at which container m holds the object old."""
    if m is old:
        return [path]
    if isinstance(m, (list, tuple)):
        return [p for i, x in enumerate(m) for p in _positions(x, old, path + (i,))]
    if isinstance(m, dict):
        return [p for k, x in m.items() for p in _positions(x, old, path + (k,))]
    if type(m) is _nd and type(old) is _nd and np.shares_memory(m, old):
        from ..errors import TransformError
        raise TransformError("adsrc cannot follow a change in place to an array that a container holds a view of. "
                             "Copy the view (`v.copy()`) before storing it.")
    return []


def _set_path(m, path, value):
    if not path:
        return value
    k = path[0]
    part = _set_path(m[k], path[1:], value)
    if isinstance(m, tuple):
        items = list(m)
        items[k] = part
        return type(m)(*items) if hasattr(m, "_fields") else tuple(items)
    out = copy.copy(m)
    out[k] = part
    return out


@helper
def replace_obj(m, old, new):
    """m with every place where it holds the object old holding new instead (old was changed in place)."""
    if not _mutable(old):
        return m
    for path in _positions(m, old):
        m = _set_path(m, path, new)
    return m


def _cot_get(g, path):
    for k in path:
        g = item_cot(g, k)
    return g


def _cot_set(g, path, value, like):
    if not path:
        return value
    k = path[0]
    if is_zero(g):
        if isinstance(like, dict):
            g = {}
        elif isinstance(like, (list, tuple)):
            g = [0.0] * len(like)
        else:
            return g
    inner = _cot_set(item_cot(g, k), path[1:], value, like[k])
    out = dict(g) if isinstance(g, dict) else list(g)
    out[k] = inner
    return type(g)(out) if isinstance(g, tuple) else out


@helper
def replace_obj_cot(g, m, old, k):
    """Cotangents of m (k=0) and new (k=1) in replace_obj(m, old, new)."""
    if is_zero(g) or not _mutable(old):
        return g if k == 0 else 0.0
    paths = _positions(m, old)
    if k == 1:
        total = 0.0
        for p in paths:
            total = add_cot(total, _cot_get(g, p))
        return total
    for p in paths:
        g = _cot_set(g, p, 0.0, m)
    return g


@helper
def replace_field(obj, name, value):
    """A copy of obj with its field `name` set to value (namedtuples, dataclasses, other objects)."""
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return obj._replace(**{name: value})
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.replace(obj, **{name: value})
    out = copy.copy(obj)
    setattr(out, name, value)
    return out


@helper
def replace_field_cot(g, obj, name, k):
    """Cotangents of obj (k=0) and value (k=1) in replace_field(obj, name, value)."""
    if is_zero(g):
        return 0.0 if k == 1 else g
    index = obj._fields.index(name) if isinstance(obj, tuple) and hasattr(obj, "_fields") else name
    if k == 1:
        return item_cot(g, index)
    out = list(g) if isinstance(g, (list, tuple)) else dict(g)
    out[index] = 0.0
    return out


@helper
def view_assign(base, view, value):
    """A copy of base with view(copy)[...] = value: what writing through a view of base does to base."""
    out = np.array(base, copy=True)
    part = view(out)
    if type(part) is _nd and np.shares_memory(part, out):
        part[...] = value
    return out


@helper
def view_assign_cot(g, base, view, value, k):
    """Cotangents of base (k=0) and value (k=1) in view_assign(base, view, value)."""
    g = np.array(full(g, base), dtype=np.result_type(g, float), copy=True)
    part = view(g)
    if not (type(part) is _nd and np.shares_memory(part, g)):
        return g if k == 0 else 0.0
    if k == 1:
        return unbroadcast(np.array(part, copy=True), value, part)
    part[...] = 0.0
    return g


# -- list and dict methods, functionally ------------------------------------------------------------------

@helper
def list_extend(lst, values):
    return list(lst) + list(values)


@helper
def list_extend_cot(g, lst, values, k):
    n = len(lst)
    if is_zero(g):
        return 0.0
    if k == 0:
        return list(g[:n])
    part = list(g[n:])
    return np.stack([np.broadcast_to(p, np.shape(values)[1:]) for p in part]) if type(values) is _nd else part


@helper
def list_insert(lst, i, v):
    out = list(lst)
    out.insert(i, v)
    return out


@helper
def list_insert_cot(g, lst, i, k):
    if is_zero(g):
        return 0.0
    pos = range(len(lst) + 1)[i] if -len(lst) - 1 <= i < len(lst) + 1 else (0 if i < 0 else len(lst))
    if k == 1:
        return g[pos]
    return list(g[:pos]) + list(g[pos + 1:])


@helper
def clear_copy(c):
    return type(c)() if not hasattr(c, "default_factory") else type(c)(c.default_factory)


@helper
def dict_update(d, other):
    out = copy.copy(d)
    out.update(other)
    return out


@helper
def dict_update_cot(g, d, other, k):
    if is_zero(g):
        return 0.0
    keys = set(dict(other))
    if k == 1:
        return {key: g.get(key, 0.0) for key in keys} if isinstance(other, dict) else \
            [(0.0, g.get(key, 0.0)) for key, _ in other]
    return {key: v for key, v in g.items() if key not in keys}


def _order(x, reverse):
    keys = list(x)
    idx = sorted(range(len(keys)), key=lambda i: keys[i], reverse=bool(reverse))
    return idx


@helper
def sorted_value(x, reverse=False):
    """x.sort(): arrays along their last axis, lists by value."""
    if type(x) is _nd:
        out = np.sort(x, axis=-1)
        return out[..., ::-1] if reverse else out
    return sorted(x, reverse=bool(reverse))


@helper
def sorted_value_cot(g, x, reverse):
    if is_zero(g):
        return 0.0
    if type(x) is _nd:
        order = np.argsort(x, axis=-1, kind="stable")
        if reverse:
            order = order[..., ::-1]
        out = np.zeros(x.shape, dtype=np.result_type(x, float))
        np.put_along_axis(out, order, full(g, x), axis=-1)
        return out
    order = _order(x, reverse)
    out = [0.0] * len(x)
    for pos, i in enumerate(order):
        out[i] = item_cot(g, pos)
    return out


@helper
def fill_value(x, v):
    return np.full_like(x, v)


@helper
def list_remove(lst, v):
    out = list(lst)
    out.remove(v)
    return out


@helper
def list_remove_cot(g, lst, v):
    if is_zero(g):
        return 0.0
    pos = list(lst).index(v)
    return list(g[:pos]) + [0.0] + list(g[pos:])


@helper
def delete_item(c, key):
    """c without c[key] (a list position or a dict key; a missing dict key is fine, as for pop(k, default))."""
    if isinstance(c, dict):
        out = copy.copy(c)
        out.pop(key, None)
        return out
    out = list(c)
    del out[key]
    return out


@helper
def delete_item_cot(g, c, key):
    if is_zero(g):
        return 0.0
    if isinstance(c, dict):
        return dict(g)
    pos = range(len(c))[key] if isinstance(key, int) else key
    if isinstance(key, slice):
        out = [0.0] * len(c)
        kept = [i for i in range(len(c)) if i not in set(range(*key.indices(len(c))))]
        for j, i in enumerate(kept):
            out[i] = g[j]
        return out
    return list(g[:pos]) + [0.0] + list(g[pos:])


_MISSING = object()


@helper
def pop_value(c, key=-1, default=_MISSING):
    if isinstance(c, dict):
        return c[key] if default is _MISSING or key in c else default
    return c[key]


@helper
def pop_value_cot(g, c, key, k):
    """Cotangents of c (k=0) and the default (k=1) in pop_value(c, key, default)."""
    found = key in c if isinstance(c, dict) else True
    if k == 1:
        return 0.0 if found else g
    if not found or is_zero(g):
        return 0.0
    if isinstance(c, dict):
        return {key: g}
    out = [0.0] * len(c)
    out[key] = g
    return out


@helper
def setdefault_value(d, key, default=None):
    return d[key] if key in d else default


@helper
def dict_setdefault(d, key, default=None):
    if key in d:
        return d
    out = copy.copy(d)
    out[key] = default
    return out


@helper
def dict_setdefault_cot(g, d, key, k):
    if is_zero(g):
        return 0.0
    if k == 1:
        return 0.0 if key in d else g.get(key, 0.0)
    return g if key in d else {kk: v for kk, v in g.items() if kk != key}


@helper
def add_at_copy(a, idx, b):
    """np.add.at on a copy of a (what `np.add.at(a, idx, b)` computes, without changing a)."""
    out = np.array(a, copy=True, dtype=np.result_type(a, b))
    np.add.at(out, idx, b)
    return out


@helper
def add_at_copy_cot(g, a, idx, b):
    part = full(g, a)[idx]
    return unbroadcast(np.array(part, copy=True), b, part)


# -- builtins that pass values through ------------------------------------------------------------------

@helper
def zip_star(rows):
    return [tuple(t) for t in zip(*rows)]


@helper
def zip_star_cot(g, rows):
    n = min(len(r) for r in rows) if len(rows) else 0
    out = []
    for i, r in enumerate(rows):
        parts = [item_cot(item_cot(g, j), i) for j in range(n)] + [0.0] * (len(r) - n)
        out.append(_like(parts, r))
    return out


def _like(parts, seq):
    """A cotangent for seq from its items' cotangents (an array for an array)."""
    if type(seq) is _nd:
        shape = np.shape(seq)[1:]
        return np.stack([np.broadcast_to(p, shape) for p in parts]) if parts else np.zeros(np.shape(seq))
    if all(is_zero(p) for p in parts):
        return 0.0
    return tuple(parts) if isinstance(seq, tuple) else list(parts)


@helper
def enumerate_list(seq, start=0):
    return [(start + i, x) for i, x in enumerate(seq)]


@helper
def enumerate_list_cot(g, seq):
    return _like([item_cot(item_cot(g, i), 1) for i in range(len(seq))], seq)


@helper
def reversed_list(seq):
    return list(reversed(seq)) if type(seq) is not _nd else seq[::-1]


@helper
def reversed_list_cot(g, seq):
    if is_zero(g):
        return 0.0
    if type(seq) is _nd:
        return full(g, seq)[::-1]
    return _like([item_cot(g, i) for i in range(len(seq) - 1, -1, -1)], seq)


@helper
def sorted_by(seq, keys, reverse=False):
    order = _order(keys, reverse)
    items = list(seq)
    return [items[i] for i in order]


@helper
def sorted_by_cot(g, seq, keys, reverse):
    order = _order(keys, reverse)
    out = [0.0] * len(order)
    for pos, i in enumerate(order):
        out[i] = item_cot(g, pos)
    return _like(out, seq)


@helper
def dict_of(x):
    return dict(x)


@helper
def dict_of_cot(g, x):
    if is_zero(g):
        return 0.0
    if isinstance(x, dict):
        return dict(g)
    return [(0.0, g.get(k, 0.0)) for k, _ in x]


def install():
    nondiff(is_mutable, "is_mutable")
    nondiff(same_part, "same_part")
    nondiff(clear_copy, "clear_copy")
    general(replace_obj, "replace_obj", "m, old, new", container=True, m="replace_obj_cot(g, m, old, 0)",
            new="replace_obj_cot(g, m, old, 1)")
    general(replace_field, "replace_field", "obj, name, value", container=True,
            obj="replace_field_cot(g, obj, name, 0)", value="replace_field_cot(g, obj, name, 1)")
    general(view_assign, "view_assign", "base, view, value", base="view_assign_cot(g, base, view, value, 0)",
            value="view_assign_cot(g, base, view, value, 1)")
    general(list_extend, "list.extend", "lst, values", container=True, lst="list_extend_cot(g, lst, values, 0)",
            values="list_extend_cot(g, lst, values, 1)")
    general(list_insert, "list.insert", "lst, i, v", container=True, lst="list_insert_cot(g, lst, i, 0)",
            v="list_insert_cot(g, lst, i, 1)")
    general(dict_update, "dict.update", "d, other", container=True, d="dict_update_cot(g, d, other, 0)",
            other="dict_update_cot(g, d, other, 1)")
    general(sorted_value, ".sort()", "x, reverse=False", container=True, x="sorted_value_cot(g, x, reverse)")
    general(fill_value, ".fill()", "x, v", v="unbroadcast(g, v, x)")
    general(list_remove, "list.remove", "lst, v", container=True, lst="list_remove_cot(g, lst, v)")
    general(delete_item, "del", "c, key", container=True, c="delete_item_cot(g, c, key)")
    general(pop_value, ".pop()", "c, key=-1, default=None", c="pop_value_cot(g, c, key, 0)",
            default="pop_value_cot(g, c, key, 1)")
    general(setdefault_value, ".setdefault()", "d, key, default=None", d="pop_value_cot(g, d, key, 0)",
            default="pop_value_cot(g, d, key, 1)")
    general(dict_setdefault, "dict.setdefault", "d, key, default=None", container=True,
            d="dict_setdefault_cot(g, d, key, 0)", default="dict_setdefault_cot(g, d, key, 1)")
    general(add_at_copy, "ufunc.at (on a copy)", "a, idx, b", a="g", b="add_at_copy_cot(g, a, idx, b)")
    general(zip_star, "zip(*...)", "rows", container=True, rows="zip_star_cot(g, rows)")
    general(enumerate_list, "enumerate", "seq, start=0", container=True, seq="enumerate_list_cot(g, seq)")
    general(reversed_list, "reversed", "seq", container=True, seq="reversed_list_cot(g, seq)")
    general(sorted_by, "sorted", "seq, keys, reverse=False", container=True,
            seq="sorted_by_cot(g, seq, keys, reverse)")
    general(dict_of, "dict", "x", container=True, x="dict_of_cot(g, x)")


_ = HELPERS


@helper
def call_changing(fn, params, *args, **kwargs):
    """fn(*args, **kwargs) on copies of the arguments named in params; returns (result, *their new values).

    What a call to a function that changes its arguments in place computes,
    without changing the caller's objects (which other names may share).
    """
    import inspect
    bound = inspect.signature(fn, follow_wrapped=False).bind(*args, **kwargs)
    for p in params:
        bound.arguments[p] = copy.deepcopy(bound.arguments[p])
    result = fn(*bound.args, **bound.kwargs)
    return (result,) + tuple(bound.arguments[p] for p in params)


@helper
def seq_cot(g, obj):
    """The cotangent of a list or tuple a NumPy function read as an array, from the array's cotangent."""
    if not isinstance(obj, (list, tuple)) or isinstance(g, (list, tuple, dict)) or is_zero(g):
        return g
    g = np.broadcast_to(g, np.shape(obj))
    parts = [seq_cot(g[i], o) for i, o in enumerate(obj)]
    return [unbroadcast(p, o, p) if not isinstance(o, (list, tuple)) else p for p, o in zip(parts, obj)]


@helper
def diagonal_index(a):
    """The index of the positions np.fill_diagonal(a, v) sets."""
    a = np.asarray(a)
    if a.ndim == 2:
        n = min(a.shape)
        return (np.arange(n), np.arange(n))
    return np.diag_indices(a.shape[0], a.ndim)
