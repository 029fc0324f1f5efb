"""Arrays beyond NumPy: duck arrays that implement NumPy's dispatch protocols.

An argument whose type implements both `__array_function__` and
`__array_ufunc__` (Dask, CuPy, ...) is an array to adsrc: the generated code
is NumPy source, and NumPy hands each call on such an array to the array's
own library. Its specialization key records its type, so the generated code
may assume it (`("duck", type)` in kinds.py), and the runtime helpers keep
it as it is: no np.asarray, no `.flags`, gradients of the same type.

A *lazy* array (a Dask array) has no values until it is computed. Rules whose
result or whose gradient needs values (an index computed from the data, a
sort) call `need_values`, which refuses a lazy array with an error naming the
rule and the type.
"""

import numpy as np

_nd = np.ndarray


def is_duck(x):
    """Whether x is an array of another library that NumPy's functions dispatch to."""
    t = type(x)
    return t is not _nd and hasattr(t, "__array_function__") and hasattr(t, "__array_ufunc__") \
        and not isinstance(x, (_nd, np.generic)) and hasattr(x, "shape") and hasattr(x, "dtype")


def is_array(x):
    """A NumPy array or a duck array."""
    return type(x) is _nd or is_duck(x)


def as_array(x):
    """x as an array for a helper's arithmetic: a duck array stays as it is (np.asarray would compute it)."""
    if type(x) is _nd or is_duck(x):
        return x
    return np.asarray(x)


def as_float(x):
    """np.asarray(x, dtype=float), keeping a duck array's type."""
    if is_duck(x):
        return x if np.dtype(x.dtype) == np.float64 else x.astype(np.float64)
    return np.asarray(x, dtype=float)


def type_name(t):
    """`dask.array.core.Array` for a class."""
    module = getattr(t, "__module__", "") or ""
    return f"{module}.{t.__qualname__}" if module and module != "builtins" else t.__qualname__


def is_lazy(x):
    """A duck array without values until computed (a Dask collection)."""
    return is_duck(x) and hasattr(type(x), "__dask_graph__")


class NeedsValues(TypeError):
    """A rule needs an array's values, which a lazy array does not have until it is computed."""


def need_values(rule, *xs):
    """Refuse lazy arrays among xs: `rule` needs their values (it reads them when the code runs)."""
    for x in xs:
        if is_lazy(x):
            raise NeedsValues(
                f"adsrc's rule for {rule} needs the values of its argument, but it is a lazy "
                f"{type_name(type(x))} of shape {x.shape}, whose values are not known until it is computed. "
                "Rules that need values are data-dependent indexing (boolean masks, np.nonzero, np.where "
                "with one argument, np.unique), sorting and the like. Compute the array first "
                "(x.compute()) and differentiate the NumPy array, or rewrite the step without data-"
                "dependent shapes (np.where(mask, x, 0.0) instead of x[mask]).")


UNSUPPORTED = ("adsrc differentiates NumPy arrays and arrays whose type implements NumPy's __array_function__ "
               "and __array_ufunc__ protocols (Dask, CuPy). Arrays that only implement the array API standard "
               "(__array_namespace__: array_api_strict, PyTorch tensors) are not supported yet: convert them "
               "with np.asarray(x) or use the library's own autodiff.")


def unsupported_array(x):
    """The sentence explaining why an array-like argument x of another library is refused, or None."""
    t = type(x)
    if not hasattr(x, "shape") or isinstance(x, (_nd, np.generic)):
        return None
    missing = [p for p in ("__array_function__", "__array_ufunc__") if not hasattr(t, p)]
    if not missing and not hasattr(x, "dtype"):
        return f"it is an array of type {type_name(t)} without a dtype. {UNSUPPORTED}"
    if missing:
        return (f"it is an array of type {type_name(t)}, which does not implement {' and '.join(missing)}, so "
                f"the generated NumPy code cannot run on it. {UNSUPPORTED}")
    return None
