"""Callee summaries: what a function changes of its arguments and what its result may share with them.

Computed from a callee's structured IR (before functionalization) with the
alias analysis, before anything is differentiated, so that neither the
functionalization of a caller nor the activity analysis ever has to
transform or compile a callee. Recursive functions reach a fixpoint: a
summary in progress answers with what it knows so far, and is computed
again until it stops changing.

Which statics a call specializes its callee on (a method's receiver known
when transforming, functions passed as arguments, function-valued default
parameters) is decided here too, in `call_statics`, for every consumer.
"""

import inspect
import types
from dataclasses import dataclass

import gast

from ..frontend.varargs import SHAPE, call_shape, parameters
from ..pytree_nodes import CLASSES, FIELD_CLASSES, FIELDS
from ..ir import nodes as ir
from ..errors import TransformError, in_call
from . import aliases as al, part_changes, relations


def _value_key(v):
    try:
        hash(v)
    except TypeError:
        return ("id", id(v))
    return ("value", type(v), v)


def statics_key(statics):
    """A cache key for static values: by value (and type) when hashable, else by identity."""
    return tuple(sorted(((k, _value_key(v)) for k, v in (statics or {}).items()), key=lambda kv: kv[0]))


@dataclass(frozen=True)
class Summary:
    params: tuple           # the callee's parameters, in order
    mutates: tuple = ()     # parameters whose objects the callee may change in place
    result_aliases: bool = False   # the result may share (part of) an argument's object
    stores: tuple = ()      # (p, q): p's object may hold q's object afterwards (`self.arr = arr` in __init__)
    deep: tuple = ()        # parameters an object held by whose object the callee may change (`self.arr *= s`)
    slots: frozenset = frozenset()     # (parameter, path): slots the callee fills with new objects (part_changes)
    changes: frozenset = frozenset()   # (parameter, path): parts the callee changes in place
    returns: tuple = None   # ((parameter, path), ...): the parts of parameters' objects the result is, if known

    def arguments(self, stmt):
        """parameter -> argument atom at a call (the receiver first): the positional arguments before a `*`
        unpacking (whose items' parameters are not known), and the named keywords."""
        call = stmt.expr
        args = ([stmt.receiver] if stmt.receiver is not None else []) + list(call.args)
        out = {}
        for p, a in zip(self.params, args):
            if isinstance(a, gast.Starred):
                break
            out[p] = a
        for k in call.keywords:
            if k.arg is not None:
                out[k.arg] = k.value
        return out

    def unmatched(self, stmt):
        """Does the call unpack arguments (`*seq`, `**d`) whose parameters are not known when transforming?"""
        return any(isinstance(a, gast.Starred) for a in stmt.expr.args) or \
            any(k.arg is None for k in stmt.expr.keywords)


def _global_object_class(node, resolve):
    """The class of a global (or closure) object of the user's own class an argument names (`loss(MODEL, x)`):
    the callee follows its methods, with the object passed as it is when the code runs."""
    from ..lowering.object_classes import made_class
    try:
        value = resolve(node)
    except LookupError:
        return None
    cls = type(value)
    return cls if not isinstance(value, type) and made_class(cls) is cls and not _is_function(value) else None


def _is_function(value):
    """A function passed as an argument, known when transforming (a NumPy function too: np.cumsum is
    an array-function dispatcher object, not a Python function)."""
    from .. import rules
    from ..custom import custom_vjp
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, custom_vjp, types.MethodType)) or \
            type(value).__name__ == "ufunc":
        return True
    from ..lowering.derivatives import is_derivative
    if is_derivative(value):
        return True             # adsrc.grad(f) handed to a function that calls it
    return callable(value) and not isinstance(value, type) and rules.lookup(value) is not None


def _flag(value):
    """None, True or False: a value a parameter's default or a call's literal fixes, which the callee's
    branches test (`if ax:`, `if out is None:`); the call specializes the callee on it."""
    return value is None or type(value) is bool


def _is_followed_class(value):
    """A class of the user's passed as an argument (`build(Square, x)`), whose constructions adsrc follows."""
    from ..lowering.object_classes import made_class
    return isinstance(value, type) and made_class(value) is value


