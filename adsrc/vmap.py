"""adsrc.vmap: a function mapped over an axis of its arguments, with JAX's name and conventions.

    per_example = adsrc.vmap(adsrc.grad(loss), in_axes=(None, 0, 0))(w, X, y)   # one gradient per row
    ys = adsrc.vmap(lambda x: W @ x)(xs)                                       # W @ each row of xs

`in_axes` is an int, None (not mapped) or a tuple (or list) with one entry per positional argument; an
entry is an int or None for every leaf of that argument's pytree, or a pytree prefix of the argument
(`in_axes=({"w": None, "b": 0},)`), as in JAX. Keyword arguments are mapped over their axis 0, as in JAX.
`out_axes` is an int, None or a pytree prefix of the result saying where the mapped axis goes in each
leaf (None: the leaf is the same for every element, and is returned once; a ValueError if it is not).

adsrc runs the function once per element and stacks the results: the answer JAX's vmap gives, computed
by a Python loop (no batching rules). Inside a function adsrc differentiates, `vmap(f)(x)` is differentiated
as that loop (lowering/vmap_calls.py; the helpers it runs and their derivatives are in rules/vmap_rules.py).
"""

import numbers

import numpy as np

from . import tree_util

__all__ = ["vmap"]


def _is_axis(a):
    return a is None or isinstance(a, numbers.Integral) and not isinstance(a, bool)


def _check_axes(axes, what):
    """axes: an int, None, or a pytree of them (a TypeError naming the first entry that is not)."""
    bad = [a for a in tree_util.tree_leaves(axes) if not _is_axis(a)]
    if bad:
        raise TypeError(f"vmap {what} must be an int, None, or a tuple/list/dict (a pytree prefix of the "
                        f"arguments or results) of ints and None, got {axes!r}")


class Vmapped:
    """fun mapped over axes of its arguments (what adsrc.vmap returns)."""

    def __init__(self, fun, in_axes=0, out_axes=0, axis_size=None):
        if not callable(fun):
            raise TypeError(f"vmap expects a function, got {type(fun).__name__}")
        if isinstance(in_axes, list):
            in_axes = tuple(in_axes)
        if not (_is_axis(in_axes) or isinstance(in_axes, tuple)):
            raise TypeError(f"vmap in_axes must be an int, None, or a tuple with one entry per positional "
                            f"argument, got {in_axes!r}")
        _check_axes(in_axes, "in_axes")
        _check_axes(out_axes, "out_axes")
        if axis_size is not None and (not _is_axis(axis_size) or axis_size < 0):
            raise TypeError(f"vmap axis_size must be a non-negative int, got {axis_size!r}")
        self.fun, self.in_axes, self.out_axes, self.axis_size = fun, in_axes, out_axes, axis_size
        self.__name__ = "vmap_" + str(getattr(fun, "__name__", "fun"))
        self.__doc__ = getattr(fun, "__doc__", None)

    def __repr__(self):
        return f"<adsrc.vmap of {self.fun!r}, in_axes={self.in_axes!r}, out_axes={self.out_axes!r}>"

    def axes(self, count):
        """One entry (an int, None or a pytree prefix) per positional argument of a call with count of them."""
        if isinstance(self.in_axes, tuple):
            if len(self.in_axes) != count:
                raise ValueError(f"vmap in_axes has {len(self.in_axes)} entries but the function was called with "
                                 f"{count} positional arguments; give one entry (an int or None) per argument")
            return self.in_axes
        return (self.in_axes,) * count

    def __call__(self, *args, **kwargs):
        axes = self.axes(len(args)) + (0,) * len(kwargs)
        values = args + tuple(kwargs.values())
        n = vmap_size(values, axes, self.axis_size)
        outs = []
        for i in range(n):
            elements = [a if ax is None else _element(a, ax, i) for a, ax in zip(values, axes)]
            outs.append(self.fun(*elements[:len(args)], **dict(zip(kwargs, elements[len(args):]))))
        return vmap_stack(outs, self.out_axes)


def vmap(fun, in_axes=0, out_axes=0, axis_size=None):
    """fun mapped over axis in_axes of its arguments, the results stacked along out_axes (see the module)."""
    return Vmapped(fun, in_axes, out_axes, axis_size)


