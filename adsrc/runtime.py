"""The few helpers generated code calls.

Cotangents in generated code follow one convention: the cotangent of a value
is any array *broadcastable* to the value's shape (so the scalar `0.0` is the
zero cotangent of anything, and `1.0` seeds a scalar output). Cotangents of
tuples, lists and dicts are tuples, lists and dicts of cotangents (or `0.0`).
The helpers here bring cotangents back to exact shapes when needed, sum them
over broadcast axes, accumulate them, and scatter them into indexed arrays.

Every helper that generated code may call is registered in `HELPERS` by the
name the code uses for it.
"""

import collections
import copy
import inspect
import numbers
import threading
import types
import weakref

import numpy as np

from . import pytree_nodes
from .arrays import is_duck, need_values
from .primitives import UNDEFINED, _leaves, _slice, _stack, scan_length as _scan_length

HELPERS = {}
_nd = np.ndarray
_F64 = np.dtype(np.float64)


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
def product_operand_cot(g, x, other, out, first):
    """Cotangent of one operand of `x * other`: numbers multiply, a list times an int repeats."""
    if isinstance(out, (list, tuple)):
        if is_zero(g) or not isinstance(x, (list, tuple)):
            return 0.0
        n = len(x)
        parts = [0.0] * n
        for i in range(len(out)):
            parts[i % n] = add_cot(parts[i % n], item_cot(g, i))
        return parts
    if isinstance(other, (list, tuple)):
        other = np.asarray(other)       # an array times a list: NumPy made an array of the list
    return unbroadcast(g * other, x, out)


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


@helper
def grad_output(g, x, borrowed=False):
    """The gradient handed to the user for input x: x's shape and dtype, a fresh object.

    borrowed: g may be an array the caller holds, so it is copied.
    """
    if type(g) is _nd and type(x) is _nd and not borrowed and g is not x and g.dtype is x.dtype \
            and g.shape == x.shape and (g.base is None or g.flags.writeable):
        return g                    # the common case first: a new array of x's shape and dtype
    if type(x) is _nd:
        if type(g) is not _nd and is_duck(g):
            return _duck_for_numpy(g, x, borrowed)
        dtype = x.dtype if x.dtype.kind in "fc" else np.dtype(np.float64)
        out = np.empty(x.shape, dtype=dtype)
        out[...] = _real_for(g, dtype)
        return out
    if type(x) is float and type(g) in _REAL_NUMBERS:
        return float(g)             # the common scalar case, without a round trip through NumPy
    if is_duck(x):
        return _duck_output(g, x, borrowed)
    if is_duck(g) and isinstance(x, (float, np.floating)):
        return _duck_scalar(g)
    if isinstance(x, float) and not isinstance(x, np.floating):
        return float(np.real(g)) if np.ndim(g) == 0 else _scalar_error(g)
    if isinstance(x, np.generic):
        if np.ndim(g) != 0:
            return _scalar_error(g)
        return x.dtype.type(_real_for(g, x.dtype))
    if type(x) is complex:
        return complex(g) if np.ndim(g) == 0 else _scalar_error(g)
    return grad_tree(g, x)


_REAL_NUMBERS = frozenset({float, int, np.float64, np.float32, np.float16})   # float(g) is float(np.real(g))


def _duck_output(g, x, borrowed):
    """grad_output for a duck array x: an array of x's type, shape and dtype, computed lazily if x is lazy."""
    if _complex_array(g) and not _complex_array(x):
        g = np.real(g)
    if type(g) is not type(x) or g.shape != x.shape:
        g = np.zeros_like(x) + g
        borrowed = False
    if g.dtype != x.dtype:
        g = g.astype(x.dtype)
        borrowed = False
    return g.copy() if borrowed or g is x else g


def _duck_for_numpy(g, x, borrowed):
    """The gradient of a NumPy array input computed from duck arrays (a NumPy w, Dask data): of g's library,
    with x's shape and dtype, so a lazy computation stays lazy (NumPy would compute it)."""
    dtype = x.dtype if x.dtype.kind in "fc" else np.dtype(np.float64)
    if _complex_array(g) and dtype.kind != "c":
        g = np.real(g)
    if g.shape != x.shape:
        g, borrowed = np.broadcast_to(g, x.shape), False
    if g.dtype != dtype:
        g, borrowed = g.astype(dtype), False
    return g.copy() if borrowed else g


def _duck_scalar(g):
    """The gradient of a float input computed from duck arrays: a 0-d array of their library, so a lazy
    computation stays lazy (float() would compute it)."""
    if g.shape != ():
        _scalar_error(g)
    return np.real(g) if _complex_array(g) else g


def _real_for(g, dtype):
    """g for a value of this dtype: a real value's cotangent drops its imaginary part (rules/__init__.py)."""
    return np.real(g) if dtype.kind != "c" and np.iscomplexobj(g) else g


def _scalar_error(g):
    raise ValueError(f"the gradient of a float argument came out as an array of shape {np.shape(g)}, not one number. "
                     "A custom_vjp's bwd (or a defvjp rule) must return for each argument a cotangent of that "
                     "argument's shape: sum the output's cotangent over the dimensions the argument was broadcast "
                     "along (`np.sum(g * ...)` for a float). If no rule of yours is involved, this is adsrc's bug.")


def like_dict(x, items):
    """A dict of x's type (a defaultdict keeps its default factory) with these items."""
    if isinstance(x, collections.defaultdict):
        return type(x)(x.default_factory, items)
    return type(x)(items)


