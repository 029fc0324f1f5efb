"""Callables that are not plain functions: bound methods, callable objects and functools.partial.

Each is differentiated as its underlying Python function with some arguments
fixed in front (the object for `self`, the partial's positional arguments)
or by keyword (the partial's keywords). As in JAX, `argnums` counts the
arguments of the call, after the fixed ones, and fixed arguments are
constants: they are never differentiated.

A fixed argument is passed to the generated code in one of two ways:

* data (arrays, floats, and containers holding them, lists and dicts): an
  ordinary argument that is not differentiated, read when the code runs;
* known (everything else: `self`, functions, ints, strings, objects): a
  static argument keyed by identity, known when transforming, so
  `self.helper(x)` or `act(x)` is a call adsrc can follow and `range(n)`
  has a constant length.
"""

import dataclasses
import functools
import inspect
import types

import numpy as np

from . import frontend
from .kinds import describe

DATA, KNOWN = "data", "known"


@dataclasses.dataclass
class Fixed:
    """One argument fixed by the callable: its parameter name, value and how it is passed."""
    name: str
    value: object
    role: str


class Split:
    """A callable seen as a Python function and the arguments fixed in front of or besides the call's."""

    def __init__(self, function, positional=(), keywords=None, what=None):
        self.function = function
        self.positional = list(positional)     # [Fixed], in order, before the call's positional arguments
        self.keywords = dict(keywords or {})   # name -> Fixed
        self.what = what                       # 'a bound method', 'a functools.partial' ... or None

    @property
    def fixed(self):
        return self.positional + list(self.keywords.values())

    def known(self):
        return {f.name: f.value for f in self.fixed if f.role == KNOWN}


def split(fun):
    """How to differentiate fun: a Split (with nothing fixed for plain functions)."""
    if frontend.is_gradient(fun):
        return Split(fun)             # refused where it is used: a derivative of a derivative
    from .checkpoint import Checkpointed
    if isinstance(fun, Checkpointed):
        return split(fun.fun)         # checkpointing all of the differentiated function changes nothing
    if isinstance(fun, functools.partial):
        wrapper = _rule_partial(fun)
        if wrapper is not None:
            return Split(wrapper, what="a functools.partial of a function with a rule")
        inner = split(fun.func)
        params = _positional_params(inner.function, fun)
        start = len(inner.positional)
        if start + len(fun.args) > len(params):
            raise TypeError(f"{_partial_text(fun)} binds {len(fun.args)} positional argument"
                            f"{'s' if len(fun.args) != 1 else ''}, but `{_name(inner.function)}` has only "
                            f"{len(params) - start} named positional parameter"
                            f"{'s' if len(params) - start != 1 else ''} to take them "
                            f"({', '.join(params[start:]) or 'none'}); adsrc differentiates named parameters, "
                            "not *args.")
        positional = inner.positional + [Fixed(params[start + i], v, _role(v)) for i, v in enumerate(fun.args)]
        names = _all_params(inner.function)
        keywords = dict(inner.keywords)
        for k, v in fun.keywords.items():
            if k not in names:
                raise TypeError(f"{_partial_text(fun)} binds the keyword `{k}`, which is not a named parameter of "
                                f"`{_name(inner.function)}`; adsrc differentiates named parameters, not **kwargs.")
            keywords[k] = Fixed(k, v, _role(v))
        return Split(inner.function, positional, keywords, "a functools.partial")
    wrapper = _rule_wrapper(fun)
    if wrapper is not None:
        return Split(wrapper, what="a function with a rule")
    if isinstance(fun, types.MethodType) and isinstance(frontend.unwrap(fun.__func__), types.FunctionType):
        first = _first_param(fun.__func__)
        return Split(fun.__func__, [Fixed(first, fun.__self__, KNOWN)], what="a bound method")
    call = _python_call(fun)
    if isinstance(call, staticmethod):
        return Split(call.__func__, what="a callable object")
    if call is not None:
        first = _first_param(call)
        return Split(call, [Fixed(first, fun, KNOWN)], what="a callable object")
    return Split(fun)


_fn = None       # the function a rule wrapper calls: each wrapper has its own globals holding it


def _apply1(x):
    return _fn(x)


def _apply2(x, y):
    return _fn(x, y)


def _apply3(x, y, z):
    return _fn(x, y, z)


def _rule_wrapper(fun):
    """grad(np.sqrt): a function adsrc has a rule for but no source is called by a Python function
    of as many arguments as it requires (a ufunc's inputs), which adsrc differentiates as usual (to any
    order: nothing is fixed in front of the call). The wrapper finds the function as `_fn` in its globals.
    A Python function with a rule (SciPy's logsumexp) is called by one passing on any arguments: its rule
    is used, not its source."""
    from . import rules
    if rules.lookup(fun) is None:
        return None
    if isinstance(fun, (types.FunctionType, types.MethodType)):     # Python code with a rule (SciPy's logsumexp,
        return _passing_on(fun)                                      # scipy.stats.norm.logpdf)
    if isinstance(fun, np.ufunc):
        n = fun.nin
    else:
        try:
            params = inspect.signature(fun).parameters.values()
        except (TypeError, ValueError):
            params = None
        if params is not None and getattr(fun, "__name__", "").isidentifier():
            # np.trace(a, offset=1), np.einsum(spec, *ops): the call's other arguments passed on, by the
            # rule's own signature
            return _passing_on(fun)
        n = 1
    template = {1: _apply1, 2: _apply2, 3: _apply3}.get(max(n, 1))
    if template is None:
        return None
    name = getattr(fun, "__name__", template.__name__)
    wrapper = types.FunctionType(template.__code__, {**template.__globals__, "_fn": fun}, name)
    wrapper.__qualname__ = getattr(fun, "__name__", template.__name__)    # errors name `sqrt`
    return wrapper


