"""The callable adsrc.grad returns for a Python function: it checks and keys its arguments, finds or builds the
specialization, and calls it (FixedGradient in fixed_gradients.py wraps it for bound methods and partials).

Argument kinds and static keys are in kinds.py, what the specialization caches hold in entries.py.
"""

import functools
import inspect
import numbers
import types

import numpy as np

from . import entries, frontend, keys, numba_backend, object_args, pytree_nodes, transform
from .cache import DEFAULT_MAXSIZE, SpecializationCache
from .custom import custom_vjp
from .display import Source, lowered_source, unit_source
from .errors import transform_error
from .checkpoint import loop_policy
from .generated_errors import annotate
from .kinds import GENERAL, arg_kind, describe, show_static, static_key, static_snapshot

_nd = np.ndarray
_ARRAY_KEY = ("array",)
_SCALAR_KEY = ("scalar",)
_PLAIN = keys.PLAIN_TYPES
_F64 = np.dtype(np.float64)
_EMPTY = inspect.Parameter.empty


# -- the callable grad returns --------------------------------------------------------------------

COMPLEX_SCALAR = "complex scalar"


def _grad_arg_kind(x, fname, pname):
    """arg_kind, with complex numbers (Python's, NumPy's) a kind of their own in a gradient's key: they are
    'scalar' to the transformation, but their gradient checks that the function's output is real (a function
    of a real number whose output may be complex is checked in any case, assemble.py)."""
    if isinstance(x, (complex, np.complexfloating)):
        return COMPLEX_SCALAR
    return arg_kind(x, fname, pname)



