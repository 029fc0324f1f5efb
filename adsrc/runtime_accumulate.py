"""Helpers that accumulate cotangents: sums of cotangents, scatters into indexed arrays, attributes'
and items' cotangents. Gathered by runtime.py."""

import collections
import inspect
import numbers
import types

import numpy as np

from . import pytree_nodes
from .arrays import is_duck, need_values
from .runtime_core import (ARRAY_ATTRIBUTES, HELPERS, _REAL_NUMBERS, _complex_array, _dtype_of, _nd, scatter_add,
                           has_array_attributes, helper, is_zero, shape, unbroadcast)


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
    if isinstance(a, dict) and _object_cot(b) or isinstance(b, dict) and _object_cot(a) or \
            _is_dataclass_instance(a) and _is_dataclass_instance(b) and not hasattr(a, "__add__"):
        # an object's cotangent as its own class (tree_leaves' rule) and as attribute reads give it (a dict);
        # two dataclass cotangents (a transpose's, of a dataclass tangent) field by field
        return add_cot(a if isinstance(a, dict) else pytree_nodes.attribute_cotangents(a),
                       b if isinstance(b, dict) else pytree_nodes.attribute_cotangents(b))
    if isinstance(a, (tuple, list, dict)) or isinstance(b, (tuple, list, dict)):
        return _add_mixed(a, b)
    return a + b


def _object_cot(g):
    """Is g a cotangent held as an object (a registered class's or a dataclass's)?"""
    return pytree_nodes.is_node(g) or _is_dataclass_instance(g) and not isinstance(g, type)


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
        return {} if is_zero(g) else dict(g) if isinstance(g, dict) else \
            pytree_nodes.attribute_cotangents(g) if _object_cot(g) else dict(g)
    return g


def _is_basic_index(idx):
    if isinstance(idx, tuple):
        return all(_is_basic_index(i) for i in idx)
    return idx is None or idx is Ellipsis or isinstance(idx, (slice, numbers.Integral, np.integer))


@helper
def add_at(dx, x, idx, g):
    """dx[idx] += g with repeated indices accumulating; dx from `owned` (updated in place)."""
    if type(dx) is _nd:
        if dx.dtype.kind != "c" and _complex_array(g):
            g = np.real(g)          # a real value's cotangent (rules/__init__.py)
        try:
            if _is_basic_index(idx):
                dx[idx] += g
            else:
                scatter_add(dx, idx, g)
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
