"""Changes in place become new values, and every name that shares the changed object sees the change.

`x[i] = v` becomes `x = index_update(x, i, v)` (a new array or list),
`a += b` becomes `a = a + b`, `lst.append(v)` becomes
`lst = list_append(lst, v)`, and a call to a function that changes its
argument returns the argument's new value too. That computes what Python
computes as long as the names that shared the old object are brought up to
date, which this pass does, asking `analysis/aliases.py` which live names
may share the object and how:

* the same object: `m = x` (when certain) or `if m is x: m = x_1`;
* a view or part of it (`m = x[0]`, `m = x.T`): the view is taken again
  from the new value when `m` still is that part of the old one;
* x is a view or part of m: the new value is written back into m
  (`m = index_update(m, i, x_1)`), and m's own sharers follow;
* a container holding it: `m = replace_obj(m, x, x_1)`;
* sharing adsrc cannot describe: a check when the code runs, which raises
  if the objects really share memory.

Objects adsrc does not own (globals, attributes of static objects) are
never changed: that is refused. The caller's arguments are never changed:
their updates are copies (copy-on-write).
"""

import gast

from .. import astutil
from ..analysis import aliases as al, part_changes, relations as rel
from ..analysis.liveness import Liveness
from ..ir import nodes as ir
from ..ir.walk import assigned, target_names
from . import object_classes
from .sharer_statements import SharerStatements, bases_first, held_parts_together
from .resize_checks import check_resize

# list and dict methods: method -> helper returning the changed object's new value
_METHODS = {"extend": "list_extend", "insert": "list_insert", "clear": "clear_copy", "update": "dict_update",
            "sort": "sorted_value", "fill": "fill_value", "remove": "list_remove", "resize": "resized_value",
            "__delitem__": "delete_item", "pop": "delete_item", "setdefault": "dict_setdefault"}


# the order in which sharers follows the links of one name to the changed object: the views it holds of the
# object, then the object where it holds it (replace_obj refuses views of it), then the others, unknown links last
_FOLLOWED_FIRST = {rel.HOLDS_PART: 0, rel.HOLDS: 1, rel.UNKNOWN: 3}

# the statements rewritten here, whose live names after them `changed` asks for
_CHANGES = (ir.SetItem, ir.InplaceOp, ir.MutatingCall, ir.CallUser)