def grad_tree(g, x):
    """Gradient of a container input: same structure, leaves as in grad_output."""
    node = pytree_nodes.node_of(x)
    if node is not None:     # a registered class: its children's gradients, unflattened (pytree_nodes.py)
        return pytree_nodes.node_gradient(node, g, x, grad_output, add_cot, is_zero)
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        parts = [grad_output(_part(g, i, k), v) for i, (k, v) in enumerate(zip(x._fields, x))]
        return type(x)(*parts)
    if isinstance(x, (tuple, list)):
        parts = [grad_output(_part(g, i, None), v) for i, v in enumerate(x)]
        return type(x)(parts) if isinstance(x, list) else tuple(parts)
    if isinstance(x, dict):
        return like_dict(x, ((k, grad_output(_part(g, k, k), v)) for k, v in x.items()))
    if _is_dataclass_instance(x):
        import dataclasses
        vals = {f.name: grad_output(_part(g, f.name, f.name), getattr(x, f.name))
                for f in dataclasses.fields(x)}
        return dataclasses.replace(x, **vals)
    if isinstance(x, numbers.Integral) or x is None or isinstance(x, (str, bytes)):
        return None
    if isinstance(x, (bool, np.bool_)) or (type(x) is _nd and x.dtype.kind not in "fc"):
        return None
    return g


def _is_dataclass_instance(x):
    return hasattr(type(x), "__dataclass_fields__")


def _part(g, index, key):
    """The cotangent of one element of a container from the container's cotangent."""
    if is_zero(g):
        return 0.0
    if isinstance(g, dict):
        return g.get(key if key is not None else index, 0.0)
    if isinstance(g, (tuple, list)):
        return g[index]
    if hasattr(g, "__dataclass_fields__"):
        return getattr(g, key)
    if type(g) is _nd or isinstance(g, np.generic) or is_duck(g):
        return g[index]
    raise TypeError(f"internal error: cotangent {type(g).__name__} for a container")


# -- accumulation ----------------------------------------------------------------------------

@helper
def add_cot(a, b):
    """a + b for cotangents of any structure (0.0 is zero)."""
    if is_zero(a):
        return b
    if is_zero(b):
        return a
    if isinstance(a, tuple) and isinstance(b, tuple):
        return tuple(add_cot(x, y) for x, y in zip(a, b))
    if isinstance(a, list) and isinstance(b, list):
        return [add_cot(x, y) for x, y in zip(a, b)]
    if isinstance(a, dict) and isinstance(b, dict):
        out = dict(a)
        for k, v in b.items():
            out[k] = add_cot(out[k], v) if k in out else v
        return out
    if isinstance(a, (tuple, list, dict)) or isinstance(b, (tuple, list, dict)):
        return _add_mixed(a, b)
    return a + b


def _add_mixed(a, b):
    # an array cotangent for a sequence used as an array (np.sum([a, b])): split it
    if isinstance(a, (tuple, list, dict)):
        a, b = b, a
    if isinstance(b, dict):
        raise TypeError("internal error: adding an array cotangent to a dict cotangent")
    parts = [add_cot(a[i], v) for i, v in enumerate(b)]
    return type(b)(parts) if isinstance(b, list) else tuple(parts)


@helper
def owned(g, x):
    """A fresh writable array of x's shape (float) holding g: safe to update in place."""
    if type(x) is _nd or isinstance(x, np.generic):
        dtype = x.dtype if x.dtype.kind in "fc" else np.float64
        out = np.zeros(np.shape(x), dtype=dtype)
        if not is_zero(g):
            out[...] = _real_for(g, out.dtype)
        return out          # a NumPy scalar's adjoint too is a 0-d array: `dd[None] += g` writes into it
    if is_duck(x):
        return _duck_output(g, x, False) if not is_zero(g) else np.zeros_like(x)
    if isinstance(x, (int, float, complex)) and not isinstance(x, bool):
        return 0.0 if is_zero(g) else g
    if isinstance(x, (list, tuple)):
        base = [0.0] * len(x) if is_zero(g) else [_part(g, i, None) for i in range(len(x))]
        return base
    if isinstance(x, dict) or _is_dataclass_instance(x) or pytree_nodes.is_node(x):
        return {} if is_zero(g) else dict(g)
    return g


def _is_basic_index(idx):
    if isinstance(idx, tuple):
        return all(_is_basic_index(i) for i in idx)
    return idx is None or idx is Ellipsis or isinstance(idx, (slice, numbers.Integral, np.integer))


@helper
def add_at(dx, x, idx, g):
    """dx[idx] += g with repeated indices accumulating; dx from `owned` (updated in place)."""
    if type(dx) is _nd:
        try:
            if _is_basic_index(idx):
                dx[idx] += g
            else:
                np.add.at(dx, idx, g)
        except TypeError:
            if not np.iscomplexobj(g) or dx.dtype.kind == "c":
                raise
            return add_at(dx, x, idx, np.real(g))     # a real value's cotangent (rules/__init__.py)
        return dx
    if is_duck(dx):
        return _duck_add_at(dx, idx, g)
    if isinstance(dx, list):
        if isinstance(idx, slice):
            for j, gi in zip(range(*idx.indices(len(dx))), _iter_cot(g, len(range(*idx.indices(len(dx)))))):
                dx[j] = add_cot(dx[j], gi)
        else:
            dx[idx] = add_cot(dx[idx], g)
        return dx
    if isinstance(dx, dict):
        dx[idx] = add_cot(dx[idx], g) if idx in dx else g
        return dx
    if isinstance(dx, float):   # a scalar indexed with () or ...
        return dx + g
    raise TypeError(f"internal error: cannot scatter into {type(dx).__name__}")


