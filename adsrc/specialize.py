"""Specialization: static argument values become constants, and what they decide is decided now.

Runs on the normalized function, before lowering. Names bound to static
values (and names assigned from expressions over them) are constants: an
expression over constants is evaluated when transforming, an `if` whose test
is a constant keeps only the branch taken, and a `while` whose test is a
constant False disappears. A `for` loop over a constant range stays a loop,
unless it is short (at most UNROLL_MAX steps, no break/continue/return):
then it is unrolled.
Everything that is not static stays a value computed when the code runs.

Only side-effect free expressions are evaluated: arithmetic, comparisons,
`and`/`or`/`not`, conditional expressions, indexing and attributes of
constants, and calls to a few pure builtins and `math` functions.
"""

import builtins
import copy
import math
import types

import gast

from . import astutil

_PURE_CALLS = {builtins.len, builtins.range, builtins.min, builtins.max, builtins.abs, builtins.int,
               builtins.float, builtins.bool, builtins.round, builtins.tuple, builtins.str, builtins.isinstance,
               builtins.sum, builtins.any, builtins.all, builtins.divmod, builtins.pow, builtins.sorted,
               builtins.reversed, builtins.enumerate, builtins.zip, builtins.list}
_PURE_CALLS |= {getattr(math, n) for n in dir(math) if callable(getattr(math, n))}

_LITERAL_TYPES = (bool, int, float, complex, str, bytes, type(None))
UNROLL_MAX = 4          # constant-range loops this short are unrolled
UNROLL_BODY_MAX = 12    # ... when their body has at most this many statements


class _NotConstant(Exception):
    pass


def _mutable_object(value):
    """An object compared by identity (its class keeps object's __hash__), whose attributes may change.

    Its attributes are read when the code runs, never folded into it: a
    static `self` whose `self.n` changes must not keep the old `n`. Objects
    hashed by value (frozen dataclasses, namedtuples) are immutable by the
    static-argument contract, as in JAX, so their fields are constants.
    """
    return type(value).__hash__ is object.__hash__ and not isinstance(value, (type, types.ModuleType))


def literal(value):
    """A gast node for a value that has a literal form, or None."""
    if isinstance(value, _LITERAL_TYPES):
        if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):
            return None
        if isinstance(value, (int, float, complex)) and not isinstance(value, bool) and \
                (value.real < 0 or str(value).startswith("-")):
            node = literal(-value)
            return gast.UnaryOp(op=gast.USub(), operand=node) if node is not None else None
        return astutil.const(value)
    if type(value) is tuple:
        parts = [literal(v) for v in value]
        if any(p is None for p in parts):
            return None
        return astutil.tuple_(parts)
    return None


