"""The alias and mutation analysis: which names may share an object, and how.

One flow-sensitive analysis on structured IR, queried by every consumer:
`lowering/functionalize.py` (what a change in place must bring up to date),
`analysis/summaries.py` (what a function changes of its arguments and what
its result may share with them) and the differentiator (whether an update
may happen in place).

Abstract objects are allocation sites (the statement that made a new value),
the parameters' objects, and FOREIGN (objects adsrc does not own: globals,
closure variables, attributes of static objects, results of calls it cannot
see into). A name points to a set of references `(object, path)`: the
object itself (path `()`), or a part of it reached by a path of steps
(indexing, an attribute, a view such as `.T` or `reshape`), or a part
reached in a way adsrc does not know (path None). Containers record the
references they may hold (`contents`).

A step is the IR statement that took it (so the code can take it again from
an updated object); a step whose operands were rebound since becomes unknown.
The state and its references are in alias_state.py; this module has the
transfer functions.
"""

import gast

from ..ir import nodes as ir
from ..ir.walk import expr_reads, target_names
from .integers import integer_names, is_integer_index
from .alias_state import (CONTAINER_RULES, FOREIGN, MAX_PATH, SAME_RULES, SEQUENCE_OPERATORS, VIEW_RULES, _LOCAL,
                          AliasState, Ref, _copying_index, rule_key, step_base)


class Oracle:
    """What the analysis needs to know about calls: a user function's summary (see summaries.py)."""

    def summary(self, stmt):
        return None