def _duck_add_at(dx, idx, g):
    """add_at for a duck array: item assignment of its library for basic and repeat-free indices; repeated
    integer indices are summed first (index arrays are NumPy values, known when the code runs)."""
    if _complex_array(g) and not _complex_array(dx):
        g = np.real(g)
    if _is_basic_index(idx):
        if isinstance(idx, tuple) and None in idx:      # Dask assigns through no new axes: drop them
            plain = tuple(i for i in idx if i is not None)
            dx[plain] = np.reshape(dx[idx] + g, shape(dx[plain]))
        else:
            dx[idx] = dx[idx] + g
        return dx
    parts = idx if isinstance(idx, tuple) else (idx,)
    if any(is_duck(p) for p in parts):
        need_values("indexing by an array (the gradient scatters into its positions)",
                    *[p for p in parts if is_duck(p)])
    if len(parts) == 1 and np.asarray(parts[0]).dtype == bool:
        parts = np.nonzero(parts[0])
        idx = parts if len(parts) > 1 else parts[0]
    if any(not isinstance(p, (slice, type(None), type(Ellipsis), numbers.Integral, np.integer))
           and np.asarray(p).dtype.kind in "iu" for p in parts) and _repeats(parts, dx.shape):
        return _scatter_repeated(dx, parts, g)
    dx[idx] = dx[idx] + g
    return dx


def _repeats(parts, shp):
    """Whether integer-array indices (all array parts, broadcast together) name a position twice."""
    arrs = [np.asarray(p) for p in parts if not isinstance(p, (slice, numbers.Integral, np.integer))]
    if len(arrs) != len(parts) or any(a.dtype.kind not in "iu" for a in arrs):
        return True     # mixed with slices: treated as repeating (summed through one-hot products)
    flat = np.ravel_multi_index(tuple(np.broadcast_arrays(*arrs)), shp[:len(arrs)], mode="wrap")
    return np.unique(flat).size != flat.size


def _scatter_repeated(dx, parts, g):
    """dx + the scatter-add of g into dx[parts], for integer-array index parts on the leading axes, as a
    product with a one-hot matrix (NumPy, as large as the index) that the duck array's library runs."""
    arrs = [np.asarray(p) for p in parts]
    if any(isinstance(p, slice) or a.dtype.kind not in "iu" for p, a in zip(parts, arrs)):
        raise NotImplementedError("adsrc cannot scatter a gradient into a " + type(dx).__name__ +
                                  " through an index mixing slices and integer arrays; use NumPy arrays")
    lead = len(arrs)
    b = np.broadcast_arrays(*arrs)
    flat = np.ravel_multi_index(tuple(b), dx.shape[:lead], mode="wrap").ravel()
    rest = dx.shape[lead:]
    gg = np.broadcast_to(g, b[0].shape + rest) if shape(g) != b[0].shape + rest else g
    gg = np.reshape(gg, (flat.size,) + rest)
    scattered = onehot_scatter(int(np.prod(dx.shape[:lead])), flat, gg)
    return dx + np.reshape(scattered, dx.shape)


def onehot_scatter(n, flat, g):
    """zeros((n,) + g.shape[1:]) with row j of g added to row flat[j] (repeats accumulate), as a product
    with a 0/1 matrix the size of the index (NumPy) that g's library computes: no ufunc.at needed."""
    flat = np.asarray(flat)
    onehot = np.zeros((n, flat.size), dtype=np.result_type(_dtype_of(g), np.float32))
    onehot[flat % n if n else flat, np.arange(flat.size)] = 1.0
    return np.tensordot(onehot, g, axes=1)


def _iter_cot(g, n):
    if is_zero(g):
        return [0.0] * n
    return [g[i] for i in range(n)]


@helper
def add_attr(dx, x, name, g):
    """Accumulate the cotangent g of x.name into dx (from `owned`): namedtuple or dataclass fields, or an
    object's attributes (a dict of them, made here when dx is still the symbolic zero)."""
    if has_array_attributes(x):     # `x.size`, `x.T` of an array read as a field (differentiation/fields.py)
        return dx if name in ARRAY_ATTRIBUTES else add_cot(dx, _attribute_cot(name, g, x))
    refuse_computed_attribute(x, name)
    if isinstance(x, tuple) and hasattr(x, "_fields") and name not in x._fields:
        return dx                   # a class attribute of a namedtuple (`_fields`, a constant): not an item
    if is_zero(dx) and not isinstance(dx, (list, dict)):
        dx = owned(0.0, x) if isinstance(x, tuple) and hasattr(x, "_fields") else {}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        i = x._fields.index(name)
        dx[i] = add_cot(dx[i], g)
    else:
        dx[name] = add_cot(dx[name], g) if name in dx else g
    return dx


_STORED_FIELDS = set()
_SETATTR = {}       # class -> does it define its own __setattr__ in Python (a frozen dataclass's does not count)


def own_setattr(cls):
    found = _SETATTR.get(cls)
    if found is None:
        found = _SETATTR[cls] = isinstance(inspect.getattr_static(cls, "__setattr__", None), types.FunctionType) \
            and not getattr(getattr(cls, "__dataclass_params__", None), "frozen", False)
    return found


