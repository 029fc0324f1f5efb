"""Differentiating a function that takes *args or **kwargs.

adsrc transforms functions with named parameters. A call of `f(*args)` with
three positional arguments is the call of a small function with three named
parameters that passes them on,

    def call_f(arg0, arg1, arg2):
        return fn(arg0, arg1, arg2)         # fn: f, a global of this copy of the function

which adsrc differentiates like any other (it follows *args into `f`), to any
order: its gradient is a gradient of a plain function. As in
JAX, `argnums` counts the call's positional arguments; each number of
arguments (and each set of keyword names) is its own specialization.
"""

import builtins
import functools
import keyword
import linecache
import threading
import types

from . import frontend
from .cache import CacheInfo

_WRAPPERS = {}
_LOCK = threading.Lock()


def takes_varargs(function):
    try:
        params = frontend.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


def wrapper(n, names=(), nfixed=0, fixed_names=(), params=None):
    """`def call_with_args(arg0, ..., *, name=...)` calling the global fn with them (one per shape of call),
    after nfixed positional arguments and the keywords fixed_names that globals hold (`fixed0`, ...,
    `fixed_<name>`: what a bound method or partial fixes). params: the positional parameters' names
    (arg0, ... by default)."""
    key = (n, tuple(names), nfixed, tuple(fixed_names), None if params is None else tuple(params))
    with _LOCK:
        if key not in _WRAPPERS:
            _WRAPPERS[key] = _make_wrapper(*key)
        return _WRAPPERS[key]


def _make_wrapper(n, names, nfixed, fixed_names, params):
    positional = list(params) if params is not None else [f"arg{i}" for i in range(n)]
    clash = [k for k in names if k in positional or not k.isidentifier() or keyword.iskeyword(k)]
    if clash:
        raise TypeError(f"adsrc cannot pass the keyword argument `{clash[0]}` on to a function taking **kwargs; "
                        "rename it")
    taken = set(positional) | set(names)
    fn, fixed = _free_name("fn", taken), _free_name("fixed", taken)
    signature = ", ".join(positional + (["*"] + list(names) if names else []))
    args = ", ".join([f"{fixed}{i}" for i in range(nfixed)] + positional +
                     [f"{k}={fixed}_{k}" for k in fixed_names] + [f"{k}={k}" for k in names])
    source = f"def call_with_args({signature}):\n    return {fn}({args})\n"
    after = f", after {nfixed + len(fixed_names)} fixed" if nfixed or fixed_names else ""
    filename = f"<adsrc: call with {n} positional argument{'s' if n != 1 else ''}" + \
               (f" and {', '.join(names)}" if names else "") + after + (f" ({signature})" if params else "") + ">"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)
    made = namespace["call_with_args"]
    made.globals_names = (fn, fixed)        # what bound() and with_fixed() give its copies as globals
    return made


def _free_name(stem, taken):
    while stem in taken or any(t.startswith(stem) for t in taken):
        stem += "_"
    return stem


def _table(fun):
    """The wrappers made for fun, kept in fun's own __dict__: a wrapper holds fun (its global `fn`), and the
    cycle fun -> table -> wrapper -> fun is one the collector frees (a weak-keyed table would keep fun alive
    through its value). Callables without a function's __dict__ get a fresh table (nothing kept)."""
    if isinstance(fun, types.FunctionType):
        with _LOCK:
            return fun.__dict__.setdefault("_adsrc_wrappers", {})
    return {}


def bound(fun, n, names=()):
    """fun as a function of n positional arguments (and the keywords `names`): a copy of the wrapper named
    after fun (`call_f`) whose global `fn` is fun, the same one each time (its derivatives are cached)."""
    key = (n, tuple(names))
    table = _table(fun)
    with _LOCK:
        made = table.get(key)
    if made is None:
        template = wrapper(n, names)
        name = getattr(fun, "__name__", "function")
        made = types.FunctionType(template.__code__, {template.globals_names[0]: fun, "__builtins__": builtins},
                                  "call_" + name)
        made.__qualname__ = getattr(fun, "__qualname__", name)     # messages name the user's function
        with _LOCK:
            made = table.setdefault(key, made)
    return made


def with_fixed(fun, fixed, fixed_kw, params, names):
    """A plain function of the positional parameters `params` (and keywords `names`) calling fun after the
    positional arguments `fixed` and the keywords `fixed_kw`: the generated gradient of a bound method or a
    partial, made a plain function that adsrc can differentiate again (one per function and call shape)."""
    fixed_names = tuple(k for k in fixed_kw if k not in names)
    key = ("fixed", tuple(params), tuple(names), tuple(map(id, fixed)),
           tuple((k, id(fixed_kw[k])) for k in fixed_names))
    table = _table(fun)
    with _LOCK:
        made = table.get(key)
    if made is None:
        template = wrapper(len(params), names, len(fixed), fixed_names, params)
        fn, prefix = template.globals_names
        namespace = {fn: fun, "__builtins__": builtins, **{f"{prefix}{i}": v for i, v in enumerate(fixed)},
                     **{f"{prefix}_{k}": fixed_kw[k] for k in fixed_names}}
        made = types.FunctionType(template.__code__, namespace, "call_" + getattr(fun, "__name__", "function"))
        made.__qualname__ = getattr(fun, "__qualname__", made.__name__)
        with _LOCK:
            made = table.setdefault(key, made)
    return made


class VarargsGradient:
    """grad(f) for f taking *args/**kwargs: a gradient per shape of call (number of arguments, keywords)."""

    def __init__(self, make, fun, options):
        self.fun, self._make, self.options = fun, make, options
        self._by_shape = {}
        functools.update_wrapper(self, fun, updated=())
        self._adsrc_derivative = f"adsrc.grad({getattr(fun, '__qualname__', fun)})"

    def _for(self, args, kwargs):
        names = tuple(sorted(kwargs))
        key = (len(args), names)
        with _LOCK:
            g = self._by_shape.get(key)
        if g is None:
            g = self._make(bound(self.fun, len(args), names))
            with _LOCK:
                g = self._by_shape.setdefault(key, g)
        return g

    def __call__(self, /, *args, **kwargs):
        return self._for(args, kwargs)(*args, **kwargs)

    # higher order: the gradient for a shape of call is a gradient of a plain function (call_f)
    def _adsrc_resolve(self, args, kwargs):
        return self._for(args, kwargs)._adsrc_resolve(args, kwargs)

    def _adsrc_for_call(self, n, names):
        """The gradient for a call with n positional arguments and these keyword names."""
        return self._for((None,) * n, dict.fromkeys(names))

    def source(self, /, *args, stage="adjoint", **kwargs):
        return self._for(args, kwargs).source(*args, stage=stage, **kwargs)

    def cache_info(self):
        """The specializations of every shape of call, added up."""
        infos = [g.cache_info() for g in self._by_shape.values()]
        return CacheInfo(sum(i.hits for i in infos), sum(i.misses for i in infos),
                         infos[0].maxsize if infos else self.options.get("cache_size"),
                         sum(i.currsize for i in infos))

    def cache_clear(self):
        for g in self._by_shape.values():
            g.cache_clear()

    def __repr__(self):
        return f"<adsrc gradient of {getattr(self.fun, '__qualname__', self.fun)} (*args)>"
