"""One abstract value per name: what generated code may assume about a value's type and shape.

An `AbsVal` says a value is a SCALAR (a Python or NumPy number), an ARRAY (of
known rank when `rank` is set, with `shape` naming an earlier value of
certainly the same shape), a CONTAINER (list, tuple, dict, namedtuple or
dataclass; its elements' values when its structure is known) or OTHER
(anything else, or not known). The differentiator asks it whether a
cotangent may need summing over broadcast axes, whether a value is a number
(its cotangent is then a number too) and whether an index is an integer;
the memory and compiled-backend work build on it.

The analysis runs forward over lowered (SSA) IR; loops iterate to a
fixpoint, and a call to a user function gets its result's value by analysing
the callee's lowered IR (memoized, with OTHER for recursion in progress).
"""

from dataclasses import dataclass
from typing import Optional

import gast

from ..ir import nodes as ir

SCALAR, ARRAY, CONTAINER, OTHER, BOTTOM = "scalar", "array", "container", "other", "bottom"


@dataclass(frozen=True)
class AbsVal:
    kind: str
    rank: Optional[int] = None
    dtype: Optional[str] = None         # 'f' (float or complex), 'i' (integer), 'b' (boolean)
    ctype: Optional[str] = None         # containers: 'list', 'tuple', 'dict', 'fields'
    items: Optional[tuple] = None       # containers: ((key, AbsVal), ...) when the structure is known
    shape: Optional[str] = None         # arrays: a name certainly of the same shape

    @property
    def numeric(self):
        return self.kind in (SCALAR, ARRAY)

    def item(self, key):
        if self.items is None:
            return None
        if self.ctype in ("list", "tuple") and isinstance(key, int) and -len(self.items) <= key < len(self.items):
            return self.items[key][1]
        for k, v in self.items:
            if k == key and type(k) is type(key):
                return v
        return None

    def without_shape(self):
        """The same value without references to names (to carry it into another function)."""
        items = tuple((k, v.without_shape()) for k, v in self.items) if self.items is not None else None
        return AbsVal(self.kind, self.rank, self.dtype, self.ctype, items)


def scalar(dtype="f"):
    return AbsVal(SCALAR, 0, dtype)


UNKNOWN = AbsVal(OTHER)
SLICE = AbsVal(OTHER, ctype="slice")     # a slice object: an index that takes part of a list, not an item
NOTHING = AbsVal(BOTTOM)


def join(a, b):
    if a.kind == BOTTOM:
        return b
    if b.kind == BOTTOM:
        return a
    if a == b:
        return a
    if a.numeric and b.numeric:
        kind = SCALAR if a.kind == b.kind == SCALAR else ARRAY
        rank = a.rank if a.rank == b.rank else None
        return AbsVal(kind, rank, a.dtype if a.dtype == b.dtype else None,
                      shape=a.shape if a.shape == b.shape else None)
    if a.kind == b.kind == CONTAINER:
        ctype = a.ctype if a.ctype == b.ctype else None
        items = None
        if ctype and a.items is not None and b.items is not None and [k for k, _ in a.items] == [k for k, _ in b.items]:
            items = tuple((k, join(x, y)) for (k, x), (_, y) in zip(a.items, b.items))
        return AbsVal(CONTAINER, ctype=ctype, items=items)
    return UNKNOWN


def from_key(k):
    """The abstract value of an argument from its specialization-key entry (see api.arg_kind)."""
    if k == "scalar":
        return scalar("f")
    if k == "array" or (isinstance(k, tuple) and k[0] == "duck"):
        return AbsVal(ARRAY, dtype="f")      # a duck array (arrays.py) is an array to the generated code
    if isinstance(k, tuple) and k[0] == "node":
        return UNKNOWN        # a registered pytree (pytree_nodes.py): its children are not its items
    if isinstance(k, tuple):
        ctype = {"list": "list", "tuple": "tuple", "dict": "dict", "fields": "fields"}.get(k[0])
        return AbsVal(CONTAINER, ctype=ctype, items=tuple((key, from_key(leaf)) for key, leaf in k[-1]))
    return UNKNOWN          # 'const', 'general' (kinds.GENERAL: a float, an array or a container)


def _literal(value):
    if isinstance(value, bool):
        return scalar("b")
    if isinstance(value, int):
        return scalar("i")
    if isinstance(value, (float, complex)):
        return scalar("f")
    if isinstance(value, tuple):
        return AbsVal(CONTAINER, ctype="tuple", items=tuple((i, _literal(v)) for i, v in enumerate(value)))
    return UNKNOWN


