"""The statements functionalize.py writes to bring the names sharing a changed object up to date.

The tests when the code runs of how a name shares the object (`part_along`, `check_unshared`), the parts
taken again from an updated object (`take`), a new value written into a container or an array along a path
(`put`), the views containers hold taken again (`held_part`), and the order in which the names follow.
"""

import gast

from .. import astutil
from ..analysis import aliases as al, part_changes, relations as rel
from ..ir import nodes as ir


class SharerStatements:
    """Statement builders of lowering/functionalize.py's Functionalizer (which has .uf and .namer)."""

    def held_part(self, m, n, paths, loc, old_value):
        """m = replace_part(...): the views of n's array that m holds along the paths, taken again from its new
        value (rules/held_parts.py; what else m holds that shares memory with the old array is refused there)."""
        expr = astutil.call(self.helper("replace_part"), [
            astutil.name(m), astutil.name(old_value()), astutil.name(n),
            astutil.tuple_([self.steps(p, loc) for p in paths]), astutil.const(self.unshared_message(m, n, loc))])
        return self.helper_op(m, expr, "replace_part", loc)

    def unshared_check(self, m, n, loc, tests, slot):
        """A check, when the code runs, that m shares no memory with n (or with the parts of n a call changes
        in place: slot) unless one of the links tested (tests) holds."""
        message = self.unshared_message(m, n, loc)
        changed = slot.changed_paths() if isinstance(slot, part_changes.CallEffect) else ()
        return ir.Effect(astutil.call(self.helper("check_unshared"), [astutil.name(m), astutil.name(n),
                                                                      astutil.const(message)]
                                      + [astutil.name(t) for t in tests],
                                      {"changed": astutil.tuple_([self.steps(p, loc) for p in changed])}
                                      if changed else None), loc=loc)

    def unshared_message(self, m, n, loc):
        # (m: a name the user's code has, or a value adsrc made: `a, b = b, a`'s tuple)
        user = any(isinstance(x, gast.Name) and x.id == m for x in astutil.walk(self.uf.node))
        which = f"`{m}`" if user else "a value on the right of this assignment"
        hint = f"Copy it first (`{m} = {m}.copy()`), or read it again after the change." if user else \
            f"Copy the views of `{n}` it holds first (`{n}[i].copy()`), or index once: `{n}[[i, j]] = {n}[[j, i]]`."
        return (f"adsrc cannot follow how {which} shares memory with `{n}`, which is changed in place at "
                f"{self.uf.filename}, line {loc.line}: `{self.uf.line(loc.line)}`. {hint}")

    def linked(self, part, base, path, loc, helper="part_along", depths=()):
        """(name, statement) testing when the code runs whether `part` is `base`'s part along path.

        The path is taken inside the test: a path the alias analysis only suspects may not
        exist in the objects (an element of an array is not an array), and is then not a link.
        depths: slot_along's (see analysis/part_changes.py)."""
        test = self.namer.fresh("linked")
        call = astutil.call(self.helper(helper), [astutil.name(part), astutil.name(base), self.steps(path, loc)]
                            + ([astutil.const(depths)] if depths else []))
        return test, ir.Const(test, call, loc=loc)

    def steps(self, path, loc):
        return astutil.tuple_([gast.Lambda(args=astutil.arguments(["view_of"]),
                                           body=_retarget(step.stmt, "view_of", "unused", loc).expr) for step in path])

    def part_kept(self, part, base, path, loc):
        """A check, when the code runs, that `part` is not the part of base along path that a call fills with a
        new object and also changes in place (adsrc cannot tell in which order)."""
        message = (f"adsrc cannot follow how `{part}` shares memory with `{base}`: the call at {self.uf.filename}, "
                   f"line {loc.line} (`{self.uf.line(loc.line)}`) both changes in place the part `{part}` is and "
                   f"puts a new object in its place. Copy it first (`{part} = {part}.copy()`), or read it from "
                   f"`{base}` after the call.")
        return ir.Effect(astutil.call(self.helper(part_changes.REFUSE), [
            astutil.name(part), astutil.name(base), self.steps(path, loc), astutil.const(message)]), loc=loc)

    def located_base(self, state, m, n, live, loc, done, tests):
        """(before, after) statements writing n's change back into m when n is, as the code runs, a view m[idx] of
        the array m at a basic index found then (rules/located_views.py: `rows = [M[i] for i in range(3)]`, then
        `for r in rows: r *= w`): m = index_update(m, idx, n), m's own sharers follow, and n is m[idx] again."""
        at, test = self.namer.fresh("at"), self.namer.fresh("located")
        # (only when no link followed already holds: located_index finds those too)
        found = gast.Compare(left=astutil.name(at), ops=[gast.IsNot()], comparators=[astutil.const(None)])
        if tests:
            others = gast.BoolOp(op=gast.Or(), values=[astutil.name(t) for t in tests]) if len(tests) > 1 else \
                astutil.name(tests[0])
            found = gast.BoolOp(op=gast.And(), values=[found, gast.UnaryOp(op=gast.Not(), operand=others)])
        before = [ir.Const(at, astutil.call(self.helper("located_index"), [astutil.name(n), astutil.name(m)]),
                           loc=loc), ir.Const(test, found, loc=loc)]
        tests.append(test)
        write = ir.Update(m, astutil.call(self.helper("index_update"), [astutil.name(m), astutil.name(at),
                                                                        astutil.name(n)]), loc=loc)
        # m's own sharers follow here, whatever other links reached (they hold only when this one does not)
        pre, post = self.sharers(state, m, live, loc, {m, n}, structural=True)
        again = self.namer.fresh(n)
        retake = [ir.GetItem(again, gast.Subscript(value=astutil.name(m), slice=astutil.name(at), ctx=gast.Load()),
                             loc=loc), ir.Copy(n, astutil.name(again), loc=loc)]
        return before + pre, [ir.If(astutil.name(test), [write] + post + retake, [], loc=loc)]

    def take(self, path, base, loc):
        """Statements taking the parts along path from name base again; returns (last part atom, stmts)."""
        out = []
        current = astutil.name(base)
        for step in path:
            stmt = _retarget(step.stmt, current.id, self.namer.fresh(_stem(step.stmt)), loc)
            out.append(stmt)
            current = astutil.name(stmt.target)
        return current, out

    def put(self, step, part, value, target, loc):
        """target = part with its `step` replaced by value."""
        step = step.stmt
        if isinstance(step, ir.GetItem):
            expr = astutil.call(self.helper("index_update"), [part, astutil.index_value(_copy(step.expr.slice)),
                                                              value])
            return ir.Update(target, expr, loc=loc)
        if isinstance(step, ir.Apply) and (step.rule.view or al.rule_key(step.rule) == "getitem"):
            # d.get(k), operator.getitem(a, k): the item at key k
            key = step.bound[step.rule.params[1].name]
            expr = astutil.call(self.helper("index_update"), [part, _copy(key), value])
            return ir.Update(target, expr, loc=loc)
        if isinstance(step, ir.GetAttr):
            expr = astutil.call(self.helper("replace_field"), [part, astutil.const(step.expr.attr), value])
            return self.helper_op(target, expr, "replace_field", loc)
        view = _retarget(step, "view_of", "unused", loc).expr
        lam = gast.Lambda(args=astutil.arguments(["view_of"]), body=view)
        expr = astutil.call(self.helper("view_assign"), [part, lam, value])
        return self.helper_op(target, expr, "view_assign", loc)

    def helper(self, base):
        return astutil.name(self.namer.helper(base))

    def helper_op(self, target, expr, base, loc):
        from .. import rules as rules_mod, runtime
        rule = rules_mod.lookup(runtime.HELPERS[base])
        return ir.Apply(target, expr, rule, rule.bind(list(expr.args), []), loc=loc)


