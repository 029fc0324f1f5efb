"""Helpers of scans (slices, lengths, stacked outputs), of objects' fields, and the checks generated
code makes when it runs. Gathered by runtime.py."""

import copy
import inspect
import numbers
import threading
import types

import numpy as np

from .arrays import is_duck
from .primitives import _leaves, _slice, _stack, scan_length as _scan_length
from .runtime_accumulate import add_at, item_cot, owned, unpack_cot
from .runtime_core import _nd, helper, is_zero


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
def check_class_among(obj, classes, name):
    """adsrc inferred that `name` holds an object of one of these classes (lowering/class_choices.py), and
    obj is of none of them: refuse it."""
    from .errors import TransformError
    raise TransformError(f"adsrc followed the methods of `{name}` as those of "
                         f"{' or '.join(c.__qualname__ for c in classes)}, the classes of the objects the code that "
                         f"makes its list puts there, but `{name}` is an object of type {type(obj).__qualname__} "
                         f"here. Call the method through its class (`Class.method({name}, ...)`).")


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
def check_pair(out, fname):
    """out, the result of a function given to grad with has_aux=True, checked to be a pair (value, aux)."""
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        what = f"a {type(out).__name__} of {len(out)} items" if isinstance(out, (tuple, list)) else \
            f"a {type(out).__name__}"
        raise TypeError(f"with has_aux=True, `{fname}` must return a pair (value, aux), as in JAX; it returned "
                        f"{what}. Return `loss, aux`, or drop has_aux.")
    return out


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
