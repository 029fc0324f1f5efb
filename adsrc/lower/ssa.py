"""Static single assignment: every name is assigned once (once per iteration in a loop).

The first assignment of a user name keeps the name; later ones get `x_1`,
`x_2`, ... A loop's carried values have their own names inside the loop and
new names after it. Run after `structure.py`.
"""

from .. import astutil
from .. import old_ir as ir


class SSA:
    def __init__(self, namer):
        self.namer = namer
        self.seen = set()

    def define(self, n, env):
        if n in self.seen:
            new = self.namer.fresh(n)
        else:
            new = n
        self.seen.add(new)
        env[n] = new
        return new

    def define_target(self, t, env):
        if isinstance(t, str):
            return self.define(t, env)
        return tuple(self.define_target(e, env) for e in t)

    def function(self, fn, outer_env=None):
        env = dict(outer_env or {})
        for p in fn.params:
            self.define(p, env)
        self.block(fn.body, env)
        fn.result = astutil.rename(fn.result, env)

    def block(self, body, env):
        for s in body:
            self.stmt(s, env)

    def stmt(self, s, env):
        if isinstance(s, ir.Assign):
            astutil.rename(s.value, env)
            s.target = self.define_target(s.target, env)
        elif isinstance(s, ir.Effect):
            astutil.rename(s.value, env)
        elif isinstance(s, ir.Raw):
            astutil.rename(s.node, env)
        elif isinstance(s, ir.Cond):
            astutil.rename(s.pred, env)
            for br in (s.true, s.false):
                inner = dict(env)
                self.block(br.body, inner)
                br.results = [astutil.rename(r, inner) for r in br.results]
            s.outs = [self.define(n, env) for n in s.outs]
        elif isinstance(s, ir.Loop):
            s.init = [astutil.rename(v, env) for v in s.init]
            if s.xs is not None:
                astutil.rename(s.xs, env)
            inner = dict(env)
            stop_index = s.carry.index(s.stop) if s.stop in s.carry else None
            s.carry = [self.define(n, inner) for n in s.carry]
            if s.item is not None:
                s.item = self.define_target(s.item, inner)
            test_env = dict(inner)
            self.block(s.test_body, test_env)
            if s.test is not None:
                s.test = astutil.rename(s.test, test_env)
            self.block(s.body, inner)
            s.results = [astutil.rename(r, inner) for r in s.results]
            s.stop = stop_index
            s.outs = [self.define(n, env) for n in s.outs]
        elif isinstance(s, ir.LocalDef):
            free = {n: env[n] for n in ir.free_names(s.fn) if n in env}
            s.name = self.define(s.name, env)
            SSA(self.namer).function(s.fn, free)
            s.fn.name = s.name


def to_ssa(fn, namer):
    SSA(namer).function(fn)
    return fn
