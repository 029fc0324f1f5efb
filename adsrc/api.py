"""The public API: grad, value_and_grad, vjp and the callable they return."""

import functools
import inspect
import numbers
import sys
import types

import numpy as np

from . import frontend, keys, transform
from .cache import DEFAULT_MAXSIZE, SpecializationCache
from .errors import TransformError
from .transform import unit_guards

_nd = np.ndarray
_ARRAY_KEY = ("array",)
_EMPTY = inspect.Parameter.empty


# -- argument kinds -------------------------------------------------------------------------------

def _describe(x):
    if isinstance(x, np.ndarray):
        return f"an array of dtype {x.dtype}"
    return f"a value of type {type(x).__name__}"


def arg_kind(x, fname, pname):
    """'array' for float arrays and scalars, 'other' for containers; raises for integers."""
    t = type(x)
    if t is _nd:
        if x.dtype.kind in "fc":
            return "array"
    elif t is float or isinstance(x, (np.floating, np.complexfloating, complex)):
        return "scalar"
    elif isinstance(x, (tuple, list, dict)) or hasattr(type(x), "__dataclass_fields__"):
        structure = pytree_structure(x)
        if not _has_float_leaf(structure):
            raise TypeError(f"adsrc cannot differentiate `{fname}` with respect to `{pname}`: it holds no "
                            f"floating-point values ({_describe(x)}). Pass floats (e.g. np.asarray(x, float)), "
                            "or leave the argument out of argnums.")
        return structure
    if isinstance(x, (numbers.Integral, np.bool_)) or (t is _nd and x.dtype.kind in "biu"):
        raise TypeError(f"adsrc can only differentiate with respect to floating-point values, but argument "
                        f"`{pname}` of `{fname}` is {_describe(x)}"
                        f"{' (' + repr(x) + ')' if isinstance(x, numbers.Number) else ''}. Pass a float "
                        f"(e.g. {x!r}.0 or np.asarray(x, dtype=float))."
                        if isinstance(x, numbers.Integral) else
                        f"adsrc can only differentiate with respect to floating-point values, but argument "
                        f"`{pname}` of `{fname}` is {_describe(x)}. Convert it with x.astype(float), or leave "
                        "it out of argnums.")
    raise TypeError(f"adsrc cannot differentiate `{fname}` with respect to `{pname}`, {_describe(x)}. "
                    "Differentiable arguments are floats, float arrays, and tuples, lists, dicts, "
                    "namedtuples or dataclasses of them.")


def pytree_structure(x):
    """A hashable description of a container argument: its kind, keys or fields, and each leaf's kind.

    Part of the specialization key, so the generated code knows that
    `params["W"]` is an array (as JAX knows a pytree's structure).
    """
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return ("fields", type(x), tuple((f, _leaf(v)) for f, v in zip(x._fields, x)))
    if isinstance(x, (tuple, list)):
        return (type(x).__name__, tuple((i, _leaf(v)) for i, v in enumerate(x)))
    if isinstance(x, dict):
        return ("dict", tuple((k, _leaf(v)) for k, v in x.items()))
    import dataclasses
    return ("fields", type(x), tuple((f.name, _leaf(getattr(x, f.name))) for f in dataclasses.fields(x)))


def _leaf(v):
    t = type(v)
    if t is _nd:
        return "array" if v.dtype.kind in "fc" else "const"
    if t is float or isinstance(v, (np.floating, np.complexfloating, complex)):
        return "scalar"
    if isinstance(v, (tuple, list, dict)) or hasattr(t, "__dataclass_fields__"):
        return pytree_structure(v)
    return "const"


def _has_float_leaf(structure):
    if isinstance(structure, str):
        return structure in ("array", "scalar")
    return any(_has_float_leaf(leaf) for _, leaf in structure[-1])


# -- static arguments ---------------------------------------------------------------------------

