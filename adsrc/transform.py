"""The pipeline, end to end: source -> lowered IR -> adjoint -> compiled function.

`lowered(fun)` runs the frontend, normalization and lowering once per
function. `build(...)` differentiates a lowered function into a `Unit`: the
generated source, the compiled function, and the other units it calls
(each user function called with the same differentiated arguments is
transformed once; recursion refers back to the unit being built).
"""

import copy
import inspect
import threading
import types
import weakref

import gast

from . import astutil, copyprop, dce, emit, primitives, runtime
from . import old_ir as ir
from .activity import ARRAY, OTHER
from .differentiate import AdjState, Adjoint, _tag, comment
from .errors import transform_error
from .guards import Guards
from .frontend import load, signature, source_function, static_value, varargs_hint
from .lower.jumps import eliminate_jumps
from .lower.mutation import parameter_mutations
from .lower.ssa import to_ssa
from .lower.tidy import tidy
from .lower.structure import lower
from .normalize import normalize
from .specialize import specialize

LOCK = threading.RLock()       # transformations are serialized; generated code runs freely

_LOWERED = weakref.WeakKeyDictionary()   # function -> {static key: Lowered}
_VJP_UNITS = weakref.WeakKeyDictionary()  # function -> {(mask, kinds): Unit}


class Lowered:
    """A function after the frontend and lowering passes, for given static argument values.

    Independent of which arguments are differentiated.
    """

    def __init__(self, fun, statics=None):
        self.statics = dict(statics or {})
        self.uf = load(fun).with_known(self.statics) if self.statics else load(fun)
        source = source_function(fun)       # its code may be replaced in place (IPython's autoreload)
        self.uf.guards.record("static", source, self.uf.name, [(True, "__code__")], source.__code__)
        fdef, namer = normalize(self.uf)
        specialize(self.uf, fdef, self.statics)
        assigned = astutil.names_stored(self.uf.node)
        for base in ("np", "math"):
            if base not in assigned and self.uf.lookup(base)[1] is runtime.HELPERS[base]:
                namer.share(base)
        eliminate_jumps(fdef, namer)
        self.mutations = parameter_mutations(fdef, self.resolve)
        self.fn = lower(self.uf, fdef, namer)
        to_ssa(self.fn, namer)
        tidy(self.fn.body)
        self.namer = namer

    def resolve(self, node):
        """The object an expression of this function means when transforming, or None."""
        try:
            return static_value(node, self.uf, lambda n: n in self.uf.locals and n not in self.uf.known)
        except LookupError:
            return None

    def fresh(self):
        """A private copy of the IR and the namer, for one transformation."""
        return copy.deepcopy(self.fn), copy.deepcopy(self.namer)

    def line_text(self, lineno):
        return self.uf.line(lineno)

    def source(self):
        fn, namer = self.fresh()
        printer = ir.Printer(primitive_names(namer), namer)
        fdef = printer.function(fn)
        return emit.render(fdef, self.line_text), namer

    def compile(self):
        """The lowered program as a runnable function (it computes what the user's function does)."""
        text, namer = self.source()
        filename = emit.filename_for(self.uf.name + "_lowered", self.uf.filename)
        bindings = {name: runtime.HELPERS[base] for name, base in namer.helpers.items()}
        bindings.update(self.uf.cells)
        return emit.compile_function(text, self.fn.name, filename, self.uf.globals, bindings,
                                     self.uf.fun.__defaults__, self.uf.fun.__kwdefaults__)


def lowered(fun, statics=None, static_key=()):
    """The Lowered form of fun for static values `statics` (cached under `static_key`)."""
    if not isinstance(fun, types.FunctionType):
        load(fun)   # raises the error explaining what adsrc can differentiate
    code = source_function(fun).__code__    # redefined functions are transformed again
    with LOCK:
        table = _LOWERED.setdefault(fun, {})
        lw = table.get(static_key)
        if lw is None or lw.code is not code or lw.uf.guards.changed():
            lw = Lowered(fun, statics)
            lw.code = code
            table[static_key] = lw
        return lw


def clear_caches():
    """Forget every lowered function and generated vjp (for measuring first-call latency)."""
    with LOCK:
        _LOWERED.clear()
        _VJP_UNITS.clear()


