"""Activity analysis: which values need derivative code.

A name is *varied* if its value depends differentiably on a differentiated
input, and *useful* if the output depends differentiably on it. Only names
that are both, the *active* names, get adjoint code; everything else is a
constant to the differentiator.

Runs on lowered (SSA) IR. A call to a user function is varied through the
parameters its result depends on, from `dependences` of the callee's lowered
IR (computed once per callee, recursion to a fixpoint); nothing is compiled.
Loops are iterated as a whole until nothing changes.
"""

import gast

from ..ir import nodes as ir
from ..ir.walk import expr_reads, free_names, target_names
from ..runtime import ARRAY_ATTRIBUTES


def diff_operands(s):
    """Operand atoms through which an operation's value depends differentiably on its inputs."""
    e = s.expr
    if isinstance(s, ir.Copy):
        return [e]
    if isinstance(s, ir.Apply):
        out = []
        for p, node in s.bound.items():
            # a method's receiver may not be what the rule is for (`parser.get(w, name)` is not
            # dict.get): every operand may matter, and the generated code checks the receiver's type
            if p in s.rule.vjps or s.method_of is not None:
                out.extend(node if isinstance(node, list) else [node])
        return out
    if isinstance(s, (ir.GetItem, ir.GetAttr)):
        return [e.value]
    if isinstance(s, ir.ScanSlice):
        return [e.args[0]]
    if isinstance(s, ir.Pack):
        return list(e.values) if isinstance(e, gast.Dict) else list(e.elts)
    if isinstance(s, (ir.Update,)):
        return [e.args[0], e.args[2]]
    if isinstance(s, ir.Append):
        return [e.args[0], e.args[1]]
    if isinstance(s, (ir.CallUser, ir.CallCustom)):
        return call_args(s)
    if isinstance(s, ir.Opaque):
        return [gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None) for n in expr_reads(e)]
    return []


def call_args(s):
    """The argument atoms of a call, the receiver first (in the callee's parameter order when positional)."""
    e = s.expr
    out = [s.receiver] if isinstance(s, ir.CallUser) and s.receiver is not None else []
    out += [a.value if isinstance(a, gast.Starred) else a for a in e.args]
    out += [k.value for k in e.keywords]
    return out


def unpacked_parts(s):
    """(target part, its operand) pairs of `a, (b, c) = x, y`, a tuple display unpacked element by element
    (each part depends on its element alone), or None."""
    e = s.expr
    if isinstance(s, ir.Pack) and isinstance(s.target, tuple) and isinstance(e, (gast.Tuple, gast.List)) and \
            len(s.target) == len(e.elts) and not any(isinstance(x, gast.Starred) for x in e.elts):
        return list(zip(s.target, e.elts))
    return None


def array_attribute_read(s):
    """The object name of `target = name.shape` (an array attribute, read as a constant), else None."""
    e = s.expr
    if isinstance(s, ir.Const) and isinstance(e, gast.Attribute) and e.attr in ARRAY_ATTRIBUTES and \
            isinstance(e.value, gast.Name):
        return e.value.id
    return None


def _names(nodes):
    """Names the operand expressions read differentiably (`x.shape` in `y.reshape(x.shape)` does not)."""
    out = set()
    for n in nodes:
        if isinstance(n, gast.Attribute) and n.attr in ARRAY_ATTRIBUTES:
            continue
        out |= expr_reads(n)
    return out