class Values:
    """Abstract values of every name of a lowered function.

    results(stmt) -> the AbsVal of a user function call's result (or None).
    """

    def __init__(self, fn, params, results=None):
        self.fn = fn
        self.results = results or (lambda stmt, args: None)
        self.val = {}
        for p in fn.params:
            self.val[p] = params.get(p, UNKNOWN)
        self.block(fn.body)

    def __getitem__(self, name):
        return self.val.get(name, UNKNOWN)

    def of(self, node):
        if isinstance(node, gast.Name):
            return self[node.id]
        if isinstance(node, gast.Constant):
            return _literal(node.value)
        return UNKNOWN

    def rep(self, name):
        v = self.val.get(name)
        return v.shape if v is not None and v.shape else name

    def block(self, body):
        for s in body:
            self.stmt(s)

    def set(self, name, value):
        self.val[name] = value

    def stmt(self, s):
        if isinstance(s, ir.Op):
            value = self.op(s)
            if isinstance(s.target, str):
                self.set(s.target, value)
            else:
                self.unpack(s.target, value)
        elif isinstance(s, ir.Cond):
            results = []
            for br in (s.true, s.false):      # a branch may compute its result into the output's name
                self.block(br.body)
                results.append([self.of(r) for r in br.results])
            for out, a, b in zip(s.outs, *results):
                self.set(out, join(a, b))
        elif isinstance(s, (ir.Scan, ir.WhileLoop)):
            self.loop(s)
        elif isinstance(s, ir.Def):
            self.set(s.name, UNKNOWN)

    def unpack(self, target, value):
        for k, t in enumerate(target):
            part = value.item(k) if value.kind == CONTAINER else None
            if part is None:
                part = AbsVal(ARRAY) if value.kind == ARRAY else UNKNOWN
            if isinstance(t, str):
                self.set(t, part)
            else:
                self.unpack(t, part)

    def loop(self, s):
        if isinstance(s, ir.Scan) and s.item is not None:
            self.set(s.item, scalar("i") if _is_range(s.xs) else UNKNOWN)
        for c, init in zip(s.carry, s.init):
            v = self.of(init)
            # a carried array keeps its shape if every iteration keeps it
            self.set(c, v if v.shape or not isinstance(init, gast.Name) else _with_shape(v, init.id))
        for _ in range(50):
            before = [self.val.get(c) for c in s.carry]
            if isinstance(s, ir.WhileLoop):
                self.block(s.test_body)
            self.block(s.body)
            for c, r in zip(s.carry, s.results):
                v = join(self[c], self.of(r))
                if self[c].shape and not (isinstance(r, gast.Name) and self.rep(r.id) == self[c].shape):
                    v = v.without_shape()
                self.set(c, v)
            if [self.val.get(c) for c in s.carry] == before:
                break
        for c, out in zip(s.carry, s.outs):
            self.set(out, self[c])

    # -- operations ------------------------------------------------------------------------------------
    def op(self, s):
        e = s.expr
        if isinstance(s, ir.Copy):
            return _with_shape(self[e.id], self.rep(e.id))
        if isinstance(s, ir.Const):
            if isinstance(e, gast.Constant):
                return _literal(e.value)
            if isinstance(e, (gast.Tuple,)) and all(isinstance(x, gast.Constant) for x in e.elts):
                return _literal(tuple(x.value for x in e.elts))
            if s.fresh:
                return AbsVal(ARRAY)
            if isinstance(e, gast.Call) and isinstance(e.func, gast.Name) and e.func.id == "slice":
                return SLICE
            if isinstance(e, (gast.Compare, gast.BoolOp)) or (isinstance(e, gast.UnaryOp) and
                                                                isinstance(e.op, gast.Not)):
                return AbsVal(ARRAY, dtype="b")
            return UNKNOWN
        if isinstance(s, ir.Apply):
            return self.apply(s)
        if isinstance(s, ir.GetItem):
            base = self.of(e.value)
            if base.kind == CONTAINER:
                if isinstance(e.slice, gast.Constant):
                    part = base.item(e.slice.value)
                    if part is not None:
                        return part
                elif base.items and base.ctype in ("list", "tuple") and not self.slicing(e.slice):
                    joined = base.items[0][1]      # `ps[i]`, `for p in ps`: one of the items, whichever i is
                    for _, v in base.items[1:]:
                        joined = join(joined, v)
                    if joined.numeric:
                        return joined.without_shape()
                elif self.slicing(e.slice) and base.ctype in ("list", "tuple"):
                    return AbsVal(CONTAINER, ctype=base.ctype)     # `lst[1:]`: a new list of some of its items
                return UNKNOWN
            if base.kind == SCALAR:
                return base
            if base.kind == ARRAY:
                return AbsVal(ARRAY, dtype=base.dtype)
            return UNKNOWN
        if isinstance(s, ir.GetAttr):
            base = self.of(e.value)
            part = base.item(e.attr) if base.kind == CONTAINER and base.ctype == "fields" else None
            return part or UNKNOWN
        if isinstance(s, ir.Pack):
            if isinstance(e, gast.Dict):
                keys = [k.value if isinstance(k, gast.Constant) else None for k in e.keys]
                items = tuple(zip(keys, (self.of(v) for v in e.values))) if None not in keys else None
                return AbsVal(CONTAINER, ctype="dict", items=items)
            ctype = "tuple" if isinstance(e, gast.Tuple) else "list"
            return AbsVal(CONTAINER, ctype=ctype, items=tuple((i, self.of(x)) for i, x in enumerate(e.elts)))
        if isinstance(s, ir.Update):
            base = self.of(e.args[0])
            return base.without_shape() if base.kind != ARRAY else _with_shape(base, _name(e.args[0], self))
        if isinstance(s, ir.Append):
            return AbsVal(CONTAINER, ctype="list")
        if isinstance(s, ir.CallUser):
            found = self.results(s, [self.of(a) for a in e.args])
            return found or UNKNOWN
        return UNKNOWN

    def apply(self, s):
        rule = s.rule
        operands = [n for n in s.bound.values() if not isinstance(n, list)]
        static = rule.static_args(s.bound)
        if rule.name == "iterating":
            return self.of(operands[0])
        if rule.is_scalar_output(static):
            return scalar("f")
        if self.on_sequences(s):
            return AbsVal(CONTAINER)
        if rule.container:
            return AbsVal(CONTAINER)
        if rule.any_output:
            return UNKNOWN
        if rule.output_like and not all(self.of(s.bound[p]).numeric for p in rule.output_like
                                        if p in s.bound and not isinstance(s.bound[p], list)):
            return UNKNOWN
        if rule.kind != "elementwise":
            return AbsVal(ARRAY)
        vals = [self.of(n) for n in operands]
        if vals and all(v.kind == SCALAR for v in vals):
            return scalar("f")
        ranks = [v.rank for v in vals if v.numeric]
        rank = max(ranks) if ranks and None not in ranks and all(v.numeric for v in vals) else None
        return AbsVal(ARRAY, rank, "f", shape=self.same_shape(s, operands))

    def same_shape(self, s, operands):
        """A name the output of an elementwise operation certainly has the shape of, or None."""
        arrays = {self.rep(n.id) for n in operands if isinstance(n, gast.Name) and self[n.id].kind != SCALAR}
        others = [n for n in operands if not isinstance(n, gast.Name) and self.of(n).kind != SCALAR]
        if len(arrays) == 1 and not others and all(self.of(n).numeric for n in operands):
            return arrays.pop()
        return None

    def on_sequences(self, s):
        """Whether a `+` or `*` may concatenate or repeat lists and tuples (an operand is not numeric)."""
        if s.rule.name not in ("`+`", "`*`"):
            return False
        vals = [self.of(n) for n in s.bound.values()]
        return any(v.kind == CONTAINER for v in vals) or not any(v.numeric for v in vals)

    def scalar(self, node):
        return self.of(node).kind == SCALAR

    def slicing(self, index):
        """Is a subscript's index a slice (written `a:b`, or a name bound to `slice(...)`)?"""
        return isinstance(index, gast.Slice) or self.of(index) == SLICE

    def integer(self, node):
        v = self.of(node)
        return v.kind == SCALAR and v.dtype in ("i", "b")


def _with_shape(v, name):
    if v.kind == ARRAY and not v.shape and name:
        return AbsVal(v.kind, v.rank, v.dtype, v.ctype, v.items, name)
    return v


def _name(node, values):
    return values.rep(node.id) if isinstance(node, gast.Name) else None


def _is_range(xs):
    return isinstance(xs, gast.Call) and isinstance(xs.func, gast.Name) and xs.func.id == "range"
