"""The abstract state of the alias analysis (aliases.py): references, the steps of their paths, and what
each name and container may hold.

A reference `Ref(object, path)` is an abstract object (an allocation site, a parameter's object, FOREIGN)
or a part of one reached by a path of steps (indexing, an attribute, a view), path None when the way is
not known. A step is the IR statement that took it (so the code can take it again from an updated
object). AliasState maps names to references (`pts`), containers to what they may hold (`contents`),
and joins at the ends of branches and loops.
"""

import threading
from dataclasses import dataclass

import gast

from .. import astutil
from ..ir import nodes as ir
from ..ir.walk import expr_reads

FOREIGN = ("foreign",)
MAX_PATH = 4

# rules whose result is a view of (or the same object as) their first operand
VIEW_RULES = frozenset({
    "reshape", "transpose", "T", "mT", "ravel", "squeeze", "expand_dims", "swapaxes", "moveaxis", "diagonal",
    "broadcast_to", "asarray", "asanyarray", "atleast_1d", "atleast_2d", "atleast_3d", "real", "imag",
    "flip", "fliplr", "flipud", "rot90", "view", "rollaxis", "matrix_transpose", "permute_dims",
    "stop_gradient", "squeeze", "conj", "conjugate", "asfortranarray",
    "ascontiguousarray", "einsum", "diag", "diff", "as_strided", "require",
})
# operators that concatenate or repeat lists and tuples
SEQUENCE_OPERATORS = frozenset({"+", "*"})
# rules whose result may be one of their operands itself (not only the first)
SAME_RULES = frozenset({"max", "min", "iterating"})
# rules whose result is a new container holding parts of their operands
CONTAINER_RULES = frozenset({"split", "array_split", "hsplit", "vsplit", "dsplit", "unstack", "broadcast_arrays",
                             "dict.values()", "dict.items()", "list", "tuple", "zip(*...)", "enumerate",
                             "reversed", "sorted", "dict", "tolist"})


def rule_key(rule):
    return rule.name.split(".")[-1].strip("()`")


class Step:
    """One step of a path: the statement that took it, equal to any statement taking the same part.

    reads: the names the step reads besides its object (rebinding one makes the step unknown).
    """

    __slots__ = ("stmt", "key", "reads", "_hash")

    def __init__(self, stmt):
        self.stmt = stmt
        self.key = (type(stmt).__name__, _key(stmt.expr, step_base(stmt)))
        self.reads = frozenset(step_reads(stmt))
        self._hash = hash(self.key)

    def __eq__(self, other):
        return isinstance(other, Step) and self.key == other.key

    def __hash__(self):
        return self._hash


def _key(node, base):
    if node is base:
        return "<base>"
    if isinstance(node, gast.Name):
        return ("name", node.id)
    if isinstance(node, gast.Constant):
        return ("const", type(node.value).__name__, repr(node.value))
    if isinstance(node, list):
        return tuple(_key(n, base) for n in node)
    if isinstance(node, gast.AST):
        return (type(node).__name__,) + tuple(_key(getattr(node, f, None), base) for f in node._fields
                                              if f not in ("ctx", "type_comment", "annotation", "kind"))
    return repr(node)


@dataclass(frozen=True)
class Ref:
    obj: tuple
    path: tuple = ()            # tuple of Steps, or None when unknown

    def __post_init__(self):
        object.__setattr__(self, "_hash", hash((self.obj, self.path)))     # sets of references hash them often

    def __hash__(self):
        return self._hash

    def extend(self, stmt):
        if self.path is None or len(self.path) >= MAX_PATH:
            return Ref(self.obj, None)
        return Ref(self.obj, self.path + (_step(stmt),))


_LOCAL = threading.local()    # .steps while a loop runs to its fixpoint: {id(stmt): (stmt, its Step)}


def _step(stmt):
    steps = getattr(_LOCAL, "steps", None)
    if steps is None:
        return Step(stmt)
    known = steps.get(id(stmt))
    if known is not None and known[0] is stmt:
        return known[1]
    step = steps[id(stmt)] = (stmt, Step(stmt))
    return step[1]