class Analysis:
    """Transfer functions; `block` runs a structured block (loops to a fixpoint)."""

    def __init__(self, fn, oracle=None):
        self.fn = fn
        self.oracle = oracle or Oracle()
        self._loops = {}         # id(loop) -> (entry state, head state)
        self._copying = set()    # ids of the statements that make list displays or masks (indices that copy)
        self._ints = integer_names(fn) if isinstance(fn, ir.Function) else frozenset()
        self._containers = set()  # the objects made by displays and container rules: lists, tuples, dicts

    def copying_index(self, index, state):
        """_copying_index, or a name that holds a list display made in this function."""
        if _copying_index(index):
            return True
        refs = state.refs(index.id) if isinstance(index, gast.Name) else ()
        return bool(refs) and all(r.obj[0] == "site" and r.obj[1] in self._copying and not r.path for r in refs)

    def initial(self):
        state = AliasState()
        for p in self.fn.params:
            state.pts[p] = frozenset({Ref(("param", p))})
        return state

    def block(self, stmts, state, visit=None):
        """The state after stmts; `state` is the block's own (changed in place), never kept."""
        for s in stmts:
            state = self.stmt(s, state, visit)
        return state

    def stmt(self, s, state, visit=None):
        if visit is not None:
            visit(s, state)
        if isinstance(s, ir.If):
            a = self.block(s.body, state.copy(), visit)
            b = self.block(s.orelse, state.copy(), visit)
            return a.join(b)
        if isinstance(s, (ir.For, ir.While)):
            head = self.loop_head(s, state)
            if visit is not None:
                self.body(s, head.copy(), visit)
            return head.copy()        # the remembered head stays as it is
        self.transfer(s, state)       # in place: a block owns the state it is given (see `block`)
        return state

    def body(self, loop, state, visit=None):
        if isinstance(loop, ir.For):
            for n in target_names(loop.target):
                state.bind(n, self.iteration_refs(loop.iter, state))
            return self.block(loop.body, state, visit)
        state = self.block(loop.test_body, state, visit)
        return self.block(loop.body, state, visit)

    def loop_head(self, loop, entry):
        cached = self._loops.get(id(loop))
        if cached is not None and cached[0] == entry:
            return cached[1]
        head = entry
        outer = getattr(_LOCAL, "steps", None)
        _LOCAL.steps = {} if outer is None else outer      # (each pass takes the same steps again)
        try:
            for _ in range(20):
                new = head.join(self.body(loop, head.copy()))
                if new == head:
                    break
                head = new
        finally:
            _LOCAL.steps = outer
        self._loops[id(loop)] = (entry, head)
        return head

    def iteration_refs(self, it, state):
        return set()          # loops iterate ranges: their targets are integers

    # -- one statement -------------------------------------------------------------------------------
    def transfer(self, s, state):
        if isinstance(s, ir.Op):
            refs = self.op_refs(s, state)
            names = target_names(s.target)
            elements = None
            if isinstance(s, ir.Pack) and isinstance(e := s.expr, gast.Tuple):
                elements = tuple(frozenset(self.atom_refs(x, state)) for x in e.elts)
            elif isinstance(s, ir.Copy):
                elements = state.elements(s.expr.id)
            if isinstance(s.target, str):
                state.bind(s.target, refs)
                if isinstance(s, ir.Copy) and s.expr.id != s.target:
                    state.copied(s.target, s.expr.id)
                if elements is not None and isinstance(s, ir.Pack):
                    (site,) = refs
                    state.tuples[site.obj] = elements
            elif elements is not None and len(elements) == len(s.target):
                _bind_elements(state, s.target, elements)
            elif isinstance(s, ir.Copy) and all(isinstance(t, str) for t in s.target):
                # a, b = v: v[0] and v[1] (a row of an array is a view adsrc can take again)
                for i, t in enumerate(s.target):
                    take = ir.GetItem(t, gast.Subscript(value=gast.Name(s.expr.id, gast.Load(), None, None),
                                                        slice=gast.Constant(i, None), ctx=gast.Load()), loc=s.loc)
                    state.bind(t, self.unpacked(state, refs, take, i, len(s.target)))
            else:
                parts = _parts(state, refs)
                for n in names:
                    state.bind(n, parts)
        elif isinstance(s, ir.SetItem):
            # a part of the object itself written into it is copied (an array) or is an object the
            # object already holds (a list's element, among its direct contents)
            bases = state.refs(s.base)
            own = {r.obj for r in bases}
            state.store(bases, {r for r in self.atom_refs(s.value, state) if r.obj not in own or r.path == ()})
            state.invalidate(s.base)
        elif isinstance(s, ir.InplaceOp):
            state.store(state.refs(s.target), self.held_by(s.value, state))
            state.invalidate(s.target)
        elif isinstance(s, ir.MutatingCall):
            values = set()
            if s.method in ("append", "insert"):
                # the value itself becomes an item (what it holds is held through it: `held` is transitive)
                values |= self.atom_refs(s.args[-1], state)
            else:
                for a in s.args:
                    values |= self.atom_refs(a, state) | self.held_by(a, state)
            state.store(state.refs(s.receiver), values)
            state.invalidate(s.receiver)
            if s.target:
                held = set()
                for r in state.refs(s.receiver):
                    held |= state.direct(r.obj)
                state.bind(s.target, held)
        elif isinstance(s, ir.Def):
            state.bind(s.name, {Ref(("site", id(s)))})
        if isinstance(s, ir.CallUser):
            self.call_stores(s, state)

    def call_stores(self, s, state):
        """A callee that keeps one argument in another (`Holder(y)` with `self.arr = arr`): the holder's object
        holds the argument's from then on, so a change through either is seen through the other."""
        summary = self.oracle.summary(s)
        if summary is None or not summary.stores:
            return
        args = summary.arguments(s)
        for p, q in summary.stores:
            holder, held = args.get(p), args.get(q)
            if isinstance(holder, gast.Name) and isinstance(held, gast.Name):
                state.store(self.atom_refs(holder, state), self.atom_refs(held, state))
                state.invalidate(holder.id)

    def atom_refs(self, node, state):
        if isinstance(node, gast.Name):
            if node.id not in state.pts:
                return self.free_refs(node.id)
            return set(state.refs(node.id))
        return set()

    def number_now(self, e):
        """Is e, an item or attribute of a global or closure variable, a number (or string) now?"""
        import numbers
        steps = []
        while isinstance(e, (gast.Subscript, gast.Attribute)):
            if isinstance(e, gast.Subscript) and not (isinstance(e.slice, gast.Constant) and
                                                      isinstance(e.slice.value, (int, str))):
                return False
            steps.append(e)
            e = e.value
        if not steps or not isinstance(e, gast.Name) or self.fn.uf is None:
            return False
        kind, value = self.fn.uf.lookup(e.id)
        try:
            for step in reversed(steps):
                value = value[step.slice.value] if isinstance(step, gast.Subscript) else getattr(value, step.attr)
        except Exception:
            return False
        return isinstance(value, (numbers.Number, str)) and kind in ("global", "closure", "static")

    def free_refs(self, name):
        """A global or closure variable: an object adsrc does not own (functions, classes and modules aside)."""
        import types
        kind, value = self.fn.uf.lookup(name) if self.fn.uf is not None else ("missing", None)
        if callable(value) or isinstance(value, (types.ModuleType, int, float, complex, str, bool, type(None))):
            return set()
        return {Ref(FOREIGN)}

    def item_step(self, step):
        """Does a path's step take one item at an integer position (of a list, a tuple, or a row of an array)?"""
        stmt = step.stmt
        return isinstance(stmt, ir.GetItem) and is_integer_index(stmt.expr.slice, self._ints)

    def unpacked(self, state, refs, take, i, n):
        """The references of target i of `a, b, ... = v` (n targets), v with references `refs`: element i of each
        tuple display v may be (`for a, b in reversed(pairs)`), else a part of v's object or of what it holds."""
        out, rest = set(), set()
        for r in refs:
            if r.path == () and len(state.tuples.get(r.obj, ())) == n:
                out |= state.tuples[r.obj][i]
            elif r.path and self.item_step(r.path[-1]):
                # one item of a container (whose object is among refs too) or a row of an array: its parts
                out.add(r.extend(take))
            else:
                rest.add(r)
        if rest:
            out |= {r.extend(take) for r in rest} | _parts(state, rest) - {Ref(r.obj, None) for r in refs}
        return out

    def held_by(self, node, state):
        objs = {r.obj for r in self.atom_refs(node, state)}
        return state.held(*objs) if objs else set()

    def op_refs(self, s, state):
        """The references the value of an operation may have."""
        site = {Ref(("site", id(s)))}
        e = s.expr
        if isinstance(s, ir.Copy):
            return self.atom_refs(e, state)
        if isinstance(s, ir.Const):
            if s.fresh:
                return site
            if isinstance(e, gast.Compare):
                self._copying.add(id(s))
                return site                   # a new boolean (array): a mask, as an index
            if isinstance(e, gast.Constant) or expr_reads(e) & set(state.pts):
                return set()                  # literals, and numbers computed from locals (shapes, tests)
            if isinstance(e, (gast.BinOp, gast.UnaryOp)) or isinstance(e, gast.Subscript) and _copying_index(e.slice):
                return site                   # `W * 2.0`, `W[[2, 0, 1]]` of a global: a new object
            if self.number_now(e):
                return set()                  # `COEF[0]` of a global list of numbers: a value, nothing to change
            return {Ref(FOREIGN)}             # a global or an attribute of a static object
        if isinstance(s, (ir.GetItem, ir.GetAttr, ir.ScanSlice)):
            base = step_base(s)
            if isinstance(base, gast.Name) and base.id not in state.pts and self.number_now(e):
                return set()                  # `COEF[0]` of a global list of numbers: a value
            if isinstance(s, ir.GetItem) and self.copying_index(e.slice, state):
                return site                # `W[[2, 0, 1]]`, `a[a > 0]`: NumPy's advanced indexing copies
            if isinstance(s, ir.GetItem) and isinstance(base, gast.Name) and isinstance(e.slice, gast.Constant) \
                    and isinstance(e.slice.value, int):
                elements = state.elements(base.id)
                if elements is not None and -len(elements) <= e.slice.value < len(elements):
                    return set(elements[e.slice.value])
            one_item = isinstance(s, ir.GetItem) and is_integer_index(e.slice, self._ints)
            out = set()
            for r in self.atom_refs(base, state):
                if one_item and r.path == () and r.obj in self._containers:
                    out |= state.direct(r.obj)     # an item of a list, tuple or dict, never a view of it
                    continue
                out.add(r.extend(s))
                out |= state.direct(r.obj)     # an element of a list, dict or tuple
            return out
        if isinstance(s, ir.Apply):
            key = rule_key(s.rule)
            if key in VIEW_RULES:
                return {r.extend(s) for r in self.atom_refs(step_base(s), state)}
            if s.rule.view or key == "getitem":     # d.get(k), operator.getitem(a, k): a part or an item of it
                out = set()
                for r in self.atom_refs(step_base(s), state):
                    out.add(r.extend(s))
                    out |= state.direct(r.obj)
                return out
            if key in CONTAINER_RULES or key == "iterating":
                self._containers.add(("site", id(s)))      # (a new list, tuple or dict when it is a new object)
            if key in SAME_RULES:
                operands = set().union(*(self.atom_refs(n, state) for n in _operand_nodes(s)))
                if key == "iterating":          # a new list of the items, when the operand cannot be indexed
                    state.store(site, set().union(*(state.direct(r.obj) if r.path == () and r.obj in self._containers
                                                    else _parts(state, {r}) for r in operands)))
                return site | operands
            if key == "copy":               # `lst.copy()`, `d.copy()`: a new container of the same elements
                held = set()                # (an array's copy holds nothing)
                for r in self.atom_refs(step_base(s), state):
                    held |= state.direct(r.obj)
                if held:
                    state.store(site, held)
                return site
            if key in CONTAINER_RULES:
                held = set()
                for node in _operand_nodes(s):
                    held |= _parts(state, self.atom_refs(node, state))
                state.store(site, held)
                return site
            if key in SEQUENCE_OPERATORS:
                # list + list, list * n: a new list holding the operands' elements (their own items: what
                # those hold is held through them; a part of an object, a view or an item, holds nothing of its own
                # here, an item's object being among the references too)
                held = set()
                for node in _operand_nodes(s):
                    for r in self.atom_refs(node, state):
                        if r.path == ():
                            held |= state.direct(r.obj)
                        elif r.path is None or not self.item_step(r.path[-1]):
                            held |= state.held(r.obj)       # (a slice of a list: a new one holding its items)
                if held:
                    state.store(site, held)
                return site
            if s.rule.container:
                held = set()
                for node in _operand_nodes(s):
                    held |= self.atom_refs(node, state) | self.held_by(node, state)
                state.store(site, held)
            return site
        if isinstance(s, ir.Pack):
            if isinstance(e, gast.List):
                self._copying.add(id(s))
            self._containers.add(("site", id(s)))
            held = set()
            for node in _display_atoms(e):
                held |= self.atom_refs(node, state)
            state.store(site, held)
            return site
        if isinstance(s, (ir.Update, ir.Append)):
            base, value = e.args[0], e.args[-1]
            out = site
            held = self.held_by(base, state) | self.atom_refs(value, state)
            state.store(out, held)
            return out
        if isinstance(s, ir.CallUser):
            summary = self.oracle.summary(s)
            args = _call_atoms(s)
            if summary is not None and not summary.result_aliases:
                return site
            if summary is not None and summary.returns:
                return site | self.returned_parts(s, summary, state)
            out = set(site)
            for node in args:
                for r in self.atom_refs(node, state):
                    out.add(Ref(r.obj, None))
            return out
        # custom_vjp functions, calls adsrc cannot see into: may return (parts of) their arguments
        out = set(site) | ({Ref(FOREIGN)} if isinstance(s, ir.Opaque) and not s.fresh else set())
        for node in _call_atoms(s):
            for r in self.atom_refs(node, state):
                out.add(Ref(r.obj, None))
        return out

    def returned_parts(self, s, summary, state):
        """The references of a call's result that is a part of its arguments' objects (`return self.h`)."""
        out = set()
        args = summary.arguments(s)
        for p, path in summary.returns:
            for r in self.atom_refs(args.get(p), state):
                out |= {Ref(r.obj, None if r.path is None or len(r.path) + len(path) > MAX_PATH else r.path + path)}
                out |= state.held(r.obj)       # (as a field read: an object the argument's object holds)
        return out