def static_key(value, name, fname):
    """A cache key for a static value that tells 3, 3.0 and True apart; raises if unhashable."""
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"static argument `{name}` of `{fname}` is a {type(value).__name__}, which is not "
                        "hashable; static arguments select the compiled program, so they must be hashable "
                        "(use a tuple instead of a list, or pass arrays as ordinary arguments)") from None
    if type(value) is tuple:
        return (tuple, tuple(static_key(v, name, fname) for v in value))
    if type(value) is frozenset:
        return (frozenset, frozenset(static_key(v, name, fname) for v in value))
    return (type(value), value)


def _show(value):
    text = repr(value)
    return (text if len(text) <= 60 else text[:57] + "...") + f" ({type(value).__name__})"


def _show_static(t, v):
    """A static value as it appears in a key: (type, value), or (tuple, static_key(value))."""
    if t is keys.Identity:
        return f"the object with id {v:#x}"
    if t is tuple and isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], type):
        return _show_static(*v) if v[0] is not tuple else "(" + ", ".join(_show_static(*e) for e in v[1]) + ")"
    return _show(v)


# -- the callable grad returns --------------------------------------------------------------------

def _cached_function(unit):
    """The compiled function of a unit, as the specialization caches hold it."""
    fn = unit.fn
    fn.unit = unit            # its unit holds the source
    fn.still_valid = unit_guards(unit).compile()   # do the names it resolved still mean the same objects?
    return fn


def _compiled(cache, key, build, describe=None):
    """The cached function for key, built if missing or out of date (a name it resolved was rebound)."""
    fn = cache.get(key, build, describe)
    if fn.still_valid is not None and not fn.still_valid():
        cache.discard(key, f"{unit_guards(fn.unit).changed()} changed since it was transformed")
        fn = cache.get(key, build, describe)
    return fn


class Gradient:
    """The gradient of a Python function, compiled from its source (one per specialization)."""

    def __init__(self, fun, argnums=0, has_aux=False, with_value=False, static_argnums=None,
                 static_argnames=None, cache_size=DEFAULT_MAXSIZE, by_identity=()):
        if not callable(fun):
            raise TypeError(f"adsrc.grad expects a function, got {fun!r}")
        if not isinstance(frontend.unwrap(fun), types.FunctionType):
            frontend.load(fun)   # raises the error explaining what adsrc can differentiate
        self.fun = fun
        functools.update_wrapper(self, fun, updated=())   # not fun.__dict__: it would shadow attributes
        # what it is, for the error if someone differentiates it (higher-order derivatives are not supported)
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
        self.static_argnames = tuple(self._statics)
        self.static_argnums = tuple(i for i in (self._statics[n][0] for n in self._statics) if i is not None)
        self._cache = SpecializationCache(cache_size, name=fname)
        self._key = keys.make_key_function(
            [(i, self._positional[i], sig.parameters[self._positional[i]].default) for i in norm],
            [(pos, n, default) for n, (pos, default) in self._statics.items()], arg_kind, static_key, fname,
            by_identity)

    def _argnums(self, nums, what):
        nums = (nums,) if isinstance(nums, numbers.Integral) else tuple(nums)
        n = len(self._positional)
        out = []
        for i in nums:
            if not isinstance(i, numbers.Integral) or isinstance(i, bool):
                raise TypeError(f"{what} must be integers, got {i!r}")
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

    def __call__(self, *args, **kwargs):
        # the hot path: positional float arrays, a key already compiled
        if self._first is not None and not kwargs and len(args) > self._first:
            a = args[self._first]
            key = _ARRAY_KEY if type(a) is _nd and a.dtype.kind == "f" else self._key(args, kwargs)
        else:
            key = self._key(args, kwargs)
        cache = self._cache
        fn = cache._data.get(key)         # the compiled gradient (see _build)
        if fn is None or (fn.still_valid is not None and not fn.still_valid()):
            fn = _compiled(cache, key, lambda: self._build(key, args, kwargs), self._describe_miss)
        else:
            cache.hits += 1
            if cache.several:
                cache.touch(key)
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            _annotate(e)
            raise

    def _build(self, key, args, kwargs, statics=None):
        kinds = key[:len(self._wrt)]
        if statics is None:
            statics = self._static_values(args, kwargs) if self._statics else {}
        with transform.LOCK:
            lw = transform.lowered(self.fun, statics, key[len(self._wrt):])
            unit = transform.Unit(lw.uf.name + "_grad")
            options = {"has_aux": self.has_aux, "with_value": self.with_value, "single": self._single}
            transform.build(lw, unit, self._wrt, dict(zip(self._wrt, kinds)), "grad", options)
            return _cached_function(unit)

    def _key_items(self, key):
        """(name, shown value) pairs of a key."""
        w = len(self._wrt)
        items = list(zip(self._wrt, key[:w]))
        for j, name in enumerate(self._statics):
            t, v = key[w + 2 * j], key[w + 2 * j + 1]
            items.append((name, _show_static(t, v)))
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

    # -- inspecting -----------------------------------------------------------------------------
    def source(self, *args, stage="adjoint", **kwargs):
        """The generated Python source (stage 'adjoint'), or the lowered program (stage 'lowered').

        With arguments, the specialization for those arguments (static values and
        kinds of the differentiated arguments); without, the one for float arrays
        and the static arguments' defaults.
        """
        if stage not in ("adjoint", "lowered"):
            raise ValueError(f"stage must be 'adjoint' or 'lowered', not {stage!r}")
        if args or any(k not in self._statics for k in kwargs):
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
            return lowered_source(self.fun, statics, key[len(self._wrt):])
        fn = _compiled(self._cache, key, lambda: self._build(key, args, kwargs, statics), self._describe_miss)
        return unit_source(fn.unit)

    def cache_info(self):
        return self._cache.info()

    def cache_clear(self):
        self._cache.clear()