def call_statics(stmt, resolve):
    """Parameters of a call's callee with values known when transforming: {parameter: object}.

    The receiver of a method call on an object known when transforming, functions
    passed as arguments, flags (None, True, False) passed as literals or as the caller's
    own static flags, and the defaults of parameters the call does not pass that are
    functions or flags. `resolve(node)` gives the object an expression means, or raises LookupError.
    """
    from ..lowering.object_classes import is_library_object
    callee = stmt.callee
    try:
        sig = inspect.signature(callee, follow_wrapped=False)
    except (TypeError, ValueError):
        return {}
    params = [p for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    call = stmt.expr
    args = ([stmt.receiver] if stmt.receiver is not None else []) + list(call.args)
    out = {}
    shape = None
    if not any(isinstance(a, gast.Starred) for a in args) and all(k.arg for k in call.keywords):
        shape = call_shape(callee, len(args), [k.arg for k in call.keywords])
    if shape is not None:
        out[SHAPE] = shape          # *args/**kwargs: one specialization per shape of call
    names = (parameters(callee, shape) if shape is not None else None) or \
        [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    bound = {}
    for name, a in zip(names, args):
        if isinstance(a, gast.Starred):
            break
        bound[name] = a
    for k in call.keywords:
        if k.arg is not None and (k.arg in {p.name for p in params} or k.arg in names):
            bound[k.arg] = k.value
    for name, node in bound.items():
        if stmt.receiver is not None and node is stmt.receiver and stmt.receiver_value is not None:
            out[name] = stmt.receiver_value        # known when the call was lowered
            continue
        try:
            value = resolve(node)
        except LookupError:
            continue
        if _is_function(value) or _is_followed_class(value) or is_library_object(value) or \
                (stmt.receiver is node and not isinstance(value, (int, float, complex))):
            out[name] = value
    known = getattr(resolve, "known", None) or {}
    for name, node in bound.items():
        # a flag passed, literally or as a static parameter of the caller's: the callee's `if ax:`,
        # `if out is None:`, `if render:` are decided when transforming
        if name in out:
            continue
        if isinstance(node, gast.Constant) and _flag(node.value):
            out[name] = node.value
        elif isinstance(node, gast.Name) and node.id in known and _flag(known[node.id]):
            out[name] = known[node.id]
    for p in params:
        if p.name not in bound and p.default is not p.empty and (_is_function(p.default) or _flag(p.default) or
                                                                 is_library_object(p.default)):
            out[p.name] = p.default     # (a default the call does not pass: a function, a flag)
    # arguments of known classes (registered pytrees, objects the caller made): the callee follows their methods
    by_position = dict(stmt.classes)
    params_classes = getattr(resolve, "classes", None) or {}
    known = []
    for k, (name, node) in enumerate(bound.items()):
        cls = by_position.get(k if k < len(args) and node is args[k] else name)
        if cls is None and isinstance(node, gast.Name):
            cls = params_classes.get(node.id) or _global_object_class(node, resolve)
        if cls is not None and name not in out:
            known.append((name, cls))
    if known:
        out[CLASSES] = tuple(sorted(known, key=lambda item: item[0]))
    for key, table in ((FIELDS, stmt.fields), (FIELD_CLASSES, stmt.field_classes)):
        by_position = dict(table)
        fields = [(name, by_position[k if k < len(args) and node is args[k] else name])
                  for k, (name, node) in enumerate(bound.items())
                  if (k if k < len(args) and node is args[k] else name) in by_position]
        if fields:
            out[key] = tuple(sorted(fields, key=lambda item: item[0]))
    return out


class Summaries:
    """Summaries of user functions, computed on demand from their structured IR.

    front(fun, statics) -> the structured, jump-free, inlined Function of fun.
    """

    def __init__(self, front, resolve_for):
        self.front = front
        self.resolve_for = resolve_for     # uf -> (node -> object)
        self.done = {}
        self.busy = {}

    def key(self, fun, statics):
        return fun, getattr(fun, "__code__", None), statics_key(statics)

    def of_call(self, stmt, uf):
        statics = call_statics(stmt, self.resolve_for(uf))
        return self.get(stmt.callee, statics)

    def get(self, fun, statics):
        key = self.key(fun, statics)
        if key in self.done:
            return self.done[key]
        if key in self.busy:
            self.busy[key][1] = True        # recursion: answer with what is known so far
            return self.busy[key][0]
        try:
            params = tuple(p.name for p in inspect.signature(fun, follow_wrapped=False).parameters.values()
                           if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
        except (TypeError, ValueError):
            return None
        if statics and SHAPE in statics:
            params = tuple(parameters(fun, statics[SHAPE]) or params)
        self.busy[key] = [Summary(params), False]
        try:
            for _ in range(10):
                summary = self.compute(fun, statics, params)
                guess, recursed = self.busy[key]
                if not recursed or summary == guess:
                    break
                self.busy[key] = [summary, False]
        finally:
            del self.busy[key]
        self.done[key] = summary
        return summary

    def compute(self, fun, statics, params):
        fn = self.front(fun, statics)
        oracle = CallOracle(self, fn.uf)
        analysis = al.Analysis(fn, oracle)
        mutated, deep = set(), set()
        parts = part_changes.Recorder(oracle)

        def visit(s, state):
            changed = _changed_names(s, oracle)
            parts.visit(s, state, changed)
            for name in changed:
                mutated.update(relations.params_reached(state, name))
                for r in state.refs(name):      # a change to an object a parameter's object holds
                    deep.update(h[1] for h in state.holders(r.obj) if h[0] == "param" and h != r.obj)
                    if r.obj[0] == "param" and r.path:
                        deep.add(r.obj[1])      # (`self.arr *= s`: a part of the object, read as a field)
        end = analysis.block(fn.body, analysis.initial(), visit)
        stores = tuple(sorted((p, q) for p in params if p in mutated for q in params
                              if q != p and ("param", q) in _held_objects(end, ("param", p))))
        result = fn.result
        aliases = isinstance(result, gast.Name) and any(
            r.obj[0] == "param" or any(h[0] == "param" for h in _held_objects(end, r.obj))
            for r in end.refs(result.id))
        return Summary(params, tuple(p for p in params if p in mutated and p not in statics), aliases,
                       tuple((p, q) for p, q in stores if p not in statics and q not in statics),
                       tuple(p for p in params if p in deep and p not in statics),
                       frozenset(parts.slots), frozenset(parts.changes),
                       part_changes.returns(end, result) if aliases else None)


def _held_objects(state, obj):
    return {r.obj for r in state.held(obj)}


def _changed_names(s, oracle):
    if isinstance(s, ir.SetItem):
        return [s.base]
    if isinstance(s, ir.InplaceOp):
        return [s.target]
    if isinstance(s, ir.MutatingCall):
        return [s.receiver]
    if isinstance(s, ir.Effect) and s.may_change is not None and isinstance(s.expr, gast.Call):
        # a call adsrc cannot follow, run for its effect: it may change the objects it is handed
        # (`setattr(self, k, v)`), so its caller must see them change (and refuse if they are differentiated)
        call = s.expr
        parts = list(call.args) + [k.value for k in call.keywords] + \
            ([call.func.value] if isinstance(call.func, gast.Attribute) else [])
        return [a.id for a in parts if isinstance(a, gast.Name)]
    if isinstance(s, ir.CallUser):
        summary = oracle.summary(s)
        if summary is not None and summary.mutates:
            args = summary.arguments(s)
            return [args[p].id for p in summary.mutates if isinstance(args.get(p), gast.Name)]
    return []


def callee_name(fun):
    module = getattr(fun, "__module__", None) or ""
    return f"{module}.{fun.__qualname__}" if module not in ("", "__main__") and \
        not module.startswith("__") else getattr(fun, "__qualname__", repr(fun))


class CallOracle(al.Oracle):
    """What one function's analysis knows about the user functions it calls."""

    def __init__(self, summaries, uf):
        self.summaries = summaries
        self.uf = uf

    def summary(self, stmt):
        if not isinstance(stmt, ir.CallUser):
            return None
        try:
            return self.summaries.of_call(stmt, self.uf)
        except TransformError as e:
            raise in_call(e, self.uf.loc(stmt.loc), callee_name(stmt.callee)) from None
