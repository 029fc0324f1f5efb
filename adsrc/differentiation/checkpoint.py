"""Generated code for checkpointing (see adsrc/checkpoint.py for what the user asks for).

**A checkpointed call** (`CallUser.checkpoint`, from `adsrc.checkpoint`): the forward code
calls the function as written, keeping nothing but its arguments; the backward code runs
the callee's vjp unit again for its residuals, then its pullback:

    # forward                              # backward
    h_2 = step(h_1, xs_t)                  _, h_res = step_vjp(h_1, xs_t)
                                           dh_1, dxs_t = step_pullback(h_res, dh_2)

**A checkpointed loop** (`checkpoint_loops=`, for loops not inside another loop): the
forward loop keeps the carried values at the start of some iterations instead of a tape;
backward, each stretch of iterations, the last first, runs again from its checkpoint with
an ordinary tape (`emit_loop`), and the ordinary backward loop goes back through it:

    steps = range(xs.shape[0])
    checkpoints = sqrt_checkpoints(len(steps))
    for t in steps:
        checkpoints.save(h_1)
        ...                                   # the loop's forward code, no tape
    # backward pass
    for start, stop, h_1 in checkpoints.segments():
        tape = []
        for t in steps[start:stop]:
            ...                               # the forward code again, with a tape
        for add, h_1, ... in reversed(tape):
            ...                               # the ordinary backward code

Only the carried values the stretch needs again are kept (a list a loop only appends to
is not). A `while` loop counts its iterations instead (`for _ in range(start, stop)`).
"""

import dataclasses

import gast

from .. import astutil
from ..emission import dce
from ..ir import nodes as ir
from ..ir.printer import op_expr
from ..ir.walk import blocks
from . import rerun
from .state import comment


# -- checkpointed calls --------------------------------------------------------------------------------

def call_forward(adj, s):
    """Forward code of an active checkpointed call: the plain call (its vjp unit is made now)."""
    refuse_varied_statics(adj, s)
    rerun.refuse_drawing_callee(adj, s)
    adj.calls[id(s)] = adj.ctx.call(adj, s)
    node = astutil.assign(s.target, op_expr(s, adj.namer))
    return [node]


def recompute(adj, call):
    """Backward: `_, f_res = f_vjp(args)`, the callee's forward again, for its residuals."""
    return astutil.assign(("_", call.pullback), astutil.clone(call.expr))


def refuse_varied_statics(adj, s):
    nums = s.checkpoint.static_argnums
    args = list(s.expr.args)
    for i in nums:
        j = i + len(args) if i < 0 else i
        if not 0 <= j < len(args):
            raise adj.error(s, f"static_argnums={nums!r} of the checkpointed `{_name(s.callee)}` names argument "
                               f"{i}, but the call passes {len(args)} positional arguments.",
                            "Pass the static arguments by position.")
        if adj.act.any_varied([args[j]]):
            raise adj.error(s, f"argument {j} of the checkpointed `{_name(s.callee)}` is static (static_argnums), "
                               "but it depends on differentiated values, so its gradient would be lost.",
                            "Remove it from static_argnums.")


def _name(fn):
    return getattr(fn, "__qualname__", getattr(fn, "__name__", "function"))


# -- which loops and calls are checkpointed ------------------------------------------------------------

def _top_loops(body, out):
    """ids of the loops of body that are not inside another loop (branches are looked into)."""
    for s in body:
        if isinstance(s, ir.LOOPS):
            out.add(id(s))
        elif isinstance(s, ir.Cond):
            _top_loops(s.true.body, out)
            _top_loops(s.false.body, out)
    return out


def loop_policy(adj, s):
    """The checkpoint_loops policy for loop s: the unit's policy if s is not inside another loop."""
    policy = getattr(adj.ctx, "loop_policy", None)
    if policy is None or id(s) not in _top_loops(adj.fn.body, set()):
        return None
    rerun.refuse_rerun_hazards(adj, list(getattr(s, "test_body", None) or []) + list(s.body),
                               f"checkpoint_loops={policy!r}")
    return policy