class AliasState:
    """Points-to facts at one program point."""

    __slots__ = ("pts", "contents", "tuples", "same", "pathed", "_held")

    def __init__(self, pts=None, contents=None, tuples=None, same=None, pathed=None):
        self.pts = dict(pts or {})
        self.contents = dict(contents or {})
        self.tuples = dict(tuples or {})     # tuple display site -> refs of each element
        self.same = dict(same or {})         # name -> names certainly bound to the same object
        # (table, key) -> the names read by the steps of its references' paths (entries with such steps only)
        self.pathed = dict(pathed or {})
        self._held = {}                      # object -> what `held` found (until contents change)

    def copy(self):
        return AliasState(self.pts, self.contents, self.tuples, self.same, self.pathed)

    def __eq__(self, other):
        return self.pts == other.pts and self.contents == other.contents and self.tuples == other.tuples \
            and self.same == other.same

    def join(self, other):
        out = self.copy()
        for table, theirs in ((out.pts, other.pts), (out.contents, other.contents)):
            for k, v in theirs.items():
                table[k] = table.get(k, frozenset()) | v
        out.tuples = _joined_tuples(self, other)
        out.same = {k: v & other.same.get(k, frozenset()) for k, v in self.same.items()}
        out.same = {k: v for k, v in out.same.items() if v}
        for k, v in other.pathed.items():
            out.pathed[k] = out.pathed.get(k, frozenset()) | v
        return out

    def referenced(self):
        """The objects any name or container of this state may refer to."""
        out = set(self.contents)
        for table in (self.pts, self.contents):
            for refs in table.values():
                out.update(r.obj for r in refs)
        return out

    def copied(self, target, source):
        """target = source: the same object for certain (until either is rebound)."""
        group = self.same.get(source, frozenset()) | {source}
        for n in group:
            self.same[n] = self.same.get(n, frozenset()) | {target}
        self.same[target] = group

    def elements(self, name):
        """The references of each element of a tuple made by a display, if name certainly is one."""
        refs = self.refs(name)
        if len(refs) == 1:
            (r,) = refs
            if r.path == () and r.obj in self.tuples:
                return self.tuples[r.obj]
        return None

    def refs(self, name):
        return self.pts.get(name, frozenset())

    def objects(self, name):
        return {r.obj for r in self.refs(name)}

    def direct(self, obj):
        """References a container object may hold as its own elements."""
        return set(self.contents.get(obj, ()))

    def held(self, obj, *more):
        """References a container object (or any of several) may hold, transitively."""
        if not more:
            known = self._held.get(obj)
            if known is None:
                known = self._held[obj] = frozenset(self._reach(obj))
            return set(known)
        return self._reach(obj, *more)

    def _reach(self, *objs):
        seen, out, stack = set(objs), set(), list(objs)
        while stack:
            refs = self.contents.get(stack.pop())
            if refs:
                out |= refs
                for r in refs:
                    if r.obj not in seen:
                        seen.add(r.obj)
                        stack.append(r.obj)
        return out

    def holders(self, obj):
        """Objects that may hold obj (or a part of it), transitively."""
        out, stack = set(), [obj]
        while stack:
            o = stack.pop()
            for c, refs in self.contents.items():
                if c not in out and any(r.obj == o for r in refs):
                    out.add(c)
                    stack.append(c)
        return out

    # -- updates -----------------------------------------------------------------------------------
    def bind(self, name, refs):
        self.invalidate(name)
        self.pts[name] = frozenset(refs)
        reads = _path_reads(refs)
        if reads:
            self.pathed[("pts", name)] = reads
        else:
            self.pathed.pop(("pts", name), None)
        for other in self.same.pop(name, ()):
            rest = self.same.get(other, frozenset()) - {name}
            if rest:
                self.same[other] = rest
            else:
                self.same.pop(other, None)

    def store(self, container_refs, value_refs):
        value_refs = frozenset(value_refs)
        self._held.clear()
        reads = _path_reads(value_refs)
        for c in {r.obj for r in container_refs}:
            self.contents[c] = self.contents.get(c, frozenset()) | value_refs
            if reads:
                self.pathed[("contents", c)] = self.pathed.get(("contents", c), frozenset()) | reads

    def invalidate(self, name):
        """Steps that read `name` (other than as their object) can no longer be taken again."""
        tables = {"pts": self.pts, "contents": self.contents}
        for entry, reads in list(self.pathed.items()):
            if name not in reads:
                continue
            which, k = entry
            table = tables[which]
            if which == "contents":
                self._held.clear()
            refs = table.get(k, ())
            table[k] = frozenset(Ref(r.obj, None) if r.path and any(name in s.reads for s in r.path) else r
                                 for r in refs)
            rest = _path_reads(table[k])
            if rest:
                self.pathed[entry] = rest
            else:
                del self.pathed[entry]
        for site, elements in list(self.tuples.items()):
            if any(name in _path_reads(e) for e in elements):
                self.tuples[site] = tuple(frozenset(Ref(r.obj, None) if r.path and any(name in st.reads
                                                                                       for st in r.path)
                                                    else r for r in e) for e in elements)


def _path_reads(refs):
    """The names the steps of the references' paths read."""
    out = set()
    for r in refs:
        if r.path:
            for step in r.path:
                out |= step.reads
    return frozenset(out)


def _copying_index(index):
    """An index only an array takes, and copies by: a list display (or comprehension) or a comparison (a mask),
    alone or in a tuple of indices (a list or dict indexed so raises)."""
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    return any(isinstance(p, (gast.List, gast.ListComp, gast.Compare)) for p in parts)


def step_base(stmt):
    """The operand a view-taking statement takes its view of."""
    e = stmt.expr
    if isinstance(stmt, (ir.GetItem, ir.GetAttr, ir.ScanSlice)):
        return e.value if not isinstance(stmt, ir.ScanSlice) else e.args[0]
    if isinstance(stmt, ir.Apply):
        if stmt.method_of is not None:
            return stmt.method_of
        for p in stmt.rule.params:           # the first differentiable operand that is a name (einsum's array)
            node = stmt.bound.get(p.name)
            for n in (node if isinstance(node, list) else [node]):
                if p.name in stmt.rule.vjps and isinstance(n, gast.Name):
                    return n
        return stmt.bound.get(stmt.rule.params[0].name)
    return None


def step_reads(stmt):
    """Names a step reads besides its object (indices, shapes)."""
    base = step_base(stmt)
    reads = expr_reads(stmt.expr)
    if isinstance(base, gast.Name):
        reads = reads - {base.id} if sum(1 for n in astutil.walk(stmt.expr)
                                         if isinstance(n, gast.Name) and n.id == base.id) == 1 else reads
    return reads


def _joined_tuples(a, b):
    """The tuple displays described on both sides (element by element, each side's references), and those
    described on one side that the other side holds no object of (made in one branch or in a loop's body)."""
    out = {}
    referenced = {}
    for k in list(a.tuples) + [k for k in b.tuples if k not in a.tuples]:
        x, y = a.tuples.get(k), b.tuples.get(k)
        if x is not None and y is not None:
            if len(x) == len(y):
                out[k] = tuple(p | q for p, q in zip(x, y))
            continue
        other = b if x is not None else a
        if id(other) not in referenced:
            referenced[id(other)] = other.referenced()
        if k not in referenced[id(other)]:
            out[k] = x if x is not None else y
    return out