def refuse_computed_attribute(x, name):
    """Refuse `x.name` differentiated as a field when x's class computes it (a property adsrc did not see
    when transforming, because it did not know x's class): its derivative would be lost."""
    if (type(x), name) in _STORED_FIELDS or (isinstance(x, tuple) and hasattr(x, "_fields")):
        return
    from .errors import TransformError
    if own_setattr(type(x)):
        raise TransformError(f"adsrc differentiated `.{name}` of a {type(x).__name__} as a stored field, but "
                             f"{type(x).__name__} defines its own `__setattr__`, which adsrc does not follow, so "
                             "the derivative of what it stores would be lost. Give the class a property for the "
                             "attribute, or a method that sets it.")
    if name in getattr(x, "__dict__", ()):
        return
    attr = inspect.getattr_static(type(x), name, None)
    if attr is None and not isinstance(x, dict) and \
            isinstance(inspect.getattr_static(type(x), "__getattr__", None), types.FunctionType):
        raise TransformError(f"adsrc differentiated `.{name}` of a {type(x).__name__} as a stored field, but "
                             f"{type(x).__name__} computes it in its `__getattr__`, and adsrc did not know the "
                             "object's class when it transformed the code, so its derivative would be lost. "
                             "Make the object in the differentiated function or pass it as an argument.")
    if attr is None or not hasattr(type(attr), "__get__") or isinstance(attr, types.MemberDescriptorType):
        _STORED_FIELDS.add((type(x), name))     # __slots__ fields: looked up once per class, not per cotangent
        return
    raise TransformError(f"adsrc differentiated `.{name}` of a {type(x).__name__} as a stored field, but "
                         f"{type(x).__name__}.{name} is computed ({type(attr).__name__}), and adsrc did not "
                         "know the object's class when it transformed the code, so its derivative would be "
                         f"lost. Call the getter as a function (`{type(x).__name__}.{name}.fget(obj)`), or "
                         "make the object in the differentiated function or pass it as an argument.")


_ATTRIBUTE_COTS = {}     # name -> (g, x) -> cotangent of x, compiled from the rule table's template


def _attribute_cot(name, g, x):
    """The cotangent of an array x from the cotangent g of x.T, x.mT, x.real or x.imag: the formula of
    the attribute's rule (rules/methods.py), compiled once."""
    fn = _ATTRIBUTE_COTS.get(name)
    if fn is None:
        from .rules import ATTRIBUTES
        rule = ATTRIBUTES.get(name)
        if rule is None or "x" not in rule.vjps:
            raise AttributeError(f"{type(x).__name__} has no field {name!r}")
        fn = _ATTRIBUTE_COTS[name] = eval(f"lambda g, x: {rule.vjps['x']}", dict(HELPERS))
    return fn(g, x)


@helper
def getitem_cot(x, idx, g):
    """The cotangent of x from the cotangent g of x[idx] (out of place)."""
    return add_at(owned(0.0, x), x, idx, g)


@helper
def item_cot(g, index):
    """Cotangent of element `index` of a sequence or mapping, from the container's cotangent."""
    if is_zero(g):
        return 0.0
    if isinstance(g, dict):
        return g.get(index, 0.0)
    if isinstance(g, (numbers.Number, np.generic)):
        return g            # a number broadcast over the container (np.sum([a, b]))
    return g[index]


@helper
def zeros_cot(n):
    return (0.0,) * n


@helper
def unpack_cot(g, n):
    """A tuple of n cotangents from the cotangent of an n-element sequence."""
    if is_zero(g):
        return (0.0,) * n
    return tuple(g[i] for i in range(n))


# -- functional updates -------------------------------------------------------------------------

@helper
def index_update(x, idx, v):
    """A copy of x with x[idx] = v (what `x[idx] = v` computes, without mutating x)."""
    if isinstance(x, list):
        out = list(x)
        out[idx] = v
        return out
    if isinstance(x, tuple):        # (a view held in a tuple changed: the tuple holding its new value)
        out = list(x)
        out[idx] = v
        return type(x)(*out) if hasattr(x, "_fields") else tuple(out)
    if isinstance(x, dict):
        out = dict(x) if type(x) is dict else copy.copy(x)     # keeps a defaultdict's default
        out[idx] = v
        return out
    out = x.copy() if is_duck(x) else np.array(x, copy=True)
    out[idx] = v
    if type(x) is _nd:
        _SUPERSEDED[id(x)] = weakref.ref(x, lambda _, key=id(x): _SUPERSEDED.pop(key, None))
    return out


# arrays index_update replaced by an updated copy: a view of one that is still held is stale (check_current)
_SUPERSEDED = {}


def check_current(x):
    """Refuse a change in place through x when x is a view of an array an earlier change replaced by an
    updated copy: the change would not reach the copy (views held in a list, tuple or dict)."""
    base = x.base
    while isinstance(base, _nd):
        ref = _SUPERSEDED.get(id(base))
        if ref is not None and ref() is base:
            from .errors import TransformError
            raise TransformError("adsrc cannot follow this change in place: the array changed is a view of an "
                                 "array an earlier change made a new copy of (views held in a list, tuple or "
                                 "dict, changed one after another). Change the array through its indices "
                                 "(`a[0:2] *= 3.0`), or compute new values (`rows = [r * 3.0 for r in rows]`).")
        base = base.base


@helper
def index_update_inplace(x, idx, v):
    """x[idx] = v in place, returning x: for arrays only this code holds whose old values are not needed."""
    if type(x) is _nd or is_duck(x):
        x[idx] = v
        return x
    return index_update(x, idx, v)


@helper
def snapshot(x):
    """x itself, or a copy if x is an array view (of an array about to be updated in place)."""
    if type(x) is _nd and x.base is not None or is_duck(x) and getattr(x, "base", None) is not None:
        return x.copy()
    return x


