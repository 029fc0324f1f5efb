"""Derivative rules of adsrc.tree_util's functions, so that a differentiated function may use them.

`tree_leaves(tree)` and `tree_flatten(tree)` pass each leaf's cotangent back to its place in tree;
`tree_unflatten(treedef, leaves)` passes each place's cotangent back to its leaf. `tree_map(f, tree, ...)`
is followed as the plain Python below (rules/by_source.py), with f a function adsrc follows.

A cotangent of a container is the container's kind with its parts' cotangents, 0.0 for a part (or a
whole container) with none: a dict for a dict or a dataclass, a list or tuple for a sequence, the registered
class for a registered node.
"""

import numpy as np

from .. import tree_util
from ..flatten import sorted_dicts
from ..runtime import helper, is_zero, item_cot
from . import by_source, general, nondiff

_LEAF = "*"


@helper
def tree_leaves_cot(g, tree):
    """tree's cotangent from g, the cotangent of its list of leaves."""
    from ..checks import _map
    if is_zero(g):
        return 0.0
    count = [0]

    def leaf(*_):
        c = item_cot(g, count[0])
        count[0] += 1
        return c

    def other(v):
        if v is not None:           # None is a node without leaves; anything else a leaf without cotangent
            count[0] += 1
        return 0.0
    return _map(sorted_dicts(tree), leaf, other)


@helper
def tree_flatten_cot(g, tree):
    """tree's cotangent from that of (leaves, treedef)."""
    return 0.0 if is_zero(g) else tree_leaves_cot(g[0], tree)


@helper
def tree_unflatten_cot(g, treedef):
    """The list of the leaves' cotangents from g, the cotangent of the tree tree_unflatten made."""
    out = []

    def go(d, c):
        if d.kind == _LEAF:
            out.append(c)
            return
        for i, child in enumerate(d.children):
            go(child, 0.0 if is_zero(c) else _child_cot(d, c, i))
    go(treedef, g)
    return out


@helper
def tree_leaves_tangent(tree, t_tree):
    """The tangent of tree_leaves(tree): the list of the leaves' tangents (read from t_tree as cotangents are)."""
    return tree_unflatten_cot(t_tree, tree_util.tree_structure(tree))


@helper
def tree_flatten_tangent(tree, t_tree):
    return tree_leaves_tangent(tree, t_tree), 0.0


@helper
def tree_unflatten_tangent(treedef, t_leaves):
    if is_zero(t_leaves):
        t_leaves = [0.0] * treedef.num_leaves
    return tree_util.tree_unflatten(treedef, list(t_leaves))


def _child_cot(d, c, i):
    from .. import pytree_nodes
    if isinstance(d.kind, pytree_nodes.Node):         # a registered object: as one, or as attribute reads give it
        if pytree_nodes.node_of(c) is d.kind:
            return pytree_nodes.flatten(d.kind, c)[0][i]
        if isinstance(c, dict):
            return c.get(_child_attribute(d, i), 0.0)
    if d.kind is dict or d.aux is not None and isinstance(c, dict):     # a dict; a dataclass's as a dict
        return c.get(d.aux[i], 0.0)
    if d.aux is not None and hasattr(c, d.aux[i]):                     # a dataclass as a dataclass
        return getattr(c, d.aux[i])
    return c[i]


def _child_attribute(d, i):
    """The attribute of a registered class's object holding its child i (d its PyTreeDef)."""
    from .. import pytree_nodes
    node = d.kind
    if node.data_names is not None:
        return node.data_names[i]
    # stand-in children, each its own empty array (np.asarray of one, in __init__, is that array itself)
    markers = [np.empty(0) for _ in d.children]
    problem = (f"adsrc cannot tell which attribute of a {node.name} holds its child {i}, so it cannot give that "
               "child the cotangent its attribute reads gave. Register the class with adsrc.register_dataclass, "
               "or store each child in an attribute as unflatten gets it (not a copy or a function of it).")
    try:
        names = pytree_nodes.attribute_cotangents(pytree_nodes.unflatten(node, d.aux, markers))
    except Exception as e:
        raise TypeError(problem) from e
    found = next((n for n, v in names.items() if v is markers[i]), None)
    if found is None:
        raise TypeError(problem)            # (a child stored as a copy: its cotangent would be lost silently)
    return found


def same_structure(treedef, other):
    """Has other treedef's structure (tree_map's other trees must)? A ValueError if not."""
    if tree_util.tree_structure(other) != treedef:
        raise ValueError(f"tree_map: the trees differ: expected {treedef}, got {tree_util.tree_structure(other)}")
    return True


def tree_map_1(f, tree):
    leaves, treedef = tree_util.tree_flatten(tree)
    return tree_util.tree_unflatten(treedef, [f(x) for x in leaves])


