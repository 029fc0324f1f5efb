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
from ..ir.walk import assigned, expr_reads, own_reads, target_names

_PURE = (ir.Copy, ir.Apply, ir.GetItem, ir.GetAttr, ir.Pack, ir.Update, ir.Append, ir.ScanSlice)
_PURE_CALLS = frozenset({"len", "range", "isinstance", "int", "float", "bool", "min", "max", "abs", "tuple",
                         "shape", "ndim", "size", "scan_length", "is_mutable", "same_part", "sequence"})


def _pure_const(expr):
    for n in astutil.walk(expr):
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


class _Pass:
    """One elimination. `apply` False only computes what would be kept (nothing changes).

    needed: (id of a loop, carries needed after it) -> the carries it needs, a
    fixpoint over its body (see _needed). Each loop's body is analyzed once per
    such set, not again for every pass of every enclosing loop's fixpoint (which
    made the cost grow exponentially with the depth of nesting).
    """

    def __init__(self):
        self.needed = {}


def block(body, live, p, apply):
    """The names live before the block, and whether any statement is kept (removes the others if apply)."""
    live = set(live)
    out = []
    for s in reversed(body):
        if isinstance(s, (ir.Cond, ir.Scan, ir.WhileLoop)):
            kept = (_cond if isinstance(s, ir.Cond) else _loop)(s, live, p, apply)
            if kept is not None:
                outs, reads = kept
                out.append(s)
                live.difference_update(outs)        # in place: `live` is this block's own set
                live |= reads
            continue
        names = target_names(s.target) if isinstance(s, ir.Op) else [s.name] if isinstance(s, ir.Def) else []
        if _removable(s) and live.isdisjoint(names):
            continue
        out.append(s)
        live.difference_update(names)
        live |= own_reads(s)
    if apply:
        body[:] = reversed(out)
    return live, bool(out)


def _cond(s, live, p, apply):
    """(outputs kept, names read) of a Cond, None if it goes; unused outputs dropped if apply."""
    # (a try: all of it stays; and an output both branches compute straight into its own name stays too: a call
    # there that may have effects is kept, and would bind the name in both branches without the output)
    used = [k for k, o in enumerate(s.outs) if o in live or s.catches is not None or
            all(isinstance(br.results[k], gast.Name) and br.results[k].id == o for br in (s.true, s.false))]
    outs = [s.outs[k] for k in used]
    reads, work = set(), False
    for br in (s.true, s.false):
        results = [br.results[k] for k in used]
        need = set().union(*(expr_reads(r) for r in results)) if results else set()
        if s.catches is not None and br is s.true:
            need |= set(assigned(br.body))      # a `try` block runs to see whether it raises: all of it stays
        inner, kept = block(br.body, need, p, apply)
        reads |= inner
        work = work or kept
        if apply:
            br.results = results
    if apply:
        s.outs = outs
    if not outs and not work and _pure_const(s.pred) and s.catches is None:
        return None
    return outs, own_reads(s) | reads


def _reads(exprs):
    return set().union(*(expr_reads(e) for e in exprs)) if exprs else set()


def _body_reads(s, body_live, p, apply):
    """Names live before a loop's body (and its test), and whether the body keeps work."""
    inner, work = block(s.body, body_live, p, apply)
    if isinstance(s, ir.WhileLoop):
        inner, _ = block(s.test_body, expr_reads(s.test) | inner | body_live, p, apply)
    return inner, work


def _needed(s, live, p):
    """Indices of the carries the loop needs given the names live after it (memoized)."""
    needed = {k for k, o in enumerate(s.outs) if o in live}
    if isinstance(s, ir.Scan) and s.stop is not None:
        needed.add(s.stop)
    key = (id(s), frozenset(needed))
    found = p.needed.get(key)
    if found is not None:
        return found
    while True:
        body_live = _reads([s.results[k] for k in needed])
        inner, _ = block(s.body, body_live, p, False)
        if isinstance(s, ir.WhileLoop):
            # every iteration runs the test: what it reads is needed
            inner, _ = block(s.test_body, expr_reads(s.test) | inner, p, False)
        more = {k for k, c in enumerate(s.carry) if c in inner} - needed
        if not more:
            break
        needed |= more
    p.needed[key] = needed
    return needed


def _loop(s, live, p, apply):
    """(outputs kept, names read before it) of a loop, None if it goes; unneeded carries dropped if apply."""
    keep = sorted(_needed(s, live, p))
    carry, init = [s.carry[k] for k in keep], [s.init[k] for k in keep]
    results, outs = [s.results[k] for k in keep], [s.outs[k] for k in keep]
    inner, work = _body_reads(s, _reads(results), p, apply)
    if apply:
        stop_carry = s.carry[s.stop] if isinstance(s, ir.Scan) and s.stop is not None else None
        s.carry, s.init, s.results, s.outs = carry, init, results, outs
        if stop_carry is not None:
            s.stop = s.carry.index(stop_carry)
    if isinstance(s, ir.Scan) and not carry and not work:
        return None
    reads = _reads(init)
    if isinstance(s, ir.Scan):
        reads |= expr_reads(s.xs)
    return outs, reads | (inner - set(carry) - ({s.item} if isinstance(s, ir.Scan) and s.item else set()))


def eliminate_dead_code(fn):
    block(fn.body, expr_reads(fn.result) if fn.result is not None else set(), _Pass(), True)
    return fn
