"""Arrays that implement only the array API standard (`__array_namespace__`), and code written against it.

NumPy's dispatch protocols do not reach an array_api_strict array (or a
PyTorch tensor): `np.sum(x)` would convert it to a NumPy array, or fail. Such
arrays are supported in three parts:

* lowering (lowering/namespaces.py): `xp = array_namespace(x)` and
  `xp = x.__array_namespace__()` are recognised, and `xp.NAME(...)` gets the
  NumPy rule of the same meaning (names.py). The forward pass keeps the call
  as written, so it runs in the argument's library.
* the backward pass (dispatch.py): when an argument of such a type is first
  seen, the runtime helpers and the `np` generated code calls learn to hand
  these arrays to a copy of the same helper code whose `np` is `shim.py`:
  NumPy's names implemented with the array's own namespace.
* the key: `("duck", type)` records the array type (kinds.py), as for duck arrays.

Only real floating-point arrays are differentiated this way (complex ones
are refused: the array API has no dtype `.kind` the helpers could read).
"""

import numpy as np

_nd = np.ndarray
TYPES = {}            # array type -> its namespace, filled as arguments are seen (see `namespace_of`)


def is_xp_array(x):
    """An array of another library that implements the array API but not NumPy's dispatch protocols."""
    t = type(x)
    if t in TYPES:
        return True
    if t is _nd or isinstance(x, np.generic) or not hasattr(x, "shape") or not hasattr(x, "dtype"):
        return False
    if hasattr(t, "__array_function__") and hasattr(t, "__array_ufunc__"):
        return False         # a duck array: NumPy's functions reach it (arrays.py)
    return hasattr(t, "__array_namespace__") or _compat_namespace(x) is not None


def _compat_namespace(x):
    """array_api_compat's namespace for x (PyTorch tensors have no __array_namespace__), or None."""
    try:
        import array_api_compat
    except ImportError:
        return None
    try:
        return array_api_compat.array_namespace(x)
    except TypeError:
        return None


def namespace_of(x):
    """The namespace of an array-API array (cached by type)."""
    t = type(x)
    ns = TYPES.get(t)
    if ns is None:
        ns = _compat_namespace(x)
        if ns is None:
            ns = x.__array_namespace__()
        TYPES[t] = ns
    return ns


def usable(x):
    """Whether x's namespace is one adsrc can use (it answers isdtype and has float64)."""
    try:
        xp = namespace_of(x)
    except Exception:
        return False
    return hasattr(xp, "isdtype") and hasattr(xp, "float64")


def is_real_floating(x):
    """Whether an array-API array has a real floating-point dtype."""
    xp = namespace_of(x)
    try:
        return bool(xp.isdtype(x.dtype, "real floating"))
    except (AttributeError, TypeError):
        return x.dtype in (getattr(xp, "float32", None), getattr(xp, "float64", None))


def accept(x):
    """Register x's type for the backward pass (dispatch.py)."""
    namespace_of(x)
    from . import dispatch
    dispatch.install()
