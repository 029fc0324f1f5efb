"""adsrc.vmap: a function mapped over an axis of its arguments, with JAX's name and conventions.

    per_example = adsrc.vmap(adsrc.grad(loss), in_axes=(None, 0, 0))(w, X, y)   # one gradient per row
    ys = adsrc.vmap(lambda x: W @ x)(xs)                                       # W @ each row of xs

`in_axes` is an int, None (not mapped) or a tuple with one of those per positional argument; a mapped
argument may be a pytree, whose every leaf is mapped over that axis. Keyword arguments are mapped over
their axis 0, as in JAX. `out_axes` says where the mapped axis goes in each output leaf (None: the output
is the same for every element, and is returned once).

adsrc runs the function once per element and stacks the results: the answer JAX's vmap gives, computed
by a Python loop (no batching rules). Inside a function adsrc differentiates, `vmap(f)(x)` is differentiated
as that loop, for positional arguments that are arrays (any pytree for f to return).
"""

import numbers

import numpy as np

from . import tree_util
from .rules import general, nondiff
from .runtime import helper, is_zero

__all__ = ["vmap"]


def _check_axis(a, what):
    if a is not None and not isinstance(a, numbers.Integral) or isinstance(a, bool):
        raise TypeError(f"vmap {what} must be an int or None (or a tuple of them, one per argument), got {a!r}")
    return a


class Vmapped:
    """fun mapped over axes of its arguments (what adsrc.vmap returns)."""

    def __init__(self, fun, in_axes=0, out_axes=0, axis_size=None):
        if not callable(fun):
            raise TypeError(f"vmap expects a function, got {type(fun).__name__}")
        if isinstance(in_axes, list):
            in_axes = tuple(in_axes)
        for a in in_axes if isinstance(in_axes, tuple) else (in_axes,):
            _check_axis(a, "in_axes")
        for a in out_axes if isinstance(out_axes, (tuple, list)) else (out_axes,):
            _check_axis(a, "out_axes")
        self.fun, self.in_axes, self.out_axes, self.axis_size = fun, in_axes, out_axes, axis_size
        self.__name__ = "vmap_" + str(getattr(fun, "__name__", "fun"))
        self.__doc__ = getattr(fun, "__doc__", None)

    def __repr__(self):
        return f"<adsrc.vmap of {self.fun!r}, in_axes={self.in_axes!r}, out_axes={self.out_axes!r}>"

    def axes(self, count):
        """One axis (or None) per positional argument of a call with count of them."""
        if isinstance(self.in_axes, tuple):
            if len(self.in_axes) != count:
                raise ValueError(f"vmap in_axes has {len(self.in_axes)} entries but the function was called with "
                                 f"{count} positional arguments; give one entry (an int or None) per argument")
            return self.in_axes
        return (self.in_axes,) * count

    def __call__(self, *args, **kwargs):
        axes = self.axes(len(args))
        mapped = [(a, ax) for a, ax in zip(args, axes) if ax is not None] + [(v, 0) for v in kwargs.values()]
        sizes = [np.shape(leaf)[_axis(leaf, ax)] for a, ax in mapped for leaf in tree_util.tree_leaves(a)]
        n = vmap_sizes(*sizes) if sizes else self.axis_size
        if n is None:
            raise ValueError("vmap needs at least one mapped argument (an in_axes entry that is not None) or "
                             "axis_size=")
        if self.axis_size is not None and n != self.axis_size:
            raise ValueError(f"vmap got axis_size={self.axis_size} but the mapped axes have size {n}")
        outs = []
        for i in range(n):
            a_i = [_element(a, ax, i) for a, ax in zip(args, axes)]
            k_i = {k: _element(v, 0, i) for k, v in kwargs.items()}
            outs.append(self.fun(*a_i, **k_i))
        return _stack_tree(outs, self.out_axes, n)


def vmap(fun, in_axes=0, out_axes=0, axis_size=None):
    """fun mapped over axis in_axes of its arguments, the results stacked along out_axes (see the module)."""
    return Vmapped(fun, in_axes, out_axes, axis_size)


def _axis(leaf, ax):
    nd = np.ndim(leaf)
    if not -nd <= ax < nd:
        raise ValueError(f"vmap was asked to map over axis {ax} of a value of shape {np.shape(leaf)}")
    return ax % nd


def _element(a, ax, i):
    if ax is None:
        return a
    return tree_util.tree_map(lambda leaf: np.take(np.asarray(leaf), i, axis=_axis(leaf, ax)), a)