@helper
def zero_at(g, x, idx):
    """The cotangent of x in index_update(x, idx, v), made in place from g (a buffer only we hold)."""
    if (type(g) is _nd and type(x) is _nd or is_duck(g) and type(g) is type(x)) and g.shape == x.shape:
        g[idx] = 0.0
        return g
    return index_update_vjp_base(g, x, idx)


@helper
def index_update_vjp_value(g, x, idx, v):
    """Cotangent of v in index_update(x, idx, v) given the output cotangent g."""
    if type(x) is _nd or isinstance(x, np.generic) or is_duck(x):
        part = full(g, x)
        part = (np.asarray(part) if np.ndim(part) == 0 else part)[idx]      # (a 0-d array's cotangent: a number)
        if getattr(part, "base", None) is not None:
            part = part.copy()       # g may be zeroed in place next (zero_at): do not hand out a view
        if not _is_basic_index(idx):
            part = part * _last_writes(idx, shape(x))    # repeated indices: the last write wins
        if x.dtype.kind in "biu":
            part = np.zeros(np.shape(part))      # written into integers: truncated, no derivative
        return unbroadcast(part, v, part)
    if isinstance(idx, slice) and isinstance(x, list) and not is_zero(g):
        return [item_cot(g, p) for p in _slice_positions(x, idx, v)]
    return item_cot(g, idx)


def _slice_positions(x, idx, v):
    """Where the items of v are in index_update(x, idx, v) for a list x (slices may change its length)."""
    start, stop, step = idx.indices(len(x))
    if step == 1:
        return range(start, start + len(v))
    return range(start, stop, step)


@helper
def index_update_vjp_base(g, x, idx):
    """Cotangent of x in index_update(x, idx, v): g with the overwritten part zeroed."""
    if type(x) is _nd or isinstance(x, np.generic) or is_duck(x):
        out = owned(g, x)
        out[idx] = 0.0
        return out
    if is_zero(g):
        return 0.0
    if isinstance(idx, slice) and isinstance(x, list):
        start, stop, step = idx.indices(len(x))
        replaced = range(start, stop, step)
        if step == 1:           # the items of x[idx] were replaced by len(g) - len(x) + len(replaced) items
            return list(g[:start]) + [0.0] * len(replaced) + list(g[start + len(g) - len(x) + len(replaced):])
        out = list(g)
        for p in replaced:
            out[p] = 0.0
        return out
    out = list(g) if isinstance(g, (list, tuple)) else dict(g)
    out[idx] = 0.0
    return out


def _last_writes(idx, shp):
    """1 where an element of x[idx] = v is the last write to its position (NumPy keeps that one), else 0."""
    flat = np.arange(int(np.prod(shp))).reshape(shp)[idx]
    order = np.ravel(flat)
    if np.unique(order).size == order.size:
        return 1.0
    mask = np.zeros(order.size)
    _, last = np.unique(order[::-1], return_index=True)
    mask[order.size - 1 - last] = 1.0
    return mask.reshape(np.shape(flat))


@helper
def list_append(lst, v):
    """lst + [v] (what `lst.append(v)` computes, without mutating lst)."""
    out = list(lst)
    out.append(v)
    return out


@helper
def list_append_inplace(lst, v):
    """lst.append(v), returning lst: for lists only this code holds that nothing else reads."""
    lst.append(v)
    return lst


@helper
def list_copy(g):
    """A list only this code holds, from a list (or tuple) cotangent; other cotangents as they are."""
    return list(g) if isinstance(g, (list, tuple)) else g


@helper
def split_last(g):
    """(cotangent of a list before an append, cotangent of the appended value) from the list's cotangent.

    A list g (only this code holds it) loses its last element in place; an
    array or tuple is sliced; a scalar stands for every element alike.
    """
    if isinstance(g, list):
        return g, (g.pop() if g else 0.0)
    if isinstance(g, tuple) or ((type(g) is _nd or is_duck(g)) and g.ndim > 0):
        return g[:-1], g[-1]
    return g, g


# -- dict views and other iterables ----------------------------------------------------------------

@helper
def dict_values(d):
    """d.values() as a list (what a loop or sum over it sees)."""
    return list(d.values())


@helper
def dict_items(d):
    return list(d.items())


@helper
def dict_keys(d):
    return list(d.keys())


@helper
def values_cot(g, d):
    """Cotangent of d from the cotangent of list(d.values())."""
    return {k: item_cot(g, i) for i, k in enumerate(d)}


@helper
def items_cot(g, d):
    """Cotangent of d from the cotangent of list(d.items()) (pairs of key and value)."""
    return {k: item_cot(item_cot(g, i), 1) for i, k in enumerate(d)}


@helper
def stack_cot(parts, x):
    """Cotangent of an array x unpacked into its rows (`a, b = x`) from the rows' cotangents."""
    if type(x) is not _nd and not isinstance(x, np.generic) and not is_duck(x):
        return tuple(parts)
    rows = shape(x)[1:]
    return np.stack([np.broadcast_to(p, rows) for p in parts])


@helper
def sequence_cot(g, x):
    """Cotangent of x from the cotangent of list(x) or tuple(x)."""
    if isinstance(x, dict):
        return 0.0          # list(d) is d's keys: no derivative reaches d's values through them
    if type(x) is _nd or is_duck(x):
        if is_zero(g):
            return 0.0
        return np.stack([np.broadcast_to(item_cot(g, i), shape(x)[1:]) for i in range(len(x))])
    return g


@helper
def iterated_cot(g, x):
    """Cotangent of x from the cotangent of sequence(x): none for a dict's or set's keys."""
    if isinstance(x, (dict, set, frozenset)):
        return 0.0
    return g


