"""An on-disk cache of compiled kernels, across processes (opt-in: the ADSRC_CACHE_DIR environment variable).

numba compiles a gradient's kernels in seconds, in every new process. With
ADSRC_CACHE_DIR set, each unit's source is written to a file of that directory
named by a fingerprint of everything its compiled code depends on, and numba
caches the compiled code beside it (`cache=True`), so a later process loads
it instead of compiling.

numba's own cache is keyed on a function's bytecode only, not on the
functions it calls or the globals it reads. The file's name is what keeps a
cached kernel from being stale. It covers:

* the unit's source, which names every function it calls;
* the fingerprints of the kernels it calls (other units' files);
* adsrc's own source (the helpers' numba versions), and the versions of
  Python, NumPy and numba;
* every other module and function the kernels read: a module by its name and
  version, a NumPy or builtin function by its name.

The globals and closure values the kernels read are passed in when they run
(live_names.py), so they are not part of the compiled code. A unit that reads
anything else (a function of the user's compiled by numba itself, say) is not
cached: it compiles as without the cache.
"""

import ast
import functools
import hashlib
import inspect
import logging
import os
import sys

import numba
import numpy as np

from . import live_names

ENV = "ADSRC_CACHE_DIR"
LOG = logging.getLogger("adsrc")
_STANDARD = ("numpy", "math", "cmath", "builtins", "operator", "_operator")


def directory():
    """The cache's directory, or None (no cache)."""
    return os.environ.get(ENV) or None


@functools.lru_cache(maxsize=1)
def environment():
    """A hash of adsrc's source and of the versions of Python, NumPy and numba."""
    h = hashlib.sha256(f"{sys.version}|{np.__version__}|{numba.__version__}".encode())
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for folder, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(f for f in files if f.endswith(".py")):
            with open(os.path.join(folder, name), "rb") as fh:
                h.update(name.encode() + fh.read())
    return h.hexdigest()


def _describe(value):
    """How a value a kernel reads is told apart across processes, or None when it cannot be."""
    key = getattr(value, "adsrc_cache_key", None)
    if key is not None:
        return "kernel " + key                  # a kernel of another unit, cached under that name
    if inspect.ismodule(value):
        return f"module {value.__name__} {getattr(value, '__version__', '')}"
    module = getattr(value, "__module__", None) or ""
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if name and (module.split(".")[0] in _STANDARD or module.startswith("adsrc.")
                 or type(value).__name__ in ("ufunc", "builtin_function_or_method")):
        return f"function {module}.{name}"
    return None


def fingerprint(text, ns):
    """The name of text's cache file (a hex digest), or None when something it reads cannot be told apart."""
    h = hashlib.sha256(environment().encode() + text.encode())
    tree = ast.parse(text)
    kernels = [f for f in tree.body if isinstance(f, ast.FunctionDef) and f.decorator_list]
    names = sorted({name for f in kernels for name in live_names.free_names(f)})
    for name in names:
        if name not in ns:
            continue                            # a builtin
        described = _describe(ns[name])
        if described is None:
            return None
        h.update(f"|{name}={described}".encode())
    return h.hexdigest()[:32]


def cached(text, key):
    """(the text numba compiles, with its kernels cached, and the path of the file it is in), or None when the
    directory cannot be written (then nothing is cached)."""
    text = text.replace("@numba.njit\n", "@numba.njit(cache=True)\n")
    path = os.path.join(directory(), f"adsrc_{key}.py")
    try:
        if not os.path.exists(path):
            os.makedirs(directory(), exist_ok=True)
            partial = f"{path}.{os.getpid()}"
            with open(partial, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(partial, path)       # whole, or not there: another process may read it now
    except OSError as e:
        LOG.debug("adsrc: %s=%s cannot be written (%s): the kernels are not cached", ENV, directory(), e)
        return None
    return text, path
