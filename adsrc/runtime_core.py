"""The registry of helpers that generated code calls (HELPERS, @helper), and the helpers of shapes:
broadcasting and its undoing (unbroadcast, full, only_shape) and the conversion of returned gradients
(grad_output, grad_tree). Gathered by runtime.py."""

import numbers

import numpy as np

from .arrays import is_duck
from .primitives import UNDEFINED


HELPERS = {}
_nd = np.ndarray
_F64 = np.dtype(np.float64)
_REAL_NUMBERS = frozenset({float, int, np.float64, np.float32, np.float16})   # float(g) is float(np.real(g))


def helper(fn):
    HELPERS[fn.__name__] = fn
    return fn


HELPERS["UNDEFINED"] = UNDEFINED
HELPERS["np"] = np
HELPERS["ndarray"] = np.ndarray


# attributes of arrays and numbers that carry no derivative (read as constants when the object is known to
# be one, by lowering/expressions.py; differentiation/fields.py: unless they are an object's fields), and
# what has them
ARRAY_ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype", "itemsize", "nbytes", "strides"})


def has_array_attributes(x):
    """x is an array or a number, so `x.shape`, `x.size`... are its array attributes, not fields."""
    return isinstance(x, (np.ndarray, np.generic, numbers.Number)) or is_duck(x)


def is_zero(c):
    """True for the symbolic zero cotangent 0.0 (a Python float)."""
    return type(c) is float and c == 0.0


def shape(x):
    """x's shape, read from the array itself for NumPy and duck arrays (np.shape would not dispatch)."""
    s = getattr(x, "shape", None)
    return s if type(s) is tuple else np.shape(x)


def _complex_array(g):
    """Whether g is a complex number or array (NumPy or duck)."""
    if type(g) is complex:
        return True
    dtype = getattr(g, "dtype", None)
    return dtype is not None and getattr(dtype, "kind", None) == "c"


# -- shapes ------------------------------------------------------------------------------

_STAND_INS = {}


@helper
def only_shape(x):
    """A stand-in for an array that is read from now on only for its shape and dtype.

    A NumPy array becomes a read-only array of the same shape and dtype over one
    element, shared by every array of that shape and dtype (so keeping it costs a
    reference); anything else is returned as it is.
    """
    if type(x) is not _nd:
        return x
    return _stand_in(x.shape, x.dtype)


def scatter_add(out, idx, values):
    """np.add.at(out, idx, values) for a NumPy array out, values first broadcast to out[idx]'s shape: NumPy 2.4
    (seen with 2.4.6) adds a values array with fewer dimensions than the index selects wrongly, reading
    memory it never wrote (`np.add.at(zeros(3), [[0, 1], [1, 2]], [1.0, 10.0])`)."""
    if np.ndim(values) > 0:
        key = idx if isinstance(idx, tuple) else (idx,)
        # out[idx]'s shape, read off a zero-strided stand-in (a leading extra axis would move the advanced-index
        # axes of an index like [3, 2:, [1, 3]], whose advanced parts a slice separates, and change the shape)
        want = np.broadcast_to(np.zeros((), dtype=out.dtype), out.shape)[key].shape
        if np.shape(values) != want:
            values = np.broadcast_to(values, want)
    np.add.at(out, idx, values)


def _stand_in(shape_, dtype):
    key = shape_ if dtype is _F64 else (shape_, dtype)
    stand_in = _STAND_INS.get(key)
    if stand_in is None:
        if len(_STAND_INS) >= 1024:
            _STAND_INS.clear()
        stand_in = _STAND_INS[key] = np.broadcast_to(np.zeros((), dtype=dtype), shape_)
    return stand_in


@helper
def broadcast_only(a, b, divides=False):
    """only_shape of an elementwise `a <op> b` (op +, -, * or /, `divides` for /), without computing it: the
    stand-in generated code keeps for a result it reads only for its shape and dtype."""
    if type(a) is _nd and type(b) is _nd and a.shape == b.shape and a.dtype is b.dtype and a.dtype.kind in "fc":
        return only_shape(a)
    dtype = np.result_type(a, b, 1.0) if divides else np.result_type(a, b)
    shape_ = np.broadcast_shapes(np.shape(a), np.shape(b))
    if not shape_ and not isinstance(a, _nd) and not isinstance(b, _nd):
        return dtype.type(0)            # numbers: a number
    return _stand_in(shape_, dtype)


