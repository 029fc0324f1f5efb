"""Argument kinds (what a differentiated argument is) and static keys, with messages about values.

The kind of each differentiated argument, and the type and value of each
static one, make up a call's specialization key (see keys.py). Messages here
describe values by type, shape and dtype, never by their contents: an error
about a 1000x100 matrix is one line.
"""

import copy
import dataclasses
import numbers

import numpy as np

from . import arrays, keys, pytree_nodes
from . import xp as xp_arrays

_nd = np.ndarray


# -- describing values ----------------------------------------------------------------------------

def describe(x):
    """A short description of a value that never prints array contents: 'an array of shape (3, 4) and dtype
    float64'."""
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape} and dtype {x.dtype}"
    if isinstance(x, (bool, np.bool_)):
        return f"a bool ({bool(x)})"
    if isinstance(x, numbers.Number):
        name = type(x).__name__
        return f"{'an' if name[0] in 'aeiou' else 'a'} {name} ({_number(x)})"      # an int, a float
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return f"a {type(x).__name__} (fields {', '.join(x._fields)})"
    if isinstance(x, (tuple, list, set, frozenset)):
        return f"a {type(x).__name__} of {len(x)} element{'s' if len(x) != 1 else ''}"
    if isinstance(x, dict):
        shown = ", ".join(repr(k) if isinstance(k, (str, int)) else type(k).__name__ for k in list(x)[:6])
        return f"a {type(x).__name__} with keys {shown}{', ...' if len(x) > 6 else ''}" if x else "an empty dict"
    if x is None:
        return "None"
    if isinstance(x, str):
        return f"a str ({x[:40]!r}{'...' if len(x) > 40 else ''})"
    if hasattr(type(x), "__dataclass_fields__"):
        return f"a {type(x).__name__} dataclass"
    shape = getattr(x, "shape", None)
    if isinstance(shape, tuple):
        return f"a {type(x).__name__} of shape {shape}" + (f" and dtype {x.dtype}" if hasattr(x, "dtype") else "")
    name = getattr(x, "__qualname__", None)
    if isinstance(name, str) and callable(x):
        return f"`{name}` (a {type(x).__name__})"
    return f"a {type(x).__name__} object"


def _number(x):
    text = repr(x.item() if isinstance(x, np.generic) else x)
    return text if len(text) <= 40 else text[:37] + "..."


def as_float_literal(x):
    """How to write the float a user meant by an integer: 3 -> '3.0'."""
    try:
        return repr(float(x))
    except (TypeError, ValueError, OverflowError):
        return "a float"


# -- the kind of a differentiated argument ---------------------------------------------------------

def arg_kind(x, fname, pname):
    """'array' for float arrays, 'scalar' for floats, a pytree structure for containers; raises otherwise."""
    t = type(x)
    if t is _nd:
        if x.dtype.kind in "fc":
            return "array"
    elif t is float or isinstance(x, (np.floating, np.complexfloating, complex)):
        return "scalar"
    elif arrays.is_duck(x):
        if _float_dtype(x):
            return duck_kind(t)
    elif xp_arrays.is_xp_array(x) and xp_arrays.usable(x):
        if xp_arrays.is_real_floating(x):
            xp_arrays.accept(x)
            return duck_kind(t)
        raise TypeError(f"adsrc can differentiate arrays of {arrays.type_name(t)} (an array-API library) only when "
                        f"their dtype is real floating, but argument `{pname}` of `{fname}` has dtype {x.dtype}. "
                        "Convert it (xp.astype(x, xp.float64)), or leave it out of argnums.")
    elif _is_container(x):
        structure = pytree_structure(x)
        if not _has_float_leaf(structure) and _has_leaf(structure):      # (an empty one: an empty gradient)
            raise TypeError(f"adsrc cannot differentiate `{fname}` with respect to `{pname}`: it holds no "
                            f"floating-point values ({describe(x)}). Pass floats (e.g. np.asarray(x, float)), "
                            "or leave the argument out of argnums.")
        return structure
    head = (f"adsrc can only differentiate with respect to floating-point values, but argument `{pname}` of "
            f"`{fname}` is {describe(x)}.")
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{head} A flag is not differentiable: mark it static (static_argnums / "
                        "static_argnames) or leave it out of argnums.")
    if isinstance(x, numbers.Integral):
        raise TypeError(f"{head} Pass a float (e.g. {as_float_literal(x)} or np.asarray(x, dtype=float)), or "
                        "leave it out of argnums.")
    if t is _nd or arrays.is_duck(x):
        raise TypeError(f"{head} Convert it with x.astype(float), or leave it out of argnums.")
    unsupported = arrays.unsupported_array(x)
    if unsupported:
        raise TypeError(f"adsrc cannot differentiate `{fname}` with respect to `{pname}`: {unsupported}")
    raise TypeError(f"adsrc cannot differentiate `{fname}` with respect to `{pname}`, {describe(x)}. "
                    "Differentiable arguments are floats, float arrays, and tuples, lists, dicts, "
                    "namedtuples, dataclasses and registered pytree classes of them."
                    + _register_hint(t))


# the key entry of an argument of a gradient called inside a function adsrc transforms (higher order): a float,
# an array or a container of them, which its code tells apart when it runs (gradient.Gradient._adsrc_general)
GENERAL = "general"


