"""`with` a context manager of the user's or a library's (a timer, a lock, a logger) in a differentiated function.

    with Timer() as t:                     context = Timer()                  (run as it is)
        y = f(x)                           t = context_enter(context)        (its __enter__)
                                           try:
                                               y = f(x)
                                           except BaseException as exc:
                                               context_failed(context, exc, "file:line")
                                               raise exc
                                           else:
                                               context_exit(context)        (its __exit__(None, None, None))

A `return`, `break` or `continue` that leaves the block calls `context_exit` first. The manager and what
its `__enter__` returns are values adsrc computes as they are and never differentiates (ir.Opaque): one
that must be differentiated (`with scaled(x) as s: ... s * y`) is refused where it is made. An `__exit__`
that swallows the exception (returns true) is an error when it happens, naming the line: the code after the
block would run without the values the block did not finish.
"""

import gast

from .. import astutil
from ..ir import nodes as ir
from ..rules import nondiff
from .errstates import exits_before_jumps, with_exits

_HINT = "Enter the context outside the differentiated function, or use its value only for what is not differentiated."


def context_enter(manager):
    return type(manager).__enter__(manager)


def context_exit(manager):
    type(manager).__exit__(manager, None, None, None)


def context_failed(manager, exc, where):
    if type(manager).__exit__(manager, type(exc), exc, exc.__traceback__):
        raise RuntimeError(f"the context manager of the `with` statement at {where} swallowed a "
                           f"{type(exc).__name__}; adsrc differentiates `with` blocks whose exceptions go on "
                           "(the code after the block would run without the block's values). Catch the "
                           "exception with try/except instead.") from exc


for _fn in (context_exit, context_failed):
    nondiff(_fn, _fn.__name__)


class Contexts:
    """Mixin of the Normalizer: `with` statements of other context managers than NumPy's and warnings'."""

    def context_block(self, s, item, body):
        """`with item: body` (body: the block, or a `with` statement of the items after this one)."""
        target = unpacked = item.optional_vars
        if target is not None and not isinstance(target, gast.Name):
            # `with pair() as (a, b)`, `as self.t`: the value into a name of its own, then assigned as written
            target = gast.Name(id=self.temp("entered"), ctx=gast.Store(), annotation=None, type_comment=None)
        ctx = item.context_expr
        manager = self.temp("context")
        made = self.plain_call(ctx, self.atom(ctx.func)) if isinstance(ctx, gast.Call) else self.atom(ctx)
        self.emit_op(ir.Opaque, manager, made, ctx, describe="a context manager", hint=_HINT)
        enter = astutil.call(self.bind("context_enter", context_enter), [astutil.name(manager)])
        if target is None:
            self.emit(ir.Effect(enter), s)
        else:
            self.emit_op(ir.Opaque, target.id, enter, s, describe="the value of a context manager's __enter__",
                         hint=_HINT)
            if unpacked is not target:
                self.statement(gast.fix_missing_locations(gast.copy_location(gast.Assign(
                    targets=[unpacked], value=astutil.name(target.id), type_comment=None), s)))

        def exit_call():
            return gast.copy_location(gast.Expr(value=astutil.call(
                self.bind("context_exit", context_exit), [astutil.name(manager)])), s)
        exc = self.temp("exc")
        where = f"{self.uf.filename}:{s.lineno}" if hasattr(self.uf, "filename") else f"line {s.lineno}"
        failed = astutil.call(self.bind("context_failed", context_failed),
                              [astutil.name(manager), astutil.name(exc), astutil.const(where)])
        handler = gast.ExceptHandler(type=astutil.name(self.bind("BaseException", BaseException)),
                                     name=gast.Name(id=exc, ctx=gast.Store(), annotation=None, type_comment=None),
                                     body=[gast.Expr(value=failed), gast.Raise(exc=astutil.name(exc), cause=None)])
        guarded = exits_before_jumps(body, [(exit_call, False)] + with_exits(s), self.temp)
        statement = gast.Try(body=guarded, handlers=[handler], orelse=[exit_call()], finalbody=[])
        self.statement(gast.fix_missing_locations(gast.copy_location(statement, s)))
