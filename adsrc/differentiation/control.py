"""Adjoints of `Cond`, `Scan` and `WhileLoop`.

* Cond: `if cond:` forward, the same `if cond:` backward (the branch taken is
  remembered in `cond`). Inside a loop, the values a branch's backward code
  reads from that branch are packed into one variable per iteration.
* Loops: a `for`/`while` loop forward that appends to a tape what each
  iteration's backward code reads of that iteration (one tuple per step), and
  a loop over the reversed tape backward. The values saved are the names an
  iteration defines (its statements' targets, carried values, the loop
  index, and the tapes, branch records and pullbacks of nested statements)
  that the backward code reads.
"""


import gast

from .. import astutil
from ..errors import TransformError
from ..emission import release
from ..ir import nodes as ir
from ..ir.printer import branches
from ..ir.walk import defines, expr_reads, reads_anywhere, walk
from . import checkpoint, remat
from .state import AdjState, tag


def _loaded(stmts):
    return astutil.names_loaded(gast.Module(body=list(stmts), type_ignores=[]))


def _stored(stmts):
    out = set()
    for s in stmts:
        for n in astutil.walk(s):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                out.add(n.id)
            elif isinstance(n, gast.FunctionDef):
                out.add(n.name)
    return out


def _defined_in(body):
    out = set()
    for s in walk(body):
        out.update(defines(s))
        if isinstance(s, (ir.Scan, ir.WhileLoop)):
            out.update(s.carry)
            if isinstance(s, ir.Scan) and s.item is not None:
                out.add(s.item)
    return out


def refusal_statement(d, error):
    """The statement that raises error (a TransformError) when it runs: a branch adsrc refused (d: the
    Adjoint or Forward differentiator)."""
    return astutil.expr_stmt(d.hcall("refuse_now", astutil.name(d.ctx.bind("refusal", error))))


