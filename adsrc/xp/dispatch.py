"""The backward pass on array-API arrays: the runtime helpers and `np` hand such arrays to array-API code.

Installed once, when the first array-API argument is seen (`install`), so
programs on NumPy arrays never pay for it until then; generated code is
compiled once for every array type with the same abstract values, so the
compiled code is forgotten then (it bound the helpers themselves). Each helper in runtime.HELPERS
becomes a dispatcher: when one of its arguments is an array-API array (xp/),
it calls a copy of the same function whose module globals bind `np` to
NumpyOver(xp) (shim.py) and `is_duck` to a test that also accepts these
arrays (so the helpers keep them as they are, as they keep Dask arrays);
otherwise it calls the helper itself. The facade `np` generated code calls
(facade.py) gets the same treatment per NumPy function.

A dispatcher stands for its helper: it has the helper's rule
(`_adsrc_numpy_helper` leads lowering back to the helper itself, so a
gradient's source is differentiated again as before).
"""

import functools
import sys
import threading
import types

import numpy as np

from .. import arrays
from ..keys import hashable
from . import TYPES, is_xp_array
from .helpers import REPLACED
from .shim import NumpyOver

_lock = threading.RLock()
_installed = False
_rebound = {}         # namespace -> {id(function): copy with array-API globals}


def _duck_or_xp(x):
    return arrays.is_duck(x) or is_xp_array(x)


def _find(args, kwargs):
    """The namespace of the first array-API array among the arguments (one level into tuples), or None."""
    for a in args:
        t = type(a)
        if t in TYPES:
            return TYPES[t]
        if t is tuple or t is list:
            for b in a:
                if type(b) in TYPES:
                    return TYPES[type(b)]
    for a in kwargs.values():
        if type(a) in TYPES:
            return TYPES[type(a)]
    return None


def _adsrc_modules():
    return [m for name, m in list(sys.modules.items())
            if m is not None and name.startswith("adsrc.") and not name.startswith("adsrc.xp")]


def rebound(ns):
    """{id(helper): helper with array-API globals} for namespace ns (built once per namespace)."""
    table = _rebound.get(ns)
    if table is not None:
        return table
    with _lock:
        if ns in _rebound:
            return _rebound[ns]
        shim = NumpyOver(ns)
        modules = _adsrc_modules()
        new_globals = {}
        for m in modules:
            g = new_globals[m.__name__] = dict(m.__dict__)
            if g.get("np") is np:
                g["np"] = shim
            if "is_duck" in g:
                g["is_duck"] = _duck_or_xp
        table = {}

        def copy(fn):
            if id(fn) in table:
                return table[id(fn)]
            g = new_globals.get(getattr(fn, "__module__", None))
            if g is None or not isinstance(fn, types.FunctionType):
                return fn
            replaced = REPLACED.get(fn.__name__)
            if replaced is not None and replaced[0] == fn.__module__:
                table[id(fn)] = replaced[1]
                return replaced[1]
            cells = None
            if fn.__closure__:
                table[id(fn)] = fn          # (a closure that reaches itself keeps the original)
                cells = tuple(_cell(c, copy) for c in fn.__closure__)
            new = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, cells)
            table[id(fn)] = new
            new.__kwdefaults__ = fn.__kwdefaults__
            new.__qualname__ = fn.__qualname__
            new.__dict__.update(fn.__dict__)
            return new

        for g in new_globals.values():
            for k, v in list(g.items()):
                if isinstance(v, types.FunctionType):
                    g[k] = copy(v)
        table["copy"] = copy
        _rebound[ns] = table
        return table


def rebound_function(ns, fn):
    """fn running with array-API globals for namespace ns (helpers that live only in HELPERS: closures)."""
    table = _rebound.get(ns) or rebound(ns)
    new = table.get(id(fn))
    if new is None:
        with _lock:
            new = table["copy"](fn)
    return new


def _cell(c, copy):
    try:
        value = c.cell_contents
    except ValueError:
        return c
    return types.CellType(copy(value)) if isinstance(value, types.FunctionType) else c


def _dispatcher(fn):
    @functools.wraps(fn)
    def dispatch(*args, **kwargs):
        ns = _find(args, kwargs)
        if ns is None:
            return fn(*args, **kwargs)
        return rebound_function(ns, fn)(*args, **kwargs)
    dispatch._adsrc_numpy_helper = fn
    del dispatch.__wrapped__
    return dispatch


def _facade_dispatcher(name, fn):
    def dispatch(*args, **kwargs):
        ns = _find(args, kwargs)
        if ns is None:
            return fn(*args, **kwargs)
        return getattr(_shim(ns), name)(*args, **kwargs)
    dispatch.__name__ = dispatch.__qualname__ = name
    dispatch._adsrc_numpy_helper = fn
    if isinstance(fn, np.ufunc):          # np.add.reduce(a), np.add.at(...): the ufunc's own methods (NumPy's)
        for attr in _UFUNC_ATTRIBUTES:
            setattr(dispatch, attr, getattr(fn, attr))
    return dispatch


_UFUNC_ATTRIBUTES = ("reduce", "accumulate", "reduceat", "outer", "at", "nin", "nout", "nargs", "identity",
                     "signature")
_shims = {}


def _shim(ns):
    s = _shims.get(ns)
    if s is None:
        s = _shims[ns] = NumpyOver(ns)
    return s


def install():
    """Make runtime helpers and the facade `np` dispatch on array-API arrays (once)."""
    global _installed
    if _installed:
        return
    with _lock:
        if _installed:
            return
        from .. import facade, runtime
        from .. import rules as rules_mod
        for name, fn in list(runtime.HELPERS.items()):
            if isinstance(fn, types.FunctionType) and getattr(fn, "_adsrc_numpy_helper", None) is None:
                d = runtime.HELPERS[name] = _dispatcher(fn)
                rule = rules_mod.FUNCTIONS.get(fn)
                if rule is not None:
                    rules_mod.FUNCTIONS[d] = rule
        module = facade.NUMPY
        for name, fn in list(module.__dict__.items()):
            if name.startswith("_") or isinstance(fn, (type, types.ModuleType)) or not callable(fn):
                continue
            d = _facade_dispatcher(name, fn)
            rule = rules_mod.FUNCTIONS.get(fn) if hashable(fn) else None
            if rule is not None:
                rules_mod.FUNCTIONS[d] = rule
            module.__dict__[name] = d
        _installed = True
    from .. import transform
    transform.clear_caches()     # generated code compiled before bound the helpers themselves: compile again