class Specializer:
    def __init__(self, uf, statics):
        self.uf = uf
        self.statics = dict(statics)        # parameter name -> value

    def function(self, fdef):
        env = dict(self.statics)
        fdef.body = self.block(fdef.body, env)
        return fdef

    # -- evaluation --------------------------------------------------------------------------
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
            if isinstance(node.op, gast.And):
                result = True
                for v in node.values:
                    result = self.value(v, env)
                    if not result:
                        return result
                return result
            result = False
            for v in node.values:
                result = self.value(v, env)
                if result:
                    return result
            return result
        if isinstance(node, gast.IfExp):
            return self.value(node.body if self.value(node.test, env) else node.orelse, env)
        if isinstance(node, gast.Subscript) and not isinstance(node.slice, gast.Slice):
            return self.value(node.value, env)[self.value(node.slice, env)]
        if isinstance(node, gast.Attribute):
            base = self.value(node.value, env)
            if isinstance(base, tuple) and node.attr in getattr(type(base), "_fields", ()):
                return getattr(base, node.attr)     # a field of a namedtuple
            if isinstance(base, _LITERAL_TYPES + (tuple,)) or _mutable_object(base):
                raise _NotConstant     # methods of literals; state of objects that may change
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
            kind, value = self.uf.lookup(func.value.id)
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

    # -- statements ---------------------------------------------------------------------------
    def block(self, stmts, env):
        out = []
        for s in stmts:
            out.extend(self.statement(s, env))
        return out

    def fold(self, node, env):
        """node, or a literal for its value if it is a constant expression."""
        ok, v = self.try_value(node, env)
        if ok and not isinstance(node, gast.Constant):
            lit = literal(v)
            if lit is not None:
                return lit
        return node

    def statement(self, s, env):
        if isinstance(s, gast.Assign):
            t = s.targets[0]
            ok, v = self.try_value(s.value, env)
            names = astutil.names_stored(t) if not isinstance(t, gast.Subscript) else {t.value.id}
            for n in names:
                env.pop(n, None)
            if not isinstance(t, gast.Subscript):
                self._substitute(s, env, skip=t)
                if ok and isinstance(t, gast.Name):
                    env[t.id] = v
                    lit = literal(v)
                    if lit is not None:
                        s.value = lit
            else:
                self._substitute(s, env)
            return [s]
        if isinstance(s, gast.If):
            ok, v = self.try_value(s.test, env)
            if ok:
                return self.block(s.body if v else s.orelse, env)
            s.test = self._subst_expr(s.test, env)
            e1, e2 = dict(env), dict(env)
            s.body = self.block(s.body, e1)
            s.orelse = self.block(s.orelse, e2)
            self._merge(env, e1, e2)
            return [s]
        if isinstance(s, (gast.For, gast.While)):
            for n in _assigned_in(s):
                env.pop(n, None)
            if isinstance(s, gast.While):
                ok, v = self.try_value(s.test, env)
                if ok and not v:
                    return self.block(s.orelse, env)
                s.test = self._subst_expr(s.test, env)
            elif isinstance(s.iter, gast.Call):
                s.iter.args = [self.fold(a, env) for a in s.iter.args]
                unrolled = self.unroll(s, env)
                if unrolled is not None:
                    return unrolled
            else:
                s.iter = self.fold(s.iter, env)
            inner = dict(env)
            s.body = self.block(s.body, inner)
            s.orelse = self.block(s.orelse, dict(env))
            for n in _assigned_in(s):
                env.pop(n, None)
            return [s]
        if isinstance(s, gast.FunctionDef):
            inner = {k: v for k, v in self.statics.items() if k in env and env[k] is v}
            s.body = Specializer(self.uf, inner).block(s.body, dict(inner))
            env.pop(s.name, None)
            return [s]
        self._substitute(s, env)
        return [s]

    def unroll(self, s, env):
        """The body repeated for each value of a short constant range, or None.

        Measured (benchmarks/run.py, specialization section): a 3-step loop runs
        15-20% faster unrolled, because the unrolled gradient needs no tape.
        """
        ok, values = self.try_value(s.iter, env)
        if not ok or not isinstance(values, range) or len(values) > UNROLL_MAX or s.orelse:
            return None
        if not isinstance(s.target, gast.Name) or len(s.body) > UNROLL_BODY_MAX:
            return None
        if any(isinstance(n, (gast.Break, gast.Continue, gast.Return, gast.FunctionDef, gast.Lambda))
               for n in gast.walk(gast.Module(body=s.body, type_ignores=[]))):
            return None
        used = s.target.id in astutil.names_loaded(gast.Module(body=s.body, type_ignores=[]))
        out = []
        for v in values:
            bind = astutil.assign(s.target.id, astutil.const(v))
            bind.lineno, bind.col_offset = s.lineno, getattr(s, "col_offset", 0)
            bind.op_lineno = s.lineno
            out.extend(self.block(([bind] if used else []) + copy.deepcopy(s.body), env))
        return out

    def _merge(self, env, e1, e2):
        for k in list(env):
            env.pop(k)
        for k in set(e1) & set(e2):
            if e1[k] is e2[k] or (type(e1[k]) is type(e2[k]) and _same(e1[k], e2[k])):
                env[k] = e1[k]

    def _substitute(self, s, env, skip=None):
        """Replace reads of constant names by literals (where the value has a literal form)."""
        for field in ("value", "test", "iter", "exc", "msg"):
            node = getattr(s, field, None)
            if isinstance(node, gast.AST) and node is not skip:
                setattr(s, field, self._subst_expr(node, env))

    def _subst_expr(self, node, env):
        lits = {}
        for n in astutil.names_loaded(node):
            if n in env:
                lit = literal(env[n])
                if lit is not None:
                    lits[n] = lit
        if not lits:
            return node
        return astutil.substitute(node, lits)


def _same(a, b):
    try:
        return bool(a == b)
    except Exception:
        return False


def _assigned_in(node):
    out = set()
    for n in gast.walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            out.add(n.id)
        elif isinstance(n, gast.Expr) and isinstance(n.value, gast.Call) and \
                isinstance(n.value.func, gast.Attribute) and isinstance(n.value.func.value, gast.Name):
            out.add(n.value.func.value.id)     # lst.append(...) changes lst
        elif isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Subscript):
            out.add(n.targets[0].value.id)
    return out


import operator as _op  # noqa: E402

_BINOPS = {gast.Add: _op.add, gast.Sub: _op.sub, gast.Mult: _op.mul, gast.Div: _op.truediv,
           gast.FloorDiv: _op.floordiv, gast.Mod: _op.mod, gast.Pow: _op.pow, gast.BitAnd: _op.and_,
           gast.BitOr: _op.or_, gast.BitXor: _op.xor, gast.LShift: _op.lshift, gast.RShift: _op.rshift}
_UNARY = {gast.USub: _op.neg, gast.UAdd: _op.pos, gast.Not: _op.not_, gast.Invert: _op.invert}
_COMPARE = {gast.Eq: _op.eq, gast.NotEq: _op.ne, gast.Lt: _op.lt, gast.LtE: _op.le, gast.Gt: _op.gt,
            gast.GtE: _op.ge, gast.Is: _op.is_, gast.IsNot: _op.is_not,
            gast.In: lambda a, b: a in b, gast.NotIn: lambda a, b: a not in b}


def specialize(uf, fdef, statics):
    """Specialize a normalized FunctionDef in place for static parameter values."""
    return Specializer(uf, statics).function(fdef)