class Activity:
    """Varied, useful and active names of a lowered function.

    deps(stmt) -> for a user call, the list (one entry per target part) of the argument
    atoms the part depends on differentiably, or None (it depends on all of them).
    """

    def __init__(self, fn, wrt, deps=None, extra_varied=(), fields=False):
        self.fn = fn
        self.fields = fields     # `x.size` may be a field of an object (its kind is not known yet)
        self.deps = deps or (lambda s: None)
        self.varied = set(wrt) | set(extra_varied)
        self.closures = {}       # nested def -> a differentiated name it captures
        while True:
            before = len(self.varied)
            self.forward(fn.body)
            if len(self.varied) == before:
                break
        self.useful = set(expr_reads(fn.result)) if fn.result is not None else set()
        while True:
            before = len(self.useful)
            self.backward(fn.body)
            if len(self.useful) == before:
                break

    def active(self, name):
        return name in self.varied and name in self.useful

    def is_active(self, node):
        return isinstance(node, gast.Name) and self.active(node.id)

    def any_varied(self, nodes):
        return bool(_names(nodes) & self.varied)

    # -- varied (forward) ----------------------------------------------------------------------------
    def forward(self, body):
        for s in body:
            if isinstance(s, ir.Op):
                self.forward_op(s)
            elif isinstance(s, ir.Cond):
                self.forward(s.true.body)
                self.forward(s.false.body)
                for k, out in enumerate(s.outs):
                    if self.any_varied([s.true.results[k], s.false.results[k]]):
                        self.varied.add(out)
            elif isinstance(s, (ir.Scan, ir.WhileLoop)):
                for c, init in zip(s.carry, s.init):
                    if self.any_varied([init]):
                        self.varied.add(c)
                if isinstance(s, ir.WhileLoop):
                    self.forward(s.test_body)
                self.forward(s.body)
                for c, r, out in zip(s.carry, s.results, s.outs):
                    if self.any_varied([r]):
                        self.varied.add(c)
                    if c in self.varied:
                        self.varied.add(out)
            elif isinstance(s, ir.Effect) and s.may_change is not None:
                # a call adsrc cannot follow may store any argument in the others (`setattr(self, k, v)`)
                parts = _effect_parts(s)
                if self.any_varied(parts):
                    self.varied |= _names(parts)
            elif isinstance(s, ir.Def):
                captured = sorted(self.varied & free_names(s.fn))
                if captured:
                    self.varied.add(s.name)
                    # (for messages: the user's expression of a default computed where the def runs)
                    self.closures[s.name] = (s.written or {}).get(captured[0], captured[0])

    def forward_op(self, s):
        names = target_names(s.target)
        if isinstance(s, ir.CallUser):
            parts = self.deps(s)
            if parts is not None:
                targets = [s.target] if not s.returns_params else list(s.target)
                for t, atoms in zip(targets, parts):
                    if self.any_varied(atoms):
                        self.varied.update(target_names(t))
                return
        parts = unpacked_parts(s)
        if parts is not None:
            for t, atom in parts:
                if self.any_varied([atom]):
                    self.varied.update(target_names(t))
            return
        if self.any_varied(diff_operands(s)) or (self.fields and array_attribute_read(s) in self.varied):
            self.varied.update(names)

    # -- useful (backward) -----------------------------------------------------------------------------
    def backward(self, body):
        for s in reversed(body):
            if isinstance(s, ir.Op):
                parts = unpacked_parts(s)
                if parts is not None:
                    for t, atom in parts:
                        if any(n in self.useful for n in target_names(t)):
                            self.useful |= _names([atom])
                elif any(n in self.useful for n in target_names(s.target)):
                    self.useful |= _names(diff_operands(s))
            elif isinstance(s, ir.Effect) and s.may_change is not None:
                parts = _effect_parts(s)
                if _names(parts) & self.useful:
                    self.useful |= _names(parts)
            elif isinstance(s, ir.Cond):
                for k, out in enumerate(s.outs):
                    if out in self.useful:
                        self.useful |= _names([s.true.results[k], s.false.results[k]])
                self.backward(s.true.body)
                self.backward(s.false.body)
            elif isinstance(s, (ir.Scan, ir.WhileLoop)):
                for c, r, out, init in zip(s.carry, s.results, s.outs, s.init):
                    if out in self.useful:
                        self.useful.add(c)
                    if c in self.useful:
                        self.useful |= _names([r, init])
                self.backward(s.body)
                if isinstance(s, ir.WhileLoop):
                    self.backward(s.test_body)


def _effect_parts(s):
    """The operands of a call run for its effect: its arguments, and the object of a method."""
    e = s.expr
    if not isinstance(e, gast.Call):
        return []
    return list(e.args) + [k.value for k in e.keywords] + ([e.func.value] if isinstance(e.func, gast.Attribute) else [])


def dependences(fn, split, deps=None):
    """For each part of fn's result, the parameters it depends on differentiably.

    split: the result is `(value, *new values of arguments changed in place)`, one
    part each; otherwise the result is one part.
    """
    varied = {p: Activity(fn, [p], deps, fields=True).varied for p in fn.params}
    parts = [fn.result]
    if split and isinstance(fn.result, gast.Name):
        for s in fn.body:
            if isinstance(s, ir.Pack) and s.target == fn.result.id and isinstance(s.expr, gast.Tuple):
                parts = list(s.expr.elts)
    return [{p for p, v in varied.items() if expr_reads(part) & v} for part in parts]