@helper
def unbroadcast(g, x, out):
    """Sum the cotangent g of `out` (broadcastable to out) down to x's shape.

    `out` was computed from `x` by broadcasting. Returns a cotangent
    broadcastable to x's shape.
    """
    if x is out and (type(g) is float or type(g) is _nd and g.dtype.kind != "c"):
        return g            # one stand-in for both (only_shape): the same shape
    if type(g) in _REAL_NUMBERS and type(x) in _REAL_NUMBERS and type(out) in _REAL_NUMBERS:
        return g            # real numbers (`x[i]` of a float array...): nothing broadcast, nothing projected
    xs = x.shape if type(x) is _nd else shape(x)
    os_ = out.shape if type(out) is _nd else shape(out)
    if (type(g) is _nd and g.dtype.kind == "c" or type(g) is not _nd and _complex_array(g)) and \
            not _complex_value(x):
        g = g.real          # x real, out complex: x's cotangent is the real part (see rules/__init__.py)
    if xs == os_:
        return g
    if not xs and type(g) is _nd and g.shape == os_:
        return g.sum()      # a number broadcast over out (`w[j] * x[a:b]`): all of g summed
    return _sum_to(g, xs, os_)


def _complex_value(x):
    if type(x) is _nd:
        return x.dtype.kind == "c"
    if isinstance(x, (float, int)):
        return False
    if is_duck(x):
        return _complex_array(x)
    try:
        return np.iscomplexobj(x)       # complex scalars, lists of complex numbers
    except ValueError:                  # a ragged list: do not project
        return True


def _sum_plan(gs, xs, os_):
    """How _sum_to sums a g of shape gs: (axes of g summed with keepdims, leading axes then dropped, the factor
    for the axes along which g is constant)."""
    nlead = len(os_) - len(xs)
    goff = len(os_) - len(gs)
    factor = 1
    axes = []
    for a in range(len(os_)):
        if not (a < nlead or (xs[a - nlead] == 1 and os_[a] != 1)):
            continue
        ga = a - goff
        if ga < 0 or gs[ga] == 1:
            factor *= os_[a]        # g is constant along this axis: the sum is a product
        else:
            axes.append(ga)
    return tuple(axes), max(nlead - goff, 0), factor


def _sum_to(g, xs, os_):
    axes, drop, factor = _sum_plan(shape(g), xs, os_)
    if axes:
        g = np.sum(g, axis=axes, keepdims=True)
    if drop > 0:
        g = np.reshape(g, shape(g)[drop:])
    if factor != 1:
        g = g * factor
    return g


@helper
def sum_to_transpose(h, gs, xs, os_):
    """The transpose of g -> _sum_to(g, xs, os_) for g of shape gs, at h (shaped like that sum, which may be
    smaller than xs where g was constant): h times the factor, spread back over the summed axes."""
    axes, drop, factor = _sum_plan(gs, xs, os_)
    kept = tuple(1 if a in axes else n for a, n in enumerate(gs))      # the sum's shape before the drop
    if factor != 1:
        h = h * factor
    if shape(h) != kept[drop:]:
        h = np.broadcast_to(h, kept[drop:])         # a cotangent broadcastable to the sum's shape
    h = np.reshape(h, kept)
    return np.broadcast_to(h, gs) if axes else h


@helper
def sum_to_back(c, like, xs, os_):
    """The transpose of sum_to_transpose(h, gs, xs, os_) in h (h shaped like `like`): c summed as _sum_to sums,
    then down to like's shape (h may have been broadcast)."""
    summed = _sum_to(c, xs, os_)
    return unbroadcast(summed, like, summed)


@helper
def sum_operand_cot(g, x, other, out, first):
    """Cotangent of one operand of `x + other`: numbers add, lists and tuples concatenate."""
    if isinstance(out, (list, tuple)):
        if is_zero(g):
            return 0.0
        n = len(x)
        part = g[:n] if first else g[len(out) - n:]
        return type(x)(part) if isinstance(x, (list, tuple)) else part
    return unbroadcast(g, x, out)


@helper
def full(g, like):
    """g with exactly like's shape (a read-only view when broadcasting is needed)."""
    if type(like) is _nd:
        ls = like.shape
        if type(g) is _nd and g.shape == ls:
            return g
    elif type(like) in _REAL_NUMBERS and type(g) in _REAL_NUMBERS:
        return g            # a number's cotangent, a number
    elif isinstance(like, (tuple, list, dict)):
        return g            # a container's cotangent (stacked scan outputs that are tuples...)
    elif is_duck(like):
        return _full_duck(g, like)
    else:
        ls = np.shape(like)
    if ls == () and np.ndim(g) == 0:
        return g
    return np.broadcast_to(g, ls)


def _full_duck(g, like):
    """full() for a duck array: g of like's shape and of like's library (laid out like it: Dask's chunks)."""
    if type(g) is type(like):
        return g if g.shape == like.shape else np.broadcast_to(g, like.shape)
    return np.zeros_like(like, dtype=np.result_type(like.dtype, _dtype_of(g))) + g


def _dtype_of(g):
    dtype = getattr(g, "dtype", None)
    return dtype if dtype is not None else np.result_type(g)


@helper
def full_tuple(g, outs):
    """A tuple of exact-shape cotangents for a function's tuple (or list) of outputs."""
    if is_zero(g):
        return tuple(np.zeros(np.shape(o)) for o in outs)
    return tuple(full(gi if not is_zero(gi) else np.zeros(np.shape(o)), o) for gi, o in zip(g, outs))