@helper
def sequence(x):
    """x if it can be indexed (a list, tuple, array, range), else a list of its items."""
    if isinstance(x, (list, tuple, np.ndarray, range, str)) or is_duck(x):
        return x
    return list(x)


# -- scan helpers -----------------------------------------------------------------------------

@helper
def scan_slice(xs, i):
    return _slice(xs, i)


@helper
def scan_length(xs, length):
    return _scan_length(xs, length)


@helper
def stack_ys(ys):
    if not ys:
        return None
    return _stack(ys)


@helper
def unstack_cot(g, n):
    """Per-step cotangents from the cotangent of stacked scan outputs."""
    if is_zero(g) or g is None:
        return [0.0] * n
    if isinstance(g, tuple) and not hasattr(g, "_fields"):
        cols = [unstack_cot(c, n) for c in g]
        return [tuple(c[i] for c in cols) for i in range(n)]
    if isinstance(g, list):
        cols = [unstack_cot(c, n) for c in g]
        return [[c[i] for c in cols] for i in range(n)]
    if isinstance(g, dict):
        cols = {k: unstack_cot(c, n) for k, c in g.items()}
        return [{k: c[i] for k, c in cols.items()} for i in range(n)]
    if isinstance(g, (numbers.Number, np.generic)):
        return [g] * n          # a number broadcast over the stacked outputs
    return [g[i] for i in range(n)]


@helper
def scan_slice_cot(dxs, xs, i, g):
    """Accumulate the cotangent g of scan_slice(xs, i) into dxs (owned)."""
    if is_zero(g):
        return dxs
    if isinstance(xs, (tuple, list)) and not hasattr(xs, "_fields"):
        parts = [scan_slice_cot(d, x, i, gi) for d, x, gi in zip(dxs, xs, unpack_cot(g, len(xs)))]
        return type(xs)(parts) if isinstance(xs, list) else tuple(parts)
    if isinstance(xs, dict):
        return {k: scan_slice_cot(dxs[k], xs[k], i, item_cot(g, k)) for k in xs}
    return add_at(dxs, xs, i, g)


@helper
def owned_tree(g, x):
    """`owned` applied leaf by leaf to a pytree of arrays."""
    if isinstance(x, (tuple, list)) and not hasattr(x, "_fields"):
        parts = [owned_tree(item_cot(g, i), v) for i, v in enumerate(x)]
        return type(x)(parts) if isinstance(x, list) else tuple(parts)
    if isinstance(x, dict):
        return {k: owned_tree(item_cot(g, k), v) for k, v in x.items()}
    return owned(g, x)


@helper
def check_array_method(obj, method, name):
    """adsrc differentiated `name.method(...)` as the ndarray method: refuse if `name` is something else."""
    if isinstance(obj, (_nd, np.generic, int, float, complex, list, tuple, dict)) or is_duck(obj):
        return
    from .errors import TransformError
    what = f"the module `{obj.__name__}`" if isinstance(obj, types.ModuleType) else \
        f"an object of type {type(obj).__name__}"
    raise TransformError(f"adsrc differentiated `{name}{method[:-1]}...)` with its rule for arrays and Python "
                         f"containers ({method}), but "
                         f"`{name}` is {what} when the code runs. Mark `{name}` static (static_argnames) so "
                         "adsrc can see what it is when transforming.")


# the methods a class of the user's would define for an operator adsrc differentiates as arithmetic
_OPERATOR_METHODS = {"+": ("__add__", "__radd__"), "-": ("__sub__", "__rsub__"), "*": ("__mul__", "__rmul__"),
                     "/": ("__truediv__", "__rtruediv__"), "**": ("__pow__", "__rpow__"),
                     "@": ("__matmul__", "__rmatmul__"), "%": ("__mod__", "__rmod__"),
                     "//": ("__floordiv__", "__rfloordiv__"), "unary -": ("__neg__",), "unary +": ("__pos__",),
                     "[]": ("__getitem__",), "[]=": ("__setitem__",)}


@helper
def check_operand(x, symbol, name):
    """adsrc differentiated `symbol` on `name` as arithmetic on numbers and arrays, not knowing what `name`
    would be: refuse, when it runs, an object whose class defines that operator in Python (adsrc did not
    follow that method, so the gradient would be wrong)."""
    if isinstance(x, (_nd, np.generic, numbers.Number, list, tuple, dict)) or x is None or is_duck(x):
        return
    own = [m for m in _OPERATOR_METHODS.get(symbol, ())
           if isinstance(inspect.getattr_static(type(x), m, None), types.FunctionType)]
    if own:
        from .errors import TransformError
        what = f"`{symbol}` on `{name}` as arithmetic on numbers" if not symbol.startswith("[]") else \
            f"`{name}[...]` as indexing an array or a container"
        raise TransformError(f"adsrc differentiated {what}, but `{name}` is "
                             f"a {type(x).__name__} object with its own `{own[0]}`, which adsrc did not follow: it "
                             f"could not tell `{name}`'s class when transforming. Bind each new object to a new "
                             f"name (`{name}2 = {name} ...`, not `{name} = {name} ...`), or call the method "
                             f"yourself (`{name}.{own[0]}(...)`).")


def slot_names(cls):
    """The names of the `__slots__` fields of cls and its bases (private ones as Python mangles them)."""
    out = []
    for k in cls.__mro__:
        slots = vars(k).get("__slots__", ())
        for n in ((slots,) if isinstance(slots, str) else slots):
            if n in ("__dict__", "__weakref__"):
                continue
            if n.startswith("__") and not n.endswith("__"):
                n = f"_{k.__name__.lstrip('_')}{n}"
            if n not in out:
                out.append(n)
    return out


