"""Helpers (and their rules) that keep names sharing an object up to date when it changes.

`lowering/functionalize.py` replaces a change in place by a new value; the
names that shared the old object are then brought up to date with these:
`same_part` tells whether a name still is (a view of) the changed object,
`replace_obj`, `replace_field` and `view_assign` write a new value into a
container, an object or an array through a view, and `check_unshared`
refuses sharing adsrc cannot follow. `call_changing` runs a function that
changes its arguments on copies of them.
"""

import copy
import dataclasses

import numpy as np

from ..runtime import add_cot, check_current, copy_object, full, helper, is_zero, item_cot, object_fields, unbroadcast
from . import general, nondiff
from .located_views import embedded, located, located_index, located_positions

_nd = np.ndarray


def _mutable(x):
    return isinstance(x, (_nd, list, dict, set)) or (object_fields(x) is not None and not isinstance(x, tuple))


# the augmented operators each mutable type implements in place; any other falls back to x = x op v
_IN_PLACE = ((_nd, None), (list, "+*"), (bytearray, "+*"), (dict, "|"), (set, "|&-^"))


@helper
def is_mutable(x, op):
    """Does `x op= v` change x's object in place (arrays; lists for += and *=, ...) rather than rebind
    the name?"""
    if type(x) is _nd and x.base is not None:
        check_current(x)
    for cls, ops in _IN_PLACE:
        if isinstance(x, cls):
            return ops is None or op in ops
    return False


@helper
def is_mutable_item(x, base, op):
    """Does `base[k] op= v` (x = base[k]) change x's object in place beyond writing x back into base?
    Not when base is an array: base[k] = base[k] op v is then the whole change."""
    return type(base) is not _nd and is_mutable(x, op)


@helper
def same_part(a, b):
    """Is a the object b, or a view of exactly the same memory (so a change to one is a change to the other)?"""
    if a is b:
        return _mutable(a)
    if type(a) is _nd and type(b) is _nd:
        ia, ib = a.__array_interface__, b.__array_interface__
        return ia["data"] == ib["data"] and a.shape == b.shape and a.strides == b.strides and a.dtype == b.dtype
    return False


@helper
def part_along(part, base, steps):
    """Is `part` the part of `base` that the steps take (each `lambda view_of: view_of[...]`)?
    A path that does not exist in the objects (indexing a number) is no link."""
    taken = _taken(base, steps)
    return taken is not _ABSENT and same_part(part, taken)


_ABSENT = object()


def _taken(base, steps):
    """The part of base the steps take, or _ABSENT when the path does not exist in the objects."""
    for step in steps:
        try:
            base = step(base)
        except (IndexError, TypeError, KeyError, ValueError, AttributeError):
            return _ABSENT
    return base


@helper
def view_along(part, base, steps):
    """part_along for a change that puts a new object in an item or field of base: only an array's views see
    it (a list's, a dict's or an object's old item stays what it was)."""
    return not isinstance(base, (list, dict, tuple)) and object_fields(base) is None and \
        part_along(part, base, steps)


@helper
def slot_along(part, base, steps, depths):
    """part_along for a call that may put new objects in slots along the path: the slots at these depths are in
    the objects the first depth-1 steps take; only an array's views see a write into it (a list's, a dict's or an
    object's old item stays what it was, no longer a part of base)."""
    if not part_along(part, base, steps):
        return False
    for depth in depths:
        holder = base
        for step in steps[:depth - 1]:
            holder = step(holder)
        if type(holder) is not _nd:
            return False
    return True


@helper
def check_part_kept(part, base, steps, message):
    """Refuse, when the code runs, a part of base that a call both changes in place and replaces."""
    if part_along(part, base, steps):
        from ..errors import TransformError
        raise TransformError(message)


def _shares(a, old, parts=None, fields=False):
    """Does a share memory with old other than by being it (or holding it), which replace_obj follows?
    parts: old and the parts of it a call changes in place (a is or holds one of those: shared too);
    fields: look into the fields of a's objects too (`copy.copy(cell)` holds cell's arrays)."""
    if a is old:
        return False
    parts = [old] if parts is None else parts
    if type(a) is _nd:
        return any(type(p) is _nd and np.shares_memory(a, p) for p in parts)
    if any(a is p for p in parts[1:]):
        return True
    if isinstance(a, (list, tuple)):
        return any(_shares(x, old, parts, fields) for x in a)
    if isinstance(a, dict):
        return any(_shares(x, old, parts, fields) for x in a.values())
    held = _fields_of(a) if fields else None
    return held is not None and any(_shares(x, old, parts, fields) for x in held.values())


