"""Pytree paths with JAX's names (re-exported by adsrc.tree_util): `tree_flatten_with_path`,
`tree_leaves_with_path`, `tree_map_with_path`, `keystr` and the key classes.

    decay = tree_map_with_path(lambda path, w: 0.0 if "bias" in keystr(path) else 1e-4, params)

A path is a tuple of keys from the root to a leaf: DictKey for a dict's (OrderedDict's, defaultdict's) key,
SequenceKey for a list's or tuple's position, GetAttrKey for a namedtuple's or dataclass's field (one
registered with register_dataclass too) and FlattenedIndexKey for the position among the children of a
class registered with adsrc.register_pytree_node, as JAX names them. Plain Python, for the code around a gradient.
"""

import collections
import dataclasses

from . import pytree_nodes


@dataclasses.dataclass(frozen=True)
class DictKey:
    key: object

    def __str__(self):
        return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self):
        return f".{self.name}"


@dataclasses.dataclass(frozen=True)
class FlattenedIndexKey:
    key: int

    def __str__(self):
        return f"[<flat index {self.key}>]"


def keystr(keys):
    """The path as a string, `['layers'][0].W`."""
    return "".join(str(k) for k in keys)


def _keys(kind, aux, n):
    from .tree_util import _LEAF
    if kind in (dict, collections.OrderedDict, collections.defaultdict):
        return [DictKey(k) for k in aux]
    if kind in (list, tuple):
        return [SequenceKey(i) for i in range(n)]
    if isinstance(kind, pytree_nodes.Node) and kind.data_names is not None:     # register_dataclass
        return [GetAttrKey(f) for f in kind.data_names]
    if isinstance(kind, pytree_nodes.Node) or kind is _LEAF:
        return [FlattenedIndexKey(i) for i in range(n)]
    if isinstance(kind, type) and issubclass(kind, tuple):        # a namedtuple
        return [GetAttrKey(f) for f in kind._fields]
    return [GetAttrKey(f) for f in aux]                            # a dataclass


def tree_flatten_with_path(tree, is_leaf=None):
    """([(path, leaf), ...], treedef): tree_flatten's leaves, each with its path."""
    from .tree_util import _split, tree_structure
    out = []

    def go(x, path):
        if x is None:
            return
        if is_leaf is not None and is_leaf(x):
            out.append((path, x))
            return
        kind, aux, children = _split(x)
        if children is None:
            out.append((path, x))
            return
        for key, child in zip(_keys(kind, aux, len(children)), children):
            go(child, path + (key,))
    go(tree, ())
    return out, tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree, is_leaf=None):
    """[(path, leaf), ...] in tree_leaves' order."""
    return tree_flatten_with_path(tree, is_leaf)[0]


class _Path:
    """A path held as a leaf (a tuple would be a node)."""
    __slots__ = ("keys",)

    def __init__(self, keys):
        self.keys = keys


def tree_map_with_path(f, tree, *rest, is_leaf=None):
    """tree's structure with each leaf x replaced by f(path, x, *the leaves of rest at x's place) (rest's trees
    may hold subtrees where tree has leaves, as in tree_map)."""
    from .tree_util import tree_map, tree_unflatten
    pairs, treedef = tree_flatten_with_path(tree, is_leaf)
    paths = tree_unflatten(treedef, [_Path(p) for p, _ in pairs])
    return tree_map(lambda p, *xs: f(p.keys, *xs), paths, tree, *rest)
