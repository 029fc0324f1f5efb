"""A pytree of arrays as one flat vector: `ravel_pytree` (JAX's name) and `flatten` (autograd's).

    flat, unravel = adsrc.ravel_pytree(params)     # flat: a 1-d float array of every float leaf
    params_again = unravel(flat)                   # the same structure, leaves from the vector

Both are differentiable inside a function adsrc transforms (`l2 = flat @ flat`): the cotangent of
`flat` goes back to each leaf, reshaped (its rule is in rules/containers.py). The leaves are the
float arrays and floats of lists, tuples, dicts, namedtuples, dataclasses and registered pytree
classes, in order, a dict's by its sorted keys as JAX and autograd order them (insertion order when the keys
cannot be sorted); other leaves are kept as they are by `unravel`, which gives dicts with sorted keys.
"""

import collections

import numpy as np


def ravel_pytree(tree):
    """(flat, unravel): the float leaves of tree raveled into one vector, and the function that puts a
    vector of that length back into tree's structure (shapes and dtypes of the leaves)."""
    from .checks import _leaves
    tree = sorted_dicts(tree)
    leaves = [leaf for _, leaf in _leaves(tree)]
    flat = np.concatenate([np.ravel(leaf) for leaf in leaves]) if leaves else np.zeros(0)
    return flat, _Unravel(tree, [np.shape(leaf) for leaf in leaves])


flatten = ravel_pytree


def sorted_dicts(tree):
    """tree with its dicts (in lists, tuples and namedtuples too) in the order of their sorted keys."""
    if type(tree) is dict or type(tree) is collections.defaultdict:      # (a defaultdict keeps its factory)
        try:
            keys = sorted(tree)
        except TypeError:
            keys = list(tree)
        items = {k: sorted_dicts(tree[k]) for k in keys}
        return items if type(tree) is dict else collections.defaultdict(tree.default_factory, items)
    if type(tree) in (list, tuple):
        return type(tree)(sorted_dicts(v) for v in tree)
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        return type(tree)(*(sorted_dicts(v) for v in tree))
    return tree


def unravel_with(unravel, flat):
    """`unravel(flat)` for an unravel function ravel_pytree returned: the call adsrc differentiates (its rule,
    in rules/containers.py, ravels the cotangent pytree back into one vector)."""
    if not isinstance(unravel, _Unravel):
        raise TypeError(f"expected the unravel function of adsrc.ravel_pytree, got a {type(unravel).__name__}")
    return unravel(flat)


def flatten_func(func, example):
    """autograd's `flatten_func`: (flat_func, unflatten, flat_example) where `flat_func(flat, *args)` is
    `func(unflatten(flat), *args)` raveled into one vector (a function adsrc differentiates)."""
    flat, unflatten = ravel_pytree(example)
    name = "flat_" + (func.__name__ if str(getattr(func, "__name__", "")).isidentifier() else "func")
    source = f"def {name}(flat, *args):\n    return ravel_pytree(func(unflatten(flat), *args))[0]\n"
    from .frontend.source import define
    made = define(source, name, {"__name__": "adsrc_flatten", "ravel_pytree": ravel_pytree, "func": func,
                                 "unflatten": unflatten}, "flatten_func")
    return made, unflatten, flat


class _Unravel:
    """unravel(vector) -> a pytree of tree's structure with its float leaves read from the vector."""

    def __init__(self, tree, shapes):
        self.tree, self.shapes = tree, shapes
        self.size = sum(int(np.prod(s)) for s in shapes)

    def __call__(self, flat):
        return pieces_like(flat, self.tree, self.size)

    def __repr__(self):
        return f"<unravel to {len(self.shapes)} leaves ({self.size} numbers)>"


def pieces_like(flat, tree, size=None, other=None):
    """tree's structure with each float leaf replaced by the next piece of flat (reshaped like it, a float
    for a float leaf), and each other leaf by other(leaf) (kept when other is None)."""
    from .checks import _map
    flat = np.asarray(flat)
    if size is not None and flat.shape != (size,):
        raise ValueError(f"unravel expects a vector of {size} numbers, got an array of shape {flat.shape}")
    start = [0]

    def piece(_, leaf):
        n = int(np.size(leaf))
        part = flat[start[0]:start[0] + n]
        start[0] += n
        if isinstance(leaf, np.ndarray):
            return part.reshape(np.shape(leaf)).astype(leaf.dtype, copy=True)
        return type(leaf)(part[0]) if type(leaf) is not float else float(part[0])
    return _map(tree, piece, other)