def held_parts_together(relations):
    """The relations, with m's HOLDS_PART ones as one (HOLDS_PART, their paths): replace_part takes every view
    held again before it looks for others (`d = {"a": v[:2], "b": v[2:]}`)."""
    paths = tuple(path for kind, path in relations if kind == rel.HOLDS_PART)
    rest = [r for r in relations if r[0] != rel.HOLDS_PART]
    return rest + [(rel.HOLDS_PART, paths)] if paths else rest


def bases_first(state, names, rels):
    """names in the order sharers follows them: bases of n first, among them those that hold a part of another
    base's object (besides the objects they refer to themselves) last, then by name. `held = {"r": v[0]}`, then
    `held["r"][1] *= c`: n is written back into the array v and taken again as a view of it, which the dict then
    holds, as in Python (written into the dict first, the dict kept the copy made for it)."""
    objects = {m: state.objects(m) for m in names if any(k == rel.BASE for k, _ in rels[m])}

    def holds_another(m):
        held = {r.obj for r in state.held(*objects[m])} - objects[m] if objects[m] else set()
        return any(held & objs for b, objs in objects.items() if b != m)
    holders = {m for m in objects if holds_another(m)}
    return sorted(names, key=lambda m: (m not in objects, m in holders, m))


def _copy(node):
    return astutil.clone(node)


def _stem(step):
    if isinstance(step, ir.GetAttr):
        return step.expr.attr
    if isinstance(step, ir.Apply):
        return al.rule_key(step.rule)
    return "part"


def _retarget(step, base, target, loc):
    """The statement `step` again, taking its part of `base` into `target`."""
    new = astutil.clone(step)
    old = al.step_base(new)
    if isinstance(old, gast.Name):
        old.id = base
    new.target = target
    new.loc = loc
    if isinstance(new, ir.Apply):
        from ..ir.walk import apply_bound
        new.bound = apply_bound(new)
    return new