def _parts_along(old, paths):
    """old, and its arrays, lists and dicts along the paths (each a tuple of `lambda view_of: ...` steps)."""
    out = [old]
    for steps in paths:
        part = _taken(old, steps)
        if type(part) is _nd or isinstance(part, (list, dict)):
            out.append(part)
    return out


@helper
def check_unshared(a, old, message, *followed, changed=()):
    """Raise if a shares memory with old (changed in place) in a way adsrc could not follow.
    followed: tests of the links adsrc does follow between them (one held: the sharing is followed);
    changed: the paths of the parts of old a call changes in place (see _parts_along)."""
    if not any(followed) and _shares(a, old, _parts_along(old, changed), fields=bool(changed)):
        from ..errors import TransformError
        raise TransformError(message)


@helper
def check_separate(values, changed, names, callee):
    """Raise if an argument that callee changes in place is (or shares memory with) another of its arguments:
    adsrc differentiates a function as if its parameters were separate objects."""
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            if (changed[i] or changed[j]) and (values[i] is values[j] and isinstance(values[i], (list, dict, _nd))
                                               or _shares(values[i], values[j])):
                from ..errors import TransformError
                which = names[i] if changed[i] else names[j]
                raise TransformError(
                    f"`{callee}` changes its parameter `{which}` in place, and its parameters `{names[i]}` and "
                    f"`{names[j]}` are the same array here (or share memory): adsrc follows a function's changes "
                    "as if its parameters were separate objects. Pass separate arrays (a copy of one), or make "
                    "the function return the new values instead of changing them in place.")


class _Field(str):
    """A step of a path into an object of the user's class: its field of this name (its cotangent's key)."""


def _fields_of(m):
    """The fields of an object of the user's class (its __dict__ and __slots__ fields), or None for anything
    else (a module's or a function's attributes are not an object's fields)."""
    return object_fields(m)


def held_items(m):
    """The (key, object) pairs container m holds: items of lists, tuples and dicts, fields of objects (keys
    _Field(name)); None for anything else (an array holds no objects)."""
    if isinstance(m, (list, tuple)):
        return enumerate(m)
    if isinstance(m, dict):
        return m.items()
    fields = _fields_of(m) if type(m) is not _nd else None
    return ((_Field(k), x) for k, x in fields.items()) if fields else None


def _positions(m, old):
    """Paths (tuples of keys) at which container m holds the object old: items of lists, tuples and dicts,
    fields of objects (an array holds no objects). An object held in several places (`[(a, 1.0)] * 2`) gives a
    path through each; one that holds itself is not followed into again."""
    return positions_where(m, lambda x: x is old, before=lambda x: _refuse_held_view(x, old))


def positions_where(m, hit, before=None, found=None, open_=None):
    """The paths from m to the objects it holds, at any depth, for which hit is true (not searched further).

    before(x), if given, is called on each held object before it is searched; found: id -> the paths from an
    object searched already; open_: the ids of the objects being searched (a cycle leads back to one)."""
    if hit(m):
        return [()]
    found = {} if found is None else found
    open_ = set() if open_ is None else open_
    key = id(m)
    if key in found:
        return found[key]
    items = held_items(m)
    if key in open_ or items is None:
        return []
    open_.add(key)
    out = []
    for k, x in items:
        if before is not None:
            before(x)
        out += [(k,) + p for p in positions_where(x, hit, before, found, open_)]
    open_.discard(key)
    found[key] = out
    return out


def _refuse_held_view(x, old):
    """(A view of old that is a basic index of it is taken again from old's new value: located_views.py.)"""
    if type(x) is _nd and type(old) is _nd and x is not old and np.shares_memory(x, old) and \
            located(x, old) is None:
        from ..errors import TransformError
        raise TransformError("adsrc cannot follow a change in place to an array that a container holds a view of. "
                             "Copy the view (`v.copy()`) before storing it.")


def _part(m, k):
    return getattr(m, k) if isinstance(k, _Field) else m[k]


def _set_path(m, path, value):
    if not path:
        return value
    k = path[0]
    part = _set_path(_part(m, k), path[1:], value)
    if isinstance(k, _Field):
        return replace_field(m, str(k), part)
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
    if new is old or not _mutable(old):
        return m
    views = located_positions(m, old, positions_where)       # vs = [v[i] for i in ...]: v_1[i] now
    for path in _positions(m, old):
        m = _set_path(m, path, new)
    for path, idx in views:
        m = _set_path(m, path, new[idx])
    return m


