"""Static single assignment: every name is assigned once (once per iteration inside a loop).

The first assignment of a user name keeps the name; later ones get `x_1`,
`x_2`, ... A loop's carried values have their own names inside the loop and
new names after it. Then `tidy` lets a branch compute its result straight into
the name of the output it becomes.
"""

import gast

from ..ir import nodes as ir
from ..ir.walk import defines, free_names, rename_all, rename_expr, rename_reads


class SSA:
    def __init__(self, namer):
        self.namer = namer
        self.seen = set()

    def define(self, n, env):
        new = self.namer.fresh(n) if n in self.seen else n
        self.seen.add(new)
        env[n] = new
        return new

    def function(self, fn, outer=None):
        env = dict(outer or {})
        for p in fn.params:
            self.define(p, env)
        self.block(fn.body, env)
        fn.result = rename_expr(fn.result, env)

    def block(self, body, env):
        for s in body:
            self.stmt(s, env)

    def stmt(self, s, env):
        if isinstance(s, ir.Cond):
            rename_reads(s, env)
            for br in (s.true, s.false):
                inner = dict(env)
                self.block(br.body, inner)
                br.results = [rename_expr(r, inner) for r in br.results]
            s.outs = [self.define(n, env) for n in s.outs]
        elif isinstance(s, (ir.Scan, ir.WhileLoop)):
            s.init = [rename_expr(v, env) for v in s.init]
            if isinstance(s, ir.Scan):
                rename_expr(s.xs, env)
            inner = dict(env)
            s.carry = [self.define(n, inner) for n in s.carry]
            if isinstance(s, ir.Scan) and s.item is not None:
                s.item = self.define(s.item, inner)
            if isinstance(s, ir.WhileLoop):
                test_env = dict(inner)
                self.block(s.test_body, test_env)
                s.test = rename_expr(s.test, test_env)
            self.block(s.body, inner)
            s.results = [rename_expr(r, inner) for r in s.results]
            s.outs = [self.define(n, env) for n in s.outs]
        elif isinstance(s, ir.Def):
            free = {n: env[n] for n in free_names(s.fn) if n in env}
            s.name = self.define(s.name, env)
            SSA(self.namer).function(s.fn, free)
            s.fn.name = s.name
        else:
            rename_reads(s, env)
            if isinstance(s, ir.Op):
                s.target = _define_target(self, s.target, env)


def _define_target(ssa, t, env):
    if isinstance(t, str):
        return ssa.define(t, env)
    return tuple(_define_target(ssa, e, env) for e in t)


def tidy(body):
    """A branch result defined once in the branch and used only as that output takes the output's name."""
    from ..ir.walk import walk
    for s in walk(body):
        if not isinstance(s, ir.Cond):
            continue
        for br in (s.true, s.false):
            counts = {}
            for st in br.body:
                for n in defines(st):
                    counts[n] = counts.get(n, 0) + 1
            names = [r.id for r in br.results if isinstance(r, gast.Name)]
            mapping = {r.id: out for out, r in zip(s.outs, br.results)
                       if isinstance(r, gast.Name) and counts.get(r.id) == 1 and names.count(r.id) == 1}
            if mapping:
                rename_all(br.body, mapping)
                br.results = [rename_expr(r, mapping) for r in br.results]
    return body


def to_ssa(fn, namer):
    SSA(namer).function(fn)
    tidy(fn.body)
    return fn