def _rule_partial(partial):
    """`functools.partial(np.sum, axis=0)` or `partial(logsumexp, b=w)` of a function adsrc has a rule for and
    no source of: a Python function of the remaining required parameters that calls it with the partial's
    arguments, each a global of its own (`def sum(a): return _fn(a, axis=_axis)`), so the rule binds them by
    name. None for a partial of anything else."""
    from . import rules
    from .frontend.source import define
    fun = partial.func
    if isinstance(fun, functools.partial) or rules.lookup(fun) is None or \
            not all(isinstance(k, str) and k.isidentifier() for k in partial.keywords):
        return None
    if isinstance(fun, np.ufunc):
        params = [f"x{i}" for i in range(fun.nin)]
    else:
        try:
            params = [p.name for p in inspect.signature(fun).parameters.values()
                      if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            params = ["x"]
    params = [p for p in params if p != "self"][len(partial.args):] or ["x"]
    values = {f"_arg{i}": v for i, v in enumerate(partial.args)}
    values.update({f"_kw_{k}": v for k, v in partial.keywords.items()})
    call = ", ".join(list(values)[:len(partial.args)] + params +
                     [f"{k}=_kw_{k}" for k in partial.keywords])
    name = getattr(fun, "__name__", "fun")
    name = name if name.isidentifier() else "fun"
    source = f"def {name}({', '.join(params)}):\n    return _fn({call})\n"
    return define(source, name, {"__name__": "adsrc_rule_call", "_fn": fun, **values}, f"partial of {name}")


def _passing_on(fun):
    """_made_passing_on(fun), once per function (its gradients are then made and cached once)."""
    try:
        return _passing_on_once(fun)
    except TypeError:         # a bound method of an object that cannot be hashed
        return _made_passing_on(fun)


@functools.lru_cache(maxsize=256)
def _passing_on_once(fun):
    return _made_passing_on(fun)


def _made_passing_on(fun):
    """`def name(a, b, *args, **kwargs): return fun(a, b, *args, **kwargs)` with fun's required positional
    parameters, from registered source, so that adsrc transforms it and calls fun by its rule."""
    from .frontend.source import define
    params = [p.name for p in inspect.signature(fun).parameters.values()
              if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    name = fun.__name__ if fun.__name__.isidentifier() else "fun"
    head = "".join(p + ", " for p in params if p != "self")
    source = f"def {name}({head}*args, **kwargs):\n    return _fn({head}*args, **kwargs)\n"
    return define(source, name, {"__name__": "adsrc_rule_call", "_fn": fun}, f"call of {name}")


def _python_call(obj):
    """The Python `__call__` function of a callable object's class (or its staticmethod), or None."""
    from .custom import custom_vjp
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type, custom_vjp,
                        np.ufunc, np.vectorize)):
        return None
    try:
        call = inspect.getattr_static(type(obj), "__call__")
    except AttributeError:
        return None
    if isinstance(call, staticmethod) and isinstance(call.__func__, types.FunctionType):
        return call
    return call if isinstance(call, types.FunctionType) else None


def _first_param(function):
    params = list(frontend.signature(function).parameters.values())
    if not params or params[0].kind not in (inspect.Parameter.POSITIONAL_ONLY,
                                            inspect.Parameter.POSITIONAL_OR_KEYWORD):
        raise TypeError(f"`{_name(function)}` takes no positional parameter for its object (`self`)")
    return params[0].name


def _positional_params(function, partial):
    try:
        sig = frontend.signature(function)
    except (TypeError, ValueError):
        raise TypeError(f"adsrc cannot read the parameters of the function in {_partial_text(partial)}") from None
    return [p.name for p in sig.parameters.values()
            if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]


def _all_params(function):
    return {p.name for p in frontend.signature(function).parameters.values()
            if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD,
                              inspect.Parameter.POSITIONAL_ONLY)}


def _role(value):
    """DATA for arrays, floats and mutable or float-holding containers; KNOWN for the rest."""
    if isinstance(value, (np.ndarray, float, complex, np.floating, np.complexfloating)):
        return DATA
    if isinstance(value, (list, dict, set)):
        return DATA      # may change after the partial was made: read when the code runs
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return DATA if type(value).__hash__ is None or _holds_data(value) else KNOWN
    if isinstance(value, (tuple, frozenset)):
        return DATA if _holds_data(value) else KNOWN
    return KNOWN


def _holds_data(value):
    if isinstance(value, (np.ndarray, float, complex, np.floating, np.complexfloating, list, dict, set)):
        return True
    if isinstance(value, (tuple, frozenset)):
        return any(_holds_data(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(_holds_data(getattr(value, f.name)) for f in dataclasses.fields(value))
    return False


def _name(function):
    return getattr(function, "__qualname__", None) or type(function).__name__


def _partial_text(p):
    """functools.partial(f, ...) described without printing its arguments' values."""
    parts = [_name(p.func)] + [describe(a) for a in p.args] + [f"{k}={describe(v)}" for k, v in p.keywords.items()]
    return "functools.partial(" + ", ".join(parts) + ")"


def name_of(fun):
    """A readable name for any callable, without printing bound values."""
    if isinstance(fun, functools.partial):
        return _partial_text(fun)
    if isinstance(fun, types.MethodType):
        return _name(fun.__func__)
    if _python_call(fun) is not None:
        return f"{type(fun).__qualname__} object"
    return getattr(fun, "__qualname__", None) or describe(fun)
