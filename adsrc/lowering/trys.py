"""`try` / `except` / `else` / `finally` inside a differentiated function.

    try:                                   tried = True
        L = np.linalg.cholesky(K)          if tried (run first; an exception in
    except np.linalg.LinAlgError:                    LinAlgError sets tried = False):
        L = np.linalg.cholesky(K + eps)        L = np.linalg.cholesky(K)
                                           else:
                                               L = np.linalg.cholesky(K + eps)

The try block is the first branch of an `if` whose test its running decides
(ir.If.catches): generated code runs it inside a Python `try`, and records
which branch ran, so the backward pass follows the same one. Several
`except` clauses are one handler that tests the exception's class in their
order; `else:` runs after the `if` when the block completed; `finally:` after
both.

A failed block must leave nothing behind that Python would have kept: the
values it computed are new names, invisible afterwards. (When every `except`
clause ends by raising again, nothing afterwards runs to see them.) That is exact when
the block changes nothing before its last statement that the handler or
later code could read: adsrc refuses, naming the line, a block that
changes an object in place before its last statement, or assigns a name
before its last statement that the handler reads, or that later code reads
without every handler assigning it first.
"""

import builtins

import gast

from .. import astutil
from ..ir import nodes as ir
from ..ir.walk import walk
from .. import rules as rules_mod
from ..errors import TransformError


def raise_if_refusal(exc):
    """Raise exc again if it is adsrc's refusal (TransformError), which a `try` of the user's must not catch."""
    if isinstance(exc, TransformError):
        raise exc


_HINT = ("Compute into new names in the `try` block and assign the variables the rest of the function uses in "
         "its last statement (or in every `except` clause too).")


