"""gen7 loop statements: recurrences in buffers, nested loops with break/continue, early returns in
loops, while loops on array norms, conditional appends, rows changed in place, swapped pairs, data-
dependent indices and masks, closures with nonlocal, recursion, dicts updated in a loop."""

from progen_gen7_exprs import DIMS, M, S, V


class Loops:
    def loop_stmt(self, env, ind, depth):
        c = self.r.randrange(14)
        sc = [k for k in self.vars_of(env, S()) if not k.startswith('a')]
        t = self.pick(sc) if sc else 't0'
        vs = [(k, v) for k, v in env.items() if v[0] == 'v' and '[' not in k]
        k, kv = self.pick(vs) if vs else ('v0', env['v0'])
        n = kv[1]
        ms = [(kk, v) for kk, v in env.items() if v[0] == 'm']
        e1 = self.expr(env, S(), 1)
        if c == 0:
            b = self.fresh('buf')
            self.emit(ind, f"{b} = np.zeros({n})")
            self.emit(ind, f"{b}[0] = {k}[0]")
            self.emit(ind, f"for i in range(1, {n}):")
            self.emit(ind + 1, f"{b}[i] = {b}[i - 1] * {self.pick(['0.5', 'np.tanh(' + e1 + ')'])} + {k}[i]")
            env[b] = V(n)
        elif c == 1 and ms:
            m, mk = self.pick(ms)
            self.emit(ind, f"for i in range({mk[1]}):")
            self.emit(ind + 1, f"for j in range({mk[2]}):")
            if self.chance(0.3):
                self.emit(ind + 2, f"if {m}[i, j] < {self.pick(['-1.0', '0.0'])}:")
                self.emit(ind + 3, self.pick(['continue', 'break']))
            self.emit(ind + 2, f"{t} = {t} + {m}[i, j] * {self.pick(['i', 'j', '0.5', e1])}")
        elif c == 2:
            self.emit(ind, f"for i in range(len({k})):")
            self.emit(ind + 1, f"if {k}[i] > {self.pick(['1.5', '2.0', '0.8'])}:")
            self.emit(ind + 2, f"return {k}[i] * {t}")
            self.emit(ind + 1, f"{t} = {t} + {k}[i] ** 2")
        elif c == 3:
            w = self.fresh('w')
            kk = self.fresh('k')
            self.emit(ind, f"{w} = {k} * 1.0")
            self.emit(ind, f"{kk} = 0")
            self.emit(ind, f"while np.max(np.abs({w})) > 0.5 and {kk} < 5:")
            self.emit(ind + 1, f"{w} = {w} * {self.pick(['0.7', '0.5'])} + 0.01 * {e1}")
            self.emit(ind + 1, f"{kk} += 1")
            env[w] = V(n)
        elif c == 4:
            lst = self.fresh('parts')
            self.emit(ind, f"{lst} = []")
            self.emit(ind, f"for i in range({n}):")
            self.emit(ind + 1, f"if {k}[i] > {self.pick(['0.0', '-0.5'])}:")
            self.emit(ind + 2, f"{lst}.append({k} * {k}[i])")
            self.emit(ind + 1, "else:")
            self.emit(ind + 2, f"{lst}.append(np.sin({k}))")
            out = self.fresh('t')
            self.emit(ind, f"{out} = {self.pick(['np.stack', 'np.array', 'np.vstack'])}({lst})")
            env[out] = M(n, n)
        elif c == 5 and ms:
            m, mk = self.pick(ms)
            cp = self.fresh('mc')
            self.emit(ind, f"{cp} = {m}.copy()")
            self.emit(ind, f"for row in {cp}:")
            self.emit(ind + 1, f"row *= {self.pick(['0.5', '2.0'])}")
            if self.chance(0.5):
                self.emit(ind + 1, f"row[0] += {e1}")
            env[cp] = mk
        elif c == 6:
            b = self.fresh('buf')
            self.emit(ind, f"{b} = {k}.copy()")
            self.emit(ind, f"for i in range(1, {n}):")
            self.emit(ind + 1, f"{b}[i] += {b}[i - 1] * {self.pick(['0.3', t])}")
            env[b] = V(n)
        elif c == 7:
            a, b = self.fresh('fa'), self.fresh('fb')
            self.emit(ind, f"{a}, {b} = {t}, {e1}")
            self.emit(ind, f"for _ in range({self.r.randrange(1, 5)}):")
            self.emit(ind + 1, f"{a}, {b} = {b}, 0.5 * {a} + 0.3 * {b}")
            env[a] = S()
            env[b] = S()
        elif c == 8 and self.helper_sigs:
            self.emit(ind, f"for i in range({n}):")
            self.emit(ind + 1, f"{t} = {t} + {self.call_helper({**env, 'i': ('i',)}, S(), 2)}")
        elif c == 9 and ms:
            m, mk = self.pick(ms)
            out = self.fresh('o')
            self.emit(ind, f"{out} = np.zeros({mk[1]})")
            vv = self.vars_of(env, V(mk[2]))
            vec = self.pick(vv) if vv else f"np.ones({mk[2]})"
            self.emit(ind, f"for i, row in enumerate({m}):")
            self.emit(ind + 1, f"{out}[i] = np.dot(row, {vec})")
            env[out] = V(mk[1])
        elif c == 10:
            self.emit(ind, f"{t} = {t} + {k}[int(abs({e1})) % {n}]")
        elif c == 11:
            self.emit(ind, f"{t} = {t} + np.sum({k}[{k} > {t}])")
        elif c == 12:
            kk = self.fresh('cut')
            self.emit(ind, f"{kk} = int(np.clip(abs({e1}) * 2, 1, {n}))")
            self.emit(ind, f"{t} = {t} + np.sum({k}[:{kk}] ** 2)")
        else:
            m2 = self.fresh('mm')
            self.emit(ind, f"{m2} = np.outer({k}, {k})")
            self.emit(ind, f"for i in range({n}):")
            self.emit(ind + 1, f"{m2}[i, i] += {e1}")
            self.emit(ind + 1, f"{m2}[i, :] *= {self.pick(['0.5', '1.1'])}")
            env[m2] = M(n, n)

    def extra_stmt(self, env, ind, depth):
        c = self.r.randrange(12)
        sc = [k for k in self.vars_of(env, S()) if not k.startswith('a')]
        t = self.pick(sc) if sc else 't0'
        vs = [(k, v) for k, v in env.items() if v[0] == 'v' and '[' not in k]
        k, kv = self.pick(vs) if vs else ('v0', env['v0'])
        n = kv[1]
        if c == 0:
            out = self.fresh('t')
            self.emit(ind, f"{out} = [{self.expr({'e': S(), **env}, S(), 2).replace('EE', 'e')} for e in {k}]")
            self.emit(ind, f"{out} = np.array({out})")
            env[out] = V(n)   # may be wrong if expr ignores e: it's a list of scalars of len n either way
        elif c == 1:
            self.emit(ind, "while True:")
            self.emit(ind + 1, f"{t} = 0.7 * {t} + 0.1")
            self.emit(ind + 1, f"if {t} < 1.0:")
            self.emit(ind + 2, "break")
        elif c == 2:
            i = self.fresh('i')
            self.emit(ind, f"for {i} in range({n} - 1, -1, -1):")
            self.emit(ind + 1, f"{t} = {t} * 0.5 + {k}[{i}]")
        elif c == 3:
            i = self.fresh('i')
            self.emit(ind, f"for {i} in range(0, {n}, 2):")
            self.emit(ind + 1, f"{t} += {k}[{i}] * {self.expr(env, S(), 1)}")
        elif c == 4 and n >= 2:
            i = self.fresh('i')
            self.emit(ind, f"for {i} in range({n} - 1):")
            self.emit(ind + 1, f"{t} = {t} + ({k}[{i} + 1] - {k}[{i}]) ** 2")
        elif c == 5:
            nm = self.fresh('mb')
            r = self.pick(DIMS)
            self.emit(ind, f"{nm} = np.zeros(({r}, {n}))")
            i = self.fresh('i')
            self.emit(ind, f"for {i} in range({r}):")
            self.emit(ind + 1, f"{nm}[{i}] = {k} * ({i} + 1.0)" if self.chance(0.5) else f"{nm}[{i}, :] = np.sin({k} + {i})")
            if self.chance(0.5):
                self.emit(ind, f"{nm}[:, 0] += {self.expr(env, S(), 1)}")
            env[nm] = M(r, n)
        elif c == 6:
            nm = self.fresh('cnt')
            self.emit(ind, f"{nm} = 0.0")
            self.emit(ind, f"def {nm}_add(z):")
            self.emit(ind + 1, f"nonlocal {nm}")
            self.emit(ind + 1, f"{nm} = {nm} + z")
            self.emit(ind, f"for e in {k}:")
            self.emit(ind + 1, f"{nm}_add(e * e)")
            env[nm] = S()
        elif c == 7:
            nm = self.fresh('rec')
            self.emit(ind, f"def {nm}(z, depth):")
            self.emit(ind + 1, "if depth == 0:")
            self.emit(ind + 2, "return z")
            self.emit(ind + 1, f"return {nm}(np.sin(z) + 0.5 * z, depth - 1)")
            out = self.fresh('t')
            self.emit(ind, f"{out} = {nm}({t}, {self.r.randrange(1, 4)})")
            env[out] = S()
        elif c == 8:
            nm = self.fresh('m')
            self.emit(ind, f"{nm} = {k}.copy()")
            self.emit(ind, f"{nm}[::2] *= {self.expr(env, S(), 1)}")
            if self.chance(0.5):
                self.emit(ind, f"{nm}[{nm} < 0] = 0.0")
            if self.chance(0.5):
                self.emit(ind, f"{nm}[np.argmax({nm})] += 1.0")
            env[nm] = V(n)
        elif c == 9:
            nm = self.fresh('d')
            self.emit(ind, f"{nm} = {{'s': {t}, 'v': {k}}}")
            self.emit(ind, f"{nm}['s'] += np.sum({nm}['v'])")
            self.emit(ind, "for key in ['s', 'v']:")
            self.emit(ind + 1, f"{nm}[key] = {nm}[key] * 0.5")
            out = self.fresh('t')
            self.emit(ind, f"{out} = {nm}['s'] + np.sum({nm}['v'])")
            env[out] = S()
        elif c == 10:
            out = self.fresh('t')
            self.emit(ind, f"{out} = 0.0")
            self.emit(ind, f"for j, (e1, e2) in enumerate(zip({k}, {k}[::-1])):")
            self.emit(ind + 1, f"{out} += (j + 1) * e1 * e2")
            env[out] = S()
        else:
            out = self.fresh('t')
            self.emit(ind, f"assert {k}.shape == ({n},)")
            self.emit(ind, f"{out} = np.sum({k} ** 2) if {k}.shape[0] > 1 else {t}")
            env[out] = S()