class BoundGradient:
    """The gradient of a bound method: `self` is fixed and known when transforming.

    argnums count the method's arguments after self, as for jax.grad(obj.method).
    Calls like `self.helper(x)` inside the method are followed into `helper`.
    """

    def __init__(self, method, argnums=0, static_argnums=None, **options):
        self.obj = method.__self__
        shift = (lambda n: None if n is None else
                 (n + 1 if isinstance(n, numbers.Integral) else tuple(i + 1 for i in n)))
        func = method.__func__
        first = next(iter(inspect.signature(func).parameters))
        names = options.pop("static_argnames", None) or ()
        names = (names,) if isinstance(names, str) else tuple(names)
        self.inner = Gradient(func, argnums=shift(argnums), static_argnums=shift(static_argnums),
                              static_argnames=names + (first,), by_identity=(first,), **options)
        self.inner._single = isinstance(argnums, numbers.Integral)
        functools.update_wrapper(self, method, updated=())
        self._adsrc_derivative = self.inner._adsrc_derivative

    def __call__(self, *args, **kwargs):
        return self.inner(self.obj, *args, **kwargs)

    def source(self, *args, stage="adjoint", **kwargs):
        return self.inner.source(self.obj, *args, stage=stage, **kwargs)

    def cache_info(self):
        return self.inner.cache_info()

    def cache_clear(self):
        self.inner.cache_clear()

    def __repr__(self):
        return repr(self.inner).replace(">", f" bound to {type(self.obj).__name__}>")


def _make(fun, with_value, **options):
    if isinstance(fun, types.MethodType) and isinstance(fun.__func__, types.FunctionType):
        return BoundGradient(fun, with_value=with_value, **options)
    return Gradient(fun, with_value=with_value, **options)


def unit_source(unit):
    """Source of a unit followed by the units it calls (each once)."""
    seen, out, stack = set(), [], [unit]
    while stack:
        u = stack.pop(0)
        if id(u) in seen:
            continue
        seen.add(id(u))
        out.append(u.text)
        stack.extend(u.callees)
    return "\n\n".join(t.rstrip("\n") for t in out) + "\n"


def lowered_source(fun, statics=None, key=()):
    """The lowered program of fun and of the user functions it calls."""
    seen, out, stack = set(), [], [fun]
    while stack:
        f = stack.pop(0)
        if f in seen:
            continue
        seen.add(f)
        lw = transform.lowered(f, statics, key) if f is fun else transform.lowered(f)
        text, _ = lw.source()
        out.append(text)
        stack.extend(transform.called_functions(lw))
    return "\n\n".join(t.rstrip("\n") for t in out) + "\n"