def primitive_names(namer):
    return {p: namer.helper(p) for p in ("cond", "scan", "while_loop")}


runtime.HELPERS.update({"cond": primitives.cond, "scan": primitives.scan,
                        "while_loop": primitives.while_loop})


class Unit:
    """One generated function."""

    def __init__(self, name):
        self.name = name
        self.cell = types.CellType()   # holds the compiled function once built
        self.text = None
        self.fn = None
        self.callees = []              # Units this one calls
        self.result_varied = True
        self.result_kind = OTHER
        self.building = True


class UnitBuilder:
    """Answers the differentiator's questions about calls, for one unit."""

    def __init__(self, namer, unit):
        self.namer = namer
        self.unit = unit
        self.refs = {}                 # name in generated code -> Unit
        self.objects = {}              # name in generated code -> object it means (custom rules)

    def refuse_mutations(self, stmt, uf):
        """Raise if the user function a statement calls changes an argument in place."""
        refuse_mutations(callee_lowered(stmt.op.callee, {}), stmt, uf)

    def bind(self, base, obj):
        """A name generated code can use for obj."""
        for name, known in self.objects.items():
            if known is obj:
                return name
        name = self.namer.fresh(base)
        self.objects[name] = obj
        return name

    def primitive_names(self, namer):
        return primitive_names(namer)

    def call_info(self, stmt, varied_args, activity):
        """(result varied, result kind) of a call to another user function; prepares its vjp call."""
        callee = stmt.op.callee
        call = stmt.value
        receiver = getattr(stmt.op, "receiver", None)
        call_args = ([receiver] if receiver is not None else []) + list(call.args)
        try:
            sig = signature(callee)
        except (TypeError, ValueError):
            sig = None
        params = list(sig.parameters.values()) if sig else []
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params) or sig is None:
            if any(varied_args):
                raise activity.fn.uf.error(_node_at(stmt), f"adsrc cannot differentiate the call to "
                                                           f"{stmt.op.describe}, which takes *args or **kwargs.",
                                           varargs_hint(callee))
            return False, OTHER
        names = [p.name for p in params]
        atoms = {}
        pos = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        for i, a in enumerate(call_args):
            if isinstance(a, gast.Starred) or i >= len(pos):
                raise activity.fn.uf.error(_node_at(stmt), f"adsrc cannot match the arguments of the call to "
                                                           f"{stmt.op.describe}.",
                                           "Pass the arguments explicitly, one per parameter.")
            atoms[pos[i].name] = a
        for kw in call.keywords:
            if kw.arg is None or kw.arg not in names:
                raise activity.fn.uf.error(_node_at(stmt), f"adsrc cannot match the keyword arguments of the "
                                                           f"call to {stmt.op.describe}.", None)
            atoms[kw.arg] = kw.value
        wrt = []
        kinds = {}
        functions = {}
        uf = activity.fn.uf
        for pname in names:
            node = atoms.get(pname)
            if isinstance(node, gast.Name) and node.id in activity.varied:
                wrt.append(pname)
                kinds[pname] = activity.kind.get(node.id, OTHER)
            elif isinstance(node, (gast.Name, gast.Attribute)):
                try:
                    value = static_value(node, uf, lambda n: n in uf.locals and n not in uf.known)
                except LookupError:
                    continue
                if _is_function(value):
                    functions[pname] = value    # a function passed as an argument: known when transforming
        if not wrt:
            return False, OTHER
        refuse_mutations(callee_lowered(callee, functions), stmt, activity.fn.uf)
        unit = vjp_unit(callee, tuple(wrt), tuple(kinds[p] for p in wrt), functions)
        if unit is not self.unit:
            self.unit.callees.append(unit)
        ref = self.namer.fresh(unit.name)
        self.refs[ref] = unit
        stmt.op.vjp_call = astutil.call(astutil.name(ref), [copy.deepcopy(a) for a in call_args],
                                        {k.arg: copy.deepcopy(k.value) for k in call.keywords})
        stmt.op.vjp_args = [atoms[p] for p in wrt]
        if unit.building:
            return True, OTHER
        return unit.result_varied, unit.result_kind

    def bindings(self, uf):
        out = {}
        for name, base in self.namer.helpers.items():
            out[name] = runtime.HELPERS[base]
        for name, unit in self.refs.items():
            out[name] = unit.cell
        out.update(self.objects)
        for name, cell in uf.cells.items():
            out[name] = cell
        return out


