"""Specialization: static argument values become constants, and what they decide is decided now.

Runs on structured IR, before jumps are removed. Names bound to static values
(and names assigned from expressions over them) are constants: an expression
over constants is evaluated when transforming, an `if` whose test is a
constant keeps only the branch taken, a `while` whose test is constant False
disappears, and a short `for` loop over a constant range (at most
UNROLL_MAX steps, no break/continue/return) is unrolled. Everything else
stays a value computed when the code runs.

Only side-effect free expressions are evaluated: arithmetic, comparisons,
`and`/`or`/`not`, conditional expressions, indexing and attributes of
constants, and calls to a few pure builtins and `math` functions.
"""

import builtins
import math
import operator as _op
import types

import gast

from .. import astutil
from ..ir import nodes as ir
from ..ir.walk import apply_bound, assigned, expr_reads, target_names, walk

_PURE_CALLS = {builtins.len, builtins.range, builtins.min, builtins.max, builtins.abs, builtins.int,
               builtins.float, builtins.bool, builtins.round, builtins.tuple, builtins.str, builtins.isinstance,
               builtins.sum, builtins.any, builtins.all, builtins.divmod, builtins.pow, builtins.sorted,
               builtins.reversed, builtins.enumerate, builtins.zip, builtins.list}
_PURE_CALLS |= {getattr(math, n) for n in dir(math) if callable(getattr(math, n))}

_LITERAL_TYPES = (bool, int, float, complex, str, bytes, type(None))
UNROLL_MAX = 4          # constant-range loops this short are unrolled
UNROLL_BODY_MAX = 12    # ... when their body has at most this many statements

_BINOPS = {gast.Add: _op.add, gast.Sub: _op.sub, gast.Mult: _op.mul, gast.Div: _op.truediv,
           gast.FloorDiv: _op.floordiv, gast.Mod: _op.mod, gast.Pow: _op.pow, gast.BitAnd: _op.and_,
           gast.BitOr: _op.or_, gast.BitXor: _op.xor, gast.LShift: _op.lshift, gast.RShift: _op.rshift}
_UNARY = {gast.USub: _op.neg, gast.UAdd: _op.pos, gast.Not: _op.not_, gast.Invert: _op.invert}
_COMPARE = {gast.Eq: _op.eq, gast.NotEq: _op.ne, gast.Lt: _op.lt, gast.LtE: _op.le, gast.Gt: _op.gt,
            gast.GtE: _op.ge, gast.Is: _op.is_, gast.IsNot: _op.is_not,
            gast.In: lambda a, b: a in b, gast.NotIn: lambda a, b: a not in b}


class _NotConstant(Exception):
    pass


def _mutable_object(value):
    """An object compared by identity whose attributes may change: read when the code runs, never folded.

    Objects hashed by value (frozen dataclasses, namedtuples) are immutable by
    the static-argument contract, as in JAX, so their fields are constants.
    """
    return type(value).__hash__ is object.__hash__ and not isinstance(value, (type, types.ModuleType))


def literal(value):
    """A gast node for a value that has a literal form, or None."""
    if isinstance(value, _LITERAL_TYPES):
        if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):
            return None
        return astutil.const(value)      # an atom, negative numbers too (as normalize makes them)
    if type(value) is tuple:
        parts = [literal(v) for v in value]
        return None if any(p is None for p in parts) else astutil.tuple_(parts)
    return None