def _annotate(e):
    """Add a note naming the user's line to an error raised inside generated code."""
    tb = e.__traceback__
    notes = []
    while tb is not None:
        fname = tb.tb_frame.f_code.co_filename
        if fname.startswith("<adsrc "):
            note = _origin_note(fname, tb.tb_lineno)
            if note:
                notes.append(note)
        tb = tb.tb_next
    if not notes or getattr(e, "_adsrc_annotated", False):
        return
    try:
        e._adsrc_annotated = True
    except AttributeError:
        return
    if hasattr(e, "add_note"):
        e.add_note(notes[-1])
    elif len(e.args) == 1 and isinstance(e.args[0], str):
        e.args = (e.args[0] + "\n" + notes[-1],)   # Python 3.10 has no exception notes


def _origin_note(filename, lineno):
    import linecache
    lines = linecache.getlines(filename)
    if not lines or lineno > len(lines):
        return None
    origin = filename[len("<adsrc "):-1].split(" from ", 1)[-1]
    for i in range(lineno - 1, -1, -1):
        text = lines[i].strip()
        if text.startswith("# line "):
            user_line, _, code = text[len("# line "):].partition(":")
            path = origin.rsplit(":", 1)[0]
            return (f"adsrc: the failing generated line {lineno} `{lines[lineno - 1].strip()}` comes from "
                    f"{path}, line {user_line}: {code.strip()}")
    return None


# -- vjp ------------------------------------------------------------------------------------------

_VJP_CACHES = {}    # id(function) -> (function, SpecializationCache) of its adsrc.vjp units


def _vjp_cache(fun):
    with transform.LOCK:
        entry = _VJP_CACHES.get(id(fun))
        if entry is None or entry[0] is not fun:
            entry = (fun, SpecializationCache(DEFAULT_MAXSIZE, name=getattr(fun, "__qualname__", repr(fun))))
            _VJP_CACHES[id(fun)] = entry
        return entry[1]


def _primal_kind(x, fname, pname):
    """arg_kind, or None for values vjp does not differentiate (integers, booleans, None)."""
    if isinstance(x, (numbers.Integral, np.bool_)) or x is None or \
            (type(x) is _nd and x.dtype.kind in "biu"):
        return None
    kind = arg_kind(x, fname, pname)
    return kind


def check_cotangent(ct, out, path="output"):
    """Raise ValueError unless ct has the structure and shapes of out."""
    if isinstance(out, (tuple, list)) and not isinstance(out, np.ndarray):
        if not isinstance(ct, (tuple, list)) or len(ct) != len(out):
            raise ValueError(f"the cotangent for {path} must be a {type(out).__name__} of {len(out)} "
                             f"elements like the output, got {type(ct).__name__}"
                             f"{' of ' + str(len(ct)) + ' elements' if isinstance(ct, (tuple, list)) else ''}")
        for i, (c, o) in enumerate(zip(ct, out)):
            check_cotangent(c, o, f"{path}[{i}]")
        return
    if isinstance(out, dict):
        if not isinstance(ct, dict) or set(ct) != set(out):
            raise ValueError(f"the cotangent for {path} must be a dict with keys {sorted(out)}, got "
                             f"{sorted(ct) if isinstance(ct, dict) else type(ct).__name__}")
        for k in out:
            check_cotangent(ct[k], out[k], f"{path}[{k!r}]")
        return
    if hasattr(type(out), "__dataclass_fields__"):
        import dataclasses
        if type(ct) is not type(out):
            raise ValueError(f"the cotangent for {path} must be a {type(out).__name__}, got {type(ct).__name__}")
        for f in dataclasses.fields(out):
            check_cotangent(getattr(ct, f.name), getattr(out, f.name), f"{path}.{f.name}")
        return
    if isinstance(ct, (tuple, list, dict)):
        raise ValueError(f"the cotangent for {path} must be an array of shape {np.shape(out)}, "
                         f"got a {type(ct).__name__}")
    if np.shape(ct) != np.shape(out):
        raise ValueError(f"the cotangent for {path} has shape {np.shape(ct)}, but the output has shape "
                         f"{np.shape(out)}")