def tree_map_2(f, tree, other):
    leaves, treedef = tree_util.tree_flatten(tree)
    same_structure(treedef, other)
    return tree_util.tree_unflatten(treedef, [f(x, y) for x, y in zip(leaves, tree_util.tree_leaves(other))])


def tree_map_3(f, tree, a, b):
    leaves, treedef = tree_util.tree_flatten(tree)
    same_structure(treedef, a)
    same_structure(treedef, b)
    return tree_util.tree_unflatten(treedef, [f(x, y, z) for x, y, z in
                                              zip(leaves, tree_util.tree_leaves(a), tree_util.tree_leaves(b))])


TREE_MAPS = {1: tree_map_1, 2: tree_map_2, 3: tree_map_3}        # by the number of trees


def tree_reduce_1(f, tree):
    leaves = tree_util.tree_leaves(tree)
    if not leaves:
        raise TypeError("tree_reduce() of a tree without leaves and no initializer")
    out = leaves[0]
    for x in leaves[1:]:
        out = f(out, x)
    return out


def tree_reduce_2(f, tree, initializer):
    out = initializer
    for x in tree_util.tree_leaves(tree):
        out = f(out, x)
    return out


def tree_reduce_any(function, tree, initializer=tree_util._NO_INITIALIZER):
    """tree_reduce called with its initializer by keyword (`initializer=0.0`)."""
    if initializer is tree_util._NO_INITIALIZER:
        return tree_reduce_1(function, tree)
    return tree_reduce_2(function, tree, initializer)


TREE_REDUCES = {1: tree_reduce_1, 2: tree_reduce_2, "keywords": tree_reduce_any}   # without and with an initializer


def leaf_paths(tree):
    """The paths of tree's leaves (constants: no derivative flows through them)."""
    return [p for p, _ in tree_util.tree_flatten_with_path(tree)[0]]


def tree_flatten_with_path_1(tree):
    return list(zip(leaf_paths(tree), tree_util.tree_leaves(tree))), tree_util.tree_structure(tree)


def tree_leaves_with_path_1(tree):
    return list(zip(leaf_paths(tree), tree_util.tree_leaves(tree)))


# (function, signature, its differentiated parameter: reverse template, forward template). The helpers that
# the derivatives run are linear in their cotangent or tangent, each pair the other's transpose, so that
# derivatives of any order go through them.
_RULES = [
    (tree_util.tree_leaves, "tree, /", "tree", "tree_leaves_cot(g, tree)", "tree_leaves_tangent(tree, t_tree)"),
    (tree_util.tree_flatten, "tree, /", "tree", "tree_flatten_cot(g, tree)", "tree_flatten_tangent(tree, t_tree)"),
    (tree_util.tree_unflatten, "treedef, leaves, /", "leaves", "tree_unflatten_cot(g, treedef)",
     "tree_unflatten_tangent(treedef, t_leaves)"),
    (tree_leaves_cot, "g, tree, /", "g", "tree_leaves_tangent(tree, g)", "tree_leaves_cot(t_g, tree)"),
    (tree_flatten_cot, "g, tree, /", "g", "tree_flatten_tangent(tree, g)", "tree_flatten_cot(t_g, tree)"),
    (tree_unflatten_cot, "g, treedef, /", "g", "tree_unflatten_tangent(treedef, g)",
     "tree_unflatten_cot(t_g, treedef)"),
    (tree_leaves_tangent, "tree, t_tree, /", "t_tree", "tree_leaves_cot(g, tree)",
     "tree_leaves_tangent(tree, t_t_tree)"),
    (tree_flatten_tangent, "tree, t_tree, /", "t_tree", "tree_flatten_cot(g, tree)",
     "tree_flatten_tangent(tree, t_t_tree)"),
    (tree_unflatten_tangent, "treedef, t_leaves, /", "t_leaves", "tree_unflatten_cot(g, treedef)",
     "tree_unflatten_tangent(treedef, t_t_leaves)"),
]


def install():
    for fn, signature, param, reverse, forward in _RULES:
        general(fn, fn.__name__, signature, container=True, **{param: reverse}).jvp_joint = forward
    for fn in (tree_util.tree_structure, same_structure):
        nondiff(fn, fn.__name__)
    by_source.IMPLEMENTATIONS[tree_util.tree_map] = TREE_MAPS
    by_source.IMPLEMENTATIONS[tree_util.tree_reduce] = TREE_REDUCES
    nondiff(leaf_paths, "leaf_paths")
    # (keyed by the number of arguments after the first)
    by_source.IMPLEMENTATIONS[tree_util.tree_flatten_with_path] = {0: tree_flatten_with_path_1}
    by_source.IMPLEMENTATIONS[tree_util.tree_leaves_with_path] = {0: tree_leaves_with_path_1}
