"""Generated functions (units) and the calls between them.

`build` differentiates a lowered function into a `Unit`: the generated
source, the compiled function, and the units it calls. A call from
differentiated code to another user function calls that function's vjp unit
(`f_vjp(args) -> (out, pullback)`), made once per (function, differentiated
parameters, their abstract values, statics); recursion refers back to the
unit being built. What a callee's result depends on and what it is come from
its lowered IR (no compiling while analysing).
"""

import inspect
import threading
import types
import weakref

import gast

from .. import astutil, emission as emit, runtime
from ..analysis import values as values_mod
from ..analysis.activity import Activity, dependences
from ..analysis.summaries import call_statics, callee_name, statics_key
from ..errors import TransformError, in_call
from ..facade import NUMPY
from ..frontend import varargs_hint
from ..frontend.varargs import call_shape, parameters
from ..guards import Guards
from .assemble import assemble_grad, assemble_vjp
from .checkpoint import callee_policy
from .fields import as_fields
from .forward import Forward, assemble_jvp
from .reverse import Adjoint

_VJP_UNITS = weakref.WeakKeyDictionary()   # function -> {key: Unit}
_JVP_UNITS = weakref.WeakKeyDictionary()   # function -> {key: Unit}
_RESULTS = {}                               # (function, statics, returns, arg values) -> AbsVal
_DEPS = {}                                  # (function, statics, returns) -> [set of parameters]
_DEPS_BUSY, _DEPS_STACK = {}, []            # recursive callees being computed (see result_dependences)
LOCK = threading.RLock()


class Unit:
    """One generated function."""

    def __init__(self, name):
        self.name = name
        self.cell = types.CellType()   # holds the compiled function once built
        self.text = None
        self.fn = None
        self.callees = []              # Units this one calls
        self.building = True
        self.lowered = None
        self.tangent_params = ()       # forward mode: the names of its tangent parameters
        self.bwd = None                # reverse mode: the pullback `f_pullback(residuals, g)`
        self.bwd_cell = types.CellType()


class CallInfo:
    def __init__(self, expr, pullback, wrt_args, bwd):
        self.expr = expr               # the call to the callee's vjp unit
        self.pullback = pullback       # the name its residuals are bound to
        self.wrt_args = wrt_args       # atoms whose cotangents the pullback returns, in order
        self.bwd = bwd                 # the name of the callee's pullback function: bwd(residuals, g)


class CustomInfo:
    def __init__(self, expr, bwd, residuals):
        self.expr, self.bwd, self.residuals = expr, bwd, residuals


