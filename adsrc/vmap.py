"""adsrc.vmap: a function mapped over an axis of its arguments, with JAX's name and conventions.

    per_example = adsrc.vmap(adsrc.grad(loss), in_axes=(None, 0, 0))(w, X, y)   # one gradient per row
    ys = adsrc.vmap(lambda x: W @ x)(xs)                                       # W @ each row of xs

`in_axes` is an int, None (not mapped) or a tuple with one of those per positional argument; a mapped
argument may be a pytree, whose every leaf is mapped over that axis. Keyword arguments are mapped over
their axis 0, as in JAX. `out_axes` says where the mapped axis goes in each output leaf (None: the output
is the same for every element, and is returned once).

adsrc runs the function once per element and stacks the results: the answer JAX's vmap gives, computed
by a Python loop (no batching rules). Inside a function adsrc differentiates, `vmap(f)(x)` is differentiated
as that loop, for arguments that are arrays and a function returning one array or number.
"""

import numbers

import numpy as np

from . import tree_util
from .rules import general, nondiff

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
    treedef = tree_util.tree_structure(outs[0])
    columns = [tree_util.tree_leaves(o) for o in outs]
    if isinstance(out_axes, (tuple, list)):
        tops = tree_util.tree_structure(outs[0], is_leaf=lambda x: x is not outs[0])
        if tops.num_leaves != len(out_axes):
            raise ValueError(f"vmap out_axes has {len(out_axes)} entries for a result of {tops.num_leaves} parts")
        counts = [tree_util.tree_structure(part).num_leaves for part in tree_util.tree_leaves(
            outs[0], is_leaf=lambda x: x is not outs[0])]
        leaf_axes = [ax for ax, c in zip(out_axes, counts) for _ in range(c)]
    else:
        leaf_axes = [out_axes] * treedef.num_leaves
    stacked = []
    for j, ax in enumerate(leaf_axes):
        parts = [c[j] for c in columns]
        stacked.append(parts[0] if ax is None else np.stack(parts, axis=ax))
    return tree_util.tree_unflatten(treedef, stacked)


# -- helpers of the loop adsrc differentiates (lowering/vmap_calls.py) -------------------------------------

def vmap_sizes(*sizes):
    """The size the mapped axes share (a ValueError when they differ)."""
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap got inconsistent sizes for the mapped axes: {list(sizes)}")
    return sizes[0]


def vmap_outputs(outs):
    """The list of a mapped function's results, which must be arrays or numbers to be stacked here."""
    if outs and isinstance(outs[0], (tuple, list, dict)):
        raise TypeError("inside a function adsrc differentiates, vmap's function must return one array or "
                        f"number, not a {type(outs[0]).__name__}; map it once per output, or write the loop "
                        "(`[f(x[i]) for i in range(n)]`)")
    return outs


nondiff(vmap_sizes, "vmap_sizes")
general(vmap_outputs, "vmap_outputs", "outs, /", container=True, outs="g").jvp_joint = "t_outs"     # the identity