def _bind_elements(state, target, elements):
    """Bind a tuple target element by element; a nested target takes the elements of a tuple display
    when its part certainly is one, else any part of it."""
    for t, part in zip(target, elements):
        if isinstance(t, str):
            state.bind(t, part)
            continue
        inner = None
        if len(part) == 1:
            (r,) = part
            inner = state.tuples.get(r.obj) if r.path == () else None
        if inner is not None and len(inner) == len(t):
            _bind_elements(state, t, inner)
        else:
            for n in target_names(t):
                state.bind(n, _parts(state, part))


def _parts(state, refs):
    """References the elements of a value with references `refs` may have."""
    out = set()
    for r in refs:
        out.add(Ref(r.obj, None))
        out |= state.direct(r.obj)
    return out


def _operand_nodes(s):
    out = []
    for v in s.bound.values():
        out.extend(v if isinstance(v, list) else [v])
    return out


def _display_atoms(e):
    if isinstance(e, gast.Dict):
        return list(e.values)
    return list(e.elts)


def _call_atoms(s):
    e = s.expr
    out = []
    if isinstance(e, gast.Call):
        out.extend(a.value if isinstance(a, gast.Starred) else a for a in e.args)
        out.extend(k.value for k in e.keywords)
    receiver = getattr(s, "receiver", None)
    if receiver is not None:
        out.append(receiver)
    return [n for n in out if isinstance(n, gast.Name)]