def leaf_axes(prefix, tree, what="in_axes"):
    """One axis (an int or None) per leaf of tree (in tree_leaves' order), from prefix: an int or None for
    all of tree's leaves, or a pytree of tree's structure down to some depth whose leaves are ints or None
    (JAX's pytree prefix). A ValueError naming where prefix and tree differ."""
    out = []

    def go(p, x, path):
        if _is_axis(p):
            out.extend([p] * tree_util.tree_structure(x).num_leaves)
            return
        kind, aux, children = tree_util._split(p)
        x_kind, x_aux, x_children = tree_util._split(x)
        same = kind == x_kind or {kind, x_kind} <= {list, tuple}
        if not same or aux != x_aux or len(children) != len(x_children or ()):
            raise ValueError(f"vmap {what}{path} is {p!r}, which is not a pytree prefix of the value there, "
                             f"whose structure is {tree_util.tree_structure(x)}; give an int or None for the "
                             f"whole value, or a container of its structure")
        keys = aux if kind is dict else range(len(children))
        for k, c, xc in zip(keys, children, x_children):
            go(c, xc, f"{path}[{k!r}]")
    go(prefix, tree, "")
    return out


def _axis(leaf, ax):
    nd = np.ndim(leaf)
    if not -nd <= ax < nd:
        raise ValueError(f"vmap was asked to map over axis {ax} of a value of shape {np.shape(leaf)}")
    return ax % nd


def _element(a, ax, i):
    """Element i of the pytree a mapped over the axes ax (an int, None, or a prefix of a)."""
    leaves, treedef = tree_util.tree_flatten(a)
    return tree_util.tree_unflatten(treedef, [leaf if x is None else np.take(np.asarray(leaf), i, axis=_axis(leaf, x))
                                              for leaf, x in zip(leaves, leaf_axes(ax, a))])


def vmap_size(values, axes, axis_size=None):
    """The size the mapped axes of values share (axes: one entry per value): a ValueError when they differ,
    when none is mapped and there is no axis_size, or when it is 0."""
    sizes = [np.shape(leaf)[_axis(leaf, x)] for a, ax in zip(values, axes) if ax is not None
             for leaf, x in zip(tree_util.tree_leaves(a), leaf_axes(ax, a)) if x is not None]
    if axis_size is not None:
        sizes.append(axis_size)
    if not sizes:
        raise ValueError("vmap needs at least one mapped argument (an in_axes entry that is not None) or "
                         "axis_size=")
    if any(s != sizes[0] for s in sizes):
        told = f" (axis_size={axis_size})" if axis_size is not None else ""
        raise ValueError(f"vmap got inconsistent sizes for the mapped axes{told}: {sizes}")
    if sizes[0] == 0:
        raise ValueError("vmap over an axis of size 0: adsrc runs the function once per element, so there is "
                         "no result to stack (JAX would trace it); handle the empty case before calling vmap")
    return sizes[0]


def out_leaf_axes(first, out_axes):
    """One axis (or None) per leaf of a result, from out_axes (an int, None, or a prefix of the result)."""
    return leaf_axes(out_axes, first, "out_axes")


def vmap_stack(outs, out_axes):
    """The list of a mapped function's results stacked as vmap stacks them (a pytree of stacked leaves)."""
    first = outs[0]
    leaves, treedef = tree_util.tree_flatten(first)
    axes = out_leaf_axes(first, out_axes)
    columns = [leaves] + [_same_structure(treedef, o) for o in outs[1:]]
    stacked = []
    for j, (column, ax) in enumerate(zip(zip(*columns), axes)):
        if ax is None:
            if any(not _equal(column[0], c) for c in column[1:]):
                raise ValueError(f"vmap out_axes gives None (not mapped) for leaf {j} of the result "
                                 f"{treedef}, but it differs from one element to the next; give an axis "
                                 f"to stack it along (JAX raises here too)")
            stacked.append(column[0])
        else:
            stacked.append(np.stack(column, axis=ax))
    return tree_util.tree_unflatten(treedef, stacked)


def _same_structure(treedef, out):
    leaves, d = tree_util.tree_flatten(out)
    if d != treedef:
        raise ValueError(f"vmap: the function returned results of different structures: {treedef} and {d}")
    return leaves


def _equal(a, b):
    try:
        return a is b or bool(np.array_equal(a, b))
    except Exception:           # noqa: BLE001  (values numpy cannot compare: unequal)
        return False


from .rules import vmap_rules  # noqa: E402,F401  (the derivative rules of vmap_stack and the loop's helpers)
