"""The IR verifier: run after every pass in the tests (ADSRC_VERIFY=1 runs it always).

It checks that statements are of the kinds the stage allows, that their
declared fields hold what they declare (names, atoms, expressions, matching
lengths for branch results and loop carries), that an Apply's operands are
nodes of its expression, and, for lowered IR, single assignment (every name
bound once) and that every name is bound before it is read on every path.
"""

import gast

from . import nodes as ir
from .. import astutil
from .walk import defines, expr_reads, own_reads

STRUCTURED = "structured"
FUNCTIONAL = "functional"
LOWERED = "lowered"

_CHANGES = (ir.SetItem, ir.InplaceOp, ir.MutatingCall)
_JUMPS = (ir.Break, ir.Continue, ir.Return)
_STRUCTURED_FLOW = (ir.If, ir.For, ir.While)
_LOWERED_FLOW = (ir.Cond, ir.Scan, ir.WhileLoop)


class VerifyError(AssertionError):
    pass


def _fail(stmt, problem):
    raise VerifyError(f"{type(stmt).__name__} at line {stmt.loc.line}: {problem}")


def _check_target(stmt, t):
    if isinstance(t, str):
        if not t.isidentifier():
            _fail(stmt, f"target {t!r} is not a name")
        return
    if not isinstance(t, tuple) or not t:
        _fail(stmt, f"target {t!r} is not a name or a tuple of names")
    for e in t:
        _check_target(stmt, e)


def _static_chain(node):
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Name)


def _check_atom(stmt, node, what):
    if not isinstance(node, (gast.Name, gast.Constant)) and not _static_chain(node):
        _fail(stmt, f"{what} is not an atom: {type(node).__name__}")


def check_statement(s, stage):
    if not isinstance(s.loc, ir.Loc):
        _fail(s, "has no location")
    if stage != STRUCTURED and isinstance(s, _CHANGES + _JUMPS):
        _fail(s, f"is not allowed in {stage} IR")
    if stage == LOWERED and isinstance(s, _STRUCTURED_FLOW + (ir.CallLocal,)):
        _fail(s, "is not allowed in lowered IR")
    if stage != LOWERED and isinstance(s, _LOWERED_FLOW):
        _fail(s, f"is not allowed in {stage} IR")
    if isinstance(s, ir.Op):
        _check_target(s, s.target)
        if not isinstance(s.expr, gast.expr):
            _fail(s, "expr is not an expression")
        if isinstance(s, ir.Copy):
            if not isinstance(s.expr, gast.Name):
                _fail(s, "copies something other than a name")
        if isinstance(s, ir.Apply):
            inside = {id(n) for n in astutil.walk(s.expr)}
            for p, v in s.bound.items():
                for node in v if isinstance(v, list) else [v]:
                    if id(node) not in inside:
                        _fail(s, f"operand `{p}` is not part of its expression")
        if isinstance(s, (ir.GetItem,)) and not isinstance(s.expr, gast.Subscript):
            _fail(s, "is not a subscript")
        if isinstance(s, ir.Pack) and not isinstance(s.expr, (gast.Tuple, gast.List, gast.Dict)):
            _fail(s, "is not a display")
    elif isinstance(s, ir.SetItem):
        _check_target(s, s.base)
        _check_atom(s, s.value, "the assigned value")
    elif isinstance(s, ir.InplaceOp):
        _check_target(s, s.target)
        _check_atom(s, s.value, "the operand")
    elif isinstance(s, ir.Cond):
        for br in (s.true, s.false):
            if len(br.results) != len(s.outs):
                _fail(s, f"a branch has {len(br.results)} results for {len(s.outs)} outputs")
            for r in br.results:
                _check_atom(s, r, "a branch result")
    elif isinstance(s, (ir.Scan, ir.WhileLoop)):
        n = len(s.carry)
        if not (len(s.init) == len(s.results) == len(s.outs) == n):
            _fail(s, f"carry {n}, init {len(s.init)}, results {len(s.results)}, outs {len(s.outs)} differ")
        for a in s.init + s.results:
            _check_atom(s, a, "a carried value")
        if isinstance(s, ir.Scan) and s.stop is not None and not (0 <= s.stop < n):
            _fail(s, "stop is not one of the carried values")


