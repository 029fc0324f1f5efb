"""Derivative rules of the helpers the loop of a differentiated `adsrc.vmap` call runs (lowering/vmap_calls.py).

`vmap_unstack(a, axes, n)` is the list of a's n elements (a pytree mapped over the axes `axes`, a prefix
of a); `vmap_stack(outs, out_axes)` stacks the results back. Both are linear; each has a cotangent helper
and a tangent helper, each pair the other's transpose, so derivatives of any order go through them.
Cotangents and tangents of a container have the container's kind (0.0 where a part has none), as in
rules/tree_rules.py.
"""

import numpy as np

from .. import tree_util
from ..runtime import helper, is_zero
from ..vmap import leaf_axes, out_leaf_axes, vmap_size, vmap_stack
from . import general, nondiff
from .tree_rules import tree_leaves_cot, tree_unflatten_cot


def _leaf_parts(t, tree):
    """The leaves' parts of t (a cotangent or tangent of tree, 0.0 for none), one per leaf of tree."""
    return [0.0] * tree_util.tree_structure(tree).num_leaves if is_zero(t) else \
        tree_unflatten_cot(t, tree_util.tree_structure(tree))


def _element_shape(leaf, ax):
    shape = np.shape(leaf)
    return shape if ax is None else tuple(s for k, s in enumerate(shape) if k != ax % len(shape))


def _stack_parts(parts, shape, ax):
    """The parts (one per element, 0.0 for none) of a leaf stacked along ax (None: summed), or 0.0."""
    if all(is_zero(p) for p in parts):
        return 0.0
    if ax is None:
        return sum(p for p in parts if not is_zero(p))
    return np.stack([np.zeros(shape) if is_zero(p) else np.broadcast_to(p, shape) for p in parts], axis=ax)


def _take(part, ax, i):
    return part if ax is None or is_zero(part) else np.take(part, i, axis=ax % np.ndim(part))


# -- stacking the results -------------------------------------------------------------------------------------

def vmap_stack_cot(g, outs, out_axes):
    """The cotangents of the results (a list, one per element) from g, the stacked pytree's."""
    if is_zero(g):
        return 0.0
    first = outs[0]
    cots = _leaf_parts(g, first)
    axes = out_leaf_axes(first, out_axes)
    shapes = [np.shape(leaf) if ax is None else _stacked_shape(np.shape(leaf), ax, len(outs))
              for leaf, ax in zip(tree_util.tree_leaves(first), axes)]
    cots = [c if is_zero(c) else np.broadcast_to(c, shape) for c, shape in zip(cots, shapes)]
    return [tree_leaves_cot([0.0 if ax is None and i else _take(c, ax, i) for c, ax in zip(cots, axes)], out)
            for i, out in enumerate(outs)]


def _stacked_shape(shape, ax, n):
    ax = ax % (len(shape) + 1)
    return shape[:ax] + (n,) + shape[ax:]


def vmap_stack_tangent(outs, t_outs, out_axes):
    """The tangent of vmap_stack(outs, out_axes) from the results' tangents (linear; an unmapped leaf's is
    the first element's, as its cotangent goes to the first element)."""
    first = outs[0]
    parts = [_leaf_parts(0.0 if is_zero(t_outs) else t_outs[i], out) for i, out in enumerate(outs)]
    stacked = []
    for j, (leaf, ax) in enumerate(zip(tree_util.tree_leaves(first), out_leaf_axes(first, out_axes))):
        shape = np.shape(leaf)
        column = [np.zeros(shape) if is_zero(p[j]) else np.broadcast_to(p[j], shape) for p in parts]
        stacked.append(column[0] if ax is None else np.stack(column, axis=ax))
    return tree_util.tree_unflatten(tree_util.tree_structure(first), stacked)


# -- unstacking the arguments ---------------------------------------------------------------------------------

def vmap_unstack(a, axes, n):
    """The list of the n elements of the pytree a mapped over axes (a prefix of a; None: the same each time)."""
    leaves, treedef = tree_util.tree_flatten(a)
    per_leaf = leaf_axes(axes, a)
    for leaf, ax in zip(leaves, per_leaf):
        if ax is not None:
            vmap_size([leaf], [ax], n)
    return [tree_util.tree_unflatten(treedef, [_take(np.asarray(leaf), ax, i) if ax is not None else leaf
                                               for leaf, ax in zip(leaves, per_leaf)]) for i in range(n)]


def vmap_unstack_cot(g, a, axes, n):
    """a's cotangent from g, the list of its elements' cotangents (stacked along each leaf's axis)."""
    if is_zero(g):
        return 0.0
    per_leaf = leaf_axes(axes, a)
    parts = [_leaf_parts(gi, a) for gi in g]
    return tree_leaves_cot([_stack_parts([p[j] for p in parts], _element_shape(leaf, ax), ax)
                            for j, (leaf, ax) in enumerate(zip(tree_util.tree_leaves(a), per_leaf))], a)


def vmap_unstack_tangent(a, t_a, axes, n):
    """The tangent of vmap_unstack(a, axes, n) from a's (the list of its elements' tangents; linear)."""
    if is_zero(t_a):
        return 0.0
    per_leaf = leaf_axes(axes, a)
    parts = [p if is_zero(p) else np.broadcast_to(p, np.shape(leaf))
             for p, leaf in zip(_leaf_parts(t_a, a), tree_util.tree_leaves(a))]
    return [tree_leaves_cot([_take(p, ax, i) for p, ax in zip(parts, per_leaf)], a) for i in range(n)]


# (function, signature, its differentiated parameter: reverse template, forward template); each helper is
# linear in its cotangent or tangent and each pair the other's transpose, for derivatives of any order
_RULES = [
    (vmap_stack, "outs, out_axes, /", "outs", "vmap_stack_cot(g, outs, out_axes)",
     "vmap_stack_tangent(outs, t_outs, out_axes)"),
    (vmap_stack_cot, "g, outs, out_axes, /", "g", "vmap_stack_tangent(outs, g, out_axes)",
     "vmap_stack_cot(t_g, outs, out_axes)"),
    (vmap_stack_tangent, "outs, t_outs, out_axes, /", "t_outs", "vmap_stack_cot(g, outs, out_axes)",
     "vmap_stack_tangent(outs, t_t_outs, out_axes)"),
    (vmap_unstack, "a, axes, n, /", "a", "vmap_unstack_cot(g, a, axes, n)", "vmap_unstack_tangent(a, t_a, axes, n)"),
    (vmap_unstack_cot, "g, a, axes, n, /", "g", "vmap_unstack_tangent(a, g, axes, n)",
     "vmap_unstack_cot(t_g, a, axes, n)"),
    (vmap_unstack_tangent, "a, t_a, axes, n, /", "t_a", "vmap_unstack_cot(g, a, axes, n)",
     "vmap_unstack_tangent(a, t_t_a, axes, n)"),
]

nondiff(vmap_size, "vmap_size")
for _fn, _signature, _param, _reverse, _forward in _RULES:
    if _fn.__name__ != "vmap_stack" and _fn.__name__ != "vmap_unstack":
        helper(_fn)         # the helpers the templates call
    general(_fn, _fn.__name__, _signature, container=True, **{_param: _reverse}).jvp_joint = _forward
