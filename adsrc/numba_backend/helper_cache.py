"""adsrc's numba helpers compiled once per machine, not once per process.

A kernel calls a few dozen helpers (helpers.py, rule_helpers.py, shapes.py,
products.py), and numba compiles each one for each signature it meets, at
0.1-0.4 s apiece: most of a new process's compile time. They are adsrc's own
code, the same for every user function, so numba caches their compiled code
on disk (`cache=True`) and a later process loads it. The kernels themselves,
compiled from the user's code, are cached only when asked (disk_cache.py).

numba's own cache checks a function's source file only, not the helpers it
calls from other files. Here the directory is named by a hash of all of
adsrc's source and the versions of Python, NumPy and numba (the one
disk_cache.py uses), so any change to adsrc gets a new directory and nothing
compiled from older code is loaded.

The directory is `helpers-<hash>` under ADSRC_HELPER_CACHE when that names a
directory, else under ADSRC_CACHE_DIR when that is set, else under the user's
cache directory (`~/.cache/adsrc` on Linux). ADSRC_HELPER_CACHE=0 turns it
off; so does a directory that cannot be written. The directories of the four
versions used last are kept, older ones removed.
"""

import os
import shutil
import tempfile

from numba.core import caching
from numba.extending import overload as numba_overload
from numba.extending import register_jitable as numba_register_jitable
from numba.misc.appdirs import AppDirs

from . import disk_cache

ENV = "ADSRC_HELPER_CACHE"
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))     # adsrc/


def _directory():
    """The directory the helpers are cached in, made if need be, or None (not cached)."""
    setting = os.environ.get(ENV, "").strip()
    if setting.lower() in ("0", "false", "no", "off"):
        return None
    named = setting if setting and setting.lower() not in ("1", "true", "yes", "on") else None
    root = named or disk_cache.directory() or AppDirs("adsrc", appauthor=False).user_cache_dir
    path = os.path.join(root, "helpers-" + disk_cache.environment()[:20])
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
        os.utime(path)                      # (used now: the newest are kept)
    except OSError:
        return None
    _forget_older(root, path)
    return path


KEPT = 4        # directories of other versions of adsrc kept (several installs may share a machine)


def _forget_older(root, path):
    """Remove all but the KEPT most recently used helper directories of other versions of adsrc."""
    try:
        others = [os.path.join(root, d) for d in os.listdir(root) if d.startswith("helpers-")]
        others = sorted((d for d in others if d != path), key=os.path.getmtime, reverse=True)
        for old in others[KEPT:]:
            shutil.rmtree(old, ignore_errors=True)
    except OSError:
        pass


_IMPL = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)   # (renamed in numba 0.62)
DIRECTORY = _directory() if _IMPL is not None and hasattr(caching, "_CacheLocator") else None


class _HelperLocator(getattr(caching, "_CacheLocator", object)):
    """Where numba caches a function of adsrc's package: DIRECTORY, whose name already says which source."""

    def __init__(self, py_func):
        self._lineno = py_func.__code__.co_firstlineno

    def get_cache_path(self):
        return DIRECTORY

    def get_source_stamp(self):
        return disk_cache.environment()

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        if DIRECTORY and os.path.abspath(py_file).startswith(PACKAGE + os.sep):
            return cls(py_func)
        return None             # someone else's function: numba's own locators


if DIRECTORY and _HelperLocator not in _IMPL._locator_classes:
    _IMPL._locator_classes.insert(0, _HelperLocator)


def overload(func, jit_options=None, **options):
    """numba's `overload`, its implementations cached in DIRECTORY."""
    if DIRECTORY:
        jit_options = dict(jit_options or {}, cache=True)
    return numba_overload(func, jit_options=jit_options or {}, **options)


def register_jitable(*args, **options):
    """numba's `register_jitable` (bare or with options), cached in DIRECTORY."""
    if DIRECTORY:
        options["cache"] = True
    if not options:         # (numba's takes its options only as keywords, the function only alone)
        return numba_register_jitable(*args) if args else numba_register_jitable
    return numba_register_jitable(**options)(*args) if args else numba_register_jitable(**options)
