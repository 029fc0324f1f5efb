"""adsrc.jvp: forward mode (Jacobian-vector products), as in JAX.

    out, out_dot = adsrc.jvp(f, (x, y), (x_dot, y_dot))

The forward code is generated once per specialization (the primals' kinds,
which of them have tangents, the static arguments' values) and cached;
`adsrc.jvp.source(f, primals, tangents)` shows it.
"""

import numbers

import numpy as np

from . import callables, entries, frontend, keys, object_args, pytree_nodes, transform, varargs
from .generated_errors import annotate
from .gradient import check_function
from .callables import name_of
from .display import Source, unit_source
from .kinds import arg_kind, static_key, static_snapshot
from .pullback import check_cotangent, function_cache

_nd = np.ndarray
_CACHES = {}        # id(function) -> (function, SpecializationCache)


def _kind(x, fname, pname):
    """arg_kind, or None for values without tangents (integers, booleans, None, strings)."""
    if isinstance(x, (numbers.Integral, np.bool_, str, bytes)) or x is None or \
            (type(x) is _nd and x.dtype.kind in "biuSUO"):
        return None
    return arg_kind(x, fname, pname)


def _as_tuple(v, what):
    if not isinstance(v, (tuple, list)):
        raise TypeError(f"adsrc.jvp expects {what} as a tuple or list (one entry per argument), got "
                        f"{type(v).__name__}; for one argument write `({what[:-1]},)`")
    return tuple(v)


