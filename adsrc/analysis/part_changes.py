"""What a function does to the parts of its parameters' objects, for the caller's names that hold those parts.

After `c.step(x)`, a caller's name `s` that is the part `c.h` must see the call's change when the callee
changes that part in place (`self.h += x`, `self.h[0] = v`, `self.items.append(v)`), and must keep the old
object when the callee puts a new object in the field (`self.h = np.tanh(...)`, `lst[0] = v`): in Python, s
is then the old array, no longer a part of c. A function's summary records:

* `slots`: each slot it fills with a new object, as (parameter, path from the parameter's object to the slot);
  a path is a tuple of alias steps, where None stands for a step not known when transforming (`a[i] = v`), and
  a path of None is a slot somewhere in an object the parameter's object holds;
* `changes`: each part it changes in place, as (parameter, path), the same way;
* `returns`: the parts of its parameters' objects its result is (`return self.h`), or None.

Both through the functions it calls too. `link` tells the caller how one of its names follows a call.
"""

import gast

from ..ir import nodes as ir
from .alias_state import Step

FOLLOW, SLOT, REFUSE = "part_along", "slot_along", "check_part_kept"


def _slot_step(s):
    """The step that takes the slot a SetItem fills, or None when it reads other names (`a[i] = v`)."""
    base = gast.Name(id=s.base, ctx=gast.Load(), annotation=None, type_comment=None)
    if s.attr:
        stmt = ir.GetAttr("_", gast.Attribute(value=base, attr=s.index.value, ctx=gast.Load()), loc=s.loc)
    else:
        stmt = ir.GetItem("_", gast.Subscript(value=base, slice=s.index, ctx=gast.Load()), loc=s.loc)
    step = Step(stmt)
    return None if step.reads else step


def _param_paths(state, name, tail=()):
    """{(parameter, path)} for the parameters' objects that name's object may be (a part of)."""
    out, held = set(), set()
    for r in state.refs(name):
        if r.obj[0] == "param":
            out.add((r.obj[1], None if r.path is None or tail is None else tuple(r.path) + tail))
        held |= {h[1] for h in state.holders(r.obj) if h[0] == "param" and h != r.obj}
    # a part of an object a parameter's object holds: where, not known (unless name is known as a part of that
    # parameter's along a path: `self.steps` may be any object self holds, but it is the one in field steps)
    return out | {(p, None) for p in held if not any(q == p and path is not None for q, path in out)}


class Recorder:
    """Collects a function's slots and changes while its alias analysis visits its statements."""

    def __init__(self, oracle):
        self.oracle = oracle
        self.slots, self.changes = set(), set()

    def visit(self, s, state, changed_names):
        if isinstance(s, ir.SetItem):
            slots = _param_paths(state, s.base, (_slot_step(s),))
            back = _param_paths(state, s.value.id) if isinstance(s.value, gast.Name) else set()
            if not back or not back <= slots:       # (not `self.h = h` of the h read from it: `self.h += x`)
                self.slots |= slots
        if isinstance(s, (ir.MutatingCall, ir.InplaceOp)):
            # a list's or dict's items move or are replaced (`d |= e`); an array's elements change in place
            name = s.receiver if isinstance(s, ir.MutatingCall) else s.target
            self.slots |= _param_paths(state, name, (None,))
        for name in changed_names:
            self.changes |= _param_paths(state, name)
        if isinstance(s, ir.Effect) and changed_names:
            # a call adsrc cannot follow (`setattr(self, k, v)`): it may fill any slot of what it is handed
            for name in changed_names:
                self.slots |= _param_paths(state, name, (None,))
        if isinstance(s, ir.CallUser):
            summary = self.oracle.summary(s)
            if summary is not None:
                args = summary.arguments(s)
                self.slots |= _through(state, args, summary.slots)
                self.changes |= _through(state, args, summary.changes)


def _through(state, args, entries):
    """A callee's (parameter, path) entries as the caller's, through the call's arguments."""
    out = set()
    for q, path in entries:
        a = args.get(q)
        if isinstance(a, gast.Name):
            out |= _param_paths(state, a.id, path)
    return out


def returns(state, result):
    """((parameter, path), ...) when the result is a part of parameters' objects along paths the caller can take
    again (`return self.h`, besides new objects), else None."""
    if not isinstance(result, gast.Name):
        return None
    out = []
    for r in state.refs(result.id):
        if r.obj[0] == "site" and not state.held(r.obj):
            continue                        # a new object (holding nothing of the parameters')
        if r.obj[0] != "param" or not r.path or any(step.reads for step in r.path):
            return None
        out.append((r.obj[1], r.path))
    return tuple(sorted(out, key=lambda e: (e[0], repr([step.key for step in e[1]])))) or None


def _may_be(a, b):
    """May steps a and b take the same part? (None: a step not known.)"""
    if a is None or b is None or a == b:
        return True
    kinds = {_ITEM.get(a.key[0], a.key[0]), _ITEM.get(b.key[0], b.key[0])}
    if len(kinds) > 1 or not a.reads and not b.reads:
        return False            # different kinds, or both known and different (`.h`, `.w`; `[0]`, `[1]`)
    return True


_ITEM = {"ScanSlice": "GetItem"}       # (a loop's item is an item)


def _within(prefix, path):
    """Is path at or below prefix (as far as the steps are known)?"""
    if prefix is None or path is None:
        return True
    return len(prefix) <= len(path) and all(_may_be(a, b) for a, b in zip(prefix, path))


class CallEffect:
    """What a call does to the argument `param`'s object, for the caller's names (functionalize.py):
    prefix is the path from the name whose sharers are being followed to that argument (a base the argument's
    new value was written back into: `layers[i]` for `L.step()` with L taken from layers)."""

    def __init__(self, summary, param, prefix=()):
        self.summary, self.param, self.prefix = summary, param, tuple(prefix)

    def through(self, path):
        """The same effect seen from a base that holds the argument along path."""
        return CallEffect(self.summary, self.param, tuple(path) + self.prefix)

    def link(self, path):
        """How a name that is the part along path follows the call: (FOLLOW, ()) when the callee changes it in
        place at most; (SLOT, depths) when the callee may put a new object in a slot along the path: followed
        only when the objects holding those slots (at these depths) are arrays, whose views see a write into
        them; (REFUSE, ()) when the callee may also change the old object in place (adsrc cannot tell in which
        order)."""
        n = len(self.prefix)
        if self.summary is None or len(path) < n or not _within(self.prefix, path[:n]):
            return FOLLOW, ()           # (a container above the argument, or a part beside it)
        rest = path[n:]
        hits = [s for p, s in self.summary.slots if p == self.param and _within(s, rest)]
        if not hits:
            return FOLLOW, ()
        if any(s is None for s in hits) or \
                any(p == self.param and _within(s, d) for s in hits for p, d in self.summary.changes):
            return REFUSE, ()
        return SLOT, tuple(sorted({n + len(s) for s in hits}))

    def changed_paths(self):
        """The paths (from the name followed) of the parts the callee changes in place, where all their steps
        are known (a caller's name that holds one in a way adsrc does not follow is refused when the code
        runs)."""
        if self.summary is None:
            return []
        paths = {self.prefix + d for p, d in self.summary.changes if p == self.param and d and None not in d and
                 not any(step.reads for step in d)}
        if any(step.reads for step in self.prefix):
            return []
        return sorted(paths, key=lambda d: repr([step.key for step in d]))
