"""The `np` that generated code calls: NumPy, with the few functions duck arrays lack made to work on them.

Generated code is NumPy source, and NumPy hands a call on a duck array
(arrays.py) to the array's library through `__array_function__`. A library
may not implement every function: Dask has no `size`, `copy`, `iscomplexobj`
or `amax`, and falls back to computing the array (a warning, and all of the
data in memory). The facade is a module object holding every NumPy name,
except that those few read the array's attributes instead when given a duck
array. On NumPy values each is NumPy's own function, so the generated source
reads (and, for NumPy arrays, runs) as plain NumPy.
"""

import types

import numpy as np

from .arrays import is_duck

_nd = np.ndarray


def size(a, axis=None):
    if type(a) is _nd or not is_duck(a):
        return np.size(a, axis)
    return a.size if axis is None else a.shape[axis]


def copy(a, *args, **kwargs):
    if type(a) is _nd or not is_duck(a):
        return np.copy(a, *args, **kwargs)
    return a.copy()


def iscomplexobj(x):
    if is_duck(x):
        return np.dtype(x.dtype).kind == "c"
    return np.iscomplexobj(x)


def amax(a, *args, **kwargs):
    return np.max(a, *args, **kwargs)


def amin(a, *args, **kwargs):
    return np.min(a, *args, **kwargs)


OVERRIDES = {"size": size, "copy": copy, "iscomplexobj": iscomplexobj, "amax": amax, "amin": amin}


def _make():
    module = types.ModuleType("numpy", "NumPy, as generated code sees it (adsrc/facade.py)")
    module.__dict__.update({k: v for k, v in np.__dict__.items() if not k.startswith("__")})
    module.__dict__.update(OVERRIDES)
    module.__getattr__ = lambda name: getattr(np, name)      # NumPy's lazily loaded submodules
    return module


NUMPY = _make()
