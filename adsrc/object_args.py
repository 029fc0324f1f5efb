"""Arguments that are functions, or objects of the user's own classes: they select the specialization.

`loss(x, model)` calls `model(x)` or `model.predict(x)`; `solve(x, f)` calls `f(x)`. adsrc follows
those calls when it knows, while transforming, the object's class or the function. The first call
that passes such a value to a parameter that is neither differentiated nor static changes the
gradient's key:
- an object: the parameter is keyed by `type(value)`, and its class goes to the transformation with
  the registered-pytree classes (pytree_nodes.CLASSES). The object itself stays an ordinary
  argument: a new model of the same class uses the same code;
- a function: the parameter becomes static (as if named in static_argnames).
"""

import functools
import inspect
import types

import numpy as np

from .keys import hashable
from .lowering.object_classes import is_library_object, is_user_function, user_class
from .tangents import NOT_OBJECTS

_PLAIN = NOT_OBJECTS + (np.ndarray, np.generic, types.BuiltinFunctionType, int, float, complex, str, bytes, bool,
                        list, tuple, dict, set, frozenset, type(None))
_LEAVES = frozenset({np.ndarray, float, int, complex, bool, str, type(None)})     # exactly these: neither class nor function


def object_class(value):
    """value's class if it is a class of the user's own code with methods or properties in Python, else None
    (an installed library's objects stay opaque: their methods may write through C code adsrc cannot see)."""
    if isinstance(value, _PLAIN) or not user_class(type(value)):
        return None
    cls = type(value)
    for k in cls.__mro__[:-1]:
        for attr in vars(k).values():
            if is_user_function(attr) or (isinstance(attr, property) and is_user_function(attr.fget)):
                return cls
    return None


def new_parameters(gradient, args, kwargs):
    """(typed, static): parameters neither differentiated, static nor typed yet that hold objects of the
    user's classes, and parameters neither differentiated nor static that hold functions, in this call."""
    sig = gradient._sig
    if not kwargs and len(args) == len(gradient._positional) == len(sig.parameters) and \
            all(type(a) in _LEAVES for a in args):
        return [], []       # every parameter passed, none an object or a function (binding is slow)
    try:
        bound = dict(sig.bind_partial(*args, **kwargs).arguments)
    except TypeError:
        return [], []
    for name, p in sig.parameters.items():      # `def loss(x, act=swish)`: a default the call leaves
        if name not in bound and p.default is not p.empty:
            bound[name] = p.default
    skip = set(gradient._wrt) | set(gradient._statics)
    functions, classes = constant_roles(
        (name, value) for name, value in bound.items()
        if name not in skip and sig.parameters[name].kind not in (inspect.Parameter.VAR_POSITIONAL,
                                                                  inspect.Parameter.VAR_KEYWORD))
    # (a parameter typed already that holds a function now becomes static: gradient.Gradient._learn_classes)
    return [n for n in classes if n not in gradient._typed], list(functions)


def left_defaults(function, passed):
    """(name, default) of function's parameters not in passed whose defaults are functions: static values
    (`def loss(x, act=swish)` called as loss(x))."""
    if type(function) is types.FunctionType and not hasattr(function, "__wrapped__") and \
            not hasattr(function, "__signature__") and \
            not any(is_function(d) or is_library_object(d)
                    for d in (*(function.__defaults__ or ()), *(function.__kwdefaults__ or {}).values())):
        return []           # (its own defaults are its signature's: none is a function; inspect.signature is slow)
    try:
        params = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return []
    return [(p.name, p.default) for p in params if p.name not in passed and p.default is not p.empty and
            p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and (is_function(p.default) or is_library_object(p.default))]


def is_function(value):
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType, functools.partial,
                          np.ufunc)):
        return True
    if not callable(value) or isinstance(value, type) or type(value).__module__.split(".")[0] != "numpy":
        return False
    from . import rules          # np.mean is an array-function dispatcher: a function with a rule
    return rules.lookup(value) is not None


def other_parameters(gradient):
    """[(position or None, name, default)] of the parameters neither differentiated, static nor typed (nor *args,
    **kwargs): a call passing an object of the user's class or a function there must miss the cache, so that
    the gradient learns it (keys.make_key_function)."""
    skip = set(gradient._wrt) | set(gradient._statics) | set(gradient._typed)
    out = []
    for name, p in gradient._sig.parameters.items():
        if name in skip or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        pos = gradient._positional.index(name) if name in gradient._positional else None
        out.append((pos, name, p.default))
    return out


_NO_ROLE = {}       # types whose objects take no role: not callable, not the user's classes (a few, bounded)


def new_role(value):
    """Would a parameter holding value be learned (new_parameters): a function, or an object of the user's class?
    (The key of every call asks of the values of types that are not plain: a generator passed to each call.)"""
    t = type(value)
    if t in _NO_ROLE:
        return False
    functions, classes = constant_roles([("value", value)])
    if functions or classes:
        return True
    if not callable(value):         # (callable and object_class depend on the type only)
        if len(_NO_ROLE) > 256:
            _NO_ROLE.clear()
        _NO_ROLE[t] = True
    return False


def typed_parameters(gradient, names):
    """[(position or None, name, default)] of the typed parameters, for keys.make_key_function."""
    out = []
    for name in names:
        p = gradient._sig.parameters[name]
        pos = gradient._positional.index(name) if name in gradient._positional else None
        out.append((pos, name, p.default if p.default is not inspect.Parameter.empty else None))
    return out


def constant_roles(items):
    """For (name, value) pairs of arguments that are not differentiated (adsrc.vjp, adsrc.jvp):
    ({name: function} to pass as static values, {name: class} of objects of the user's classes)."""
    functions, classes = {}, {}
    for name, value in items:
        if (is_function(value) or is_library_object(value)) and hashable(value):   # (a method of an unhashable
            # object is not a key; a module or a scipy.stats distribution is static like a function)
            functions[name] = value
        else:
            cls = object_class(value)
            if cls is not None:
                classes[name] = cls
    return functions, classes
