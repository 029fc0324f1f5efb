"""The public API: grad, value_and_grad, vjp and the callable they return."""

import functools
import inspect
import numbers
import sys
import types

import numpy as np

from . import frontend, transform
from .cache import DEFAULT_MAXSIZE, SpecializationCache
from .errors import TransformError

_nd = np.ndarray
_ARRAY_KEY = ("array",)


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
        if not _has_float_leaf(x):
            raise TypeError(f"adsrc cannot differentiate `{fname}` with respect to `{pname}`: it holds no "
                            f"floating-point values ({_describe(x)}). Pass floats (e.g. np.asarray(x, float)), "
                            "or leave the argument out of argnums.")
        return "other"
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


def _has_float_leaf(x):
    if isinstance(x, (tuple, list)):
        return any(_has_float_leaf(v) for v in x)
    if isinstance(x, dict):
        return any(_has_float_leaf(v) for v in x.values())
    if hasattr(type(x), "__dataclass_fields__"):
        import dataclasses
        return any(_has_float_leaf(getattr(x, f.name)) for f in dataclasses.fields(x))
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "fc"
    return isinstance(x, (float, complex, np.floating, np.complexfloating))


# -- the callable grad returns --------------------------------------------------------------------

class Gradient:
    """The gradient of a Python function, compiled from its source (one per specialization)."""

    def __init__(self, fun, argnums=0, has_aux=False, with_value=False, cache_size=DEFAULT_MAXSIZE):
        if not callable(fun):
            raise TypeError(f"adsrc.grad expects a function, got {fun!r}")
        if not isinstance(inspect.unwrap(fun), types.FunctionType):
            frontend.load(fun)   # raises the error explaining what adsrc can differentiate
        self.fun = fun
        functools.update_wrapper(self, fun)
        self.has_aux = bool(has_aux)
        self.with_value = with_value
        try:
            sig = inspect.signature(fun)
        except (TypeError, ValueError):
            sig = None
        self._sig = sig
        params = list(sig.parameters.values()) if sig else []
        self._positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self._single = isinstance(argnums, numbers.Integral)
        nums = (argnums,) if self._single else tuple(argnums)
        fname = getattr(fun, "__qualname__", repr(fun))
        self._fname = fname
        if not nums:
            raise ValueError(f"argnums for `{fname}` is empty: give at least one argument to differentiate")
        for i in nums:
            if not isinstance(i, numbers.Integral):
                raise TypeError(f"argnums must be integers, got {i!r}")
        n = len(self._positional)
        norm = []
        for i in nums:
            j = i + n if i < 0 else i
            if not 0 <= j < n:
                raise ValueError(f"argnums={argnums!r} is out of range: `{fname}` has {n} positional "
                                 f"parameter{'s' if n != 1 else ''} ({', '.join(self._positional)})")
            norm.append(j)
        if len(set(norm)) != len(norm):
            raise ValueError(f"argnums={argnums!r} repeats an argument")
        self.argnums = argnums
        self._nums = tuple(norm)
        self._wrt = [self._positional[i] for i in norm]
        self._max = max(norm)
        self._first = norm[0] if len(norm) == 1 else None
        self._cache = SpecializationCache(cache_size, name=fname)

    def __repr__(self):
        kind = "value_and_grad" if self.with_value else "grad"
        return f"<adsrc.{kind} of {self._fname} wrt {', '.join(self._wrt)}>"

    # -- calling -------------------------------------------------------------------------------
    def _values(self, args, kwargs):
        if not kwargs and len(args) > self._max:
            return [args[i] for i in self._nums]
        bound = self._sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return [bound.arguments[p] for p in self._wrt]

    def _key(self, args, kwargs):
        return tuple(arg_kind(v, self._fname, p) for v, p in zip(self._values(args, kwargs), self._wrt))

    def __call__(self, *args, **kwargs):
        # the hot path: positional float arrays, a key already compiled
        if kwargs or len(args) <= self._max:
            key = self._key(args, kwargs)
        elif self._first is not None:
            a = args[self._first]
            key = _ARRAY_KEY if type(a) is _nd and a.dtype.kind == "f" else self._key(args, kwargs)
        else:
            key = self._key(args, kwargs)
        cache = self._cache
        unit = cache._data.get(key)
        if unit is None:
            unit = cache.get(key, lambda: self._build(key))
        else:
            cache.hits += 1
            if len(cache._data) > 1:
                cache.lookup(key)
                cache.hits -= 1
        try:
            return unit.fn(*args, **kwargs)
        except Exception as e:
            _annotate(e)
            raise

    def _build(self, key):
        with transform.LOCK:
            lw = transform.lowered(self.fun)
            unit = transform.Unit(lw.uf.name + "_grad")
            options = {"has_aux": self.has_aux, "with_value": self.with_value, "single": self._single}
            return transform.build(lw, unit, self._wrt, dict(zip(self._wrt, key)), "grad", options)

    # -- inspecting -----------------------------------------------------------------------------
    def source(self, *args, stage="adjoint", **kwargs):
        """The generated Python source (stage 'adjoint'), or the lowered program (stage 'lowered')."""
        if stage not in ("adjoint", "lowered"):
            raise ValueError(f"stage must be 'adjoint' or 'lowered', not {stage!r}")
        if stage == "lowered":
            return lowered_source(self.fun)
        key = self._key(args, kwargs) if (args or kwargs) else tuple("array" for _ in self._wrt)
        unit = self._cache.get(key, lambda: self._build(key))
        return unit_source(unit)

    def cache_info(self):
        return self._cache.info()

    def cache_clear(self):
        self._cache.clear()


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


def lowered_source(fun):
    """The lowered program of fun and of the user functions it calls."""
    from .lower.classify import is_user_function
    seen, out, stack = set(), [], [fun]
    while stack:
        f = stack.pop(0)
        if f in seen:
            continue
        seen.add(f)
        lw = transform.lowered(f)
        text, _ = lw.source()
        out.append(text)
        from . import ir
        for s in ir.walk(lw.fn.body):
            if isinstance(s, ir.Assign) and s.op.kind == "user" and is_user_function(s.op.callee):
                stack.append(s.op.callee)
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


# -- public functions -----------------------------------------------------------------------------

def grad(fun=None, argnums=0, has_aux=False, *, cache_size=DEFAULT_MAXSIZE):
    """The gradient of a scalar function of its argument(s) `argnums`.

    Usable as `@adsrc.grad`, `@adsrc.grad(argnums=1)` or `adsrc.grad(f, argnums=(0, 1))`.
    """
    if fun is None:
        return functools.partial(grad, argnums=argnums, has_aux=has_aux, cache_size=cache_size)
    return Gradient(fun, argnums, has_aux, with_value=False, cache_size=cache_size)


def value_and_grad(fun=None, argnums=0, has_aux=False, *, cache_size=DEFAULT_MAXSIZE):
    """Like grad, but the callable returns `(value, gradient)`."""
    if fun is None:
        return functools.partial(value_and_grad, argnums=argnums, has_aux=has_aux, cache_size=cache_size)
    return Gradient(fun, argnums, has_aux, with_value=True, cache_size=cache_size)


_ = (TransformError, sys)
