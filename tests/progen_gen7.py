"""gen7: random Python/NumPy programs of the kind an outside fuzzer for an AD tool writes.

gen_program(seed) -> (source, spec, extra): a module defining helpers and f(a0, a1, ...), with spec the
positional arguments [(name, kind)] and extra the keyword arguments with defaults [(name, kind, default)].
Kinds are progen_gen7_exprs's. test_gen7_random.py differentiates the programs.
"""

from progen_gen7_exprs import DIMS, M, S, V, Exprs
from progen_gen7_loops import Loops


class Gen(Exprs, Loops):
    # -- statements ------------------------------------------------------
    def emit(self, ind, s):
        self.lines.append('    ' * ind + s)

    def target(self, env):
        """an existing non-argument variable to reassign (locals only), with its kind"""
        cands = [(k, v) for k, v in env.items() if not k.startswith('a') and v[0] != 'i']
        if not cands:
            return None
        return self.pick(cands)

    def assign_new(self, env, ind, depth):
        kind = self.pick([S(), S(), V(self.pick(DIMS)), V(self.pick(DIMS)), M(self.pick(DIMS), self.pick(DIMS))])
        name = self.fresh('t')
        self.emit(ind, f"{name} = {self.expr(env, kind, depth)}")
        env[name] = kind

    def reassign(self, env, ind, depth, loop=False):
        t = self.target(env)
        if t is None:
            return self.emit(ind, "pass")
        name, kind = t
        e = self.expr(env, kind, depth)
        c = self.r.randrange(6)
        if c == 0:
            self.emit(ind, f"{name} += {e}")
        elif c == 1:
            self.emit(ind, f"{name} -= 0.5 * {e}")
        elif c == 2:
            self.emit(ind, f"{name} *= {self.pick(['0.9', '0.5', '1.1'])}")
        elif c == 3 and loop:
            self.emit(ind, f"{name} = 0.5 * {name} + np.tanh({e})")
        else:
            self.emit(ind, f"{name} = {e}")

    def stmt(self, env, ind, depth, budget, top=True):
        c = self.r.randrange(22)
        if c >= 18:
            if top and self.chance(0.6):
                return self.loop_stmt(env, ind, depth)
            return self.extra_stmt(env, ind, depth) if top else self.reassign(env, ind, depth)
        if c <= 2 and top:
            return self.assign_new(env, ind, depth)
        if c <= 4:
            return self.reassign(env, ind, depth)
        if c == 5 and budget > 0:
            return self.if_stmt(env, ind, depth, budget, top)
        if c == 6 and budget > 0:
            return self.for_stmt(env, ind, depth, budget)
        if c == 7 and budget > 0:
            return self.while_stmt(env, ind, depth)
        if c == 8 and top:
            return self.inplace_block(env, ind, depth)
        if c == 9 and top:
            return self.list_accum(env, ind, depth)
        if c == 10 and top:
            return self.dict_stmt(env, ind, depth)
        if c == 11 and top:
            return self.tuple_stmt(env, ind, depth)
        if c == 12 and top:
            return self.lambda_stmt(env, ind, depth)
        if c == 13 and top and budget > 0:
            return self.early_return(env, ind, depth)
        if c == 14 and top:
            return self.local_def(env, ind, depth)
        if c == 15 and budget > 0:
            return self.if_stmt(env, ind, depth, budget, top)
        if c == 16 and budget > 0 and top:
            return self.extra_stmt(env, ind, depth)
        return self.reassign(env, ind, depth)

    def block(self, env, ind, depth, budget, nstmts, loop=False):
        for _ in range(nstmts):
            if loop and self.chance(0.4):
                self.reassign(env, ind, depth, loop=True)
            else:
                self.stmt(env, ind, depth, budget - 1, top=False)

    def if_stmt(self, env, ind, depth, budget, top):
        self.emit(ind, f"if {self.cond(env)}:")
        self.block(env, ind + 1, depth, budget, self.r.randrange(1, 3))
        while self.chance(0.3):
            self.emit(ind, f"elif {self.cond(env)}:")
            self.block(env, ind + 1, depth, budget, self.r.randrange(1, 3))
        if self.chance(0.6):
            self.emit(ind, "else:")
            self.block(env, ind + 1, depth, budget, self.r.randrange(1, 3))

    def for_stmt(self, env, ind, depth, budget):
        c = self.r.randrange(7)
        inner = dict(env)
        vs = [(k, v) for k, v in env.items() if v[0] == 'v']
        ms = [(k, v) for k, v in env.items() if v[0] == 'm']
        ints = self.vars_of(env, ('i',))
        i = self.fresh('i')
        if c == 0 or (c in (1, 2, 3, 5) and not vs) or (c == 4 and not ms):
            bound = self.pick(ints) if ints and self.chance(0.6) else str(self.r.randrange(1, 5))
            self.emit(ind, f"for {i} in range({bound}):")
            inner[i] = ('i',)
        elif c == 1:
            k, v = self.pick(vs)
            e = self.fresh('e')
            self.emit(ind, f"for {e} in {k}:")
            inner[e] = S()
        elif c == 2:
            k, v = self.pick(vs)
            e = self.fresh('e')
            self.emit(ind, f"for {i}, {e} in enumerate({k}):")
            inner[i] = ('i',)
            inner[e] = S()
        elif c == 3:
            k, v = self.pick(vs)
            same = [kk for kk, vv in vs if vv == v]
            k2 = self.pick(same)
            e, e2 = self.fresh('e'), self.fresh('e')
            self.emit(ind, f"for {e}, {e2} in zip({k}, {k2}):")
            inner[e] = S()
            inner[e2] = S()
        elif c == 4:
            k, v = self.pick(ms)
            e = self.fresh('row')
            self.emit(ind, f"for {e} in {k}:")
            inner[e] = V(v[2])
        else:
            k, v = self.pick(vs)
            self.emit(ind, f"for {i} in range(len({k})):")
            inner[i] = ('i',)
            inner[f"{k}[{i}]"] = S()
        if self.chance(0.25):
            kw = self.pick(['break', 'continue'])
            self.emit(ind + 1, f"if {self.cond(inner)}:")
            if kw == 'continue' or self.chance(0.5):
                self.reassign(inner, ind + 2, 1)
            self.emit(ind + 2, kw)
        self.block(inner, ind + 1, depth, budget, self.r.randrange(1, 3), loop=True)
        for k in list(inner):
            if k not in env and '[' not in k:
                pass        # loop variables stay defined after the loop but we do not use them
        # new variables assigned inside (none: blocks only reassign)

    def while_stmt(self, env, ind, depth):
        sc = [k for k in self.vars_of(env, S()) if not k.startswith('a')]
        if not sc:
            name = self.fresh('w')
            self.emit(ind, f"{name} = {self.expr(env, S(), 1)}")
            env[name] = S()
            sc = [name]
        w = self.pick(sc)
        k = self.fresh('k')
        self.emit(ind, f"{k} = 0")
        self.emit(ind, f"while {w} {self.pick(['<', '>'])} {self.pick(['1.0', '0.0', '2.0'])} and {k} < {self.r.randrange(2, 7)}:")
        self.emit(ind + 1, f"{w} = {self.pick(['0.8 *', '1.3 *', '0.5 +', '-0.5 +'])} {w} + 0.1 * np.tanh({self.expr(env, S(), 1)})")
        if self.chance(0.3):
            self.emit(ind + 1, f"if {self.cond(env)}:")
            self.emit(ind + 2, "break")
        if self.chance(0.4):
            self.reassign(env, ind + 1, 1, loop=True)
        self.emit(ind + 1, f"{k} += 1")

    def inplace_block(self, env, ind, depth):
        n = self.pick(DIMS + (5,))
        name = self.fresh('buf')
        src = self.vars_of(env, V(n))
        if src and self.chance(0.6):
            self.emit(ind, f"{name} = {self.pick(src)}.copy()" if self.chance(0.6) else f"{name} = np.array({self.pick(src)})")
        else:
            self.emit(ind, f"{name} = np.zeros({n})")
        env_ = dict(env)
        for _ in range(self.r.randrange(1, 4)):
            c = self.r.randrange(6)
            if c == 0:
                self.emit(ind, f"{name}[{self.r.randrange(n)}] = {self.expr(env_, S(), depth - 1)}")
            elif c == 1 and n >= 2:
                a = self.r.randrange(n - 1)
                b = self.r.randrange(a + 1, n + 1)
                self.emit(ind, f"{name}[{a}:{b}] += {self.expr(env_, V(b - a), depth - 1)}")
            elif c == 2:
                self.emit(ind, f"{name} *= {self.expr(env_, S(), depth - 1)}")
            elif c == 3:
                i = self.fresh('i')
                self.emit(ind, f"for {i} in range({n}):")
                self.emit(ind + 1, f"{name}[{i}] = {self.pick(['0.5 *', 'np.sin(', '1.0 +'])} {name}[{i}]"
                          + (")" if False else "") + f" + {self.expr(env_, S(), 1)}")
                self.lines[-1] = self.lines[-1].replace("np.sin( ", "np.sin(").replace(
                    f"np.sin({name}[{i}] +", f"np.sin({name}[{i}]) +")
            elif c == 4:
                self.emit(ind, f"{name}[{name} > 0.5] = 0.5" if self.chance(0.5)
                          else f"{name}[{name} < 0] *= {self.const()}")
            else:
                self.emit(ind, f"{name}[-1] -= {self.expr(env_, S(), depth - 1)}")
        env[name] = V(n)

    def list_accum(self, env, ind, depth):
        name = self.fresh('acc')
        i = self.fresh('i')
        ints = self.vars_of(env, ('i',))
        n = self.r.randrange(1, 5)
        bound = self.pick(ints) if ints and self.chance(0.4) else str(n)
        kind = self.pick([S(), S(), V(self.pick(DIMS))])
        self.emit(ind, f"{name} = []")
        self.emit(ind, f"for {i} in range({bound}):")
        inner = dict(env)
        inner[i] = ('i',)
        e = self.expr(inner, kind, depth - 1)
        if self.chance(0.5):
            e = f"({e}) * ({i} + 1)"
        self.emit(ind + 1, f"{name}.append({e})")
        out = self.fresh('t')
        if kind == S():
            how = self.pick(['sum', 'np.array', 'np.sum', 'max', 'stack'])
            if how == 'sum':
                self.emit(ind, f"{out} = sum({name})")
            elif how == 'max':
                self.emit(ind, f"{out} = max({name}) if {name} else 0.0")
            elif how == 'stack':
                self.emit(ind, f"{out} = np.mean(np.stack({name})) if len({name}) > 0 else 0.0")
            else:
                self.emit(ind, f"{out} = {how}(np.array({name}))" if how == 'np.sum' else f"{out} = np.sum(np.array({name}) ** 2)")
            env[out] = S()
        else:
            how = self.pick(['stack', 'sum', 'array'])
            if how == 'stack' and bound.isdigit():
                self.emit(ind, f"{out} = np.stack({name})")
                env[out] = M(int(bound), kind[1])
            elif how == 'array' and bound.isdigit():
                self.emit(ind, f"{out} = np.array({name}).sum(axis=0)")
                env[out] = kind
            else:
                self.emit(ind, f"{out} = sum({name}) + np.zeros({kind[1]})")
                env[out] = kind

    def dict_stmt(self, env, ind, depth):
        name = self.fresh('d')
        k1, k2 = self.pick(DIMS), S()
        a = self.expr(env, S(), depth - 1)
        b = self.expr(env, V(k1), depth - 1)
        self.emit(ind, f"{name} = {{'a': {a}, 'b': {b}}}")
        if self.chance(0.5):
            self.emit(ind, f"{name}['a'] = {name}['a'] * 2.0 + np.sum({name}['b'])")
        if self.chance(0.4):
            self.emit(ind, f"{name}['c'] = {name}.get('a', 0.0) + 1.0")
        out = self.fresh('t')
        if self.chance(0.5):
            self.emit(ind, f"{out} = sum(np.sum(v) for v in {name}.values())")
        else:
            self.emit(ind, f"{out} = {name}['a'] + np.mean({name}['b'])")
        env[out] = k2

    def tuple_stmt(self, env, ind, depth):
        a, b = self.fresh('p'), self.fresh('q')
        ka = self.pick([S(), V(self.pick(DIMS))])
        kb = S()
        if self.chance(0.5):
            self.emit(ind, f"{a}, {b} = {self.expr(env, ka, depth)}, {self.expr(env, kb, depth)}")
        else:
            tmp = self.fresh('tup')
            self.emit(ind, f"{tmp} = ({self.expr(env, ka, depth)}, {self.expr(env, kb, depth)})")
            self.emit(ind, f"{a}, {b} = {tmp}" if self.chance(0.5) else f"{a} = {tmp}[0]; {b} = {tmp}[1]")
        env[a] = ka
        env[b] = kb
        if self.chance(0.3) and ka == kb:
            self.emit(ind, f"{a}, {b} = {b}, {a}")

    def lambda_stmt(self, env, ind, depth):
        name = self.fresh('g')
        kind = self.pick([S(), V(self.pick(DIMS))])
        body = self.unary('u', kind)
        body = self.binop(body, self.pick(['u', self.const()]))
        self.emit(ind, f"{name} = lambda u: {body}")
        out = self.fresh('t')
        self.emit(ind, f"{out} = {name}({self.expr(env, kind, depth - 1)})")
        env[out] = kind

    def local_factory(self, env, ind, depth):
        """a nested def that makes a function (a lambda or a def closing over its parameter), then called"""
        name = self.fresh('make')
        kind = self.pick([S(), V(self.pick(DIMS))])
        inner = {'u': kind, 'c': S()}
        self.emit(ind, f"def {name}(c):")
        if self.chance(0.5):
            self.emit(ind + 1, f"return lambda u: {self.expr(inner, kind, 2)}")
        else:
            self.emit(ind + 1, "def made(u):")
            self.emit(ind + 2, f"return {self.expr(inner, kind, 2)}")
            self.emit(ind + 1, "return made")
        out = self.fresh('t')
        c, arg = self.expr(env, S(), 1), self.expr(env, kind, depth - 1)
        if self.chance(0.5):
            self.emit(ind, f"{out} = {name}({c})({arg})")
        else:
            fn = self.fresh('fn')
            self.emit(ind, f"{fn} = {name}({c})")
            self.emit(ind, f"{out} = {fn}({arg})")
        env[out] = kind

    def local_def(self, env, ind, depth):
        if self.chance(0.35):
            return self.local_factory(env, ind, depth)
        name = self.fresh('inner')
        kind = self.pick([S(), V(self.pick(DIMS))])
        self.emit(ind, f"def {name}(u, c={self.const()}):")
        inner = {'u': kind, 'c': S()}
        # closures over outer variables
        outer = [k for k, v in env.items() if v == S()]
        if outer and self.chance(0.5):
            inner[self.pick(outer)] = S()
        self.emit(ind + 1, f"return {self.expr(inner, kind, 2)}")
        out = self.fresh('t')
        self.emit(ind, f"{out} = {name}({self.expr(env, kind, depth - 1)})" if self.chance(0.5) else
                  f"{out} = {name}({self.expr(env, kind, depth - 1)}, c={self.const()})")
        env[out] = kind

    def early_return(self, env, ind, depth):
        self.emit(ind, f"if {self.cond(env)}:")
        self.emit(ind + 1, f"return {self.final(env, 1)}")

    def final(self, env, depth):
        parts = []
        names = [k for k in env if '[' not in k and env[k][0] != 'i' and k != 'alpha']
        names = names[-3:] + self.r.sample(names, min(1, len(names)))
        for k in names[:self.r.randrange(1, 4)]:
            v = env[k]
            if v[0] == 's':
                parts.append(self.pick([k, f"np.sin({k})", f"{k} ** 2"]))
            else:
                parts.append(self.pick([f"np.sum({k})", f"np.sum(np.tanh({k}))", f"np.mean({k} ** 2)",
                                        f"np.sum({k} * {k})"]))
        if not parts:
            parts.append(self.expr(env, S(), depth))
        return ' + '.join(parts)

    # -- helpers (module-level functions) ---------------------------------
    def make_helper(self):
        name = self.fresh('h')
        nargs = self.r.randrange(1, 3)
        kinds = [self.pick([S(), V(self.pick(DIMS))]) for _ in range(nargs)]
        ret = self.pick(kinds + [S()])
        args = [f"x{j}" for j in range(nargs)]
        env = dict(zip(args, kinds))
        kw = None
        sig = ', '.join(args)
        if self.chance(0.5):
            kw = 'scale'
            sig += ', scale=1.0'
            env['scale'] = S()
        saved = self.lines
        self.lines = []
        self.emit(0, f"def {name}({sig}):")
        if self.chance(0.4):
            self.emit(1, f"if {self.cond(env)}:")
            self.emit(2, f"return {self.expr(env, ret, 2)}")
        if self.chance(0.3):
            t = 'hv'
            self.emit(1, f"{t} = {self.expr(env, ret, 2)}")
            env[t] = ret
            self.emit(1, "for j in range(2):")
            self.emit(2, f"{t} = {t} * 0.5 + {self.expr(env, ret, 1)}")
        self.emit(1, f"return {self.expr(env, ret, 2)}")
        self.helpers.append('\n'.join(self.lines))
        self.lines = saved
        self.helper_sigs.append((name, kinds, ret, kw))

    # -- whole program -------------------------------------------------
    def program(self):
        for _ in range(self.r.randrange(0, 3)):
            self.make_helper()
        nargs = self.r.randrange(1, 4)
        spec = []
        for j in range(nargs):
            kind = self.pick([S(), V(self.pick(DIMS)), V(self.pick(DIMS)), M(self.pick(DIMS), self.pick(DIMS))])
            spec.append((f"a{j}", kind))
        if self.chance(0.3):
            spec.insert(self.r.randrange(len(spec) + 1), (f"a{nargs}", ('i',)))
        extra = []
        if self.chance(0.35):
            extra.append(('n', ('i',), str(self.r.randrange(1, 4))))
        if self.chance(0.3):
            extra.append(('alpha', S(), self.const()))
        env = {k: v for k, v in spec}
        for nm, kd, _ in extra:
            env[nm] = kd
        self.lines = []
        body_budget = 2
        self.emit(1, f"t0 = {self.expr(env, S(), 2)}")
        env['t0'] = S()
        nv = self.pick(DIMS)
        self.emit(1, f"v0 = {self.expr(env, V(nv), 2)}")
        env['v0'] = V(nv)
        for _ in range(self.r.randrange(3, 10)):
            self.stmt(env, 1, 3, body_budget, top=True)
        self.emit(1, f"return {self.final(env, 2)}")
        sig = ', '.join([k for k, _ in spec] + [f"{nm}={dv}" for nm, _, dv in extra])
        body = '\n'.join(self.lines)
        src = "import math\nimport numpy as np\n\n\n" + '\n\n\n'.join(self.helpers + [f"def f({sig}):\n{body}"]) + "\n"
        return src, spec, extra




def gen_program(seed):
    return Gen(seed).program()


if __name__ == '__main__':
    import sys
    for arg in sys.argv[1:]:
        print(gen_program(int(arg))[0])
