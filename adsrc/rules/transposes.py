"""Transposes, written out, of the helpers that move cotangents between containers and arrays.

`item_cot(g, i)` (element i of a container's cotangent), `seq_cot(g, obj)` (an
array's cotangent split into the list or tuple a NumPy function read),
`sum_operand_cot(g, x, other, out, first)` (one operand's part of `x + other`),
`unbroadcast`'s own transpose and `sort_vjp(g, x, axis)` (np.sort's cotangent,
put back in the input's order) are linear in g. Derivatives of generated code need their transposes. The
general `transpose_linear` finds a transpose one basis vector at a time, which
for a 200-element array is 200 calls, each differentiated again at the next
order: a fifth derivative of autograd's tanh example took 86 s to run. The
transposes here are direct, and each is itself linear with the original as its
transpose, so the family is closed under differentiation to any order.
"""

import inspect
import numbers

import numpy as np

from .. import pytree_nodes, runtime
from ..checks import _map


def _zeros(tree):
    """tree with zero leaves; an object of the user's class (a tangent of one) as a copy with zero fields."""
    if _plain_object(tree):
        return _as_object(tree, _zeros(_fields_of(tree)))
    return _map(tree, lambda path, v: np.zeros_like(v) if isinstance(v, np.ndarray) else type(v)(0.0),
                lambda v: _zeros(v) if _plain_object(v) else v)


def _plain_object(v):
    """An object of a user's class that is no pytree: its fields are its __dict__."""
    return isinstance(getattr(v, "__dict__", None), dict) and not isinstance(v, (np.ndarray, type)) and \
        not inspect.isroutine(v) and pytree_nodes.node_of(v) is None and not hasattr(type(v), "__dataclass_fields__")


def _fields_of(obj):
    """A plain object as the dict of its fields (the objects among them as dicts too)."""
    return {n: _fields_of(v) if _plain_object(v) else v for n, v in vars(obj).items()}


def _as_object(like, fields):
    """The object like `like` with the fields (from _fields_of) given."""
    out = runtime.copy_object(like)
    for n, v in fields.items():
        old = vars(like).get(n)
        out.__dict__[n] = _as_object(old, v) if _plain_object(old) and isinstance(v, dict) else v
    return out


def _like(container, items):
    """items as a container of container's type (a list, tuple or namedtuple)."""
    if isinstance(container, tuple) and hasattr(container, "_fields"):
        return type(container)(*items)
    return type(container)(items)


@runtime.helper
def item_cot_vjp(h, like, index):
    """The cotangent of g in item_cot(g, index) (g shaped like `like`): h at index, zeros elsewhere."""
    if runtime.is_zero(like):
        return 0.0            # item_cot gave the symbolic zero whatever g was
    if isinstance(like, (numbers.Number, np.generic)):
        return h if np.ndim(h) == 0 else float(np.sum(h))     # a number stood for every element
    if isinstance(like, dict):
        return type(like)((k, (h if k == index else _zeros(v))) for k, v in like.items())
    if isinstance(like, np.ndarray):
        out = np.zeros_like(like)
        if not runtime.is_zero(h):
            np.add.at(out, index, h)
        return out
    items = [_zeros(v) for v in like]
    if not runtime.is_zero(h):
        items[index] = list(h) if isinstance(index, slice) else h
    return _like(like, items)


def _pass_through(like, obj):
    """Does seq_cot(g, obj) return g itself for a g like `like`?"""
    return not isinstance(obj, (list, tuple)) or isinstance(like, (list, tuple, dict)) or runtime.is_zero(like)


def _stacked(h, obj):
    """The array of obj's shape that the parts h (a cotangent of seq_cot's output) come from."""
    if not isinstance(obj, (list, tuple)):
        return np.broadcast_to(0.0 if runtime.is_zero(h) else h, np.shape(obj))
    return np.stack([_stacked(0.0 if runtime.is_zero(h) else h[i], o) for i, o in enumerate(obj)])