class ControlAdjoints:
    """Mixin of the Adjoint generator: conditionals and loops."""

    # -- cond ----------------------------------------------------------------------------------------
    def cond(self, s, repeated):
        pred = s.pred
        fwd_pre = []
        if not isinstance(pred, gast.Name):
            var = self.namer.fresh("cond")
            self.frame.add(var)
            fwd_pre.append(astutil.assign(var, astutil.clone(pred)))
            pred = astutil.name(var)
        before = dict(self.adj)
        out_g = {o: self.adj.get(o) for o in s.outs}
        self.kill(s.outs)
        states, bodies, refused = [], [], []
        for br in (s.true, s.false):
            self.adj = {k: v.copy() for k, v in before.items() if k not in s.outs}
            seed = []
            for o, r in zip(s.outs, br.results):
                st = out_g.get(o)
                if st is not None and self.active_name(r):
                    self.accumulate(r.id, st.expr, seed, lazy=st.lazy)
            try:
                fwd_b, bwd_b, frame = self.block(br.body, repeated)
            except TransformError as e:
                # a branch adsrc cannot differentiate is refused when it runs (`if plot: draw(x)` with plot
                # false runs as in Python); both refused: refused now
                refused.append(e)
                if len(refused) == 2:
                    raise refused[0] from None
                self.adj = {k: v.copy() for k, v in before.items() if k not in s.outs}
                states.append(self.adj)
                bodies.append(([refusal_statement(self, e)], [], set()))
                continue
            fwd_b = fwd_b + [astutil.assign(o, astutil.clone(r)) for o, r in zip(s.outs, br.results)
                             if not (isinstance(r, gast.Name) and r.id == o)]
            local = _stored(fwd_b)
            for n in list(self.adj):
                if n in local and n not in before:
                    del self.adj[n]          # branch-local names are dead after the branch
            states.append(self.adj)
            bodies.append((fwd_b, seed + bwd_b, frame - set(s.outs)))
        merged, tails = self.merge(before, states)
        self.adj = merged
        (fwd_t, bwd_t, local_t), (fwd_f, bwd_f, local_f) = bodies
        bwd_t, bwd_f = bwd_t + tails[0], bwd_f + tails[1]
        if repeated:
            fwd_t, bwd_t, fwd_f, bwd_f = self.pack_branch_values(fwd_t, bwd_t, local_t, fwd_f, bwd_f, local_f)
        fwd = fwd_pre + branches(s, pred, fwd_t, fwd_f, self.namer)
        bwd = [gast.If(test=astutil.clone(pred), body=bwd_t or [gast.Pass()], orelse=bwd_f)] if bwd_t or bwd_f else []
        return tag(fwd, s.loc.line), tag(bwd, s.loc.line)

    def dense_array(self, n):
        """Compiled backends (Context.dense) need an array n's cotangent to be an array of n's shape."""
        return self.ctx.dense and self.values[n].kind == "array"

    def dense_cot(self, n, expr, lazy, like=None):
        """expr, a cotangent of n; for a compiled backend, a lazy one (a number or an array standing for its
        broadcast) of an array n becomes `full(expr, n)`, so that each name holds one type."""
        if lazy and self.dense_array(n):
            return self.hcall("full", expr, astutil.name(like or n))
        return astutil.clone(expr)

    def merge(self, before, states):
        """Bring both branches' adjoint states to one state; returns (state, [tail_t, tail_f])."""
        names = set()
        for st in states:
            names |= set(st)
        merged, tails = {}, [[], []]
        for n in sorted(names):
            per = [st.get(n) for st in states]
            b = before.get(n)
            if all(p is not None and b is not None and p.expr is b.expr for p in per):
                merged[n] = b
                continue
            var = self.dname(n)
            lazy, owned, borrowed = False, True, False
            for k, p in enumerate(per):
                if p is None:
                    tails[k].append(astutil.assign(var, self.dense_cot(n, astutil.const(0.0), True)))
                    lazy, owned = not self.dense_array(n), False
                    continue
                if p.lazy and self.dense_array(n):
                    tails[k].append(astutil.assign(var, self.dense_cot(n, p.expr, True)))
                    owned, borrowed = False, borrowed or p.borrowed     # full() may hand back p.expr itself
                    continue
                if not (isinstance(p.expr, gast.Name) and p.expr.id == var):
                    tails[k].append(astutil.assign(var, astutil.clone(p.expr)))
                lazy = lazy or p.lazy
                owned = owned and p.owned
                borrowed = borrowed or p.borrowed
            merged[n] = AdjState(astutil.name(var), lazy, owned, borrowed)
        return merged, tails

    def pack_branch_values(self, fwd_t, bwd_t, local_t, fwd_f, bwd_f, local_f):
        """Inside a loop: what each branch's backward code reads of that branch, saved in one variable."""
        res_t = sorted(_loaded(bwd_t) & local_t)
        res_f = sorted(_loaded(bwd_f) & local_f)
        if not res_t and not res_f:
            return fwd_t, bwd_t, fwd_f, bwd_f
        var = self.namer.fresh("branch")
        self.frame.add(var)
        # numba gives a variable one type: both branches then save the same places, None in the other's (not
        # when the tape goes through Python to a vjp's pullback: numba cannot type a list of both back)
        places = res_t + [r for r in res_f if r not in res_t] if self.ctx.dense and not self.boxed else None
        out = []
        for fwd, bwd, res in ((fwd_t, bwd_t, res_t), (fwd_f, bwd_f, res_f)):
            saved = res if places is None else [r if r in res else None for r in places]
            fwd = fwd + [astutil.assign(var, astutil.tuple_([astutil.name(r) if r else astutil.const(None)
                                                             for r in saved]))]
            if res:
                targets = saved if places is None else [r or self.namer.fresh("unused") for r in saved]
                bwd = [astutil.assign(tuple(targets), astutil.name(var))] + bwd
            out.append((fwd, bwd))
        (fwd_t, bwd_t), (fwd_f, bwd_f) = out
        return fwd_t, bwd_t, fwd_f, bwd_f

    # -- loops ---------------------------------------------------------------------------------------
    def loop(self, s):
        body = _unguard(s)
        carry = s.carry
        item = [s.item] if isinstance(s, ir.Scan) and s.item else []
        out_states = {c: self.adj.get(o) for c, o in zip(carry, s.outs)}
        self.kill(s.outs)
        inner_defined = _defined_in(body) | set(carry) | set(item)
        read = reads_anywhere(body) | set().union(*(expr_reads(r) for r in s.results))
        free_active = sorted({n for n in read if self.act.active(n)} - inner_defined)
        pre_bwd = []
        before = {n: self.adj[n].copy() if n in self.adj else None for n in free_active}
        for n in free_active:
            # adjoints accumulated across iterations live in variables from before the loop
            st = self.adj.get(n)
            if self.values[n].kind == "array" and (st is None or not st.owned):
                init = astutil.const(0.0) if st is None else self.materialize(n, pre_bwd).expr
                pre_bwd.append(astutil.assign(self.dname(n), self.hcall("owned", init, astutil.name(n))))
                self.adj[n] = AdjState(astutil.name(self.dname(n)), lazy=False, owned=True)
            elif st is None:
                pre_bwd.append(astutil.assign(self.dname(n), astutil.const(0.0)))
                self.adj[n] = AdjState(astutil.name(self.dname(n)), lazy=True)
            else:
                self.materialize(n, pre_bwd)
        head = {n: self.adj[n].copy() for n in free_active}
        active_carry = [k for k, c in enumerate(carry) if self.act.active(c)]
        updated = {st.expr.args[0].id for st in walk(body) if isinstance(st, ir.Update)
                   and isinstance(st.expr.args[0], gast.Name)}
        appended = {st.expr.args[0].id for st in walk(body) if isinstance(st, ir.Append)
                    and isinstance(st.expr.args[0], gast.Name)}
        # carried arrays updated by item assignment: their adjoints stay buffers only we hold, so the
        # overwritten parts can be zeroed in place each iteration
        owned_carry = {k for k in active_carry if carry[k] in updated and self.values[carry[k]].kind == "array"}
        owned_carry |= {k for k in active_carry if carry[k] in appended}
        seed = []
        dcarry = {k: self.dname(carry[k]) for k in active_carry}
        results = s.results
        passthrough = any(isinstance(results[k], gast.Name) and results[k].id in carry for k in active_carry)
        incoming = dict(dcarry)
        if passthrough:
            temps = {k: self.namer.fresh(dcarry[k] + "_out") for k in active_carry}
            seed.append(astutil.assign(tuple(temps[k] for k in active_carry),
                                       astutil.tuple_([astutil.name(dcarry[k]) for k in active_carry]))
                        if len(active_carry) > 1 else astutil.assign(temps[active_carry[0]],
                                                                     astutil.name(dcarry[active_carry[0]])))
            incoming = temps
        for k in active_carry:
            r = results[k]
            if self.active_name(r):
                self.accumulate(r.id, astutil.name(incoming[k]), seed, lazy=True)
                if k in owned_carry and not passthrough and r.id in self.adj:
                    self.adj[r.id].owned = True
                    self.adj[r.id].lazy = False
        fwd_body, bwd_body, frame = self.block(body, repeated=True)
        bwd_body = seed + bwd_body
        # carried adjoints at the end of an iteration: the carry-in cotangents (0.0 if none)
        tail = []
        for k in active_carry:
            c = carry[k]
            st = self.adj.get(c)
            if st is None:
                tail.append(astutil.assign(dcarry[k], self.dense_cot(c, astutil.const(0.0), True)
                                           if k not in owned_carry else
                                           self.hcall("owned", astutil.const(0.0), astutil.name(c))))
            else:
                self.materialize(c, tail)
                if st.lazy and self.dense_array(c):
                    tail.append(astutil.assign(dcarry[k], self.dense_cot(c, astutil.name(dcarry[k]), True)))
                if k in owned_carry and not st.owned:
                    owned = self.hcall("owned", astutil.name(dcarry[k]), astutil.name(c))
                    tail.append(astutil.assign(dcarry[k], owned))
        # adjoints accumulated across iterations are back in their variables at the end of each iteration
        for n, st in head.items():
            cur = self.adj.get(n)
            if cur is not None and not (isinstance(cur.expr, gast.Name) and cur.expr.id == self.dname(n)):
                self.materialize(n, tail)
            named = isinstance(st.expr, gast.Name) and st.expr.id == self.dname(n)
            self.adj[n] = st if named else AdjState(astutil.name(self.dname(n)), lazy=True, owned=st.owned,
                                                    borrowed=True)
        bwd_body = bwd_body + tail
        for n in list(self.adj):
            if n in inner_defined and n not in head:
                del self.adj[n]
        # what the backward code reads of each iteration, saved on the tape
        level = frame | set(carry) | set(item)
        residuals = sorted(_loaded(bwd_body) & level)
        shapes = release.shape_only(residuals, bwd_body, self.namer.helpers)
        residuals, recompute = remat.plan(body, fwd_body, residuals, shapes, item[0] if item else None,
                                          self.unchanged_params, set(carry))
        bwd_body = recompute + bwd_body
        fwd, bwd = self.emit_loop(s, fwd_body, bwd_body, residuals, shapes, pre_bwd, out_states, active_carry,
                                  dcarry, owned_carry)
        if not bwd:
            # no backward loop: nothing set up the accumulators in pre_bwd
            for n, st in before.items():
                if st is None:
                    self.adj.pop(n, None)
                else:
                    self.adj[n] = st
        post = []
        for k in active_carry:
            self.adj[carry[k]] = AdjState(astutil.name(dcarry[k]), lazy=True)
        for k in active_carry:
            init = s.init[k]
            if self.active_name(init):
                self.accumulate(init.id, astutil.name(dcarry[k]), post, lazy=True)
        self.kill(carry)
        return tag(fwd, s.loc.line), tag(bwd + post, s.loc.line)

    def emit_loop(self, s, fwd_body, bwd_body, residuals, shapes, pre_bwd, out_states, active_carry, dcarry,
                  owned_carry):
        policy = checkpoint.loop_policy(self, s) if bwd_body else None
        if policy is not None:      # checkpoint_loops= (differentiation/checkpoint.py)
            return checkpoint.emit_checkpointed_loop(self, s, policy, fwd_body, bwd_body, residuals, shapes,
                                                     pre_bwd, out_states, active_carry, dcarry, owned_carry)
        carry = s.carry
        fwd = [astutil.assign(c, astutil.clone(init)) for c, init in zip(carry, s.init)
               if not (isinstance(init, gast.Name) and init.id == c)]
        needs_backward = bool(bwd_body)
        update = [(c, r) for c, r in zip(carry, s.results) if not (isinstance(r, gast.Name) and r.id == c)]
        carry_update = []
        if len(update) == 1:
            carry_update = [astutil.assign(update[0][0], astutil.clone(update[0][1]))]
        elif update:
            carry_update = [astutil.assign(tuple(c for c, _ in update),
                                           astutil.tuple_([astutil.clone(r) for _, r in update]))]
        tape = self.namer.fresh("tape") if needs_backward else None
        save = []
        if needs_backward:
            self.frame.add(tape)
            fwd.append(astutil.assign(tape, gast.List(elts=[], ctx=gast.Load())))
            saved = [self.hcall("only_shape", astutil.name(r)) if r in shapes else astutil.name(r)
                     for r in residuals]
            packed = astutil.tuple_(saved) if len(saved) != 1 else saved[0]
            save = [astutil.expr_stmt(astutil.call(astutil.attr(tape, "append"), [packed]))]
        stop = []
        if isinstance(s, ir.Scan) and s.stop is not None:
            stop = [gast.If(test=astutil.name(carry[s.stop]), body=[gast.Break()], orelse=[])]
        body = fwd_body + save + carry_update + stop
        after = [astutil.assign(o, astutil.name(c)) for o, c in zip(s.outs, carry) if o != c]
        if isinstance(s, ir.Scan):
            target = astutil.store(s.item) if s.item is not None else astutil.store("_")
            fwd.append(gast.For(target=target, iter=astutil.clone(s.xs), body=body or [gast.Pass()], orelse=[],
                                type_comment=None))
        else:
            test = astutil.clone(s.test)
            if s.test_body:
                tf, _, _ = self.block(s.test_body, repeated=True)
                body = tf + [gast.If(test=gast.UnaryOp(op=gast.Not(), operand=test), body=[gast.Break()],
                                     orelse=[])] + body
                test = astutil.const(True)
            fwd.append(gast.While(test=test, body=body or [gast.Pass()], orelse=[]))
        fwd.extend(after)
        if not needs_backward:
            return fwd, []
        bwd = list(pre_bwd)
        for k in active_carry:
            st = out_states.get(carry[k])
            value = st.expr if st is not None else astutil.const(0.0)
            if k in owned_carry and not (st is not None and st.owned):
                value = self.hcall("owned", value, astutil.name(s.outs[k]))
            elif st is None or st.lazy:
                value = self.dense_cot(carry[k], value, True, like=s.outs[k])
            if not (isinstance(value, gast.Name) and value.id == dcarry[k]):
                bwd.append(astutil.assign(dcarry[k], value))
        if not residuals:
            target = astutil.store("_")
        elif len(residuals) == 1:
            target = astutil.store(residuals[0])
        else:
            target = astutil.target(tuple(residuals))
        bwd.append(gast.For(target=target, iter=astutil.call("reversed", [astutil.name(tape)]),
                            body=bwd_body or [gast.Pass()], orelse=[], type_comment=None))
        return fwd, bwd


def _unguard(s):
    """The body of a scan with a stop flag, without its final `if not stop:` guard.

    The generated loop breaks as soon as the flag is set, so the guard is always
    true inside it.
    """
    body = s.body
    if not isinstance(s, ir.Scan) or s.stop is None or not body:
        return body
    stop = s.carry[s.stop]
    last = body[-1]
    if isinstance(last, ir.Cond) and isinstance(last.pred, gast.UnaryOp) and isinstance(last.pred.op, gast.Not) \
            and isinstance(last.pred.operand, gast.Name) and last.pred.operand.id == stop and not last.false.body:
        assigns = [ir.Copy(o, astutil.clone(r), loc=last.loc) if isinstance(r, gast.Name) else
                   ir.Const(o, astutil.clone(r), loc=last.loc) for o, r in zip(last.outs, last.true.results)
                   if not (isinstance(r, gast.Name) and r.id == o)]
        return body[:-1] + last.true.body + assigns
    return body