class Context:
    """What the differentiator needs beyond the function itself: other units, bound objects, lowering."""

    def __init__(self, pipeline, namer, unit, lw):
        self.pipeline = pipeline
        self.namer = namer
        self.unit = unit
        self.lw = lw
        self.refs = {}                 # name in generated code -> Unit
        self.bwd_refs = {}             # name in generated code -> Unit whose pullback it calls
        self.objects = {}              # name in generated code -> object
        self.loop_policy = None        # checkpoint_loops= (differentiation/checkpoint.py)
        self.dense = False             # cotangents of arrays are arrays, never numbers standing for them (numba)

    def primitive_names(self, namer):
        return self.pipeline.primitive_names(namer)

    def bind(self, base, obj):
        for name, known in self.objects.items():
            if known is obj:
                return name
        name = self.namer.fresh(base)
        self.objects[name] = obj
        return name

    def custom(self, adj, s):
        fn = s.callee
        if fn.fwd is None:
            raise adj.error(s, f"the custom_vjp function `{fn.__name__}` has no rule yet.",
                            f"Give it one with `{fn.__name__}.defvjp(fwd, bwd)` before differentiating.")
        fwd = self.bind(fn.__name__ + "_fwd", fn.fwd)
        bwd = self.bind(fn.__name__ + "_bwd", fn.bwd)
        residuals = self.namer.fresh(_stem(s.target) + "_res")
        expr = astutil.call(fwd, [astutil.clone(a) for a in s.expr.args])
        return CustomInfo(expr, bwd, residuals)

    def call(self, adj, s):
        """The vjp unit a differentiated call to a user function calls."""
        callee = s.callee
        params, bound = bind_arguments(callee, s)
        if params is None:
            hint = "Pass the arguments explicitly, one per parameter (no `*` or `**` unpacking of a sequence " \
                   "whose length adsrc does not know)."
            if call_shape(callee, 0, ()) is not None:
                hint = varargs_hint(callee)            # a function taking *args/**kwargs
            elif getattr(adj.uf.fun, "__wrapped__", None) is not None:
                hint = varargs_hint(adj.uf.fun)        # a decorator's wrapper forwarding *args, **kwargs
            raise adj.error(s, f"adsrc cannot match the arguments of the call to `{_name(callee)}`.", hint)
        statics = call_statics(s, self.pipeline.resolver(adj.uf))
        wrt = [p for p in params if p in bound and p not in statics and adj.act.any_varied([bound[p]])]
        vals = tuple(adj.values.of(bound[p]).without_shape() for p in wrt)
        try:
            unit = vjp_unit(self.pipeline, callee, tuple(wrt), vals, statics, s.returns_params,
                            callee_policy(adj, s), dense=self.dense)
        except TransformError as e:
            raise in_call(e, adj.uf.loc(s.loc), callee_name(callee)) from None
        expr = self.unit_call(unit, s, {})
        pullback = self.namer.fresh(_stem(s.target) + "_res")
        bwd = self.namer.fresh(unit.name.replace("_vjp", "_pullback", 1) if "_vjp" in unit.name else
                               unit.name + "_pullback")
        self.bwd_refs[bwd] = unit
        return CallInfo(expr, pullback, [bound[p] for p in wrt], bwd)

    def jvp_call(self, fw, s):
        """The call to a callee's jvp unit: `f_jvp(args, x_dot=...)` -> (value, tangent)."""
        callee = s.callee
        params, bound = bind_arguments(callee, s)
        if params is None:
            raise fw.error(s, f"adsrc cannot match the arguments of the call to `{_name(callee)}`.",
                           "Pass the arguments explicitly, one per parameter.")
        statics = call_statics(s, self.pipeline.resolver(fw.uf))
        wrt = [p for p in params if p in bound and p not in statics and not isinstance(bound[p], (list, dict))
               and fw.tangent(bound[p]) is not None]
        vals = tuple(fw.values.of(bound[p]).without_shape() for p in wrt)
        try:
            unit, tnames = jvp_unit(self.pipeline, callee, tuple(wrt), vals, statics, s.returns_params)
        except TransformError as e:
            raise in_call(e, fw.uf.loc(s.loc), callee_name(callee)) from None
        return self.unit_call(unit, s, {tn: fw.tangent(bound[p]) for p, tn in zip(wrt, tnames)}), tnames

    def unit_call(self, unit, s, extra):
        """The call s made to `unit` instead (the receiver first), with the keywords `extra` added."""
        if unit is not self.unit:
            self.unit.callees.append(unit)
        ref = self.namer.fresh(unit.name)
        self.refs[ref] = unit
        call = s.expr
        args = ([astutil.clone(s.receiver)] if s.receiver is not None else []) + \
            [astutil.clone(a) for a in call.args]
        return astutil.call(astutil.name(ref), args, {**{k.arg: astutil.clone(k.value) for k in call.keywords},
                                                      **extra})

    def bindings(self, uf, fn):
        out = {name: runtime.HELPERS[base] for name, base in self.namer.helpers.items()}
        out.update({name: NUMPY for name, base in self.namer.helpers.items() if base == "np"})
        for name, unit in self.refs.items():
            out[name] = unit.cell
        for name, unit in self.bwd_refs.items():
            out[name] = unit.bwd_cell
        out.update(self.objects)
        out.update(fn.bindings)
        out.update(uf.cells)
        return out


