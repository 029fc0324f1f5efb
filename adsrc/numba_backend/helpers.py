"""numba implementations of the runtime helpers that generated gradients call.

The NumPy backend's helpers decide what to do from the values they get when
the code runs (a float or an array, of which shape). Under numba the same
decision is taken once per compiled signature: each `overload` below looks at
the numba types of its arguments and returns an implementation for exactly
those kinds and ranks, or None, which numba reports as an error naming the
generated line (kernel.py turns it into one naming the user's line).

The helpers of the derivative rules are in rule_helpers.py, what both share in
shapes.py. `SUPPORTED` lists the helpers generated code may call under numba;
kernel.py refuses any other before compiling.
"""

import operator

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba import literal_unroll
from .helper_cache import overload, register_jitable
from numba.np.numpy_support import as_dtype

from .. import runtime
from ..rules import complex_helpers
from ..rules import helpers as rule_helpers
from ..rules import sharing
from . import rule_helpers as _rule_overloads  # noqa: F401  (registers them)
from .shapes import _array, _broadcast, _number, _sum_to


@overload(runtime.unbroadcast)
def unbroadcast(g, x, out):
    """g, the cotangent of `out` (possibly a number or array standing for its broadcast to out's shape, as in
    NumPy's lazy cotangents), summed to x's shape. Every result for an array x is an array of x's rank."""
    if _number(x):
        if _number(g) and _number(out):
            return lambda g, x, out: g
        if _number(g) and _array(out):
            return lambda g, x, out: g * out.size
        if _array(g) and _array(out):
            return lambda g, x, out: np.sum(g) * (out.size // g.size) if g.size else 0.0
        return None
    if not (_array(x) and _array(out)):
        return None
    if _number(g):
        return lambda g, x, out: np.full(x.shape, g * (out.size // x.size) if x.size else 0.0)
    if _array(g) and g.ndim <= out.ndim and x.ndim <= out.ndim:
        if g.ndim == x.ndim:
            return lambda g, x, out: g if x.shape == out.shape else _sum_to(_broadcast(g, out), x)
        return lambda g, x, out: _sum_to(_broadcast(g, out), x)
    return None


@overload(runtime.full)
def full(g, like):
    if _number(like) and _number(g):
        return lambda g, like: g
    if _array(like):
        if _array(g, like.ndim):
            return lambda g, like: g if g.shape == like.shape else _broadcast(g, like)
        if _number(g) or _array(g):
            return lambda g, like: _broadcast(g, like)
    return None


@overload(runtime.owned)
def owned(g, x):
    if _number(x):
        return lambda g, x: g
    if _array(x):
        return lambda g, x: _broadcast(g, x)
    return None


@overload(sharing.seq_cot)
def seq_cot(g, obj):
    if _array(obj) and _number(g):
        return lambda g, obj: _broadcast(g, obj)
    if _number(obj) or _array(obj):
        return lambda g, obj: g
    return None


@overload(runtime.check_scalar)
def check_scalar(out, fname):
    if _number(out):
        return lambda out, fname: 1.0
    if _array(out):
        def impl(out, fname):
            if out.size != 1:
                raise ValueError("adsrc.grad needs the function to return a real scalar (or an array of one "
                                 "element); use adsrc.vjp for non-scalar outputs")
            return np.ones(out.shape)
        return impl
    if isinstance(out, types.Optional):
        return None         # (numba tries again with the value's own type)
    raise TypingError("adsrc.grad needs the function to return a real scalar")


@overload(runtime.sequence)
def sequence(x):
    if isinstance(x, (types.Array, types.BaseTuple, types.RangeType, types.List)):
        return lambda x: x
    return None


@overload(runtime.broadcast_only)
def broadcast_only(a, b, divides=False):
    """A value of the shape of `a <op> b`, read only for its shape (numba tapes keep values)."""
    if _number(a) and _number(b):
        return lambda a, b, divides=False: 0.0
    if _array(a) and _number(b):
        return lambda a, b, divides=False: a
    if _number(a) and _array(b):
        return lambda a, b, divides=False: b
    if _array(a) and _array(b) and a.ndim == b.ndim:
        return lambda a, b, divides=False: a if a.shape == b.shape else np.zeros_like(a + b)
    if _array(a) and _array(b):
        return lambda a, b, divides=False: np.zeros_like(a + b)
    return None


@overload(runtime.index_update)
def index_update(x, idx, v):
    if _array(x):
        def impl(x, idx, v):
            out = x.copy()
            out[idx] = v
            return out
        return impl
    return None


@overload(runtime.add_at)
def add_at(dx, x, idx, g):
    """dx[idx] += g, repeated indices adding up (dx is the gradient's own buffer)."""
    if not _array(dx):
        return None
    if isinstance(idx, types.Array) and isinstance(idx.dtype, types.Integer) and idx.ndim == 1 and dx.ndim == 1:
        if _number(g):
            def impl(dx, x, idx, g):
                for k in range(idx.shape[0]):
                    dx[idx[k]] += g
                return dx
        else:
            def impl(dx, x, idx, g):
                for k in range(idx.shape[0]):
                    dx[idx[k]] += g[k]
                return dx
        return impl
    if isinstance(idx, (types.Integer, types.SliceType)) or (
            isinstance(idx, types.BaseTuple) and all(isinstance(t, (types.Integer, types.SliceType)) for t in idx)):
        def basic(dx, x, idx, g):
            dx[idx] += g
            return dx
        return basic
    return None


@overload(sharing.is_mutable)
def is_mutable(x, op):
    if _array(x):
        return lambda x, op: True
    if _number(x):
        return lambda x, op: False
    return None


@overload(sharing.is_mutable_item)
def is_mutable_item(x, base, op):
    if _array(base) or _number(x):
        return lambda x, base, op: False
    if _array(x):
        return lambda x, base, op: True
    return None


def _basic_index(idx):
    """An index numba reads as basic indexing (a view or an element): integers, slices, tuples of them."""
    if isinstance(idx, (types.Integer, types.SliceType)):
        return True
    return isinstance(idx, types.BaseTuple) and all(isinstance(t, (types.Integer, types.SliceType)) for t in idx)


@overload(runtime.iterated_cot)
def iterated_cot(g, x):
    if _number(x) or isinstance(x, (types.Array, types.BaseTuple, types.RangeType)):
        return lambda g, x: g
    return None


@overload(runtime.item_cot, prefer_literal=True)
def item_cot(g, index):
    """The cotangent of item `index` of an array (or a number broadcast over it), or of a tuple (the cotangent of
    a function's tuple of outputs: its index is a constant)."""
    if _number(g):
        return lambda g, index: g
    if _array(g):
        return lambda g, index: g[index]
    if isinstance(g, types.BaseTuple) and isinstance(index, types.IntegerLiteral):
        k = index.literal_value
        return lambda g, index: g[k]
    return None


@overload(runtime.index_update_vjp_value)
def index_update_vjp_value(g, x, idx, v):
    """The cotangent of v in `x[idx] = v` (basic indices: each position is written once)."""
    if not (_array(x) and _basic_index(idx)):
        return None

    def impl(g, x, idx, v):
        part = runtime.full(g, x)[idx]
        return runtime.unbroadcast(_copied(part), v, part)
    return impl


def _copied(part):
    """part, copied if it is an array (numba version below)."""


@overload(_copied)
def _copied_impl(part):
    if _array(part):
        return lambda part: part.copy()     # g may be zeroed in place next (zero_at): not a view of it
    return lambda part: part


@overload(runtime.index_update_vjp_base)
def index_update_vjp_base(g, x, idx):
    if _array(x) and _basic_index(idx):
        def impl(g, x, idx):
            out = _broadcast(g, x)
            out[idx] = 0.0
            return out
        return impl
    return None


@overload(runtime.zero_at)
def zero_at(g, x, idx):
    """The cotangent of x in `x[idx] = v`: g (a buffer only the gradient holds) zeroed at idx in place."""
    if not (_array(x) and _basic_index(idx)):
        return None
    if _array(g, x.ndim):
        def impl(g, x, idx):
            if g.shape == x.shape:
                g[idx] = 0.0
                return g
            out = _broadcast(g, x)
            out[idx] = 0.0
            return out
        return impl
    return lambda g, x, idx: runtime.index_update_vjp_base(g, x, idx)


@overload(runtime.sum_operand_cot)
def sum_operand_cot(g, x, other, out, first):
    if _number(out) or _array(out):
        return lambda g, x, other, out, first: runtime.unbroadcast(g, x, out)
    return None


@overload(runtime.product_operand_cot)
def product_operand_cot(g, x, other, out, first):
    if _number(out) or _array(out):
        return lambda g, x, other, out, first: runtime.unbroadcast(g * other, x, out)
    return None


@overload(runtime.scan_length)
def scan_length(xs, length):
    if isinstance(length, types.Integer):
        return lambda xs, length: length
    if _array(xs) and isinstance(length, (types.NoneType, types.Omitted)):
        return lambda xs, length: xs.shape[0]
    if isinstance(xs, types.RangeType) and isinstance(length, (types.NoneType, types.Omitted)):
        return lambda xs, length: len(xs)
    return None


@register_jitable
def _same_memory(a, b):
    return a.ctypes.data == b.ctypes.data and a.shape == b.shape and a.strides == b.strides


@overload(sharing.same_part)
def same_part(a, b):
    """Is a a view of exactly b's memory? Numbers are values: never."""
    if _array(a) and _array(b) and a.dtype == b.dtype:
        return lambda a, b: _same_memory(a, b)
    return lambda a, b: False


@overload(sharing.view_along)
def view_along(part, base, steps):
    """part_along when an item of base is replaced: only an array's views see it."""
    if not _array(base):
        return lambda part, base, steps: False
    return lambda part, base, steps: sharing.part_along(part, base, steps)


@overload(sharing.part_along)
def part_along(part, base, steps):
    """Is `part` the part of `base` the steps take (`lambda view_of: view_of[...]`)? A number is never a
    part that changes with its array (a path numba cannot type is refused by name)."""
    if not _array(part):
        return lambda part, base, steps: False

    def impl(part, base, steps):
        for step in literal_unroll(steps):
            base = step(base)
        return sharing.same_part(part, base)
    return impl


@overload(sharing.replace_obj)
def replace_obj(m, old, new):
    """m with the object old (changed in place) replaced by new: an array or a number holds no objects."""
    if _array(m) or _number(m):
        return lambda m, old, new: m
    return None


@overload(sharing.replace_obj_cot, prefer_literal=True)
def replace_obj_cot(g, m, old, k):
    if (_array(m) or _number(m)) and isinstance(k, types.IntegerLiteral):
        if k.literal_value == 0:
            return lambda g, m, old, k: g
        return lambda g, m, old, k: 0.0
    return None


@overload(runtime.check_item_immutable)
def check_item_immutable(container, item, message):
    if _array(container):
        return lambda container, item, message: None     # an item of an array is written back: no sharer
    return None


@overload(runtime.add_cot)
def add_cot(a, b):
    """The sum of two cotangents of one number or array (a new array: neither is handed on)."""
    if (_number(a) or _array(a)) and (_number(b) or _array(b)):
        return lambda a, b: a + b
    return None


@overload(runtime.only_shape)
def only_shape(x):
    """An array read from now on only for its shape and dtype, as a read-only view of one element of its dtype
    broadcast to its shape: a tape keeps that, not x's buffer (no allocation either)."""
    if _number(x) or isinstance(x, (types.Optional, types.NoneType)) or (_array(x) and x.ndim == 0):
        return lambda x: x          # (a value only one path of a branch sets is None on the other)
    if _array(x) and isinstance(x.dtype, (types.Float, types.Integer, types.Boolean)):
        one = np.zeros(1, dtype=as_dtype(x.dtype))
        return lambda x: np.broadcast_to(one, x.shape)
    return None


@overload(operator.getitem)
def range_item(r, i):
    """`range(n)[i]`, which a loop over a range whose variable is read after it indexes (numba has none)."""
    if isinstance(r, types.RangeType) and isinstance(i, types.Integer):
        def impl(r, i):
            n = len(r)
            k = i + n if i < 0 else i
            if k < 0 or k >= n:
                raise IndexError("range object index out of range")
            return r.start + k * r.step
        return impl
    return None


# helper name -> the function generated code calls (overloaded above)
SUPPORTED = {fn.__name__: fn for fn in (
    runtime.unbroadcast, runtime.full, runtime.owned, runtime.only_shape, sharing.seq_cot, runtime.check_scalar,
    rule_helpers.matmul_dx, rule_helpers.matmul_dy, rule_helpers.dot_dx, rule_helpers.dot_dy, runtime.sequence,
    runtime.broadcast_only, rule_helpers.power_dx, rule_helpers.power_dy, complex_helpers.abs_cot,
    rule_helpers.expand_to, runtime.index_update, runtime.add_at, sharing.is_mutable, sharing.is_mutable_item,
    runtime.iterated_cot, runtime.item_cot, runtime.index_update_vjp_value, runtime.index_update_vjp_base,
    runtime.zero_at, rule_helpers.mean_vjp, rule_helpers.extremum_vjp, rule_helpers.iterable_sum_cot,
    rule_helpers.reshape_like, runtime.sum_operand_cot, runtime.product_operand_cot, runtime.scan_length,
    sharing.same_part, sharing.part_along, sharing.view_along, sharing.replace_obj, sharing.replace_obj_cot,
    runtime.check_item_immutable, rule_helpers.cast_cot, rule_helpers.outer_dx, rule_helpers.outer_dy,
    rule_helpers.cumsum_vjp, rule_helpers.prod_vjp, rule_helpers.sort_vjp, complex_helpers.real_only, runtime.add_cot,
    rule_helpers.norm_vjp, rule_helpers.clip_mask, rule_helpers.clip_low_mask, rule_helpers.clip_high_mask,
    rule_helpers.diff_vjp, rule_helpers.diag_vjp)}