def _node_at(stmt):
    class _N:
        pass
    n = _N()
    n.lineno = stmt.op_lineno or stmt.lineno
    n.col_offset = stmt.col
    return n


def _is_function(value):
    from .custom import custom_vjp
    return isinstance(value, (types.FunctionType, types.BuiltinFunctionType, custom_vjp)) or \
        type(value).__name__ == "ufunc"


def unit_guards(unit):
    """The names `unit` and every unit it calls depended on when they were transformed."""
    out = Guards()
    seen = set()
    stack = [unit]
    while stack:
        u = stack.pop()
        if id(u) in seen or u.building:
            continue
        seen.add(id(u))
        out.merge(u.lowered.uf.guards)
        stack.extend(u.callees)
    return out


def refuse_mutations(lw, stmt, uf):
    """Raise at a call (with differentiated arguments) to a function that changes an argument in place."""
    if not lw.mutations:
        return
    param, at, what = lw.mutations[0]
    callee = lw.uf
    raise uf.error(_node_at(stmt),
                   f"{stmt.op.describe} changes its argument `{param}` in place ({what} at {callee.filename}, "
                   f"line {at.lineno}: `{callee.line(at.lineno)}`), and adsrc would lose that change: it "
                   "differentiates a function through the value it returns.",
                   f"Return the new value and assign it where you call `{callee.name}`, or copy the argument "
                   f"first inside `{callee.name}` (`{param} = {param}.copy()`).")


def _functions_key(functions):
    return tuple(sorted((name, id(f)) for name, f in functions.items()))


def callee_lowered(fun, functions):
    """The Lowered form of a function called from generated code, specialized on function arguments."""
    return lowered(fun, functions, _functions_key(functions)) if functions else lowered(fun)


def vjp_unit(fun, wrt, kinds, functions=None):
    """The unit `f_vjp(args) -> (out, pullback)` for fun, differentiated in `wrt`.

    functions: parameters that receive functions, with the functions they receive (the
    unit is specialized on them, so calls through those parameters can be followed).
    """
    functions = functions or {}
    with LOCK:
        table = _VJP_UNITS.setdefault(fun, {})
        key = (wrt, kinds, _functions_key(functions))
        unit = table.get(key)
        if unit is not None and (unit.building or unit_guards(unit).changed() is None):
            return unit
        lw = callee_lowered(fun, functions)
        params = [p for p in lw.fn.params]
        suffix = "" if list(wrt) == params else "_" + "_".join(wrt)
        unit = Unit(lw.uf.name + "_vjp" + suffix)
        table[key] = unit
        try:
            build(lw, unit, list(wrt), dict(zip(wrt, kinds)), mode="vjp")
        except BaseException:
            del table[key]
            raise
        return unit


def build(lw, unit, wrt, kinds, mode, options=None):
    """Generate, print and compile `unit` from a lowered function."""
    options = options or {}
    fn, namer = lw.fresh()
    unit.name = namer.fresh(unit.name)
    builder = UnitBuilder(namer, unit)
    adj = Adjoint(fn, namer, wrt, kinds, builder, mode, callee=mode == "vjp" and not options.get("final"))
    if mode == "grad":
        fdef = _assemble_grad(adj, fn, unit.name, options)
    else:
        fdef = _assemble_vjp(adj, fn, unit.name, options)
    unit.result_varied = _atom_varied(adj, fn.result)
    unit.result_kind = _atom_kind(adj, fn.result)
    unit.text = emit.render(fdef, lw.line_text)
    unit.filename = emit.filename_for(unit.name, f"{lw.uf.filename}:{lw.uf.node.lineno}")
    defaults = lw.uf.fun.__defaults__
    unit.fn = emit.compile_function(unit.text, unit.name, unit.filename, lw.uf.globals,
                                    builder.bindings(lw.uf), defaults, lw.uf.fun.__kwdefaults__)
    unit.cell.cell_contents = unit.fn
    unit.building = False
    unit.lowered = lw
    return unit


def _atom_varied(adj, atom):
    return isinstance(atom, gast.Name) and atom.id in adj.act.varied