class Specializer:
    def __init__(self, uf, statics, shared=frozenset()):
        self.uf = uf
        self.statics = dict(statics)
        self.shared = shared       # names set where the code runs by other statements: never constants

    # -- evaluation ---------------------------------------------------------------------------------
    def value(self, node, env):
        """The value of node if it is a constant expression, else raise _NotConstant."""
        if isinstance(node, gast.Constant):
            return node.value
        if isinstance(node, gast.Name):
            if node.id in env:
                return env[node.id]
            raise _NotConstant
        if isinstance(node, gast.Tuple):
            return tuple(self.value(e, env) for e in node.elts)
        if isinstance(node, gast.BinOp):
            return _BINOPS[type(node.op)](self.value(node.left, env), self.value(node.right, env))
        if isinstance(node, gast.UnaryOp):
            return _UNARY[type(node.op)](self.value(node.operand, env))
        if isinstance(node, gast.Compare):
            left = self.value(node.left, env)
            for op, right_node in zip(node.ops, node.comparators):
                right = self.value(right_node, env)
                if not _COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, gast.BoolOp):
            result = isinstance(node.op, gast.And)
            for v in node.values:
                result = self.value(v, env)
                if bool(result) != isinstance(node.op, gast.And):
                    return result
            return result
        if isinstance(node, gast.IfExp):
            return self.value(node.body if self.value(node.test, env) else node.orelse, env)
        if isinstance(node, gast.Subscript) and not isinstance(node.slice, gast.Slice):
            return self.value(node.value, env)[self.value(node.slice, env)]
        if isinstance(node, gast.Attribute):
            base = self.value(node.value, env)
            if isinstance(base, tuple) and node.attr in getattr(type(base), "_fields", ()):
                return getattr(base, node.attr)
            if isinstance(base, _LITERAL_TYPES + (tuple,)) or _mutable_object(base):
                raise _NotConstant
            return getattr(base, node.attr)
        if isinstance(node, gast.Call) and not any(isinstance(a, gast.Starred) for a in node.args):
            fn = self._callee(node.func, env)
            if fn not in _PURE_CALLS:
                raise _NotConstant
            args = [self.value(a, env) for a in node.args]
            kwargs = {k.arg: self.value(k.value, env) for k in node.keywords if k.arg}
            return fn(*args, **kwargs)
        raise _NotConstant

    def _callee(self, func, env):
        if isinstance(func, gast.Name) and func.id not in env and func.id not in self.uf.locals:
            kind, value = self.uf.lookup(func.id)
            if kind == "builtin" or value is math:
                return value
            raise _NotConstant
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) \
                and func.value.id not in self.uf.locals:
            _, value = self.uf.lookup(func.value.id)
            if value is math:
                return getattr(math, func.attr, None)
        raise _NotConstant

    def try_value(self, node, env):
        try:
            return True, self.value(node, env)
        except _NotConstant:
            return False, None
        except Exception:   # evaluating would fail when the code runs too: leave it to run
            return False, None

    def fold(self, node, env):
        """node with constant names replaced by literals, or one literal for a constant expression."""
        ok, v = self.try_value(node, env)
        if ok and not isinstance(node, gast.Constant):
            lit = literal(v)
            if lit is not None:
                return lit
        return self._subst(node, env)

    def _subst(self, node, env):
        lits = {n: literal(env[n]) for n in expr_reads(node) if n in env}
        lits = {n: v for n, v in lits.items() if v is not None}
        return astutil.substitute(node, lits) if lits else node

    # -- statements -------------------------------------------------------------------------------------
    def block(self, stmts, env):
        out = []
        for s in stmts:
            out.extend(self.statement(s, env))
        return out

    def statement(self, s, env):
        if isinstance(s, ir.Op):
            return [self.op(s, env)]
        if isinstance(s, ir.If):
            ok, v = self.try_value(s.test, env)
            if ok:
                return self.block(s.body if v else s.orelse, env)
            s.test = self._subst(s.test, env)
            e1, e2 = dict(env), dict(env)
            s.body, s.orelse = self.block(s.body, e1), self.block(s.orelse, e2)
            self._merge(env, e1, e2)
            return [s]
        if isinstance(s, (ir.For, ir.While)):
            for n in assigned([s]):
                env.pop(n, None)
            if isinstance(s, ir.While):
                if not s.test_body:
                    ok, v = self.try_value(s.test, env)
                    if ok and not v:
                        return self.block(s.orelse, env)
                    s.test = self._subst(s.test, env)
                s.test_body = self.block(s.test_body, dict(env))
            else:
                if isinstance(s.iter, ir.RangeIter):
                    s.iter.args = [self.fold(a, env) for a in s.iter.args]
                    unrolled = self.unroll(s, env)
                    if unrolled is not None:
                        return unrolled
            s.body = self.block(s.body, dict(env))
            s.orelse = self.block(s.orelse, dict(env))
            for n in assigned(s.orelse):
                env.pop(n, None)
            return [s]
        if isinstance(s, ir.Def):
            inner = {k: v for k, v in self.statics.items() if k in env and env[k] is v}
            s.fn.body = Specializer(self.uf, inner, self.shared).block(s.fn.body, dict(inner))
            env.pop(s.name, None)
            return [s]
        if isinstance(s, (ir.SetItem, ir.InplaceOp, ir.MutatingCall)):
            for n in ([s.base] if isinstance(s, ir.SetItem) else [s.target] if isinstance(s, ir.InplaceOp)
                      else [s.receiver, s.target]):
                env.pop(n, None)
            for field in ("index", "value"):
                if hasattr(s, field):
                    setattr(s, field, self._subst(getattr(s, field), env))
            return [s]
        if isinstance(s, ir.Return):
            s.value = self._subst(s.value, env)
        elif isinstance(s, ir.Raw):
            s.node = self._subst(s.node, env)
        return [s]

    def op(self, s, env):
        names = target_names(s.target)
        for n in names:
            env.pop(n, None)
        if isinstance(s, (ir.Const, ir.Copy, ir.Apply)):
            ok, v = self.try_value(s.expr, env)
            if ok and isinstance(s.target, str) and s.target not in self.shared:
                env[s.target] = v
                lit = literal(v)
                if lit is not None:
                    return ir.Const(s.target, lit, loc=s.loc)
        if isinstance(s, ir.Const):
            s.expr = self._subst(s.expr, env)
        elif isinstance(s, ir.Apply):
            new = self._subst(s.expr, env)
            if new is not s.expr:
                s.expr = new
                s.bound = apply_bound(s)
        return s

    def unroll(self, s, env):
        """The body repeated for each value of a short constant range, or None.

        Measured (benchmarks/run.py, specialization section): a 3-step loop runs
        15-20% faster unrolled, because the unrolled gradient needs no tape.
        """
        ok, values = self.try_value(iteration_call(s.iter), env)
        if not ok or not isinstance(values, range) or len(values) > UNROLL_MAX or s.orelse:
            return None
        if not isinstance(s.target, str) or len(s.body) > UNROLL_BODY_MAX:
            return None
        if any(isinstance(x, (ir.Break, ir.Continue, ir.Return, ir.Def)) for x in walk(s.body)):
            return None
        out = []
        for v in values:
            bind = ir.Const(s.target, astutil.const(v), loc=s.loc)
            out.extend(self.block([bind] + astutil.clone(s.body), env))
        return out

    def _merge(self, env, e1, e2):
        env.clear()
        for k in set(e1) & set(e2):
            if e1[k] is e2[k] or (type(e1[k]) is type(e2[k]) and _same(e1[k], e2[k])):
                env[k] = e1[k]


def iteration_call(it):
    return astutil.call("range", list(it.args))


def _same(a, b):
    try:
        return bool(a == b)
    except Exception:
        return False


def specialize(uf, fn, statics):
    """Specialize a structured Function in place for static parameter values."""
    shared = frozenset(_set_elsewhere(fn.body))
    env = {k: v for k, v in statics.items() if k not in shared}
    fn.body = Specializer(uf, statics, shared).block(fn.body, env)
    return fn


def _set_elsewhere(body):
    """Names whose values are set by something other than their assignments: those the functions nested
    in a block (at any depth) declare `nonlocal`, and a `try`'s test and exception (ir.If.catches)."""
    for s in walk(body):
        if isinstance(s, ir.Def):
            yield from s.fn.nonlocals
            yield from _set_elsewhere(s.fn.body)
        elif isinstance(s, ir.If) and s.catches is not None:
            yield s.test.id
            if s.caught:
                yield s.caught
