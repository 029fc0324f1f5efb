"""Dead code elimination on lowered IR: values nothing reads are not computed.

A statement without effects whose names nothing reads afterwards is removed;
a branch output or loop carry nothing reads after the branch or loop (and no
iteration needs) is dropped, and a loop or branch left with no outputs and
no work disappears. Calls to user functions, custom rules and functions
adsrc cannot see into, and constants computed by calls other than a few
known pure ones (which might draw random numbers), are kept.
"""


import gast

from .. import astutil

from ..ir import nodes as ir
from ..ir.walk import expr_reads, own_reads, target_names

_PURE = (ir.Copy, ir.Apply, ir.GetItem, ir.GetAttr, ir.Pack, ir.Update, ir.Append, ir.ScanSlice)
_PURE_CALLS = frozenset({"len", "range", "isinstance", "int", "float", "bool", "min", "max", "abs", "tuple",
                         "shape", "ndim", "size", "scan_length", "is_mutable", "same_part", "sequence"})


def _pure_const(expr):
    for n in gast.walk(expr):
        if isinstance(n, gast.Call):
            f = n.func
            name = f.attr if isinstance(f, gast.Attribute) else f.id if isinstance(f, gast.Name) else None
            if name not in _PURE_CALLS:
                return False
    return True


def _removable(s):
    if isinstance(s, _PURE):
        return True
    if isinstance(s, ir.Const):
        return _pure_const(s.expr)
    return isinstance(s, ir.Def)


def block(body, live):
    """Remove dead statements (in place); returns the names live before the block."""
    live = set(live)
    out = []
    for s in reversed(body):
        if isinstance(s, ir.Cond):
            reads = _cond(s, live)
            if reads is not None:
                out.append(s)
                live = (live - set(s.outs)) | expr_reads(s.pred) | reads
            continue
        if isinstance(s, (ir.Scan, ir.WhileLoop)):
            keep = _loop(s, live)
            if keep is not None:
                out.append(s)
                live = (live - set(s.outs)) | keep
            continue
        names = target_names(s.target) if isinstance(s, ir.Op) else [s.name] if isinstance(s, ir.Def) else []
        if _removable(s) and not (set(names) & live):
            continue
        out.append(s)
        live = (live - set(names)) | own_reads(s)
    body[:] = reversed(out)
    return live


def _cond(s, live):
    """Drop unused outputs; returns the names the branches read (None: remove the Cond)."""
    used = [k for k, o in enumerate(s.outs) if o in live]
    s.outs = [s.outs[k] for k in used]
    reads = set()
    for br in (s.true, s.false):
        br.results = [br.results[k] for k in used]
        need = set().union(*(expr_reads(r) for r in br.results)) if br.results else set()
        reads |= block(br.body, need)
    if not s.outs and not s.true.body and not s.false.body and _pure_const(s.pred):
        return None
    return reads


def _loop(s, live):
    """Drop carries nothing needs; returns the names the loop reads before it (None: remove it)."""
    needed = {k for k, o in enumerate(s.outs) if o in live}
    if isinstance(s, ir.Scan) and s.stop is not None:
        needed.add(s.stop)
    while True:
        trial = astutil.clone(s.body)
        test_reads = set()
        body_live = set().union(*(expr_reads(s.results[k]) for k in needed)) if needed else set()
        if isinstance(s, ir.WhileLoop):
            # every iteration runs the test: what it reads is needed
            test_body = astutil.clone(s.test_body)
            test_reads = block(test_body, expr_reads(s.test) | block(trial, body_live))
            inner = test_reads
        else:
            inner = block(trial, body_live)
        more = {k for k, c in enumerate(s.carry) if c in inner} - needed
        if not more:
            break
        needed |= more
    keep = sorted(needed)
    stop_carry = s.carry[s.stop] if isinstance(s, ir.Scan) and s.stop is not None else None
    s.carry, s.init = [s.carry[k] for k in keep], [s.init[k] for k in keep]
    s.results, s.outs = [s.results[k] for k in keep], [s.outs[k] for k in keep]
    if isinstance(s, ir.Scan) and stop_carry is not None:
        s.stop = s.carry.index(stop_carry)
    body_live = set().union(*(expr_reads(r) for r in s.results)) if s.results else set()
    if isinstance(s, ir.WhileLoop):
        inner = block(s.body, body_live)
        inner = block(s.test_body, expr_reads(s.test) | inner | body_live)
    else:
        inner = block(s.body, body_live)
    if isinstance(s, ir.Scan) and not s.carry and not s.body:
        return None
    reads = set().union(*(expr_reads(a) for a in s.init)) if s.init else set()
    if isinstance(s, ir.Scan):
        reads |= expr_reads(s.xs)
    return reads | (inner - set(s.carry) - ({s.item} if isinstance(s, ir.Scan) and s.item else set()))


def eliminate_dead_code(fn):
    block(fn.body, expr_reads(fn.result) if fn.result is not None else set())
    return fn