def _atom_kind(adj, atom):
    if isinstance(atom, gast.Name):
        return adj.act.kind.get(atom.id, OTHER)
    return ARRAY


def _signature(fn):
    return copy.deepcopy(fn.args)


def _result_parts(fn, n):
    """Atoms of a result that is a tuple display of n elements, else subscripts of it."""
    res = fn.result
    if isinstance(res, gast.Name):
        for s in fn.body:
            if isinstance(s, ir.Assign) and s.target == res.id and s.op.kind == "tuple" \
                    and len(s.value.elts) == n:
                return [copy.deepcopy(e) for e in s.value.elts]
    return [gast.Subscript(value=copy.deepcopy(res), slice=astutil.const(i), ctx=gast.Load()) for i in range(n)]


def _assemble_grad(adj, fn, name, options):
    has_aux = options.get("has_aux", False)
    with_value = options.get("with_value", False)
    single = options.get("single", True)
    res = fn.result
    if has_aux:
        value, aux = _result_parts(fn, 2)
    else:
        value, aux = res, None
    if isinstance(res, gast.Name) and res.id in adj.act.varied:
        if has_aux:
            adj.adj[res.id] = AdjState(astutil.tuple_([astutil.const(1.0), astutil.const(0.0)]), lazy=False)
        else:
            adj.adj[res.id] = AdjState(astutil.const(1.0), lazy=False)
    fwd, bwd = adj.block(fn.body, repeated=False)
    tail = []
    if not adj.act.scalar(value):
        tail.append(astutil.expr_stmt(adj.hcall("check_scalar", copy.deepcopy(value),
                                                astutil.const(fn.uf.qualname))))
    grads = []
    for p in adj.wrt:
        st = adj.adj.get(p)
        g = st.expr if st is not None else astutil.const(0.0)
        if st is not None and st.borrowed:
            grads.append(adj.hcall("grad_output", g, astutil.name(p), astutil.const(True)))
        else:
            grads.append(adj.hcall("grad_output", g, astutil.name(p)))
    grads_expr = grads[0] if single else astutil.tuple_(grads)
    if has_aux:
        out = astutil.tuple_([astutil.tuple_([copy.deepcopy(value), aux]), grads_expr]) if with_value \
            else astutil.tuple_([grads_expr, aux])
    else:
        out = astutil.tuple_([copy.deepcopy(value), grads_expr]) if with_value else grads_expr
    ret = gast.Return(value=out)
    body = fwd + tail + ([comment("backward pass")] if bwd else []) + bwd + [ret]
    body, _ = dce.eliminate(copyprop.propagate(body))
    fdef = astutil.function_def(name, _signature(fn), body, fn.lineno)
    return fdef


def _assemble_vjp(adj, fn, name, options):
    res = fn.result
    dout = adj.namer.fresh("d" + (res.id if isinstance(res, gast.Name) else "out"))
    if isinstance(res, gast.Name) and res.id in adj.act.varied:
        seed = astutil.name(dout)
        if options.get("has_aux"):
            seed = astutil.tuple_([seed, astutil.const(0.0)])     # no cotangent flows into aux
        adj.adj[res.id] = AdjState(seed, lazy=True, borrowed=True)    # the caller's cotangent
    fwd, bwd = adj.block(fn.body, repeated=False)
    grads = []
    for p in adj.wrt:
        st = adj.adj.get(p)
        g = st.expr if st is not None else astutil.const(0.0)
        if options.get("final"):
            borrowed = st is None or st.borrowed
            g = adj.hcall("grad_output", g, astutil.name(p), *([astutil.const(True)] if borrowed else []))
        grads.append(g)
    pb_name = adj.namer.fresh(fn.uf.name + "_pullback")
    pb_body = bwd + [gast.Return(value=astutil.tuple_(grads))]
    pullback = astutil.function_def(pb_name, [dout], pb_body)
    ret = gast.Return(value=astutil.tuple_([copy.deepcopy(res), astutil.name(pb_name)]))
    body, _ = dce.eliminate(copyprop.propagate(fwd + [pullback, ret]))
    return astutil.function_def(name, _signature(fn), body, fn.lineno)


_ = (_tag, transform_error)