def _stem(target):
    n = target if isinstance(target, str) else target[0] if isinstance(target[0], str) else "out"
    return n.split(".")[-1]


def _name(fn):
    return getattr(fn, "__qualname__", getattr(fn, "__name__", repr(fn)))


def _call_atoms(s):
    e = s.expr
    return ([s.receiver] if s.receiver is not None else []) + \
        [a.value if isinstance(a, gast.Starred) else a for a in e.args] + [k.value for k in e.keywords]


def bind_arguments(callee, s):
    """(parameter names, {parameter: argument atom}) of a call, or (None, None) if they cannot be matched.

    A callee taking *args/**kwargs has the parameters of the call's shape
    (frontend/varargs.py): each extra argument is a parameter of its own.
    """
    try:
        sig = inspect.signature(callee, follow_wrapped=False)
    except (TypeError, ValueError):
        return None, None
    args = ([s.receiver] if s.receiver is not None else []) + list(s.expr.args)
    if any(isinstance(a, gast.Starred) for a in args) or any(k.arg is None for k in s.expr.keywords):
        return None, None
    ps = list(sig.parameters.values())
    names = [p.name for p in ps]
    pos = [p.name for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    keyword_ok = {p.name for p in ps if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    shape = call_shape(callee, len(args), [k.arg for k in s.expr.keywords])
    if shape is not None:
        names = parameters(callee, shape)
        if names is None:
            return None, None
        pos = names[:len(pos) + shape[0]]
        keyword_ok |= set(shape[1])
    if len(args) > len(pos):
        return None, None
    bound = dict(zip(pos, args))
    for k in s.expr.keywords:
        if k.arg not in keyword_ok or k.arg in bound:
            return None, None
        bound[k.arg] = k.value
    return names, bound


# -- analyses of callees, from their lowered IR ----------------------------------------------------------

def _statics_key(statics):
    return statics_key(statics)


def call_oracles(pipeline, uf):
    """(results, deps) oracles for Values and Activity of a function whose module context is uf."""
    resolve = pipeline.resolver(uf)

    def target(s):
        statics = call_statics(s, resolve)
        return s.callee, statics, s.returns_params

    def results(s, arg_values):
        if s.receiver is not None:
            return None
        callee, statics, returns = target(s)
        params, bound = bind_arguments(callee, s)
        if params is None:
            return None
        vals = {p: values_of_atom(bound[p], arg_values, s) for p in params
                if p in bound}
        return result_value(pipeline, callee, statics, returns, vals)

    def deps(s):
        callee, statics, returns = target(s)
        params, bound = bind_arguments(callee, s)
        if params is None:
            return None
        parts = result_dependences(pipeline, callee, statics, returns)
        if parts is None:
            return None
        return [[bound[p] for p in part if p in bound] for part in parts]
    return results, deps


def values_of_atom(node, arg_values, s):
    args = list(s.expr.args)
    for a, v in zip(args, arg_values):
        if a is node:
            return v
    return values_mod.UNKNOWN


def result_value(pipeline, callee, statics, returns, vals):
    key = (callee, _statics_key(statics), returns, tuple(sorted(vals.items())))
    if key in _RESULTS:
        return _RESULTS[key]
    _RESULTS[key] = None                 # recursion: not known yet
    try:
        lw = pipeline.lowered(callee, statics, returns)
        results, _ = call_oracles(pipeline, lw.uf)
        vals_all = {p: vals.get(p, values_mod.UNKNOWN) for p in lw.fn.params}
        v = values_mod.Values(lw.fn, vals_all, results)
        out = v.of(lw.fn.result).without_shape()
    except Exception:
        out = None
    _RESULTS[key] = out
    return out


def result_dependences(pipeline, callee, statics, returns):
    """For each part of a callee's result, the parameters it depends on differentiably (None: all).

    A recursive callee starts from "depends on nothing" and is recomputed until its answer is
    what its recursive calls were told; answers computed from an unfinished guess are not kept."""
    key = (callee, _statics_key(statics), returns)
    if key in _DEPS_BUSY:
        depth = _DEPS_STACK.index(key)
        for k in _DEPS_STACK[depth + 1:]:
            _DEPS_BUSY[k].leans_on = min(_DEPS_BUSY[k].leans_on, depth)
        _DEPS_BUSY[key].recursed = True
        return _DEPS_BUSY[key].guess
    if key in _DEPS:
        return _DEPS[key]
    pending = _Pending([set() for _ in range(1 + len(returns))], len(_DEPS_STACK))
    _DEPS_BUSY[key] = pending
    _DEPS_STACK.append(key)
    try:
        lw = pipeline.lowered(callee, statics, returns)
        while True:
            _, deps = call_oracles(pipeline, lw.uf)
            out = dependences(lw.fn, bool(returns), deps)
            if not pending.recursed or out == pending.guess:
                break
            pending.guess, pending.recursed = out, False
    except Exception:
        out = None
    finally:
        _DEPS_STACK.pop()
        del _DEPS_BUSY[key]
    if pending.leans_on >= len(_DEPS_STACK):
        _DEPS[key] = out
    return out


class _Pending:
    """A recursive callee's dependences being computed: the current guess, whether a recursive
    call used it, and the outermost unfinished callee whose guess this one's answer used."""

    def __init__(self, guess, depth):
        self.guess, self.recursed, self.leans_on = guess, False, depth


# -- building units ------------------------------------------------------------------------------------------

def unit_guards(unit):
    """The names `unit` and every unit it calls depended on when they were transformed."""
    out = Guards()
    seen, stack = set(), [unit]
    while stack:
        u = stack.pop()
        if id(u) in seen or u.building:
            continue
        seen.add(id(u))
        out.merge(u.lowered.uf.guards)
        stack.extend(u.callees)
    return out


def vjp_unit(pipeline, fun, wrt, vals, statics=None, returns=(), policy=None, dense=False):
    """The unit `f_vjp(args) -> (out, residuals)` (and its pullback) for fun, differentiated in `wrt`
    (policy: checkpoint_loops=, see differentiation/checkpoint.py; dense: see Context.dense)."""
    return _unit(_VJP_UNITS, "vjp", pipeline, fun, wrt, vals, statics, returns, policy, dense)


def jvp_unit(pipeline, fun, wrt, vals, statics=None, returns=()):
    """(unit, tangent parameter names): `f_jvp(args, *, x_dot...) -> (out, out_dot)` for fun."""
    unit = _unit(_JVP_UNITS, "jvp", pipeline, fun, wrt, vals, statics, returns)
    return unit, unit.tangent_params


def _unit(units, mode, pipeline, fun, wrt, vals, statics, returns, policy=None, dense=False):
    """The unit of fun for mode, differentiated in `wrt` (abstract values vals), made once per key."""
    statics = statics or {}
    with LOCK:
        table = units.setdefault(fun, {})
        key = (wrt, vals, _statics_key(statics), returns) + ((policy,) if policy is not None else ()) + \
            (("dense",) if dense else ())
        unit = table.get(key)
        if unit is not None and (unit.building or unit_guards(unit).changed() is None):
            return unit
        lw = pipeline.lowered(fun, statics, returns)
        suffix = "" if list(wrt) == lw.fn.params else "_" + "_".join(wrt)
        unit = Unit(lw.uf.name + "_" + mode + suffix)
        table[key] = unit
        try:
            build(pipeline, lw, unit, list(wrt), dict(zip(wrt, vals)), mode=mode,
                  options={"checkpoint_loops": policy, "dense": dense})
        except BaseException:
            del table[key]
            raise
        return unit


def build(pipeline, lw, unit, wrt, vals, mode, options=None):
    """Generate, print and compile `unit` from a lowered function.

    vals: abstract values (or specialization-key entries) of the differentiated parameters.
    """
    options = options or {}
    missing = [p for p in wrt if p not in lw.fn.params]
    if missing:     # a wrapper whose parameters are not the user's: a silent zero gradient otherwise
        raise AssertionError(f"adsrc internal error: `{missing[0]}` is not a parameter of the function transformed "
                             f"for it ({lw.uf.qualname}{tuple(lw.fn.params)})")
    fn, namer = lw.fresh()
    unit.name = namer.fresh(unit.name)
    ctx = Context(pipeline, namer, unit, lw)
    ctx.loop_policy = options.get("checkpoint_loops")
    ctx.dense = bool(options.get("dense"))
    results, deps = call_oracles(pipeline, lw.uf)
    params = {p: (v if isinstance(v, values_mod.AbsVal) else values_mod.from_key(v)) for p, v in vals.items()}
    values = values_mod.Values(fn, params, results)
    if as_fields(fn.body, values):      # `c.size` of a dataclass is a field, not an array's size
        values = values_mod.Values(fn, params, results)
    act = Activity(fn, wrt, deps)
    if mode == "jvp":
        fw = Forward(fn, namer, wrt, values, act, ctx)
        unit.tangent_params = [fw.tname(p) for p in wrt]      # known before the body (recursion)
        fdef = assemble_jvp(fw, fn, unit.name, options)
        return _finish(unit, fdef, lw, ctx, fn)
    adj = Adjoint(fn, namer, wrt, values, act, ctx, callee=mode == "vjp" and not options.get("final"))
    adj.boxed = mode == "vjp" and bool(options.get("final"))   # its residuals go through Python to the pullback
    if mode == "grad":
        # NumPy arrays (emission/outputs.py; the numba kernel hands every gradient to grad_output itself)
        ndarrays, floats = ((), ()) if ctx.dense else (_keyed(vals, "array"), _keyed(vals, "scalar"))
        fdef = assemble_grad(adj, fn, unit.name, dict(options, ndarrays=ndarrays, floats=floats))
    else:
        fdef = assemble_vjp(adj, fn, unit.name, options)
    return _finish(unit, fdef, lw, ctx, fn)


def _keyed(vals, entry):
    """The parameters whose specialization-key entry is `entry` ('array', 'scalar')."""
    return [p for p, v in vals.items() if isinstance(v, str) and v == entry]


def _finish(unit, fdef, lw, ctx, fn):
    """Print and compile a unit: one function, or (vjp) the forward function and its pullback."""
    fdefs = fdef if isinstance(fdef, list) else [fdef]
    unit.text = "\n\n".join(emit.render(d, lw.line_text).rstrip("\n") for d in fdefs) + "\n"
    unit.filename = emit.unique_filename(emit.filename_for(unit.name, f"{lw.uf.filename}:{lw.uf.node.lineno}"),
                                         unit.text)
    bindings = ctx.bindings(lw.uf, fn)
    unit.fn = emit.compile_function(unit.text, unit.name, unit.filename, lw.uf.globals, bindings,
                                    lw.uf.fun.__defaults__, lw.uf.fun.__kwdefaults__)
    unit.cell.cell_contents = unit.fn
    if len(fdefs) > 1:
        unit.bwd = emit.compile_function(unit.text, fdefs[1].name, unit.filename, lw.uf.globals, bindings)
        unit.bwd_cell.cell_contents = unit.bwd
    unit.building = False
    unit.lowered = lw
    return unit


def clear_caches():
    with LOCK:
        _VJP_UNITS.clear()
        _JVP_UNITS.clear()
        _RESULTS.clear()
        _DEPS.clear()
