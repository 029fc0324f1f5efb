"""autograd.numpy (and autograd.scipy) in code adsrc differentiates: `import autograd.numpy as np`.

autograd wraps each NumPy function as a primitive holding the function in `.fun`, and writes a few others
(`np.concatenate`, `np.stack`, `np.array`) in terms of its primitives. adsrc differentiates NumPy itself, so
a primitive means the function it wraps and a written one the NumPy function of its name; everything else
(the modules, constants) is as autograd defines it.
"""

import sys
import types


def numpy_function(obj):
    """The NumPy (or SciPy) function an autograd.numpy callable stands for, else obj."""
    if isinstance(obj, types.FunctionType) and getattr(obj, "_is_autograd_primitive", False):
        fun = getattr(obj, "fun", None)
        return fun if callable(fun) else obj
    module = getattr(obj, "__module__", None) or ""
    if isinstance(obj, types.FunctionType) and module.startswith("autograd.numpy"):
        return _by_name(obj)
    return obj


def _by_name(obj):
    import numpy as np
    wrappers = sys.modules.get("autograd.numpy")
    for owner, target in ((wrappers, np), (getattr(wrappers, "linalg", None), np.linalg),
                          (getattr(wrappers, "fft", None), np.fft)):
        for name, value in vars(owner or types.SimpleNamespace()).items():
            if value is obj and callable(getattr(target, name, None)):
                return getattr(target, name)
    return obj