class Functionalizer(SharerStatements):
    def __init__(self, fn, namer, oracle=None):
        self.fn = fn
        self.uf = fn.uf
        self.namer = namer
        self.user_names = astutil.all_names(fn.uf.node)      # (the names the function itself writes)
        self.analysis = al.Analysis(fn, oracle)
        self.oracle = self.analysis.oracle
        self.live = Liveness(fn, _CHANGES)

    # -- blocks ------------------------------------------------------------------------------------
    def run(self, returns_params=()):
        state = self.analysis.initial()
        shadows = []
        for p in returns_params:
            shadow = self.namer.fresh(p + "_changed")
            shadows.append(shadow)
            self.fn.body.insert(0, ir.Copy(shadow, astutil.name(p), loc=ir.Loc(self.fn.lineno)))
        if shadows:
            self.live = Liveness(self.fn, _CHANGES)
            # the shadows are read at the end: keep them live
            self.live = _with_live_end(self.fn, shadows)
        self.fn.body, _ = self.block(self.fn.body, state)
        if shadows:
            result = self.namer.fresh("result")
            elts = [self.fn.result] + [astutil.name(s) for s in shadows]
            self.fn.body.append(ir.Pack(result, astutil.tuple_(elts), loc=ir.Loc(self.fn.lineno)))
            self.fn.result = astutil.name(result)
        return self.fn

    def block(self, stmts, state):
        out = []
        for s in stmts:
            new, state = self.stmt(s, state)
            out.extend(new)
        return out, state

    def stmt(self, s, state):
        if isinstance(s, ir.If):
            s.body, a = self.block(s.body, state.copy())
            s.orelse, b = self.block(s.orelse, state.copy())
            return [s], a.join(b)
        if isinstance(s, (ir.For, ir.While)):
            head = self.analysis.loop_head(s, state)
            inner = head.copy()
            if isinstance(s, ir.For):
                for n in target_names(s.target):
                    inner.bind(n, self.analysis.iteration_refs(s.iter, inner))
            else:
                s.test_body, inner = self.block(s.test_body, inner)
            s.body, _ = self.block(s.body, inner)
            return [s], head.copy()       # the analysis remembers head: the block changes its own state
        if isinstance(s, ir.Def):
            inner = Functionalizer(s.fn, self.namer, self.oracle)
            s.fn.body, _ = inner.block(s.fn.body, inner.analysis.initial())
        new = self.rewrite(s, state)
        self.analysis.transfer(s, state)      # in place: the block owns its state, nothing keeps it
        return new, state

    # -- changes in place -------------------------------------------------------------------------------
    def rewrite(self, s, state):
        if isinstance(s, ir.SetItem) and s.attr:
            self.refuse_foreign(s, state, s.base, f"assigning to `{s.base}.{s.index.value}`")
            expr = astutil.call(self.helper("replace_field"), [astutil.name(s.base), s.index, s.value])
            return self.changed(s, state, s.base, lambda t: self.helper_op(t, expr, "replace_field", s.loc), slot=True)
        if isinstance(s, ir.SetItem):
            self.refuse_foreign(s, state, s.base, f"assigning to `{s.base}[...]`")
            expr = astutil.call(self.helper("index_update"), [astutil.name(s.base), astutil.index_value(s.index),
                                                              s.value])
            return self.changed(s, state, s.base, lambda t: ir.Update(t, expr, loc=s.loc), slot=True)
        if isinstance(s, ir.InplaceOp):
            return self.inplace_op(s, state)
        if isinstance(s, ir.MutatingCall):
            return self.mutating_call(s, state)
        if isinstance(s, ir.CallUser):
            summary = self.oracle.summary(s)
            if summary is not None and summary.mutates:
                return self.call_changing_arguments(s, state, summary)
        return [s]

    def changed(self, s, state, name, make, slot=False):
        """Statements giving `name` its new value (made by `make(name)`) and updating its sharers.

        What the sharers need from the old value (tests, old parts) is computed first,
        then the value is updated, then the sharers follow. slot: the change puts a new object in an item or
        field of name (`d[k] = v`, `o.a = v`), which the parts taken from it before do not see unless name is
        an array (whose views share its memory).
        """
        pre, post = self.sharers(state, name, self.live.after(s), s.loc, {name}, slot=slot)
        new = make(name)
        if (pre or post) and isinstance(new, (ir.Update, ir.Append)):
            new.shared = True
        return pre + [new] + post

    def holding_alike(self, state, n, live, done):
        """Live names of the user's, unrelated to n, that hold an object n's object holds."""
        held = {r.obj for r in state.held(*state.objects(n))} if state.objects(n) else set()
        return [m for m in sorted(state.pts) if m != n and m not in done and m in live and m in self.user_names
                and not rel.relations(state, m, n) and state.objects(m) and
                held & {r.obj for r in state.held(*state.objects(m))}]

    def plan(self, state, name, live):
        return [m for m in sorted(state.pts) if m != name and m in live and rel.relations(state, m, name)]

    def sharers(self, state, n, live, loc, done, structural=False, slot=False):
        """(before, after) statements bringing the live names that share n's object up to date.

        structural: n is a base another change was written back into; follow only the
        names that are n, parts of it or hold it (containers holding other parts follow the change directly).
        """
        pre, post = [], []
        names = [m for m in self.plan(state, n, live) if m not in done]
        rels = {m: rel.relations(state, m, n) for m in names}
        if isinstance(slot, part_changes.CallEffect) and slot.changed_paths():
            # a call changing parts of n's object in place: a name holding an object n's object holds too
            # (`c2 = copy.copy(c)`, then `c.step(x)` doing `self.h += x`) is checked when the code runs
            pre += [self.unshared_check(m, n, loc, [], slot) for m in self.holding_alike(state, n, live, done)]
        held = []      # (name, paths): views of n's array that containers hold, taken again from its new value
        if structural:
            # (`d = {"a": v[:2], "b": v[2:]}`, then `d["a"] += s` writes back into v: d["b"] views the new v too;
            # d itself follows the change as a base of d["a"], not here)
            if not isinstance(slot, part_changes.CallEffect):
                held = [(m, paths) for m in names for kind, paths in held_parts_together(rels[m])
                        if kind == rel.HOLDS_PART]
            rels = {m: [r for r in rs if r[0] not in (rel.UNKNOWN, rel.HOLDS_PART)] for m, rs in rels.items()}
            names = [m for m in names if rels[m]]
        old = []       # the old value of n, for those who need it after the update

        def old_value():
            if not old:
                old.append(self.namer.fresh(n + "_old"))
                pre.append(ir.Copy(old[0], astutil.name(n), loc=loc))
            return old[0]
        # names certainly n's object take its final value (copied last, after n is taken again from
        # its bases); then bases first: writing n back into them brings their other parts up to date too
        same = sorted(m for m in names if m not in done and n in state.same.get(m, ()))
        done.update(same)
        # a name a base's sharers reached is followed there only when it is a part of that base as the
        # code runs: if that left it as it was, its own known links to n are followed
        # (a name revisited follows its own sharers even where the sharers of a base it may be the same object as
        # reached them: as the code runs they may be different objects, `z = x` in one branch and a new array in
        # the other)
        handled, revisit, reached = set(), set(), {}
        for m in bases_first(state, names, rels):
            if m in done and m not in revisit:
                continue
            handled.add(m)
            done.add(m)
            others = set().union(*(r for k, r in reached.items() if k != m and any(
                kind == rel.SAME for kind, _ in rel.relations(state, k, m)))) - {n, m} if m in revisit else set()
            outer, done = done, done - others if others else done
            start = set(done)
            tests, mine = [], []      # tests: the links followed as the code runs, which an unknown sharing may be
            # (m holding n's object, and n a part of m too: the object is replaced everywhere m holds it first, so
            # that the names following m after n is written back see every place, `held = [v, v]` changed through
            # `for a in held: a *= c`; unknown sharing last)
            for kind, path in sorted(held_parts_together(rels[m]), key=lambda r: _FOLLOWED_FIRST.get(r[0], 2)):
                if m in revisit and kind == rel.UNKNOWN:
                    continue
                before = set(done)
                a, b = self.follow(state, m, n, kind, path, live, loc, done, old_value, tests, slot)
                pre += a
                mine += b
                revisit |= (done - before) & set(names) - handled
            reached[m] = done - start
            if done is not outer:
                outer |= done
                done = outer
            if m in revisit and mine:
                was = self.namer.fresh(m + "_was")
                unchanged = self.namer.fresh("unchanged")
                pre.append(ir.Copy(was, astutil.name(m), loc=loc))
                mine = [ir.Const(unchanged, gast.Compare(left=astutil.name(m), ops=[gast.Is()],
                                                         comparators=[astutil.name(was)]), loc=loc),
                        ir.If(astutil.name(unchanged), mine, [], loc=loc)]
            post += mine
        post += [self.held_part(m, n, paths, loc, old_value) for m, paths in held]
        return pre, post + [ir.Copy(m, astutil.name(n), loc=loc) for m in same]

    def follow(self, state, m, n, kind, path, live, loc, done, old_value, tests, slot=False):
        """(before, after) statements bringing m up to date with n's change, given how they share.
        tests: the names of the tests of m's links to n made so far (this adds its own); slot: see changed."""
        if kind == rel.SAME:
            if n in state.same.get(m, ()):
                return [], [ir.Copy(m, astutil.name(n), loc=loc)]
            test = self.namer.fresh("same")
            check = ir.Const(test, gast.Compare(left=astutil.name(m), ops=[gast.Is()], comparators=[astutil.name(n)]),
                             loc=loc)
            tests.append(test)
            return [check], [ir.If(astutil.name(test), [ir.Copy(m, astutil.name(n), loc=loc)], [], loc=loc)]
        if kind == rel.DERIVED:
            how, depths = slot.link(path) if isinstance(slot, part_changes.CallEffect) else \
                ("view_along" if slot else part_changes.FOLLOW, ())
            if how == part_changes.REFUSE:
                return [self.part_kept(m, n, path, loc)], []
            new_part, take_new = self.take(path, n, loc)
            test, check = self.linked(m, n, path, loc, how, depths)
            tests.append(test)
            # (not that part as the code runs, but sharing memory with a part the call changes: `prev = c.h`,
            # then c.h replaced by a view of it, then changed in place)
            unshared = [self.unshared_check(m, n, loc, [test], slot)] if isinstance(slot, part_changes.CallEffect) \
                else []
            return [check] + unshared, \
                [ir.If(astutil.name(test), take_new + [ir.Copy(m, new_part, loc=loc)], [], loc=loc)]
        if kind == rel.BASE:
            parts, takes = [astutil.name(m)], []
            for step in path[:-1]:
                part, take = self.take((step,), parts[-1].id, loc)
                parts.append(part)
                takes += take
            test, check = self.linked(n, m, path, loc)
            tests.append(test)
            writes, value = [], astutil.name(n)
            for step, part in reversed(list(zip(path, parts))):
                target = part.id if part.id == m else self.namer.fresh(part.id)
                if value.id == n and isinstance(step.stmt, ir.GetAttr):
                    # n's new value in every place of the object that held n's object, not only the field it was
                    # read from (`self.b = self.a`, `self.hs.append(self.h)`, then `self.h += x`)
                    expr = astutil.call(self.helper("replace_obj"), [part, astutil.name(old_value()), value])
                    writes.append(self.helper_op(target, expr, "replace_obj", loc))
                else:
                    writes.append(self.put(step, part, value, target, loc))
                value = astutil.name(target)
            pre, post = self.sharers(state, m, live, loc, done, structural=True,
                                     slot=slot.through(path) if isinstance(slot, part_changes.CallEffect) else False)
            # then n is taken again from m as m's own bases left it: a view of it again, as in Python
            # (later changes follow it)
            again, retake = self.take(path, m, loc)
            # (m's own sharers follow only when n was written back into m: otherwise m is as it was, and a new
            # object made for it would read as a change to the names that test `m is m_was` later)
            return [check] + pre, [ir.If(astutil.name(test), takes + writes + post + retake +
                                         [ir.Copy(n, again, loc=loc)], [], loc=loc)]
        if kind == rel.HOLDS:
            expr = astutil.call(self.helper("replace_obj"), [astutil.name(m), astutil.name(old_value()),
                                                             astutil.name(n)])
            return [], [self.helper_op(m, expr, "replace_obj", loc)]
        if kind == rel.HOLDS_PART and not isinstance(slot, part_changes.CallEffect):
            return [], [self.held_part(m, n, path, loc, old_value)]
        # shared in a way adsrc does not know: m may be the object or hold it (followed when the code runs), an
        # array n is a view of at an index found when the code runs (written back there), or share its memory as
        # a view adsrc cannot take again (refused when the code runs)
        located = [] if isinstance(slot, part_changes.CallEffect) else \
            self.located_base(state, m, n, live, loc, done, tests)
        check = self.unshared_check(m, n, loc, tests, slot)
        expr = astutil.call(self.helper("replace_obj"), [astutil.name(m), astutil.name(old_value()),
                                                         astutil.name(n)])
        if located:
            return located[0] + [check], located[1] + [self.helper_op(m, expr, "replace_obj", loc)]
        return [check], [self.helper_op(m, expr, "replace_obj", loc)]

    def refuse_foreign(self, s, state, name, what):
        # (a name the function never binds is a global or a closure variable read as it is: foreign too)
        if rel.is_foreign(state, name) or not state.refs(name) and name not in self.fn.params:
            raise self.uf.error(s.loc, f"{what} changes an object adsrc does not own (a global, a closure variable "
                                       f"or an attribute of an object known when transforming); adsrc cannot "
                                       "differentiate through that change.",
                                f"Copy it into a local variable first (`{name} = {name}.copy()`), or build a new "
                                "value." if state.refs(name) or name in self.fn.params else
                                f"Change a copy of it instead (`{name.lower()}_copy = {name}.copy()`), or build a new "
                                "value.")

    def inplace_op(self, s, state):
        t = s.target
        expr = gast.BinOp(left=astutil.name(t), op=s.op, right=s.value)
        from .. import rules as rules_mod
        rule = rules_mod.OPERATORS.get(type(s.op))

        def make(target):
            if rule is None or rule.nondiff:
                return ir.Const(target, expr, loc=s.loc)
            return ir.Apply(target, expr, rule, {"x": expr.left, "y": expr.right}, loc=s.loc)
        if rel.is_foreign(state, t):
            message = (f"`{t} {_OPS.get(type(s.op), 'op')}= ...` at {self.uf.filename}, line {s.loc.line} changes "
                       f"`{t}` in place, an object adsrc does not own (a global or an attribute of a static "
                       f"object). Write `{t} = {t} {_OPS.get(type(s.op), 'op')} ...` to make a new value.")
            check = ir.Effect(astutil.call(self.helper("check_immutable"), [astutil.name(t), astutil.const(message)]),
                              loc=s.loc)
            return [check, make(t)]
        # (slot: a dict's `|=` replaces its values, parts taken before keep theirs; an array's views see it)
        pre, post = self.sharers(state, t, self.live.after(s), s.loc, {t}, slot=True)
        if not post and not pre:
            return [make(t)]
        # arrays and lists change in place, numbers and tuples are rebound: decided when the code runs
        test = self.namer.fresh("mutable")
        op = astutil.const(_OPS.get(type(s.op), "?"))
        if s.item_of is not None:
            # base[k] op= v: an item of an array is written back, and only a list's or dict's item
            # changes in place (the sharers then follow the change)
            check = ir.Const(test, astutil.call(self.helper("is_mutable_item"),
                                                [astutil.name(t), astutil.name(s.item_of), op]), loc=s.loc)
            return [check, ir.If(astutil.name(test), pre + [make(t)] + post, [make(t)], loc=s.loc)]
        check = ir.Const(test, astutil.call(self.helper("is_mutable"), [astutil.name(t), op]), loc=s.loc)
        return [check] + pre + [make(t)] + ([ir.If(astutil.name(test), post, [], loc=s.loc)] if post else [])

    def mutating_call(self, s, state):
        r = s.receiver
        self.refuse_foreign(s, state, r, f"`{r}.{s.method}(...)`")
        if s.method == "resize":
            check_resize(self, s, state)
        out = []
        if s.method in ("pop", "setdefault") and s.target:
            key = s.args[0] if s.args else astutil.const(-1)
            default = s.args[1:2]
            base = "pop_value" if s.method == "pop" else "setdefault_value"
            out.append(self.helper_op(s.target, astutil.call(self.helper(base), [astutil.name(r), key] + default),
                                      base, s.loc))
        if s.method == "append":
            expr = astutil.call(self.helper("list_append"), [astutil.name(r), s.args[0]])
            return out + self.changed(s, state, r, lambda t: ir.Append(t, expr, loc=s.loc), slot=True)
        if s.method == "reverse":
            expr = gast.Subscript(value=astutil.name(r), ctx=gast.Load(),
                                  slice=gast.Slice(lower=None, upper=None, step=astutil.const(-1)))
            return out + self.changed(s, state, r, lambda t: ir.GetItem(t, expr, loc=s.loc), slot=True)
        base = _METHODS[s.method]
        args = list(s.args)
        if s.method == "pop" and not args:
            args = [astutil.const(-1)]
        if s.method == "pop":
            args = args[:1]
        expr = astutil.call(self.helper(base), [astutil.name(r)] + args)
        # (a list's or dict's items move or are replaced: parts taken before keep their objects; an array's
        # views see `fill` and `sort`)
        return out + self.changed(s, state, r, lambda t: self.helper_op(t, expr, base, s.loc), slot=True)

    def held_change_checks(self, s, state, summary, args):
        """A call changing in place an object that an argument's object holds (`h.scale(s)` doing
        `self.arr *= s`, with h made by `Holder(y)`), when another name of this function may hold that object too
        (y): adsrc gives the argument its new value but cannot tell where in it the other name's object is.
        Checks, when the code runs, that no field the callee changes in place holds another name's object
        (a counter field `self.calls += 1` is a number: no conflict)."""
        out = []
        for p in summary.deep:
            a = args.get(p)
            fields = object_classes.fields_changed_in_place(s.callee, p)
            if not isinstance(a, gast.Name) or not fields:
                continue
            objs = {r.obj for r in state.refs(a.id)}
            held = {r.obj for r in state.held(*objs)} - objs if objs else set()
            # (a name that is a part of the object, `s = h.arr`, follows the call: see follow)
            others = sorted(n for n, refs in state.pts.items() if n != a.id and n in self.user_names and
                            any(r.obj in held for r in refs) and
                            not any(k == rel.DERIVED for k, _ in rel.relations(state, n, a.id)))
            if others:
                out.append(ir.Effect(astutil.call(self.helper("check_held_change"), [
                    astutil.name(a.id), astutil.const(fields), astutil.tuple_([astutil.name(n) for n in others]),
                    astutil.const(tuple(others)), astutil.const(f"{self.uf.filename}, line {s.loc.line}")]),
                    loc=s.loc))
        return out

    def call_changing_arguments(self, s, state, summary):
        """A call to a function that changes arguments in place: it also returns their new values."""
        args = summary.arguments(s)
        if summary.unmatched(s) and any(p not in args for p in summary.mutates):
            raise self.uf.error(s.loc, f"adsrc cannot match the arguments of this call to "
                                       f"`{getattr(s.callee, '__qualname__', '?')}`, which changes some of its "
                                       "arguments in place: `*` or `**` unpacks values whose parameters adsrc "
                                       "does not know when transforming (a parameter they may fill has a default).",
                                "Pass the arguments one per parameter (`W, b = params; f(W, b)`).")
        changed = [(p, args[p]) for p in summary.mutates if p in args]
        shared = [(p, a) for p, a in args.items() if isinstance(a, gast.Name)]
        separate = self.held_change_checks(s, state, summary, args)
        if changed and len(shared) > 1:
            # `h(v, v)`: the parameters are one object in Python; refused when the code runs if they share
            separate += [ir.Effect(astutil.call(self.helper("check_separate"), [
                astutil.tuple_([astutil.name(a.id) for _, a in shared]),
                astutil.const(tuple(p in summary.mutates for p, _ in shared)),
                astutil.const(tuple(p for p, _ in shared)),
                astutil.const(getattr(s.callee, "__name__", "?"))]), loc=s.loc)]
        names = [(p, a.id) for p, a in changed if isinstance(a, gast.Name)]
        if not names:
            return [s]
        checks = []
        for _, a in names:
            if rel.is_foreign(state, a) or not state.refs(a) and a not in self.fn.params:
                # changed in place only if it is an array, list or dict (a number is rebound in the callee): refused
                # when the code runs, if so
                what = f"the call to `{getattr(s.callee, '__name__', '?')}` changing `{a}`"
                message = (f"{what} at {self.uf.filename}, line {s.loc.line} changes an object adsrc does not own (a "
                           "global, a closure variable or an attribute of an object known when transforming). Change "
                           "a copy of it instead, or build a new value.")
                checks.append(ir.Effect(astutil.call(self.helper("check_immutable"),
                                                     [astutil.name(a), astutil.const(message)]), loc=s.loc))
        # a name the function never binds (a global) is not written back: Python would make it a local
        names = [(p, a) for p, a in names if state.refs(a) or a in self.fn.params]
        if not names:
            return separate + checks + [s]
        result = s.target if s.target is not None else self.namer.fresh("_")
        live = self.live.after(s)
        pre, post = [], []
        for p, a in names:
            # each changed argument's sharers follow its change (a dict holding two of them takes both); its
            # parts follow as the callee changes them (analysis/part_changes.py)
            p1, p2 = self.sharers(state, a, live, s.loc, {n for _, n in names},
                                  slot=part_changes.CallEffect(summary, p))
            pre += p1
            post += p2
        rebound = []
        if set(target_names(result)) & ({a for _, a in names} | set(assigned(post))):
            # `x = h(x)`, `w = h(w[:1])`: the argument changes first (its sharers, w among them, follow), then the
            # name takes the result
            rebound = [ir.Copy(result, astutil.name(self.namer.fresh("result")), loc=s.loc)]
            result = rebound[0].expr.id
        call = ir.CallUser((result,) + tuple(a for _, a in names), s.expr, s.callee, s.receiver,
                           tuple(p for p, _ in names), s.receiver_value, s.checkpoint, s.classes, s.fields,
                           s.field_classes,
                           loc=s.loc)
        return separate + checks + pre + [call] + post + rebound


_OPS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.FloorDiv: "//", gast.Mod: "%",
        gast.Pow: "**", gast.MatMult: "@", gast.BitAnd: "&", gast.BitOr: "|", gast.BitXor: "^"}


def _with_live_end(fn, names):
    saved = fn.result
    fn.result = astutil.tuple_([saved] + [astutil.name(n) for n in names])
    try:
        return Liveness(fn, _CHANGES)
    finally:
        fn.result = saved


def functionalize(fn, namer, oracle=None, returns_params=()):
    """Rewrite a structured, jump-free Function without changes in place (in place)."""
    return Functionalizer(fn, namer, oracle).run(returns_params)