class Trys:
    """Mixin of the Normalizer: `try` statements."""

    def stmt_Try(self, s):
        if not s.handlers:            # try/finally: an exception leaves the function either way
            self.refuse_jumps_before_finally(s)
            for inner in s.body + s.finalbody:
                self.stmt = inner
                self.statement(inner)
            return
        types = [self.exception_types(h) for h in s.handlers]
        # generated code is safe by construction; and when every handler raises again, a failed block's values
        # are never seen: the exception leaves the function (nothing the caller passed in is changed)
        checked = not getattr(self.uf.fun, "_adsrc_generated", False) and \
            not all(_raises_again(h.body) for h in s.handlers)
        if checked:
            self.refuse_partial_writes(s)
        tried = self.temp("tried")
        every = tuple(c for t in types for c in t)
        broad = any(issubclass(TransformError, c) for c in every)        # `except Exception:` would catch
        caught = self.temp("caught") if len(s.handlers) > 1 or broad or any(h.name is not None for h in s.handlers) \
            else None
        self.emit(ir.Const(tried, astutil.const(True)), s)
        if caught:
            self.emit(ir.Const(caught, astutil.const(None)), s)
        body = self.block(s.body)
        if checked:
            self.refuse_changes(s, body)

        def handler_block():
            if broad:       # adsrc's own refusals (a check when the code runs) are not the program's exceptions
                self.emit(ir.Effect(astutil.call(self.bind("raise_if_refusal", raise_if_refusal),
                                                 [astutil.name(caught)])), s)
            self.handlers(s.handlers, types, caught)
        handler = self.sub_block(handler_block)
        catches = self.exception_name(every[0] if len(every) == 1 else every)
        self.emit(ir.If(astutil.name(tried), body, handler, catches=catches, caught=caught), s)
        if s.orelse:
            self.emit(ir.If(astutil.name(tried), self.block(s.orelse), []), s)
        for inner in s.finalbody:
            self.stmt = inner
            self.statement(inner)

    def handlers(self, handlers, types, caught):
        """The handler: each `except` clause's body, under a test of the exception's class after the first."""
        h, rest = handlers[0], handlers[1:]

        def clause():
            if h.name is not None:
                self.emit(ir.Copy(h.name.id, astutil.name(caught)), h)
            self.out.extend(self.block(h.body))
        if not rest:
            clause()
            return
        test = astutil.call(self.bind("isinstance", builtins.isinstance),
                            [astutil.name(caught), self.exception_name(types[0])])
        self.emit(ir.If(test, self.sub_block(clause), self.sub_block(lambda: self.handlers(rest, types[1:], caught))),
                  h)

    def exception_types(self, h):
        """The classes an `except` clause catches, known when transforming (a tuple)."""
        if h.type is None:
            return (BaseException,)
        value = self.static(h.type)
        if isinstance(h.type, gast.Tuple):
            parts = [self.static(e) for e in h.type.elts]
            value = rules_mod.NOT_STATIC if any(p is rules_mod.NOT_STATIC for p in parts) else tuple(parts)
        classes = value if isinstance(value, tuple) else (value,)
        if value is rules_mod.NOT_STATIC or not all(isinstance(c, type) and issubclass(c, BaseException)
                                                    for c in classes):
            raise self.error(h.type, "adsrc needs the exceptions an `except` clause catches when it transforms "
                                     "the function.",
                             "Name the exception classes directly (`except ValueError:`, `except (KeyError, "
                             "IndexError):`), or a module-level name bound to them.")
        return tuple(c for v in classes for c in (v if isinstance(v, tuple) else (v,)))

    def exception_name(self, value):
        """A name bound in generated code to an exception class or tuple of them."""
        classes = value if isinstance(value, tuple) else (value,)
        name = "_".join(c.__name__ for c in classes) if len(classes) < 3 else "exceptions"
        return astutil.name(self.bind(name, value[0] if isinstance(value, tuple) and len(value) == 1 else value))

    def refuse_jumps_before_finally(self, s):
        """adsrc runs a `finally` block after the try statement, so not when a jump leaves the statement."""
        parts = s.body + s.orelse + [st for h in s.handlers for st in h.body]
        if s.finalbody and any(isinstance(n, (gast.Return, gast.Break, gast.Continue))
                               for part in parts for n in _walk_here(part)):
            raise self.error(s, "`finally` after a `try` block, `except` clause or `else` that returns, breaks or "
                                "continues is not supported: adsrc runs the `finally` block after the `try` "
                                "statement.",
                             "Move the `finally` block's statements after the `try` statement and before the "
                             "`return`.")

    def refuse_partial_writes(self, s):
        """Refuse a try block whose partial run Python would show and adsrc would not (the module docstring)."""
        self.refuse_jumps_before_finally(s)
        head = _head(s)
        written = {n.id for part in head for n in _walk_here(part)
                   if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))}
        read_by_handler = set().union(*(_exposed(h.body, set()) for h in s.handlers))
        later = self.reads_after(s)
        for h in s.handlers:
            if not _leaves(h.body):
                later -= _assigned_surely(h.body)
        for name in sorted(written & (read_by_handler | later)):
            where = "the `except` clause reads it" if name in read_by_handler else "code after the `try` reads it"
            raise self.error(s, f"the `try` block assigns `{name}` before its last statement, and {where}: if a "
                                "later statement of the block raised, Python would keep that value and adsrc would "
                                "not.", _HINT)

    def refuse_changes(self, s, body):
        """Refuse a change in place (an item, an attribute, `xs.append(v)`) before the try block's last statement."""
        head = _head(s)
        if not head:
            return
        last_line = s.body[len(head)].lineno if head is not s.body else None
        for st in walk(body):
            if isinstance(st, (ir.SetItem, ir.InplaceOp, ir.MutatingCall)) and \
                    (last_line is None or st.loc.line < last_line):
                raise self.uf.error(st.loc, "this statement changes an object in place inside a `try` block, before "
                                            "its last statement: if a later statement raised, Python would keep the "
                                            "change and adsrc would not.", _HINT)

    def reads_after(self, s):
        """Names that what may run after try statement s reads before assigning them: the rest of each block
        around it, and each loop around it from its top."""
        table = getattr(self, "_reads_after", None)
        if table is None:
            table = self._reads_after = {}
            _after(self.uf.node.body, set(), table)
        return set(table.get(id(s), ()))