@runtime.helper
def seq_cot_vjp(h, like, obj):
    """The cotangent of g in seq_cot(g, obj) (g shaped like `like`): the parts stacked into an array of obj's
    shape, summed down to g's shape."""
    if _pass_through(like, obj):
        return h
    if runtime.is_zero(h):
        return 0.0
    stacked = _stacked(h, obj)
    return runtime.unbroadcast(stacked, like, stacked)


@runtime.helper
def seq_cot_back(g, like, obj):
    """The transpose of seq_cot_vjp(h, like, obj) in h: seq_cot(g, obj), or g where seq_cot passed g on."""
    return g if _pass_through(like, obj) else runtime.HELPERS["seq_cot"](g, obj)


@runtime.helper
def sum_operand_cot_vjp(h, like, x, out, first):
    """The cotangent of g in sum_operand_cot(g, x, other, out, first) (g shaped like `like`): for lists and
    tuples, h at x's places in the concatenation; for arrays and numbers, the transpose of unbroadcast."""
    if not isinstance(out, (list, tuple)):
        from .runtime_rules import unbroadcast_vjp
        return unbroadcast_vjp(h, like, x, out)
    if runtime.is_zero(like) or runtime.is_zero(h):
        return 0.0
    n = len(x)
    items = [_zeros(v) for v in like]
    items[slice(0, n) if first else slice(len(out) - n, len(out))] = list(h)
    return _like(like, items)


@runtime.helper
def sort_vjp_back(h, like, x, axis):
    """The transpose of sort_vjp(g, x, axis) in g (g shaped like `like`): h read in sorted order, summed down
    to g's shape (g may have been broadcast)."""
    x = np.asarray(x)
    if axis is None:
        taken = np.ravel(h)[np.argsort(x, axis=None, kind="stable")]
    else:
        taken = np.take_along_axis(np.broadcast_to(h, x.shape), np.argsort(x, axis=axis, kind="stable"), axis=axis)
    return runtime.unbroadcast(taken, like, taken)


def install(linear):
    """Give the helpers here their rules; linear(fn, name, signature, **vjps) is runtime_rules._linear."""
    linear(item_cot_vjp, "item_cot_vjp", "h, like, index, /", h="item_cot(g, index)")
    linear(seq_cot_vjp, "seq_cot_vjp", "h, like, obj, /", h="seq_cot_back(g, like, obj)")
    linear(seq_cot_back, "seq_cot_back", "h, like, obj, /", h="seq_cot_vjp(g, like, obj)")
    linear(sum_operand_cot_vjp, "sum_operand_cot_vjp", "h, like, x, out, first, /",
           h="sum_operand_cot(g, x, None, out, first)")
    helpers = runtime.HELPERS
    linear(helpers["sort_vjp"], "sort_vjp", "g_, x, axis, /", g_="sort_vjp_back(g, g_, x, axis)")
    linear(sort_vjp_back, "sort_vjp_back", "h, like, x, axis, /", h="sort_vjp(g, x, axis)")
    linear(runtime.sum_to_transpose, "sum_to_transpose", "h, gs, xs, os_, /", h="sum_to_back(g, h, xs, os_)")
    linear(runtime.sum_to_back, "sum_to_back", "c, like, xs, os_, /",
           c="sum_to_transpose(g, np.shape(c), xs, os_)")


# the helpers' transposes in their rules (install_linear_helpers), by their parameters' names there
TRANSPOSED = {
    "item_cot": {"g_": "item_cot_vjp(g, g_, index)"},
    "seq_cot": {"g_": "seq_cot_vjp(g, g_, obj)"},
    "sum_operand_cot": {"g_": "sum_operand_cot_vjp(g, g_, x, out, first)"},
    "gather_cot": {"g_": "gather_cot_back(g, g_, idx, c)"},
}
