"""`for` loops during normalization: every loop becomes a loop over a `range`.

`for x in xs` becomes `for i in range(len(xs)): x = xs[i]`, and
`enumerate`, `zip` and `reversed` (nested too) bind their targets by
position the same way, so every value a loop reads is an ordinary indexing
operation that the alias analysis and the differentiator see. A loop over a
`range` into a name stays as it is.
"""


import gast

from .. import astutil
from ..ir import nodes as ir


class _Range:
    def __init__(self, args):
        self.args = args


class _Seq:
    def __init__(self, seq):
        self.seq = seq


class _Enumerate:
    def __init__(self, inner, start):
        self.inner, self.start = inner, start


class _Zip:
    def __init__(self, inners):
        self.inners = inners


class _Reversed:
    def __init__(self, inner):
        self.inner = inner


def _exprs(it):
    if isinstance(it, _Range):
        return list(it.args)
    if isinstance(it, _Seq):
        return [it.seq]
    if isinstance(it, _Enumerate):
        return _exprs(it.inner) + ([it.start] if it.start is not None else [])
    if isinstance(it, _Zip):
        return [e for inner in it.inners for e in _exprs(inner)]
    return _exprs(it.inner)


class Loops:
    """Mixin of the Normalizer: iterations and `for` loops."""

    def iteration(self, it):
        """An iteration form: range/enumerate/zip/reversed stay structured, anything else is a sequence."""
        if isinstance(it, gast.Call) and not any(isinstance(a, gast.Starred) for a in it.args) and \
                all(k.arg for k in it.keywords):
            fn = self.static(it.func)
            if fn is range and not it.keywords:
                return _Range([self.raw(a) for a in it.args])
            if fn is enumerate and it.args and len(it.args) + len(it.keywords) <= 2:
                start = it.args[1] if len(it.args) > 1 else next((k.value for k in it.keywords), None)
                return _Enumerate(self.iteration(it.args[0]), start and self.raw(start))
            if fn is zip and it.args and not it.keywords:
                return _Zip([self.iteration(a) for a in it.args])
            if fn is reversed and len(it.args) == 1:
                return _Reversed(self.iteration(it.args[0]))
        return _Seq(self.sequence(it))

    def stmt_For(self, s):
        it = self.iteration(s.iter)
        # Python evaluates the iterable once: the loop must not see names the body rebinds
        rebound = astutil.names_stored(gast.Module(body=s.body, type_ignores=[])) | \
            astutil.names_stored(s.target)
        reads = set().union(*(astutil.names_loaded(e) for e in _exprs(it)))
        snapshot = {n: self.temp(n + "_iter") for n in sorted(reads & rebound)}
        for n, snap in snapshot.items():
            self.emit(ir.Copy(snap, astutil.name(n)), s.iter)
        for e in _exprs(it):
            astutil.rename(e, snapshot)
        target = astutil.target_spec(s.target)
        if target is None:
            raise self.error(s.target, "this loop target is not supported.",
                             "Loop over names or tuples of names, e.g. `for i, x in enumerate(xs):`.")
        self.emit_for(target, it, lambda: self.out.extend(self.block(s.body)), self.block(s.orelse), s)

    def emit_for(self, target, it, fill_body, orelse, node):
        """Emit `for target in it: <fill_body()> else: orelse` as a loop over a range."""
        if isinstance(it, _Range) and isinstance(target, str):
            self.emit(ir.For(target, ir.RangeIter(it.args), self.sub_block(fill_body), orelse=orelse), node)
            return
        index = self.temp("i")

        def body():
            self.bind_item(it, astutil.name(index), target, node)
            fill_body()
        length = self.length(it)
        self.emit(ir.For(index, ir.RangeIter([length]), self.sub_block(body), orelse=orelse), node)

    def length(self, it):
        if isinstance(it, _Range):
            return astutil.call("len", [astutil.call("range", astutil.clone(it.args))])
        if isinstance(it, _Seq):
            return astutil.call("len", [astutil.clone(it.seq)])
        if isinstance(it, (_Enumerate, _Reversed)):
            return self.length(it.inner)
        lengths = [self.length(i) for i in it.inners]
        return lengths[0] if len(lengths) == 1 else astutil.call("min", lengths)

    def bind_item(self, it, index, target, node):
        """Statements binding target (a name or nested tuple of names) to the item at position `index`."""
        parts = None
        if isinstance(it, _Enumerate):
            counter = astutil.clone(index)
            if it.start is not None:
                counter = gast.BinOp(left=counter, op=gast.Add(), right=astutil.clone(it.start))
            parts = [(counter, None), (None, it.inner)]
        elif isinstance(it, _Zip):
            parts = [(None, inner) for inner in it.inners]
        if parts is not None:
            if isinstance(target, tuple) and len(target) == len(parts):
                for t, (value, inner) in zip(target, parts):
                    if inner is not None:
                        self.bind_item(inner, index, t, node)
                    elif isinstance(t, str):
                        self.emit(ir.Copy(t, value) if isinstance(value, gast.Name) else ir.Const(t, value), node)
                    else:
                        tmp = self.temp("item")
                        self.emit(ir.Const(tmp, value), node)
                        self.emit(ir.Copy(t, astutil.name(tmp)), node)
                return
            names = [self.temp("item") for _ in parts]
            self.bind_item(it, index, tuple(names), node)
            self.store(target, ir.Pack, astutil.tuple_([astutil.name(n) for n in names]), node)
            return
        if isinstance(target, tuple):
            tmp = self.temp("item")
            self.bind_item(it, index, tmp, node)
            self.emit(ir.Copy(target, astutil.name(tmp)), node)
            return
        if isinstance(it, _Range):
            self.emit(ir.Const(target, gast.Subscript(value=astutil.call("range", astutil.clone(it.args)),
                                                      slice=astutil.clone(index), ctx=gast.Load())), node)
        elif isinstance(it, _Seq):
            self.emit(ir.GetItem(target, gast.Subscript(value=astutil.clone(it.seq), slice=astutil.clone(index),
                                                        ctx=gast.Load())), node)
        else:      # reversed: position len - 1 - index of the inner iteration
            rev = self.temp("rev")
            expr = gast.BinOp(left=gast.BinOp(left=self.length(it.inner), op=gast.Sub(), right=astutil.const(1)),
                              op=gast.Sub(), right=astutil.clone(index))
            self.emit(ir.Const(rev, expr), node)
            self.bind_item(it.inner, astutil.name(rev), target, node)

    def store(self, target, cls, value, node):
        if isinstance(target, tuple):
            tmp = self.temp("item")
            self.emit(cls(tmp, value), node)
            self.emit(ir.Copy(target, astutil.name(tmp)), node)
        else:
            self.emit(cls(target, value), node)

    def zip_iteration(self, its):
        return its[0] if len(its) == 1 else _Zip(its)