def _head(s):
    """The statements of a try block before its last one that may raise (all of them when that one is
    compound): `L = cholesky(K); break` keeps L only when the block completed, as Python does."""
    n = len(s.body)
    while n > 1 and _quiet(s.body[n - 1]):
        n -= 1
    if isinstance(s.body[n - 1], (gast.If, gast.For, gast.While, gast.Try, gast.With)):
        return s.body
    return s.body[:n - 1]


def _quiet(st):
    """Can statement st not raise? `break`, `continue`, `pass`, and `return` of a name or a constant."""
    if isinstance(st, gast.Return):
        return st.value is None or isinstance(st.value, (gast.Name, gast.Constant))
    return isinstance(st, (gast.Break, gast.Continue, gast.Pass))


def _walk_here(node):
    """node and what is inside it, not inside nested functions, lambdas, classes or comprehensions (whose
    variables are their own)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(c for c in astutil.children(n)
                     if not isinstance(c, (gast.FunctionDef, gast.Lambda, gast.ClassDef, gast.ListComp, gast.SetComp,
                                           gast.DictComp, gast.GeneratorExp)))


def _loads(nodes):
    return {n.id for part in nodes for n in astutil.walk(part)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _exposed(stmts, later):
    """Names stmts may read before assigning them, and those of `later` (read after stmts) that stmts may
    leave unassigned."""
    out, done = set(), set()
    for s in stmts:
        reads, assigns = _reads_first(s)
        out |= reads - done
        done |= assigns
    return out | (later - done)


def _reads_first(s):
    """(names statement s may read before assigning them, names it surely assigns)."""
    if isinstance(s, gast.If):
        body, orelse = _reads_first_block(s.body), _reads_first_block(s.orelse)
        return _loads([s.test]) | body[0] | orelse[0], body[1] & orelse[1]
    if isinstance(s, (gast.For, gast.While)):
        head = _loads([s.iter]) if isinstance(s, gast.For) else _loads([s.test])
        return head | _exposed(s.body + s.orelse, set()), set()
    if isinstance(s, gast.Try):
        parts = [s.body, s.orelse, s.finalbody] + [h.body for h in s.handlers]
        return set().union(*(_exposed(p, set()) for p in parts)), set()
    if isinstance(s, gast.With):
        return _loads([i.context_expr for i in s.items]) | _exposed(s.body, set()), _assigned_surely(s.body)
    return _loads([s]), _assigned_surely([s])


def _reads_first_block(stmts):
    done = set()
    out = _exposed(stmts, set())
    for s in stmts:
        done |= _reads_first(s)[1]
    return out, done


def _after(stmts, later, table):
    """Fill table: id(try statement) -> names what may run after it reads before assigning them (`later`:
    those after stmts)."""
    for i, s in enumerate(stmts):
        after = _exposed(stmts[i + 1:], later)
        if isinstance(s, (gast.For, gast.While)):
            after = after | _exposed(s.body, after) | _loads([s.iter if isinstance(s, gast.For) else s.test])
        if isinstance(s, gast.Try):
            table[id(s)] = _exposed(s.finalbody, after)
        if isinstance(s, gast.FunctionDef):
            _after(s.body, set(), table)
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                _after(block, after, table)
        for h in getattr(s, "handlers", ()):
            _after(h.body, after, table)


def _leaves(body):
    """Does a block end by leaving the function or the loop (return, raise, break, continue)?"""
    return bool(body) and isinstance(body[-1], (gast.Return, gast.Raise, gast.Break, gast.Continue))


def _raises_again(body):
    """Does an `except` clause always end by raising (nothing in it returns, breaks or continues)?"""
    return _leaves(body) and isinstance(body[-1], gast.Raise) and \
        not any(isinstance(n, (gast.Return, gast.Break, gast.Continue)) for s in body for n in _walk_here(s))


def _assigned_surely(body):
    """Names a block's top-level statements assign (on every path through it)."""
    return {n.id for s in body if isinstance(s, (gast.Assign, gast.AugAssign, gast.AnnAssign))
            for t in (s.targets if isinstance(s, gast.Assign) else [s.target]) for n in astutil.walk(t)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