def _cot_get(g, path):
    for k in path:
        g = item_cot(g, str(k) if isinstance(k, _Field) else k)
    return g


def _cot_set(g, path, value, like):
    if not path:
        return value
    k = path[0]
    key = str(k) if isinstance(k, _Field) else k
    if is_zero(g):
        if isinstance(like, dict) or isinstance(k, _Field):
            g = {}                       # (an object's cotangent is the dict of its fields')
        elif isinstance(like, (list, tuple)):
            g = [0.0] * len(like)
        else:
            return g
    inner = _cot_set(item_cot(g, key), path[1:], value, _part(like, k))
    out = dict(g) if isinstance(g, dict) else list(g)
    out[key] = inner
    return type(g)(out) if isinstance(g, tuple) else out


@helper
def replace_obj_cot(g, m, old, k):
    """Cotangents of m (k=0) and new (k=1) in replace_obj(m, old, new)."""
    if is_zero(g) or not _mutable(old):
        return g if k == 0 else 0.0
    paths = _positions(m, old)
    views = located_positions(m, old, positions_where)
    if k == 1:
        total = 0.0
        for p in paths:
            total = add_cot(total, _cot_get(g, p))
        for p, idx in views:
            part = _cot_get(g, p)
            if not is_zero(part):
                total = add_cot(total, embedded(part, old, idx))
        return total
    for p in paths + [p for p, _ in views]:
        g = _cot_set(g, p, 0.0, m)
    return g