def callee_policy(adj, s):
    """The policy a called function's loops get: the caller's, unless the call is itself in a loop
    (the loop is then checkpointed or taped as a whole; nesting more would cost more recomputation)."""
    policy = getattr(adj.ctx, "loop_policy", None)
    if policy is None:
        return None
    stack = list(adj.fn.body)
    while stack:
        st = stack.pop()
        if isinstance(st, ir.LOOPS):
            if any(inner is s for b in blocks(st) for inner in _walk(b)):
                return None
        elif isinstance(st, ir.Cond):
            stack.extend(st.true.body + st.false.body)
    return policy


def _walk(body):
    for st in body:
        yield st
        for b in blocks(st):
            yield from _walk(b)


# -- checkpointed loops --------------------------------------------------------------------------------

def emit_checkpointed_loop(adj, s, policy, fwd_body, bwd_body, residuals, shapes, pre_bwd, out_states,
                           active_carry, dcarry, owned_carry):
    """(forward, backward) code of loop s with checkpoints instead of a tape (see the module's text)."""
    namer = adj.namer
    scan = isinstance(s, ir.Scan)
    steps = namer.fresh("steps") if scan else None
    ckpt = namer.fresh("checkpoints")
    adj.frame.update({ckpt} | ({steps} if scan else set()))
    # the forward loop, without a tape, keeping checkpoints
    plain = dataclasses.replace(s, xs=astutil.name(steps)) if scan else dataclasses.replace(s)
    fwd, _ = adj.emit_loop(plain, fwd_body, [], [], set(), [], {}, [], {}, set())
    loop = next(st for st in fwd if isinstance(st, (gast.For, gast.While)))
    at = _body_start(loop)
    # a while loop's test code (what its body may read of it), without the test: a stretch runs exactly
    test_code = loop.body[:at - 1] if at else []
    # one stretch again: iterations start..stop-1 from the carried values it needs
    start, stop = namer.fresh("start"), namer.fresh("stop")
    if scan:
        xs = gast.Subscript(value=astutil.name(steps), slice=gast.Slice(lower=astutil.name(start),
                            upper=astutil.name(stop), step=None), ctx=gast.Load())
    else:
        xs = astutil.call("range", [astutil.name(start), astutil.name(stop)])
    item = s.item if scan else None
    rerun = astutil.clone(test_code) + _clone_body(adj, fwd_body)
    carry = _needed_carry(s, rerun, item, residuals)
    pairs = [(c, r) for c, r in zip(s.carry, s.results) if c in carry]
    seg = ir.Scan([c for c, _ in pairs], [astutil.name(c) for c, _ in pairs], item, xs, [],
                  [astutil.clone(r) for _, r in pairs], [c for c, _ in pairs], None, loc=s.loc)
    seg_fwd, seg_bwd = adj.emit_loop(seg, rerun, bwd_body, residuals, shapes, [], {}, [], {}, set())
    # what the stretch computes for carried values it does not keep is dead: removed here, as it would
    # read values the checkpoint does not restore (a vjp's pullback is not cleaned up later)
    seg_fwd, _ = dce.eliminate(seg_fwd)
    # forward: the checkpoints, then the loop saving them at the start of each iteration
    packed = astutil.tuple_([astutil.name(c) for c in carry]) if len(carry) != 1 else astutil.name(carry[0])
    loop.body.insert(at, astutil.expr_stmt(astutil.call(astutil.attr(ckpt, "save"), [packed])))
    made = _checkpoints_call(adj, policy, steps)
    head = [comment("checkpointed loop, no tape: the backward pass runs each stretch of steps again")]
    if scan:
        head.append(astutil.assign(steps, astutil.clone(s.xs)))
    fwd = head + [astutil.assign(ckpt, made)] + fwd
    # backward: the carried adjoints, then each stretch again, the last first
    bwd = list(pre_bwd) + _adjoint_head(adj, s, out_states, active_carry, dcarry, owned_carry)
    target = (start, stop, tuple(carry) if len(carry) != 1 else carry[0]) if carry else (start, stop, "_")
    bwd.append(gast.For(target=astutil.target(target), iter=astutil.call(astutil.attr(ckpt, "segments")),
                        body=seg_fwd + seg_bwd, orelse=[], type_comment=None))
    return fwd, bwd