class Gradient:
    """The gradient of a Python function, compiled from its source (one per specialization)."""

    def __init__(self, fun, argnums=0, has_aux=False, with_value=False, static_argnums=None,
                 static_argnames=None, cache_size=DEFAULT_MAXSIZE, by_identity=(), checkpoint_loops=None,
                 backend="numpy"):
        if not callable(fun):
            raise TypeError(f"adsrc.grad expects a function, got {describe(fun)}")
        check_function(fun)
        self.fun = fun
        self.options = dict(argnums=argnums, has_aux=has_aux, static_argnums=static_argnums,
                            static_argnames=static_argnames, cache_size=cache_size, checkpoint_loops=checkpoint_loops,
                            backend=backend)
        self._loop_policy = loop_policy(checkpoint_loops)
        self._backend = numba_backend.check_backend(backend)
        functools.update_wrapper(self, fun, updated=())   # not fun.__dict__: it would shadow attributes
        # what it is, for errors naming it (a derivative of a derivative it cannot follow...)
        self._adsrc_derivative = f"adsrc.{'value_and_grad' if with_value else 'grad'}" \
                                 f"({getattr(fun, '__qualname__', fun)})"
        self.has_aux = bool(has_aux)
        self.with_value = with_value
        sig = frontend.signature(fun)
        self._sig = sig
        params = list(sig.parameters.values())
        self._positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        fname = getattr(fun, "__qualname__", repr(fun))
        self._fname = fname
        self._single = isinstance(argnums, numbers.Integral)
        norm = self._argnums(argnums, "argnums")
        if not norm:
            raise ValueError(f"argnums for `{fname}` is empty: give at least one argument to differentiate")
        if len(set(norm)) != len(norm):
            raise ValueError(f"argnums={argnums!r} repeats an argument")
        self._statics = self._static_params(params, static_argnums, static_argnames)
        for i in norm:
            if self._positional[i] in self._statics:
                raise ValueError(f"argument `{self._positional[i]}` of `{fname}` is static, so it cannot be "
                                 f"differentiated: remove it from argnums or from the static arguments")
        self.argnums = argnums
        self._nums = tuple(norm)
        self._wrt = [self._positional[i] for i in norm]
        self._max = max(norm)
        self._first = norm[0] if len(norm) == 1 and not self._statics else None
        self._rest = len(sig.parameters) > 1     # the lean path looks at the other arguments (object_args.py)
        self._name_statics()
        self._cache = SpecializationCache(cache_size, name=fname)
        self._data = self._cache._data
        self._by_identity = by_identity
        self._typed = ()         # parameters keyed by the class of their object (object_args.py)
        self._key = self._key_function()

    def _key_function(self):
        sig, norm = self._sig, self._nums
        return keys.make_key_function(
            [(i, self._positional[i], sig.parameters[self._positional[i]].default) for i in norm],
            [(pos, n, default) for n, (pos, default) in self._statics.items()], _grad_arg_kind, static_key,
            self._fname, self._by_identity, object_args.typed_parameters(self, self._typed),
            object_args.other_parameters(self), object_args.new_role)

    def _learn_classes(self, args, kwargs):
        """Key on the class of arguments that are objects of the user's classes, and on functions passed as
        arguments (first seen in this call), so that calls of them are followed; True if the key changed."""
        typed, static = object_args.new_parameters(self, args, kwargs)
        if not typed and not static:
            return False
        self._typed = tuple(n for n in self._typed if n not in static) + tuple(typed)
        for name in static:
            self._statics[name] = (self._positional.index(name) if name in self._positional else None,
                                   self._sig.parameters[name].default)
        self._name_statics()
        self._key = self._key_function()
        self._first = None          # the lean path's key has only the differentiated argument
        return True

    def _name_statics(self):
        self.static_argnames = tuple(self._statics)
        self.static_argnums = tuple(i for i in (self._statics[n][0] for n in self._statics) if i is not None)

    def _argnums(self, nums, what):
        nums = (nums,) if isinstance(nums, numbers.Integral) else tuple(nums)
        n = len(self._positional)
        out = []
        for i in nums:
            if not isinstance(i, numbers.Integral) or isinstance(i, bool):
                raise TypeError(f"{what} must be integers, got {describe(i)}")
            j = i + n if i < 0 else i
            if not 0 <= j < n:
                raise ValueError(f"{what}={nums if len(nums) > 1 else nums[0]!r} is out of range: `{self._fname}` "
                                 f"has {n} positional parameter{'s' if n != 1 else ''} "
                                 f"({', '.join(self._positional)})" + self._varargs_note())
            out.append(j)
        return out

    def _varargs_note(self):
        if not any(p.kind == p.VAR_POSITIONAL for p in self._sig.parameters.values()):
            return ""
        return ". adsrc differentiates named parameters, not *args. " + frontend.varargs_hint(self.fun)

    def _static_params(self, params, static_argnums, static_argnames):
        """name -> (position or None, default) for every static parameter, completed both ways."""
        by_name = {p.name: p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
        names = []
        if static_argnums is not None:
            names += [self._positional[i] for i in self._argnums(static_argnums, "static_argnums")]
        if static_argnames is not None:
            for n in (static_argnames,) if isinstance(static_argnames, str) else static_argnames:
                if n not in by_name:
                    raise ValueError(f"static_argnames names `{n}`, which is not a parameter of `{self._fname}` "
                                     f"(parameters: {', '.join(by_name)})")
                names.append(n)
        out = {}
        for p in params:
            if p.name in names:
                pos = self._positional.index(p.name) if p.name in self._positional else None
                out[p.name] = (pos, p.default)
        return out

    def __repr__(self):
        kind = "value_and_grad" if self.with_value else "grad"
        return f"<adsrc.{kind} of {self._fname} wrt {', '.join(self._wrt)}>"

    # -- calling -------------------------------------------------------------------------------
    def _static_values(self, args, kwargs):
        """name -> value of every static argument of a call."""
        out = {}
        for name, (pos, default) in self._statics.items():
            if pos is not None and pos < len(args):
                out[name] = args[pos]
            elif name in kwargs:
                out[name] = kwargs[name]
            elif default is not _EMPTY:
                out[name] = default
            else:
                raise TypeError(f"`{self._fname}` is missing its static argument `{name}`")
        return out

    def __call__(self, /, *args, **kwargs):
        # the lean path: the one differentiated argument, a float or a float64 array, passed by position
        first = self._first
        if first is not None and not kwargs:
            try:
                a = args[first]
            except IndexError:
                a = None                  # missing: the key function says so
            t = type(a)
            key = _SCALAR_KEY if t is float else _ARRAY_KEY if t is _nd and a.dtype is _F64 else None
            if self._rest:
                for b in args:
                    if type(b) not in _PLAIN:
                        key = None        # an object or a function, maybe, where the code has none: the key says
                        break
            cache = self._cache
            only = cache.only             # the leanest: the cache holds one gradient, for this key, up to date
            if only is not None and only[0] is key:
                _, fn, owner, code, others = only
                if owner.__code__ is code and (others is None or others()):
                    cache.hits += 1
                    try:
                        return fn(*args)
                    except Exception as e:
                        annotate(e)
                        raise
            if key is None:
                key = self._key(args, kwargs)
        else:
            key = self._key(args, kwargs)
        try:
            fn, owner, code, others = self._data[key]   # the compiled gradient and its guards
            if owner.__code__ is not code or (others is not None and not others()):   # entries.up_to_date, inline
                raise KeyError(key)       # out of date: entries.compiled transforms it again
        except KeyError:
            fn = self._miss(key, args, kwargs)
        else:
            cache = self._cache
            cache.hits += 1
            if cache.several:
                cache.touch(key)
        try:
            return fn(*args, **kwargs) if kwargs else fn(*args)
        except Exception as e:
            annotate(e)
            raise

    def _miss(self, key, args, kwargs):
        """The compiled gradient for a key not in the cache (or out of date), built now.

        Not inlined in __call__: the closure would make every call create cells.
        """
        if self._learn_classes(args, kwargs):
            key = self._key(args, kwargs)
        return entries.compiled(self._cache, key, lambda: self._build(key, args, kwargs), self._describe_miss)

    def _build(self, key, args, kwargs, statics=None):
        kinds = key[:len(self._wrt)]
        complex_scalars = COMPLEX_SCALAR in kinds
        kinds = tuple("scalar" if k == COMPLEX_SCALAR else k for k in kinds)
        if statics is None:
            statics = self._static_values(args, kwargs) if self._statics else {}
        statics = static_snapshot(statics)
        typed = dict(zip(self._typed, key[len(key) - len(self._typed):])) if self._typed else None
        statics = pytree_nodes.with_classes(statics, dict(zip(self._wrt, kinds)), typed)
        fun = self._inner_general(kinds, args, kwargs) or \
            frontend.resolve(self.fun, args, kwargs)      # a gradient's generated function (higher order)
        with transform.LOCK:
            lw = transform.lowered(fun, statics, self._lowered_key(key))
            unit = transform.Unit(lw.uf.name + "_grad")
            options = {"has_aux": self.has_aux, "with_value": self.with_value, "single": self._single,
                       "checkpoint_loops": self._loop_policy, "dense": self._backend != "numpy",
                       "complex_scalars": complex_scalars}
            transform.build(lw, unit, self._wrt, dict(zip(self._wrt, kinds)), "grad", options)
            entry = entries.make(unit, fun)
            return entry if self._backend == "numpy" else \
                numba_backend.entry(entry, unit, auto=self._backend == "auto")

    def _inner_general(self, kinds, args, kwargs):
        """For a general key (_adsrc_general) of a gradient of a gradient: the inner gradient's general code too.
        Its own differentiated arguments need not be this one's (`grad(grad(f, 1))`), so the placeholders this
        gradient was resolved with would not make its key; None where the inner gradient is not adsrc's."""
        inner = frontend.unwrap(self.fun)
        if not kinds or any(k is not GENERAL for k in kinds) or not hasattr(inner, "_adsrc_general"):
            return None
        inner_statics = getattr(inner, "_statics", None)
        if inner_statics and any(n not in kwargs for n in inner_statics):
            return None
        return inner._adsrc_general({n: kwargs[n] for n in inner_statics} if inner_statics else None)

    def _lowered_key(self, key):
        """The key of the lowered program: the static values, and which parameters they belong to.

        The names matter: f with `a` static and a=3 is not f with `b` static and b=3.
        """
        values = key[len(self._wrt):]
        return (self.static_argnames,) + values if values else ()

    def _key_items(self, key):
        """(name, shown value) pairs of a key."""
        w = len(self._wrt)
        items = list(zip(self._wrt, key[:w]))
        for j, name in enumerate(self._statics):
            t, v = key[w + 2 * j], key[w + 2 * j + 1]
            items.append((name, show_static(t, v)))
        return items

    def _describe_miss(self, previous, key):
        items = self._key_items(key)
        if previous is None:
            return "first call (" + ", ".join(f"{n}={v}" for n, v in items) + ")"
        changes = []
        for (n, old), (_, new) in zip(self._key_items(previous), items):
            if old != new:
                if n in self._statics:
                    changes.append(f"static argument `{n}` changed from {old} to {new}")
                else:
                    changes.append(f"argument `{n}` changed kind from {old} to {new}")
        return "; ".join(changes) or "a key evicted earlier was needed again"

    def _adsrc_resolve(self, args, kwargs, general=False):
        """The generated gradient function for these arguments (what a higher-order derivative transforms).
        general: for any kind of the differentiated arguments (floats, arrays, containers of them), its code
        decides what each is when it runs (a key of 'general' kinds, values.from_key)."""
        if self._backend != "numpy":
            raise transform_error(None, f"{self._adsrc_derivative} was made with backend={self._backend!r}, and "
                                        "adsrc does not differentiate compiled gradients again (higher order).",
                                  "Use the gradient without backend= inside the function you differentiate.")
        if self._loop_policy is not None:
            raise transform_error(None, f"{self._adsrc_derivative} was made with checkpoint_loops=, and adsrc does "
                                        "not differentiate checkpointed loops again (higher order).",
                                  "Use the gradient without checkpoint_loops inside the function you differentiate.")
        self._learn_classes(args, kwargs)           # (functions passed, or left to defaults, are static)
        key = self._key(args, kwargs)
        if general:
            key = (GENERAL,) * len(self._wrt) + key[len(self._wrt):]
        return entries.compiled(self._cache, key, lambda: self._build(key, args, kwargs), self._describe_miss)

    def _adsrc_general(self, statics=None):
        """The generated gradient for calls inside a function adsrc transforms, whose arguments' kinds it does
        not know when transforming: its code serves floats, arrays of any shape and containers of them alike.
        `statics`: the static arguments' values (name -> value) at that call, known when transforming (None:
        the gradient must have no static arguments)."""
        if self._statics and statics is None:
            return None
        placeholders = {p: np.zeros(1) for p in self._wrt}
        return self._adsrc_resolve((), {**placeholders, **(statics or {})}, general=True)

    # -- inspecting -----------------------------------------------------------------------------
    def source(self, /, *args, stage="adjoint", **kwargs):
        """The generated Python source (stage 'adjoint'), or the lowered program (stage 'lowered').

        With arguments, the specialization for those arguments (static values and
        kinds of the differentiated arguments); without, the one used last (the code that computed the last
        result), or, before any call, the one for float arrays and the static arguments' defaults. The result
        is a str that a notebook displays with syntax highlighting (see display.py).
        """
        if stage not in ("adjoint", "lowered"):
            raise ValueError(f"stage must be 'adjoint' or 'lowered', not {stage!r}")
        newest = self._cache.newest() if stage == "adjoint" and not args and not kwargs else None
        entry = self._data.get(newest) if newest is not None else None
        if entry is not None and entries.up_to_date(*entry[1:]):
            return Source(unit_source(entry[0].unit))
        if args or any(k not in self._statics for k in kwargs):
            self._learn_classes(args, kwargs)       # (an object or a function there: the code a call would take)
            key = self._key(args, kwargs)
            statics = self._static_values(args, kwargs)
        else:
            for name, (pos, default) in self._statics.items():
                if name not in kwargs and default is _EMPTY:
                    raise TypeError(f"pass the static argument `{name}` to source() to choose a specialization")
            statics = self._static_values((), kwargs)
            placeholders = [np.zeros(1) for _ in self._wrt]
            key = self._key((), dict(zip(self._wrt, placeholders), **kwargs))
        if stage == "lowered":
            statics = pytree_nodes.with_classes(statics, dict(zip(self._wrt, key)))
            return Source(lowered_source(self.fun, statics, self._lowered_key(key)))
        fn = entries.compiled(self._cache, key, lambda: self._build(key, args, kwargs, statics), self._describe_miss)
        return Source(unit_source(fn.unit))

    def cache_info(self):
        return self._cache.info()

    def cache_clear(self):
        self._cache.clear()


def check_function(fun):
    """Raise the error explaining what adsrc differentiates unless fun is something it can read."""
    target = frontend.unwrap(fun)      # refuses derivatives computed by adsrc that it cannot transform
    if hasattr(target, "_adsrc_resolve"):
        return                         # a gradient: its generated function is transformed (higher order)
    if isinstance(target, custom_vjp):
        frontend.load(fun)             # refuses a custom_vjp without a rule
    elif isinstance(target, types.FunctionType) and target.__code__.co_flags & inspect.CO_GENERATOR:
        raise transform_error(None, f"`{target.__qualname__}` is a generator function: calling it makes a "
                                    "generator, not a number to differentiate.",
                              "Differentiate a function that consumes it (for example `sum(gen(x))`); adsrc "
                              "follows generators called inside a differentiated function.")
    elif not isinstance(target, types.FunctionType):
        raise transform_error(None, f"adsrc can only differentiate Python functions, bound methods, callable "
                                    f"objects and functools.partial of them, not {describe(fun)}.",
                              "Wrap the computation in a `def` or a lambda; for a function without Python "
                              "source (a C extension, a ufunc), give it a rule with adsrc.defvjp.")
