"""Pytree utilities with JAX's names: `adsrc.tree_util.tree_map`, `tree_leaves`, `tree_flatten`, ...

    new_params = tree_map(lambda p, g: p - 0.1 * g, params, grads)
    n = sum(np.size(leaf) for leaf in tree_leaves(params))

The nodes are the ones adsrc's gradients go through: tuples, lists, dicts (in the order of their sorted
keys, as JAX orders them; a defaultdict so too, rebuilt with its default_factory; an OrderedDict in its own
order), namedtuples, dataclasses and classes registered with
`adsrc.register_pytree_node` (or `register_pytree_node_class`, `register_dataclass`). None is a node
without children, as in JAX. Everything else is a leaf.

These are plain Python functions, for the code around a gradient (an optimizer's update, counting
parameters). Inside a function adsrc differentiates, write the loop over the structure instead
(`[p - lr * g for p, g in zip(ps, gs)]`).
"""

import collections
import dataclasses

from . import pytree_nodes

__all__ = ["PyTreeDef", "tree_map", "tree_leaves", "tree_flatten", "tree_unflatten", "tree_structure",
           "tree_reduce", "tree_all", "tree_flatten_with_path", "tree_leaves_with_path", "tree_map_with_path",
           "keystr", "DictKey", "SequenceKey", "GetAttrKey", "FlattenedIndexKey"]

_LEAF = "*"


@dataclasses.dataclass(frozen=True)
class PyTreeDef:
    """The structure of a pytree: the node's kind, what rebuilds it, and its children's structures."""
    kind: object            # _LEAF, None, list, tuple, dict, a namedtuple class, a dataclass, a registered class
    aux: object             # dict keys, dataclass field names, a registered node's aux data
    children: tuple

    @property
    def num_leaves(self):
        return 1 if self.kind == _LEAF else sum(c.num_leaves for c in self.children)

    @property
    def num_nodes(self):
        return 1 + sum(c.num_nodes for c in self.children)

    def unflatten(self, leaves):
        return tree_unflatten(self, leaves)

    def flatten_up_to(self, tree):
        """tree's parts at this structure's leaves (whole subtrees where it has leaves), as in JAX; a
        ValueError if tree does not have this structure down to them."""
        out = []

        def go(d, x, path):
            if d.kind == _LEAF:
                out.append(x)
                return
            for i, (c, child) in enumerate(zip(d.children, _same_node(d, x, path))):
                go(c, child, f"{path}[{i}]")
        go(self, tree, "")
        return out

    def __repr__(self):
        return f"PyTreeDef({_show(self)})"


def _show(d):
    if d.kind == _LEAF:
        return "*"
    if d.kind is None:
        return "None"
    parts = [_show(c) for c in d.children]
    if d.kind is list:
        return "[" + ", ".join(parts) + "]"
    if d.kind is tuple:
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    if d.kind is collections.defaultdict:
        return f"defaultdict({d.aux.factory!r}, {{" + ", ".join(f"{k!r}: {p}" for k, p in zip(d.aux, parts)) + "})"
    if d.kind is dict or d.kind is collections.OrderedDict:
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(d.aux, parts)) + "}"
    name = d.kind.name if isinstance(d.kind, pytree_nodes.Node) else d.kind.__qualname__
    return f"{name}(" + ", ".join(parts) + ")"


def _sorted_keys(d):
    try:
        return tuple(sorted(d))
    except TypeError:       # keys that cannot be compared: insertion order
        return tuple(d)


class _FactoryKeys(tuple):
    """A defaultdict's sorted keys, with its default_factory (part of its structure, as in JAX)."""

    def __new__(cls, keys, factory):
        out = super().__new__(cls, keys)
        out.factory = factory
        return out

    def __eq__(self, other):
        return isinstance(other, _FactoryKeys) and tuple(self) == tuple(other) and self.factory == other.factory

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((tuple(self), "defaultdict"))


def _split(x):
    """(kind, aux, children) of a node, or None for a leaf."""
    node = pytree_nodes.node_of(x)
    if node is not None:
        children, aux = pytree_nodes.flatten(node, x)
        return node, aux, list(children)
    if x is None:
        return None, None, []
    if type(x) is dict:
        keys = _sorted_keys(x)
        return dict, keys, [x[k] for k in keys]
    if type(x) is collections.OrderedDict:        # in its own order, rebuilt as one (as in JAX)
        keys = tuple(x)
        return collections.OrderedDict, keys, [x[k] for k in keys]
    if type(x) is collections.defaultdict:       # a node, in its sorted keys, rebuilt with its factory (as JAX)
        keys = _sorted_keys(x)
        return collections.defaultdict, _FactoryKeys(keys, x.default_factory), [x[k] for k in keys]
    if type(x) in (list, tuple):
        return type(x), None, list(x)
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x), None, list(x)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        names = tuple(f.name for f in dataclasses.fields(x))
        return type(x), names, [getattr(x, n) for n in names]
    return _LEAF, None, None