def _body_start(loop):
    """Where an iteration's own code starts in a generated loop's body (after a while loop's test)."""
    if isinstance(loop, gast.While):
        for i, st in enumerate(loop.body):
            if isinstance(st, gast.If) and len(st.body) == 1 and isinstance(st.body[0], gast.Break) \
                    and not st.orelse:
                return i + 1
    return 0


def _clone_body(adj, body):
    """A copy of generated statements for the second run, without the user's effects (a print runs
    once); reads that only take a shape or that are inside constants stay known as such (for the
    decisions on updates in place)."""
    memo = {}
    out = _without_effects(astutil.clone(body, memo))
    for old, new in list(memo.items()):
        if old in adj.shape_reads:
            adj.shape_reads.add(id(new))
        if old in adj.passive_reads:
            adj.passive_reads.add(id(new))
    return out


def _without_effects(stmts):
    out = []
    for st in stmts:
        if getattr(st, "adsrc_effect", False):
            continue
        for field in ("body", "orelse"):
            inner = getattr(st, field, None)
            if isinstance(inner, list) and inner:
                setattr(st, field, _without_effects(inner))       # dce.eliminate fills empty blocks
        out.append(st)
    return out


def _needed_carry(s, rerun, item, residuals):
    """The carried names a stretch needs to run again: those live at the top of its loop.

    The carried values are updated through temporaries (`c_next = r ... c = c_next`), so that a
    carried value only the update itself reads (a counter, a list the loop appends to) is dead.
    """
    save = astutil.expr_stmt(astutil.call(astutil.attr("tape", "append"),
                                          [astutil.tuple_([astutil.name(r) for r in residuals])]))
    carry = list(s.carry)
    while True:
        pairs = [(c, r) for c, r in zip(s.carry, s.results) if c in carry]
        temps = [astutil.assign(f"{c}.next", astutil.clone(r)) for c, r in pairs]
        update = temps + [astutil.assign(c, astutil.name(f"{c}.next")) for c, _ in pairs]
        loop = gast.For(target=astutil.store(item or "_"), iter=astutil.name("range"),
                        body=astutil.clone(rerun) + [save] + update, orelse=[], type_comment=None)
        _, live = dce.eliminate([loop])
        needed = [c for c in s.carry if c in live]
        if needed == carry:
            return carry
        carry = needed


def _checkpoints_call(adj, policy, steps):
    if isinstance(policy, int):
        return adj.hcall("stride_checkpoints", astutil.const(policy))
    if steps is None:
        return adj.hcall("sqrt_checkpoints")      # a while loop: the stride doubles as it runs
    return adj.hcall("sqrt_checkpoints", astutil.call("len", [astutil.name(steps)]))


def _adjoint_head(adj, s, out_states, active_carry, dcarry, owned_carry):
    """The carried adjoints before the backward loops (from the adjoints of the loop's results)."""
    out = []
    for k in active_carry:
        st = out_states.get(s.carry[k])
        value = st.expr if st is not None else astutil.const(0.0)
        if k in owned_carry and not (st is not None and st.owned):
            value = adj.hcall("owned", value, astutil.name(s.outs[k]))
        if not (isinstance(value, gast.Name) and value.id == dcarry[k]):
            out.append(astutil.assign(dcarry[k], value))
    return out