def _blocks(s):
    if isinstance(s, ir.If):
        return [s.body, s.orelse]
    if isinstance(s, ir.For):
        return [s.body]
    if isinstance(s, ir.While):
        return [s.test_body, s.body]
    if isinstance(s, ir.Cond):
        return [s.true.body, s.false.body]
    if isinstance(s, (ir.Scan, ir.WhileLoop)):
        return [s.test_body, s.body] if isinstance(s, ir.WhileLoop) else [s.body]
    return []


def verify(fn, stage):
    """Raise VerifyError if fn is not well-formed IR of the given stage."""
    def statements(body):
        for s in body:
            check_statement(s, stage)
            if isinstance(s, ir.Def):
                verify(s.fn, stage if stage == LOWERED else STRUCTURED)
            for b in _blocks(s):
                statements(b)
    statements(fn.body)
    if stage != STRUCTURED and fn.result is None:
        raise VerifyError(f"{fn.name} has no result")
    if stage == LOWERED:
        _check_ssa(fn)


def _check_ssa(fn):
    def bind(s, names, seen):
        for n in names:
            if n in seen:
                _fail(s, f"`{n}` is bound twice")
            seen.add(n)

    def collect(body, seen):
        for s in body:
            if isinstance(s, ir.Cond):
                # a branch may compute its result straight into the output's name (both branches alike)
                branches = []
                for br in (s.true, s.false):
                    inner = set(seen)
                    collect(br.body, inner)
                    branches.append(inner - seen)
                outs = set(s.outs)
                if (branches[0] & branches[1]) - outs:
                    _fail(s, f"`{sorted((branches[0] & branches[1]) - outs)[0]}` is bound in both branches")
                seen |= (branches[0] | branches[1]) - outs
                bind(s, s.outs, seen)
                continue
            if isinstance(s, (ir.Scan, ir.WhileLoop)):
                bind(s, list(s.carry) + ([s.item] if isinstance(s, ir.Scan) and s.item else []), seen)
            for b in _blocks(s):
                collect(b, seen)
            bind(s, defines(s), seen)
    seen = set(fn.params)
    collect(fn.body, seen)
    bound_anywhere = seen

    def reads_ok(s, names, visible):
        for n in names:
            if n in bound_anywhere and n not in visible:
                _fail(s, f"reads `{n}` before it is bound")

    def check(body, visible):
        visible = set(visible)
        for s in body:
            if isinstance(s, ir.Cond):
                reads_ok(s, own_reads(s), visible)
                for br in (s.true, s.false):
                    inner = check(br.body, visible)
                    for r in br.results:
                        reads_ok(s, expr_reads(r), inner)
            elif isinstance(s, (ir.Scan, ir.WhileLoop)):
                for a in s.init:
                    reads_ok(s, expr_reads(a), visible)
                inner = visible | set(s.carry)
                if isinstance(s, ir.Scan):
                    reads_ok(s, expr_reads(s.xs), visible)
                    inner |= {s.item} if s.item else set()
                else:
                    inner = check(s.test_body, inner)
                    reads_ok(s, expr_reads(s.test), inner)
                inner = check(s.body, inner)
                for r in s.results:
                    reads_ok(s, expr_reads(r), inner)
            elif isinstance(s, ir.Def):
                pass
            else:
                reads_ok(s, own_reads(s), visible)
            visible |= set(defines(s))
        return visible
    end = check(fn.body, set(fn.params))
    if fn.result is not None:
        reads_ok(ir.Return(fn.result, loc=ir.Loc(fn.lineno)), expr_reads(fn.result), end)