def duck_kind(t):
    """The key entry of a float array of another library: its type is part of the specialization key."""
    return ("duck", t)


def is_array_kind(k):
    """Whether a key entry is an array: 'array' (NumPy) or ('duck', type)."""
    return k == "array" or (type(k) is tuple and len(k) == 2 and k[0] == "duck")


def _float_dtype(x):
    try:
        return np.dtype(x.dtype).kind in "fc"
    except TypeError:
        return False


def _register_hint(t):
    if t.__module__.split(".")[0] in ("builtins", "numpy") or not hasattr(t, "__dict__"):
        return ""
    return (f" To differentiate with respect to the arrays a {t.__qualname__} holds, register its class as "
            f"a pytree: decorate it with @adsrc.register_pytree_node_class (it then defines tree_flatten and "
            f"the classmethod tree_unflatten), call adsrc.register_pytree_node({t.__qualname__}, flatten, "
            f"unflatten), or for a dataclass use @adsrc.register_dataclass.")


def _is_container(x):
    return isinstance(x, (tuple, list, dict)) or hasattr(type(x), "__dataclass_fields__") or \
        pytree_nodes.is_node(x)


def pytree_structure(x):
    """A hashable description of a container argument: its kind, keys or fields, and each leaf's kind.

    Part of the specialization key, so the generated code knows that
    `params["W"]` is an array (as JAX knows a pytree's structure).
    """
    node = pytree_nodes.node_of(x)
    if node is not None:
        children, aux = pytree_nodes.flatten(node, x)
        return ("node", type(x), pytree_nodes.aux_key(node, aux), tuple(enumerate(map(_leaf, children))))
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return ("fields", type(x), tuple((f, _leaf(v)) for f, v in zip(x._fields, x)))
    if isinstance(x, (tuple, list)):
        return (type(x).__name__, tuple((i, _leaf(v)) for i, v in enumerate(x)))
    if isinstance(x, dict):
        return ("dict", tuple((k, _leaf(v)) for k, v in x.items()))
    return ("fields", type(x), tuple((f.name, _leaf(getattr(x, f.name))) for f in dataclasses.fields(x)))


def _leaf(v):
    t = type(v)
    if t is _nd:
        return "array" if v.dtype.kind in "fc" else "const"
    if arrays.is_duck(v):
        return duck_kind(t) if _float_dtype(v) else "const"
    if xp_arrays.is_xp_array(v) and xp_arrays.usable(v):
        if not xp_arrays.is_real_floating(v):
            return "const"
        xp_arrays.accept(v)
        return duck_kind(t)
    if t is float or isinstance(v, (np.floating, np.complexfloating, complex)):
        return "scalar"
    if _is_container(v):
        return pytree_structure(v)
    return "const"


def _has_leaf(structure):
    if isinstance(structure, str) or is_array_kind(structure):
        return True
    return any(_has_leaf(leaf) for _, leaf in structure[-1])


def _has_float_leaf(structure):
    if isinstance(structure, str) or is_array_kind(structure):
        return structure in ("array", "scalar") or is_array_kind(structure)
    return any(_has_float_leaf(leaf) for _, leaf in structure[-1])


# -- static arguments -----------------------------------------------------------------------------

def static_key(value, name, fname):
    """A cache key for a static value that tells 3, 3.0 and True apart; raises if unhashable. A dict or list
    (a configuration) is keyed by its contents at the call: the code made for it holds a copy of them
    (static_snapshot), so a change to it afterwards selects another specialization."""
    try:
        return _static_key(value)
    except TypeError:
        raise TypeError(f"static argument `{name}` of `{fname}` is {describe(value)}, which is not "
                        "hashable; static arguments select the compiled program, so they must be hashable "
                        "(numbers, strings, tuples, and dicts or lists of them; pass arrays as ordinary "
                        "arguments)") from None


def _static_key(value):
    t = type(value)
    if t is dict:
        return (dict, tuple((_static_key(k), _static_key(v)) for k, v in value.items()))
    if t is list:
        return (list, tuple(_static_key(v) for v in value))
    hash(value)
    if t is tuple:
        return (tuple, tuple(_static_key(v) for v in value))
    if t is frozenset:
        return (frozenset, frozenset(_static_key(v) for v in value))
    return (t, value)


def static_snapshot(statics):
    """name -> value of static arguments, dicts and lists (keyed by their contents) copied."""
    return {n: copy.deepcopy(v) if type(v) in (dict, list) else v for n, v in statics.items()}


def show_value(value):
    """A static value for a log line: its repr when short and simple, else its description."""
    if isinstance(value, (type(None), bool, numbers.Number, str, bytes, tuple, frozenset)):
        text = repr(value)
        if len(text) <= 60:
            return f"{text} ({type(value).__name__})"
    return describe(value)


def show_static(t, v):
    """A static value as it appears in a key: (type, value), or (tuple, static_key(value))."""
    if t is keys.Identity:
        return f"the object with id {v:#x}"
    if t in (dict, list) and isinstance(v, tuple):
        if t is list:
            return "[" + ", ".join(show_static(*e) for e in v) + "]"
        return "{" + ", ".join(f"{show_static(*k)}: {show_static(*e)}" for k, e in v) + "}"
    if t is tuple and isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], type):
        return show_static(*v) if v[0] is not tuple else "(" + ", ".join(show_static(*e) for e in v[1]) + ")"
    return show_value(v)