def _build(kind, aux, children):
    if kind is None:
        return None
    if isinstance(kind, pytree_nodes.Node):
        return pytree_nodes.unflatten(kind, aux, children)
    if kind is dict or kind is collections.OrderedDict:
        return kind(zip(aux, children))
    if kind is collections.defaultdict:
        return collections.defaultdict(aux.factory, zip(aux, children))
    if kind in (list, tuple):
        return kind(children)
    if issubclass(kind, tuple):             # a namedtuple
        return kind(*children)
    out = object.__new__(kind)              # a dataclass (frozen or not, with or without init fields)
    for name, value in zip(aux, children):
        object.__setattr__(out, name, value)
    return out


def tree_flatten(tree, is_leaf=None):
    """(leaves, treedef): the leaves of tree in order, and its structure."""
    leaves = []

    def go(x):
        if is_leaf is not None and is_leaf(x):
            leaves.append(x)
            return PyTreeDef(_LEAF, None, ())
        kind, aux, children = _split(x)
        if kind == _LEAF:
            leaves.append(x)
            return PyTreeDef(_LEAF, None, ())
        return PyTreeDef(kind, aux, tuple(go(c) for c in children))

    return leaves, go(tree)


def tree_leaves(tree, is_leaf=None):
    """The leaves of tree, in order (a dict's by sorted key)."""
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_unflatten(treedef, leaves):
    """The pytree of treedef's structure holding leaves (in order)."""
    if not isinstance(treedef, PyTreeDef):
        raise TypeError(f"tree_unflatten expects a PyTreeDef (from tree_flatten or tree_structure), got "
                        f"{type(treedef).__name__}")
    leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise ValueError(f"tree_unflatten: {treedef} has {treedef.num_leaves} leaves, got {len(leaves)}")
    it = iter(leaves)

    def go(d):
        if d.kind == _LEAF:
            return next(it)
        return _build(d.kind, d.aux, [go(c) for c in d.children])

    return go(treedef)


def _same_node(d, x, path):
    """x's children when x is a node of d's kind and keys, else a ValueError naming the path."""
    kind, aux, children = _split(x)
    keyed = d.kind in (dict, collections.OrderedDict, collections.defaultdict)
    if kind != d.kind or (keyed and tuple(aux) != tuple(d.aux)) or len(children or ()) != len(d.children):
        raise ValueError(f"tree_map: the trees differ at {path or 'the top'}: expected {_show(d)}, got "
                         f"{_show(tree_structure(x))}")
    return children


def tree_map(f, tree, *rest, is_leaf=None):
    """tree's structure with each leaf x replaced by f(x, *the leaves of rest at x's place).

    Each tree in rest has tree's structure, or tree's structure with subtrees where tree has leaves (those
    subtrees are passed to f whole), as in JAX."""
    treedef = tree_structure(tree, is_leaf)

    def go(d, xs, path):
        if d.kind == _LEAF:
            return f(*xs)
        parts = [_same_node(d, x, path) for x in xs[1:]]
        own = _split(xs[0])[2]
        keys = d.aux if d.kind in (dict, collections.OrderedDict, collections.defaultdict) else range(len(d.children))
        return _build(d.kind, d.aux, [go(c, [own[i]] + [p[i] for p in parts], f"{path}[{k!r}]")
                                      for i, (c, k) in enumerate(zip(d.children, keys))])

    return go(treedef, [tree, *rest], "")


_NO_INITIALIZER = object()


def tree_reduce(function, tree, initializer=_NO_INITIALIZER, is_leaf=None):
    """functools.reduce of function over tree's leaves (from initializer when it is given: an explicit None
    is an initializer, as in JAX)."""
    import functools
    leaves = tree_leaves(tree, is_leaf)
    return functools.reduce(function, leaves) if initializer is _NO_INITIALIZER else \
        functools.reduce(function, leaves, initializer)


def tree_all(tree):
    """Are all of tree's leaves true?"""
    return all(tree_leaves(tree))


from .tree_paths import (DictKey, FlattenedIndexKey, GetAttrKey, SequenceKey, keystr,  # noqa: E402,F401
                         tree_flatten_with_path, tree_leaves_with_path, tree_map_with_path)
from .rules import tree_rules  # noqa: E402  (their derivative rules, which read this module's functions)
tree_rules.install()