def vjp(fun, *primals, has_aux=False):
    """The output of fun(*primals) and its pullback (vector-Jacobian product), as in JAX.

    Returns `(out, pullback)`, or `(out, pullback, aux)` with has_aux=True
    (fun then returns `(out, aux)`). `pullback(cotangent)` takes a cotangent
    with the structure and shapes of `out` and returns a tuple with one
    gradient per primal (None for integer primals); it may be called many
    times.
    """
    if not isinstance(frontend.unwrap(fun), types.FunctionType):
        frontend.load(fun)
    fname = getattr(fun, "__qualname__", repr(fun))
    params = [p.name for p in frontend.signature(fun).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(primals) > len(params):
        raise TypeError(f"`{fname}` takes {len(params)} positional arguments but vjp got {len(primals)} primals")
    kinds = tuple(_primal_kind(x, fname, p) for x, p in zip(primals, params))
    wrt = [p for p, k in zip(params, kinds) if k is not None]
    if not wrt:
        raise TypeError(f"adsrc.vjp of `{fname}`: no primal holds floating-point values to differentiate")
    key = (kinds, bool(has_aux))

    def build():
        with transform.LOCK:
            lw = transform.lowered(fun)
            unit = transform.Unit(lw.uf.name + "_vjp")
            options = {"final": True, "has_aux": bool(has_aux)}
            transform.build(lw, unit, wrt, {p: k for p, k in zip(params, kinds) if k}, "vjp", options)
            return _cached_function(unit)

    fn = _compiled(_vjp_cache(fun), key, build)
    unit = fn.unit
    try:
        result, raw_pullback = fn(*primals)
    except Exception as e:
        _annotate(e)
        raise
    out, aux = result if has_aux else (result, None)

    def pullback(cotangent):
        check_cotangent(cotangent, out)
        try:
            grads = iter(raw_pullback(cotangent))
        except Exception as e:
            _annotate(e)
            raise
        return tuple(next(grads) if k is not None else None for k in kinds)

    pullback.__qualname__ = pullback.__name__ = f"{unit.name}_pullback"
    pullback._adsrc_derivative = f"the vjp pullback of `{fname}`"     # not differentiated again
    return (out, pullback, aux) if has_aux else (out, pullback)


# -- public functions -----------------------------------------------------------------------------

def grad(fun=None, argnums=0, has_aux=False, *, static_argnums=None, static_argnames=None,
         cache_size=DEFAULT_MAXSIZE):
    """The gradient of a scalar function with respect to its argument(s) `argnums`.

    Usable as `@adsrc.grad`, `@adsrc.grad(argnums=1)` or `adsrc.grad(f, argnums=(0, 1))`.
    Static arguments (`static_argnums`/`static_argnames`, by position or name)
    select the compiled program: their values become constants in it, and each
    distinct value (and type) gets its own specialization, kept in an LRU cache
    of `cache_size` entries. With has_aux=True, f returns `(value, aux)` and
    the gradient callable returns `(gradient, aux)`.
    """
    options = dict(argnums=argnums, has_aux=has_aux, static_argnums=static_argnums,
                   static_argnames=static_argnames, cache_size=cache_size)
    if fun is None:
        return functools.partial(grad, **options)
    return _make(fun, False, **options)


def value_and_grad(fun=None, argnums=0, has_aux=False, *, static_argnums=None, static_argnames=None,
                   cache_size=DEFAULT_MAXSIZE):
    """Like grad, but the callable returns `(value, gradient)` (`((value, aux), gradient)` with has_aux)."""
    options = dict(argnums=argnums, has_aux=has_aux, static_argnums=static_argnums,
                   static_argnames=static_argnames, cache_size=cache_size)
    if fun is None:
        return functools.partial(value_and_grad, **options)
    return _make(fun, True, **options)


_ = (TransformError, sys)