def object_fields(obj):
    """{name: value} of the fields an object of the user's class has set (its __dict__, and its __slots__
    fields), or None for what is not such an object (arrays, classes, modules, functions)."""
    if isinstance(obj, (_nd, type, types.ModuleType, types.FunctionType, types.MethodType)):
        return None
    d = getattr(obj, "__dict__", None)
    slots = slot_names(type(obj)) if hasattr(type(obj), "__slots__") else ()
    if not isinstance(d, dict) and not slots:
        return None
    out = dict(d) if isinstance(d, dict) else {}
    for n in slots:
        try:
            out[n] = object.__getattribute__(obj, n)
        except AttributeError:          # (a slot not set yet)
            pass
    return out


def copy_object(obj):
    """A shallow copy of an object of the user's class: a new object of its class with the same fields,
    made without its copy protocol (which asks a class's `__getattr__` for `__setstate__` on an object with
    no fields yet, and recurses, on Python 3.10), unless the class defines its own copying."""
    cls = type(obj)
    if isinstance(getattr(obj, "__dict__", None), dict) and cls.__new__ is object.__new__ and \
            not any("__copy__" in vars(k) or "__reduce_ex__" in vars(k) or "__reduce__" in vars(k) or
                    "__slots__" in vars(k) for k in cls.__mro__[:-1]):
        out = object.__new__(cls)
        out.__dict__.update(obj.__dict__)
        return out
    return copy.copy(obj)


@helper
def check_unpacked_keys(d, allowed, fname):
    """`f(..., **d)`: Python's TypeError for a key of d that is none of f's parameters left to pass."""
    for k in d:
        if k not in allowed:
            raise TypeError(f"{fname}() got an unexpected keyword argument {k!r}")


@helper
def check_zip_lengths(rows, strict):
    """zip(..., strict=True)'s check: every argument has the same length."""
    if strict and len({len(r) for r in rows}) > 1:
        lengths = [len(r) for r in rows]
        raise ValueError(f"zip() arguments have different lengths: {lengths}")


@helper
def refuse_now(error):
    """Raise adsrc's refusal (a TransformError) of a branch of the user's code that it could not differentiate,
    now that the branch runs (a branch that does not run is no reason to refuse the function)."""
    raise error.with_traceback(None)


@helper
def table_miss(table, key):
    """`table[key](...)` for a key none of the branches adsrc made for the table's entries matches: Python's
    KeyError or IndexError, or, for a key added to the table after adsrc transformed the call, a refusal."""
    table[key]
    raise TypeError(f"the table of functions called with key {key!r} gained that entry after adsrc transformed "
                    "the call: adsrc made a branch for each entry it had then. Make the table before the first "
                    "call of the gradient, or pass the function itself.")


def fields_only(cls):
    """A function making an object of the dataclass cls from its fields as its __init__ does, without running
    __post_init__ (which adsrc follows as a method call after it); one per class."""
    from .cache import made_once
    return made_once(_FIELDS_ONLY, cls, lambda: _fields_maker(cls))


def _fields_maker(cls):
    import dataclasses
    fields = dataclasses.fields(cls)

    def make(*args, **kwargs):
        obj = object.__new__(cls)
        named = dict(zip([f.name for f in fields if f.init and not f.kw_only], args), **kwargs)
        for f in fields:
            if f.name in named:
                value = named[f.name]
            elif f.default is not dataclasses.MISSING:
                value = f.default
            elif f.default_factory is not dataclasses.MISSING:
                value = f.default_factory()
            else:
                continue            # (an init=False field __post_init__ sets)
            object.__setattr__(obj, f.name, value)
        return obj
    make.__name__ = f"{cls.__name__}_fields"
    return make


_FIELDS_ONLY = {}


@helper
def check_held_change(obj, fields, others, names, where):
    """A method changing in place the fields `fields` of obj (a call at `where`): refuse, when the code runs,
    a field that is (or holds) the object another name of the function holds too, since adsrc would follow the
    change into obj only."""
    for f in fields:
        v = getattr(obj, f, None)
        parts = list(v) if isinstance(v, (list, tuple)) else []
        for o, n in zip(others, names):
            if isinstance(o, (np.ndarray, list, dict)) and (v is o or any(e is o for e in parts)):
                from .errors import TransformError
                raise TransformError(f"the method called at {where} changes `{f}` of an object in place, and that is "
                                     f"the object `{n}` holds too (the object was made holding it): adsrc follows the "
                                     f"change into the object but not into `{n}`. Read the value through the object "
                                     f"after the call, or give the object a copy (`{n}.copy()`).")


@helper
def check_field(obj, field, fn):
    """adsrc followed `obj.field(...)` as a call of fn, the function the caller made obj with: refuse, when the
    code runs, an object whose field holds another one by now."""
    held = getattr(obj, field, None)
    if held is not fn and getattr(held, "_adsrc_numpy_helper", None) is not fn:     # (xp/dispatch.py's facade)
        raise TypeError(f"adsrc transformed a method of {type(obj).__name__} for `{field}` holding "
                        f"{getattr(fn, '__name__', fn)!r}, the function the object was made with, but it holds "
                        f"{getattr(obj, field, None)!r} when the code runs. Pass the function to the method "
                        "instead of changing the field.")


@helper
def check_unpacked(seq, n, name):
    """`f(..., *seq)`, which adsrc matched to the n parameters it must fill: Python's TypeError for another
    length."""
    if len(seq) != n:
        raise TypeError(f"{name}() takes {n} argument{'s' if n != 1 else ''} from `*`, which unpacked {len(seq)}")