class _Plan:
    """What jvp learns once per function and call shape: what to transform, the fixed arguments, parameters."""

    def __init__(self, fun, nprimals, static_argnums, static_argnames):
        parts = callables.split(fun)
        function = parts.function
        if (function is fun or not parts.fixed) and varargs.takes_varargs(function):
            fun = function = varargs.bound(function, nprimals)
            parts = callables.split(fun)
        check_function(function)
        self.fname = fname = name_of(fun)
        self.function = function
        self.resolvable = hasattr(frontend.unwrap(function), "_adsrc_resolve")     # a gradient adsrc made
        self.front = tuple(f.value for f in parts.positional)
        self.fixed_kw = {k: f.value for k, f in parts.keywords.items()}
        self.known = parts.known()
        self.fixed = tuple(sorted((n, id(v)) for n, v in self.known.items()))   # constants of the code: by identity
        params = [p.name for p in frontend.signature(function).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self.free = free = params[len(self.front):]
        if nprimals > len(free):
            raise TypeError(f"`{fname}` takes {len(free)} positional arguments but jvp got {nprimals} primals")
        nums = {i + len(free) if i < 0 else i for i in
                ((static_argnums,) if isinstance(static_argnums, numbers.Integral) else static_argnums or ())}
        names = {static_argnames} if isinstance(static_argnames, str) else set(static_argnames or ())
        self.static = {free[i] for i in nums if i < len(free)} | names


_PLANS = {}     # (id(fun), call shape) -> (fun, _Plan)


def _plan(fun, nprimals, static_argnums, static_argnames):
    key = (id(fun), nprimals, static_argnums if isinstance(static_argnums, numbers.Integral) else
           tuple(static_argnums or ()), static_argnames if isinstance(static_argnames, str) else
           tuple(static_argnames or ()))
    entry = _PLANS.get(key)
    if entry is None or entry[0] is not fun:
        if len(_PLANS) > 512:
            _PLANS.clear()
        entry = _PLANS[key] = (fun, _Plan(fun, nprimals, static_argnums, static_argnames))
    return entry[1]


transform.CLEAR_HOOKS += [_CACHES.clear, _PLANS.clear]


class _Call:
    """One jvp call, matched to its compiled forward code."""

    def __init__(self, fun, primals, tangents, has_aux, static_argnums, static_argnames):
        primals = _as_tuple(primals, "primals")
        tangents = _as_tuple(tangents, "tangents")
        if len(primals) != len(tangents):
            raise ValueError(f"adsrc.jvp got {len(primals)} primals but {len(tangents)} tangents: give one "
                             "tangent per primal (None for a static or integer one)")
        plan = _plan(fun, len(primals), static_argnums, static_argnames)
        fname, free, static = plan.fname, plan.free, plan.static
        self.front, self.fixed_kw = plan.front, plan.fixed_kw
        self.function = frontend.resolve(plan.function, self.front + primals, self.fixed_kw) if plan.resolvable \
            else plan.function
        statics = static_snapshot({p: v for p, v in zip(free, primals) if p in static})
        kinds = []
        for p, x, t in zip(free, primals, tangents):
            k = None if p in static or t is None else _kind(x, fname, p)
            if k is not None:
                check_cotangent(t, x, f"tangent of `{p}`")
            kinds.append(k)
        self.kinds = tuple(kinds)
        self.wrt = [p for p, k in zip(free, kinds) if k is not None]
        self.tangents = [t for t, k in zip(tangents, kinds) if k is not None]
        self.primals = primals
        self.has_aux = bool(has_aux)
        functions, self.classes = object_args.constant_roles(
            [(p, x) for p, x, k in zip(free, primals, kinds) if k is None and p not in static] +
            object_args.left_defaults(self.function, set(free[:len(primals)]) | set(self.fixed_kw) | set(static)))
        statics.update(functions)
        self.statics = {**plan.known, **statics}
        skey = tuple(sorted((n, static_key(v, n, fname)) for n, v in statics.items())) if statics else ()
        skey += tuple(sorted(self.classes.items()))
        self.key = (self.kinds, self.has_aux, skey, plan.fixed)
        if not self.wrt:
            raise TypeError(f"adsrc.jvp of `{fname}`: no primal with a tangent holds floating-point values")

    def build(self):
        with transform.LOCK:
            known = pytree_nodes.with_classes(self.statics, {p: k for p, k in zip(self.wrt, self._wrt_kinds())},
                                              self.classes)
            lw = transform.lowered(self.function, known, (self.key[2], tuple(n for n, _ in self.key[3]))
                                   + tuple((keys.Identity, i) for _, i in self.key[3])) if known else \
                transform.lowered(self.function)
            unit = transform.Unit(lw.uf.name + "_jvp")
            options = {"final": True, "has_aux": self.has_aux}
            transform.build(lw, unit, self.wrt, dict(zip(self.wrt, self._wrt_kinds())), "jvp", options)
            return entries.make(unit, self.function)

    def _wrt_kinds(self):
        return [k for k in self.kinds if k is not None]

    def compiled(self):
        return entries.compiled(function_cache(_CACHES, self.function), self.key, self.build)

    def run(self):
        fn = self.compiled()
        tkw = dict(zip(fn.unit.tangent_params, self.tangents))
        try:
            result, out_dot = fn(*self.front, *self.primals, **self.fixed_kw, **tkw)
        except Exception as e:
            annotate(e)
            raise
        if self.has_aux:
            out, aux = result
            return out, out_dot, aux
        return result, out_dot


class _Jvp:
    """adsrc.jvp(fun, primals, tangents, has_aux=False, *, static_argnums=(), static_argnames=())."""

    def __call__(self, fun, primals, tangents, has_aux=False, *, static_argnums=(), static_argnames=()):
        """(fun(*primals), J tangents): the output and its tangent (a Jacobian-vector product), as in JAX.

        `primals` and `tangents` are tuples with one entry per positional
        argument; a tangent has its primal's structure and shapes (None: the
        argument is constant). Static arguments are constants of the generated
        code (one specialization per value). With has_aux=True, fun returns
        `(out, aux)` and jvp returns `(out, out_dot, aux)`.
        """
        return _Call(fun, primals, tangents, has_aux, static_argnums, static_argnames).run()

    def source(self, fun, primals, tangents, has_aux=False, *, static_argnums=(), static_argnames=()):
        """The generated forward-mode source for this call's specialization."""
        call = _Call(fun, primals, tangents, has_aux, static_argnums, static_argnames)
        return Source(unit_source(call.compiled().unit))

    def __repr__(self):
        return "<adsrc.jvp>"


jvp = _Jvp()


def general_jvp(fun, mask):
    """fun's compiled forward code for float arrays, with tangents for the primals `mask` marks (for
    `adsrc.jvp` called inside a function adsrc transforms: the code serves floats and arrays alike)."""
    placeholders = tuple(np.zeros(1) if m else None for m in mask)
    return _Call(fun, placeholders, placeholders, False, (), ()).compiled()


def linearize(fun, *primals):
    """(fun(*primals), f_jvp) with `f_jvp(*tangents)` the Jacobian of fun at primals times the tangents, as
    in JAX. Each call of f_jvp runs the forward code adsrc generated for fun (its value and tangent), so it
    costs about a jvp; array primals are copied, so changing them afterwards changes nothing."""
    primals = tuple(np.array(p, copy=True) if type(p) is _nd else p for p in primals)
    out = fun(*primals)

    def f_jvp(*tangents):
        if len(tangents) != len(primals):
            raise TypeError(f"the function linearize returned takes {len(primals)} tangents (one per primal), "
                            f"got {len(tangents)}")
        return jvp(fun, primals, tangents)[1]
    return out, f_jvp