def _stack_tree(outs, out_axes, n):
    if n == 0:
        raise ValueError("vmap over an axis of size 0: there is no result to stack")
    first = outs[0]
    if isinstance(out_axes, (tuple, list)):
        parts = len(tree_util.tree_leaves(first, is_leaf=lambda x: x is not first))
        if parts != len(out_axes):
            raise ValueError(f"vmap out_axes has {len(out_axes)} entries for a result of {parts} parts")
    columns = zip(*(tree_util.tree_leaves(o) for o in outs))
    return tree_util.tree_unflatten(tree_util.tree_structure(first), [
        parts[0] if ax is None else np.stack(parts, axis=ax) for parts, ax in zip(columns, _leaf_axes(first, out_axes))])


# -- helpers of the loop adsrc differentiates (lowering/vmap_calls.py) -------------------------------------

def vmap_sizes(*sizes):
    """The size the mapped axes share (a ValueError when they differ)."""
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap got inconsistent sizes for the mapped axes: {list(sizes)}")
    return sizes[0]


def vmap_stack(outs, out_axes):
    """The list of a mapped function's results stacked as vmap stacks them (a pytree of stacked leaves)."""
    return _stack_tree(outs, out_axes, len(outs))


def _leaf_axes(first, out_axes):
    count = tree_util.tree_structure(first).num_leaves
    if not isinstance(out_axes, (tuple, list)):
        return [out_axes] * count
    parts = tree_util.tree_leaves(first, is_leaf=lambda x: x is not first)
    return [ax for ax, part in zip(out_axes, parts) for _ in range(tree_util.tree_structure(part).num_leaves)]


def vmap_stack_cot(g, outs, out_axes):
    """The cotangents of the results (a list, one per element) from g, the stacked pytree's."""
    from .rules.tree_rules import tree_leaves_cot, tree_unflatten_cot
    if is_zero(g):
        return 0.0
    first = outs[0]
    leaf_cots = tree_unflatten_cot(g, tree_util.tree_structure(first))
    per_element = [[] for _ in outs]
    for j, (c, ax, leaf) in enumerate(zip(leaf_cots, _leaf_axes(first, out_axes), tree_util.tree_leaves(first))):
        for i in range(len(outs)):
            if is_zero(c) or ax is None and i:
                per_element[i].append(0.0)
            elif ax is None:
                per_element[i].append(c)
            else:
                stacked = np.broadcast_to(c, _stacked_shape(np.shape(leaf), ax, len(outs)))
                per_element[i].append(np.take(stacked, i, axis=ax))
    return [tree_leaves_cot(cots, out) for cots, out in zip(per_element, outs)]


def vmap_stack_tangent(outs, t_outs, out_axes):
    """The tangent of vmap_stack(outs, out_axes) from the results' tangents (linear)."""
    from .rules.tree_rules import tree_leaves_tangent
    first = outs[0]
    treedef = tree_util.tree_structure(first)
    columns = [[np.zeros(np.shape(leaf)) if is_zero(t) else t for leaf, t in
                zip(tree_util.tree_leaves(out), tree_leaves_tangent(out, 0.0 if is_zero(t_outs) else t_outs[i]))]
               for i, out in enumerate(outs)]
    return tree_util.tree_unflatten(treedef, [cols[0] if ax is None else np.stack(cols, axis=ax) for cols, ax in
                                              zip(zip(*columns), _leaf_axes(first, out_axes))])


def _stacked_shape(shape, ax, n):
    ax = ax % (len(shape) + 1)
    return shape[:ax] + (n,) + shape[ax:]


nondiff(vmap_sizes, "vmap_sizes")
general(vmap_stack, "vmap_stack", "outs, out_axes, /", container=True,
        outs="vmap_stack_cot(g, outs, out_axes)").jvp_joint = "vmap_stack_tangent(outs, t_outs, out_axes)"
# unstacking and stacking are linear, each the other's transpose: rules for derivatives of higher order
general(helper(vmap_stack_cot), "vmap_stack_cot", "g, outs, out_axes, /", container=True,
        g="vmap_stack_tangent(outs, g, out_axes)").jvp_joint = "vmap_stack_cot(t_g, outs, out_axes)"
general(helper(vmap_stack_tangent), "vmap_stack_tangent", "outs, t_outs, out_axes, /", container=True,
        t_outs="vmap_stack_cot(g, outs, out_axes)").jvp_joint = "vmap_stack_tangent(outs, t_t_outs, out_axes)"