@helper
def check_keywords(d, accepted, required, name):
    """`f(..., **d)`, which adsrc matched to the parameters `accepted`: Python's TypeError for another key, or
    for a missing one without a default."""
    for k in d:
        if k not in accepted:
            raise TypeError(f"{name}() got an unexpected keyword argument {k!r}")
    for k in required:
        if k not in d:
            raise TypeError(f"{name}() missing 1 required argument: {k!r}")


@helper
def check_no_field(x, name):
    """adsrc differentiated `x.name` as a call of the class's `__getattr__` (no method of the class sets
    `self.name`): refuse, when it runs, an object that has the field after all (Python reads the field)."""
    if name in getattr(x, "__dict__", ()):
        from .errors import TransformError
        raise TransformError(f"adsrc differentiated `.{name}` of a {type(x).__name__} as a call of its "
                             f"`__getattr__`, but the object has a field `{name}` (set outside the class's "
                             "methods), which Python reads instead. Set the field in `__init__`, or read it "
                             "through a method.")


_HOLOMORPHIC = threading.local()    # on while a gradient made with holomorphic=True runs (api.Holomorphic)
_ERRSTATES = threading.local()      # the NumPy error states generated code entered (errstate_push), per thread


@helper
def errstate_push(settings):
    """Enter `with np.errstate(**settings):` in generated code (lowering/errstates.py)."""
    stack = getattr(_ERRSTATES, "stack", None)
    if stack is None:
        stack = _ERRSTATES.stack = []
    stack.append(np.seterr(**settings))


@helper
def errstate_pop():
    """Leave the innermost `with np.errstate(...)` block generated code entered."""
    np.seterr(**_ERRSTATES.stack.pop())


def errstate_reset():
    """After an exception left generated code: the error state as generated code found it."""
    stack = getattr(_ERRSTATES, "stack", None)
    if stack:
        np.seterr(**stack[0])
        stack.clear()


@helper
def check_class(obj, cls, name):
    """adsrc inferred that `name` holds an object of class cls (lowering/object_classes.py): refuse another."""
    if type(obj) is not cls:
        from .errors import TransformError
        raise TransformError(f"adsrc followed the methods of `{name}` as a {cls.__qualname__}, which the code "
                             f"that makes it creates, but `{name}` is an object of type {type(obj).__qualname__} "
                             f"here. Make it a {cls.__qualname__}, or call the method through its class "
                             f"(`Class.method({name}, ...)`).")


@helper
def check_classes(seq, classes, name):
    """adsrc inferred that `name` holds a list of objects of these classes, in this order (a loop over it is
    unrolled): refuse another."""
    if len(seq) != len(classes) or any(type(obj) is not cls for obj, cls in zip(seq, classes)):
        from .errors import TransformError
        raise TransformError(f"adsrc followed a loop over `{name}` as over {len(classes)} objects of the classes "
                             f"{', '.join(c.__qualname__ for c in classes)}, as the code that makes it puts them "
                             f"there, but `{name}` holds {[type(o).__qualname__ for o in seq]} here. Keep the list "
                             "as it was made, or loop over a list made in the function.")


@helper
def check_immutable(value, message):
    """`a += b` on an array another live name shares would change that name too: refuse."""
    if isinstance(value, (np.ndarray, list, dict)) or is_duck(value):
        from .errors import TransformError
        raise TransformError(message)


@helper
def check_item_immutable(container, item, message):
    """`c[i] += v` on an array held by a list or dict changes that array, which other names hold: refuse."""
    if not isinstance(container, _nd) and not is_duck(container):
        check_immutable(item, message)


# -- checks -----------------------------------------------------------------------------------

class NonScalarOutput(TypeError):
    pass


@helper
def check_scalar(out, fname):
    """The seed of the backward pass for out, the output of a function given to grad: 1.0, or ones of its shape
    for an array of one element (as autograd and PyTorch accept); raise unless out is a real scalar or that."""
    if type(out) is float or isinstance(out, (float, int)) and not isinstance(out, (bool, np.complexfloating)):
        return 1.0
    if is_duck(out) and out.shape == () and np.dtype(out.dtype).kind in "fiu":
        return 1.0          # a 0-d duck array (a lazy Dask scalar)
    shp = np.shape(out) if isinstance(out, (np.ndarray, np.generic)) else None
    if shp is not None and np.size(out) == 1 and np.asarray(out).dtype.kind in "fiu":
        return np.ones(shp) if shp else 1.0
    if is_duck(out) and np.size(out) == 1 and np.dtype(out.dtype).kind in "fiu":
        return 1.0
    if np.iscomplexobj(out) and np.size(out) == 1:
        if getattr(_HOLOMORPHIC, "on", False):
            return np.ones(shp) if shp else 1.0      # grad(f, holomorphic=True): f'(z), seeded with 1
        raise NonScalarOutput(
            f"adsrc.grad needs `{fname}` to return a real scalar, but it returned a complex number "
            f"({type(out).__name__}). Differentiate a real function of it (np.real, np.abs, np.abs(...) ** 2), as "
            "JAX's and autograd's grad ask, or use adsrc.vjp or adsrc.jvp for the complex output.")
    if shp is None:
        what = f"a {type(out).__name__}"
    else:
        what = f"an array of shape {shp} and dtype {np.asarray(out).dtype}"
    raise NonScalarOutput(
        f"adsrc.grad needs `{fname}` to return a real scalar (or an array of one element), but it returned {what}. "
        "Reduce the output (for example with np.sum), or use adsrc.vjp for non-scalar outputs.")


_ = (_leaves,)