@helper
def replace_field(obj, name, value):
    """A copy of obj with its field `name` set to value (namedtuples, dataclasses, other objects; `a.shape = s`
    of an array: a reshaped view)."""
    if isinstance(obj, _nd) and name == "shape":
        return np.reshape(obj, value)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return obj._replace(**{name: value})
    out = copy_object(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        object.__setattr__(out, name, value)    # (not dataclasses.replace: that runs __init__ and __post_init__)
    else:
        setattr(out, name, value)
    return out


@helper
def check_record(obj, kind, names):
    """Refuse, when the code runs, `obj._replace(...)` (kind "namedtuple") or `dataclasses.replace(obj, ...)`
    ("dataclass") that replacing the fields `names` one by one (replace_field) would not compute."""
    cls = type(obj)
    if kind == "namedtuple":
        method = getattr(cls, "_replace", None)
        if isinstance(obj, tuple) and hasattr(cls, "_fields") and getattr(method, "__module__", None) == "collections":
            return          # (collections.namedtuple's own method, typing.NamedTuple's too)
        raise TypeError(f"adsrc read `._replace(...)` as a namedtuple's, but the object is a {cls.__qualname__}: "
                        "adsrc did not know its class when transforming. Call the method through its class "
                        f"(`{cls.__qualname__}._replace(obj, ...)`) or build the new object explicitly.")
    if not (dataclasses.is_dataclass(obj) and not isinstance(obj, type)):
        raise TypeError(f"dataclasses.replace() of a {cls.__qualname__}, which is not a dataclass instance")
    params = getattr(cls, "__dataclass_params__", None)
    fields = dataclasses.fields(obj)
    if hasattr(cls, "__post_init__") or (params is not None and not params.init) or \
            any(not f.init for f in fields):
        raise TypeError(f"adsrc cannot differentiate dataclasses.replace() of a {cls.__qualname__} whose class it "
                        "did not know when transforming: the class has a __post_init__, its own __init__ or "
                        "init=False fields, which replace() runs again. Construct the new object explicitly "
                        f"(`{cls.__qualname__}(...)`), or make its class known (do not rebind the name in a loop).")
    unknown = [n for n in names if n not in {f.name for f in fields}]
    if unknown:
        raise TypeError(f"{cls.__qualname__}.__init__() got an unexpected keyword argument {unknown[0]!r}")


@helper
def field_tangent(t_obj, obj, name, value, t_value):
    """The tangent of replace_field(obj, name, value): t_obj with the field set to t_value (`a.shape = s` of an
    array: t_obj reshaped to s)."""
    if isinstance(obj, _nd) and name == "shape":
        return np.reshape(t_obj, value)
    return replace_field(t_obj, name, t_value)


@helper
def replace_field_cot(g, obj, name, k):
    """Cotangents of obj (k=0) and value (k=1) in replace_field(obj, name, value)."""
    if is_zero(g):
        return 0.0 if k == 1 else g
    if isinstance(obj, _nd) and name == "shape":
        return np.reshape(g, np.shape(obj)) if k == 0 else 0.0
    index = obj._fields.index(name) if isinstance(obj, tuple) and hasattr(obj, "_fields") else name
    if k == 1:
        return item_cot(g, index)
    out = list(g) if isinstance(g, (list, tuple)) else dict(g)
    out[index] = 0.0
    return out


@helper
def replace_field_obj_cot(g, obj, name, result):
    """The cotangent of obj in result = replace_field(obj, name, value): `a.shape = s` reshapes a cotangent
    broadcast over the result back to a's shape."""
    if isinstance(obj, _nd) and name == "shape" and not is_zero(g):
        g = np.broadcast_to(g, np.shape(result))
    return replace_field_cot(g, obj, name, 0)


@helper
def view_assign(base, view, value):
    """A copy of base with view(copy)[...] = value: what writing through a view of base does to base."""
    if view(base) is base:
        return value
    if type(base) is not _nd:
        return base              # a function of a container makes a new object: writes to it do not reach base
    out = np.array(base, copy=True)
    part = view(out)
    if type(part) is _nd and np.shares_memory(part, out):
        part[...] = value
    return out


@helper
def view_assign_cot(g, base, view, value, k):
    """Cotangents of base (k=0) and value (k=1) in view_assign(base, view, value)."""
    if view(base) is base:
        return 0.0 if k == 0 else g
    if type(base) is not _nd:
        return g if k == 0 else 0.0
    # laid out as base is (a copy of a broadcast cotangent may be in another order, where the view base takes
    # of itself is a copy of g's, and the write below was lost)
    g, full_g = np.empty_like(base, dtype=np.result_type(g, float)), full(g, base)
    g[...] = full_g
    part = view(g)
    if not (type(part) is _nd and np.shares_memory(part, g)):
        return g if k == 0 else 0.0
    if k == 1:
        return unbroadcast(np.array(part, copy=True), value, part)
    part[...] = 0.0
    return g




@helper
def call_changing(fn, params, *args, **kwargs):
    """fn(*args, **kwargs) on copies of the arguments named in params; returns (result, *their new values).

    What a call to a function that changes its arguments in place computes,
    without changing the caller's objects (which other names may share).
    """
    import inspect
    bound = inspect.signature(fn, follow_wrapped=False).bind(*args, **kwargs)
    given = {p: bound.arguments[p] for p in params}
    for p in params:
        bound.arguments[p] = copy.deepcopy(bound.arguments[p])
    result = fn(*bound.args, **bound.kwargs)
    for p in params:
        _refuse_changed_views(given[p], bound.arguments[p], fn, p)
    return (result,) + tuple(bound.arguments[p] for p in params)


def _refuse_changed_views(old, new, fn, param):
    """Refuse a call that changed in place an array held in its argument `param` (a list, tuple or dict) that is a
    view of another array: the copy it changed does not reach the array viewed."""
    if isinstance(old, (list, tuple)) and isinstance(new, (list, tuple)) and len(old) == len(new):
        pairs = zip(old, new)
    elif isinstance(old, dict) and isinstance(new, dict):
        pairs = ((v, new[k]) for k, v in old.items() if k in new)
    else:
        return
    for a, b in pairs:
        if type(a) is _nd and a.base is not None and type(b) is _nd and a.shape == b.shape and \
                not np.array_equal(a, b, equal_nan=True):
            from ..errors import TransformError
            raise TransformError(f"the call to `{getattr(fn, '__name__', fn)}` changes in place an array held in "
                                 f"its argument `{param}` that is a view of another array; adsrc cannot follow "
                                 "the change into the array viewed. Pass that array itself (and the indices), "
                                 "or return the new values.")
        _refuse_changed_views(a, b, fn, param)


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


def install():
    nondiff(is_mutable, "is_mutable")
    nondiff(check_record, "check_record")
    nondiff(same_part, "same_part")
    nondiff(located_index, "located_index")
    general(replace_obj, "replace_obj", "m, old, new", container=True, m="replace_obj_cot(g, m, old, 0)",
            new="replace_obj_cot(g, m, old, 1)")
    general(replace_field, "replace_field", "obj, name, value", container=True,
            obj="replace_field_obj_cot(g, obj, name, ans)", value="replace_field_cot(g, obj, name, 1)")
    general(field_tangent, "field_tangent", "t_obj, obj, name, value, t_value", container=True,
            t_obj="replace_field_obj_cot(g, t_obj, name, ans)", t_value="replace_field_cot(g, t_obj, name, 1)")
    general(view_assign, "view_assign", "base, view, value", base="view_assign_cot(g, base, view, value, 0)",
            value="view_assign_cot(g, base, view, value, 1)")
