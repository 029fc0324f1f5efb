"""Helpers (and their rules) for list and dict methods that change their object, and value-passing builtins.

`lowering/functionalize.py` rewrites `lst.insert(i, v)`, `d.update(e)`,
`x.sort()`, ... into these helpers, which return the changed object's new
value without changing the old one (sharing.py brings the names that shared
it up to date). `zip`, `enumerate`, `reversed`, `sorted` and `dict` used as
values become `zip_star`, `enumerate_list`, `reversed_list`, `sorted_by` and
`dict_of`.

Cotangents of lists, tuples and dicts are lists, tuples and dicts of
cotangents, or 0.0 (zero); see runtime.py.
"""

import copy

import numpy as np

from ..runtime import HELPERS, full, helper, is_zero, item_cot, scatter_add, unbroadcast
from . import general, nondiff

_nd = np.ndarray


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


@helper
def or_cot(g, x, y, k):
    """Cotangents of x (k=0) and y (k=1) in `x | y`: dicts merged (y's values win); numbers, none."""
    if not isinstance(x, dict) or not isinstance(y, dict):
        return 0.0
    return dict_update_cot(g, x, y, k)


def _order(x, reverse):
    keys = list(x)
    idx = sorted(range(len(keys)), key=lambda i: keys[i], reverse=bool(reverse))
    return idx


@helper
def sorted_value(x, reverse=False, axis=-1):
    """x.sort(): arrays along an axis (the last by default), lists by value (`reverse=`)."""
    if type(x) is _nd:
        out = np.sort(x, axis=axis)
        return np.flip(out, axis=axis) if reverse else out
    return sorted(x, reverse=bool(reverse))


@helper
def sorted_value_cot(g, x, reverse, axis=-1):
    if is_zero(g):
        return 0.0
    if type(x) is _nd:
        order = np.argsort(x, axis=axis, kind="stable")
        if reverse:
            order = np.flip(order, axis=axis)
        out = np.zeros(x.shape, dtype=np.result_type(x, float))
        np.put_along_axis(out, order, full(g, x), axis=axis)
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
    scatter_add(out, idx, b)
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


_RECORDS = {}


def record_rule(cls):
    """The rule of a namedtuple or dataclass constructor: field k's cotangent is the record cotangent's item k."""
    rule = _RECORDS.get(cls)
    if rule is None:
        import dataclasses
        from . import Rule
        if dataclasses.is_dataclass(cls):
            init = [f for f in dataclasses.fields(cls) if f.init]
            fields = [f.name for f in init if not getattr(f, "kw_only", False)]
            keyword_only = [f.name for f in init if getattr(f, "kw_only", False)]
            fields += ["*"] + keyword_only if keyword_only else []
            keys = {f: repr(f) for f in fields}
            defaults = {f.name: f.default for f in dataclasses.fields(cls) if f.init and
                        (f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING)}
        else:
            fields = list(cls._fields)
            keys = {f: str(i) for i, f in enumerate(fields)}
            defaults = getattr(cls, "_field_defaults", {})
        # a default that is not a literal (a default_factory's) stands as None: the constructor fills it in
        params = [f + (f"={defaults[f]!r}" if _literal(defaults[f]) else "=None") if f in defaults else f
                  for f in fields]
        named = [f for f in fields if f != "*"]
        rule = Rule(cls.__name__, ", ".join(params), {f: f"item_cot(g, {keys[f]})" for f in named}, container=True)
        # forward mode: the record of the fields' tangents (zeros for the defaults the call leaves out)
        rule.jvp_joint = f"record_tangent(ans, {tuple(named)!r}, ({''.join(f't_{f}, ' for f in named)}))"
        _RECORDS[cls] = rule
    return rule


def _literal(v):
    import ast
    try:
        return ast.literal_eval(repr(v)) == v
    except (ValueError, SyntaxError):
        return False


def install():
    import copy as copy_module
    general(copy_module.copy, "copy.copy", "x", container=True, x="g")
    general(copy_module.deepcopy, "copy.deepcopy", "x, memo=None", container=True, x="g")
    nondiff(clear_copy, "clear_copy")
    general(list_extend, "list.extend", "lst, values", container=True, lst="list_extend_cot(g, lst, values, 0)",
            values="list_extend_cot(g, lst, values, 1)")
    general(list_insert, "list.insert", "lst, i, v", container=True, lst="list_insert_cot(g, lst, i, 0)",
            v="list_insert_cot(g, lst, i, 1)")
    general(dict_update, "dict.update", "d, other", container=True, d="dict_update_cot(g, d, other, 0)",
            other="dict_update_cot(g, d, other, 1)")
    general(sorted_value, ".sort()", "x, reverse=False, axis=-1", container=True,
            x="sorted_value_cot(g, x, reverse, axis)")
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
    from .. import flatten
    general(flatten.ravel_pytree, "adsrc.ravel_pytree", "tree", container=True, tree="ravel_pytree_cot(g, tree)")
    general(flatten.unravel_with, "unravel", "unravel, flat", container=True, flat="unravel_cot(g, unravel)")


@helper
def ravel_pytree_cot(g, tree):
    """The cotangent of tree in `flat, unravel = ravel_pytree(tree)`: flat's cotangent cut into the leaves."""
    if is_zero(g) or is_zero(g[0]):
        return 0.0
    from ..flatten import pieces_like, sorted_dicts
    flat = np.broadcast_to(g[0], (sum(int(np.size(leaf)) for leaf in _float_leaves(tree)),))
    return pieces_like(flat, sorted_dicts(tree), other=lambda leaf: 0.0)


@helper
def unravel_cot(g, unravel):
    """The cotangent of flat in `tree = unravel(flat)`: the cotangent pytree's leaves raveled in unravel's order
    (zeros where a leaf's cotangent is zero)."""
    pieces = [np.ravel(np.broadcast_to(np.asarray(c, dtype=float), np.shape(leaf)))
              for leaf, c in _paired_cots(unravel.tree, g)]
    return np.concatenate(pieces) if pieces else np.zeros(0)


def _paired_cots(tree, g):
    """(float leaf of tree, its cotangent in g) in ravel_pytree's order; a cotangent that is zero is 0.0."""
    from .. import pytree_nodes
    from ..checks import _leaves
    if g is None or is_zero(g):
        return [(leaf, 0.0) for _, leaf in _leaves(tree)]
    node = pytree_nodes.node_of(tree)
    if node is not None:
        parts = pytree_nodes.flatten(node, tree)[0]
        cots = pytree_nodes.flatten(node, g)[0] if pytree_nodes.node_of(g) is node else g
        return [p for k, v in enumerate(parts) for p in _paired_cots(v, cots[k])]
    if isinstance(tree, dict):
        return [p for k in tree for p in _paired_cots(tree[k], g[k] if k in g else 0.0)]
    if isinstance(tree, (tuple, list)):
        return [p for k, v in enumerate(tree) for p in _paired_cots(v, g[k])]
    if hasattr(type(tree), "__dataclass_fields__"):
        import dataclasses
        return [p for f in dataclasses.fields(tree)
                for p in _paired_cots(getattr(tree, f.name), g[f.name] if isinstance(g, dict) else getattr(g, f.name))]
    if isinstance(tree, np.ndarray) and tree.dtype.kind in "fc" or isinstance(tree, (float, np.floating)):
        return [(tree, g)]
    return []


def _float_leaves(tree):
    from ..checks import _leaves
    return [leaf for _, leaf in _leaves(tree)]


_ = HELPERS
