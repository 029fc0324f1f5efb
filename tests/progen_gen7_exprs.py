"""gen7 expressions: random NumPy expressions of a given kind over the variables in scope.

Kinds: ('s',) float scalar, ('v', n) 1-D float array, ('m', r, c) 2-D float array, ('i',) int.
"""

import random
import re

SIMPLE = re.compile(r'[\w.]+(\[[^\]\[]*\])?|-?\d+(\.\d+)?')

DIMS = (2, 3, 4)


def S():
    return ('s',)


def V(n):
    return ('v', n)


def M(r, c):
    return ('m', r, c)


class Exprs:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.n = 0
        self.lines = []
        self.helpers = []
        self.helper_sigs = []      # (name, argkinds, retkind)

    # -- utilities -------------------------------------------------------
    def fresh(self, base='t'):
        self.n += 1
        return f"{base}{self.n}"

    def pick(self, seq):
        return self.r.choice(list(seq))

    def chance(self, p):
        return self.r.random() < p

    def const(self):
        return self.pick(['0.5', '1.5', '2.0', '0.3', '-0.7', '1.0', '3.0', '0.25'])

    def vars_of(self, env, kind):
        return [k for k, v in env.items() if v == kind]

    def any_kind(self, env):
        return self.pick(list(env.values()))

    # -- positive-valued wrappers ---------------------------------------
    def positive(self, e, kind):
        c = self.r.randrange(4)
        if c == 0:
            return f"({e}) ** 2 + 0.5"
        if c == 1:
            return f"np.abs({e}) + 1.0"
        if c == 2:
            return f"np.exp(np.tanh({e}))"
        return f"(1.0 + np.square({e}))"

    # -- expressions ---------------------------------------------------
    def expr(self, env, kind, d):
        e = self._expr(env, kind, d)
        if SIMPLE.fullmatch(e):
            return e
        return f"({e})"

    def _expr(self, env, kind, d):
        if d <= 0 or self.chance(0.2):
            return self.leaf(env, kind)
        t = kind[0]
        if t == 's':
            return self.scalar_expr(env, d)
        if t == 'v':
            return self.vec_expr(env, kind[1], d)
        if t == 'm':
            return self.mat_expr(env, kind[1], kind[2], d)
        return self.leaf(env, kind)

    def leaf(self, env, kind):
        cands = self.vars_of(env, kind)
        if cands and self.chance(0.9):
            recent = [c for c in cands if c not in ('alpha',)]
            return self.pick(recent or cands)
        if kind == S():
            arrs = [k for k, v in env.items() if v[0] == 'v' and '[' not in k]
            if arrs and self.chance(0.6):
                k = self.pick(arrs)
                return k + '[' + str(self.r.randrange(env[k][1])) + ']'
        t = kind[0]
        if t == 's':
            if self.chance(0.5):
                vs = [k for k, v in env.items() if v[0] in 'vm']
                if vs:
                    return f"np.sum({self.pick(vs)})"
            return self.const()
        if t == 'v':
            n = kind[1]
            mats = [(k, v) for k, v in env.items() if v[0] == 'm' and (v[1] == n or v[2] == n)]
            if mats and self.chance(0.5):
                k, v = self.pick(mats)
                if v[2] == n:
                    return f"{k}[{self.r.randrange(v[1])}]"
                return f"{k}[:, {self.r.randrange(v[2])}]"
            sc = self.vars_of(env, S())
            if sc and self.chance(0.5):
                return f"{self.pick(sc)} * np.ones({n})"
            return f"np.linspace(-1.0, 1.0, {n})"
        if t == 'm':
            r, c = kind[1], kind[2]
            vr, vc = self.vars_of(env, V(r)), self.vars_of(env, V(c))
            if vr and vc:
                return f"np.outer({self.pick(vr)}, {self.pick(vc)})"
            return f"np.arange({r * c}, dtype=float).reshape({r}, {c}) / {r * c}"
        if t == 'i':
            return str(self.r.randrange(1, 4))

    def unary(self, e, kind):
        c = self.r.randrange(17)
        if c == 0:
            return f"np.sin({e})"
        if c == 1:
            return f"np.cos({e})"
        if c == 2:
            return f"np.exp(0.3 * np.tanh({e}))" if self.chance(0.5) else f"np.exp(-np.square({e}))"
        if c == 3:
            return f"np.log({self.positive(e, kind)})"
        if c == 4:
            return f"np.tanh({e})"
        if c == 5:
            return f"np.sqrt({self.positive(e, kind)})"
        if c == 6:
            return f"np.abs({e})"
        if c == 7:
            return f"np.square({e})"
        if c == 8:
            return f"({e}) ** {self.pick(['2', '3', '2.0'])}"
        if c == 9:
            return f"np.power({self.positive(e, kind)}, {self.pick(['1.5', '0.5', '-1', '2'])})"
        if c == 10:
            return f"np.maximum({e}, {self.pick(['0.0', '-0.5', '0.2'])})"
        if c == 11:
            return f"np.minimum({e}, {self.pick(['1.0', '0.5'])})"
        if c == 12:
            return f"np.clip({e}, -1.0, 1.0)"
        if c == 13:
            return f"np.where({e} > 0, {e}, 0.1 * {e})"
        if c == 14:
            return f"-{e}" if self.chance(0.5) else f"(1.0 / (1.0 + np.exp(-({e}))))"
        if c == 15:
            return f"np.log1p(np.square({e}))" if self.chance(0.5) else f"np.arctan({e})"
        return f"np.expm1(0.2 * {e})" if kind[0] != 'i' else e

    def binop(self, a, b):
        op = self.pick(['+', '-', '*', '*', '+', '/'])
        if op == '/':
            return f"({a}) / (1.0 + ({b}) ** 2)"
        return f"({a} {op} {b})"

    def scalar_expr(self, env, d):
        c = self.r.randrange(16)
        if c in (0, 1):
            return self.unary(self.expr(env, S(), d - 1), S())
        if c in (2, 3):
            return self.binop(self.expr(env, S(), d - 1), self.expr(env, S(), d - 1))
        arrs = [v for v in env.values() if v[0] in 'vm']
        if c in (4, 5, 6) and arrs:
            k = self.pick(arrs)
            e = self.expr(env, k, d - 1)
            red = self.pick(['np.sum', 'np.mean', 'np.max', 'np.min', 'np.std', 'np.var', 'np.prod', 'SUMM',
                             'MEANM', 'np.linalg.norm'])
            if red == 'np.prod':
                return f"np.prod(np.tanh({e}) + 1.5)"
            if red == 'SUMM':
                return f"({e}).sum()"
            if red == 'MEANM':
                return f"({e}).mean()"
            if red == 'np.std':
                return f"np.std({e} + np.linspace(0.0, 1.0, {_size(k)}).reshape({_shape(k)}))"
            if red == 'np.linalg.norm':
                return f"np.linalg.norm({e} + 0.5)"
            return f"{red}({e})"
        if c == 7:
            n = self.pick(DIMS)
            a, b = self.expr(env, V(n), d - 1), self.expr(env, V(n), d - 1)
            return self.pick([f"np.dot({a}, {b})", f"({a}) @ ({b})", f"np.einsum('i,i->', {a}, {b})",
                              f"np.vdot({a}, {b})", f"np.inner({a}, {b})"])
        if c == 8:
            vs = [(k, v) for k, v in env.items() if v[0] == 'v']
            if vs:
                k, v = self.pick(vs)
                i = self.r.randrange(-v[1], v[1])
                return f"{k}[{i}]"
            ms = [(k, v) for k, v in env.items() if v[0] == 'm']
            if ms:
                k, v = self.pick(ms)
                return f"{k}[{self.r.randrange(v[1])}, {self.r.randrange(v[2])}]"
        if c == 9:
            a, b = self.expr(env, S(), d - 1), self.expr(env, S(), d - 1)
            return self.pick([f"max({a}, {b})", f"min({a}, {b})", f"abs({a})", f"np.maximum({a}, {b})",
                              f"({a} if {a} > {b} else {b})"])
        if c == 10:
            a = self.expr(env, S(), d - 1)
            fn = self.pick(['math.sin', 'math.cos', 'math.tanh', 'MLOG', 'MSQRT', 'math.exp', 'MPOW'])
            if fn == 'MLOG':
                return f"math.log(1.0 + ({a}) ** 2)"
            if fn == 'MSQRT':
                return f"math.sqrt(({a}) ** 2 + 1.0)"
            if fn == 'MPOW':
                return f"math.pow(abs({a}) + 1.0, 1.5)"
            if fn == 'math.exp':
                return f"math.exp(math.tanh({a}))"
            return f"{fn}({a})"
        if c == 11 and self.helper_sigs:
            return self.call_helper(env, S(), d)
        if c == 12:
            ms = [v for v in env.values() if v[0] == 'm']
            if ms:
                k = self.pick(ms)
                e = self.expr(env, k, d - 1)
                return self.pick([f"np.trace({e} @ ({e}).T)", f"np.sum(np.diag({e}))" if k[1] == k[2]
                                  else f"np.sum(({e})[0])", f"np.max(np.sum({e}, axis=1))"])
        if c == 13:
            ints = self.vars_of(env, ('i',))
            if ints:
                return f"{self.expr(env, S(), d - 1)} * {self.pick(ints)}"
            vs = [k for k, v in env.items() if v[0] == 'v']
            if vs:
                return f"{self.expr(env, S(), d - 1)} / len({self.pick(vs)})"
        if c == 14:
            vs = [(k, v) for k, v in env.items() if v[0] == 'v']
            if vs:
                k, v = self.pick(vs)
                return self.pick([f"sum({k})", f"max({k})", f"min({k})", f"sum(e * e for e in {k})",
                                  f"float(np.sum({k}))" if False else f"np.sum({k} ** 2)"])
        if c == 15 or (c in (12, 13, 14) and self.chance(0.5)):
            return self.extra_scalar(env, d)
        return self.binop(self.expr(env, S(), d - 1), self.const())

    def extra_scalar(self, env, d):
        n = self.pick(DIMS)
        v = self.expr(env, V(n), d - 1)
        s = self.expr(env, S(), d - 1)
        r, c = self.pick(DIMS), self.pick(DIMS)
        m = self.expr(env, M(r, c), d - 1)
        return self.pick([
            f"np.sum({v}[{v} > 0])", f"{v}[np.argmax({v})]", f"np.max({v}) - np.min({v})",
            f"np.log(np.sum(np.exp({v})))", f"np.sum(np.sort({v})[:2])", f"float({s})", f"np.float64({s})",
            f"sum([np.sin(e) for e in {v}])", f"sum({v}[j] * {v}[j] for j in range(len({v})))",
            f"np.sum(np.linalg.norm({m}, axis=1))", f"np.einsum('ij,ij->', {m}, {m})",
            f"np.sum(np.logaddexp({v}, 0.0))", f"np.hypot({s}, 1.0)", f"np.arctan2({s}, 2.0)",
            f"np.sinh(np.tanh({s}))", f"np.cosh(np.tanh({s}))", f"np.log2(1.0 + {s} ** 2)", f"np.log10(2.0 + np.sin({s}))",
            f"np.std({v}, ddof=1)" if n > 1 else f"np.std({v})", f"np.sum(np.cumprod(np.tanh({v})))",
            f"np.mean({m}, axis=(0, 1))", f"np.sum({m}, axis=-1)[0]", f"np.sum(np.abs({v}) ** 0.5 + 0.0 * {v})",
            f"({s}) * math.pi", f"np.sign({s}) * {s}", f"np.floor(np.sum({v})) + {s}", f"np.sum(np.triu({m}))",
            f"np.sum(np.diag({v}) @ {v})", f"np.sum(np.tile({v}, 2))", f"np.sum(np.repeat({v}, 2) ** 2)",
            f"np.sum(np.hstack([{v}, {v}]) ** 2)", f"np.sum(np.vstack([{v}, {v}]) ** 3)", f"np.sum(({v})[None, :] * ({v})[:, None])",
            f"np.sum(np.expand_dims({v}, 0) ** 2)", f"np.sum(np.squeeze(({v}).reshape(1, {n})))", f"({v}).dot({v})",
            f"np.asarray({s}) * 2.0", f"np.sum(np.reciprocal(1.0 + {v} ** 2))", f"np.mean(({v}) ** 2) ** 0.5",
            f"np.sum(np.exp({v} - np.max({v})) / np.sum(np.exp({v} - np.max({v}))) * {v})",
            f"np.prod({v} ** 2 + 1.0)", f"np.sum(np.column_stack([{v}, {v}]) ** 2)", f"np.sum(sorted({v}))",
            f"np.dot({m}.ravel(), {m}.ravel())", f"np.sum(np.sum({m}, axis=0, keepdims=True) * {m})",
            f"({v}).sum() / ({v}).size", f"np.sum(np.exp2(np.tanh({v})))", f"({m}).max()",
            f"np.sum(np.where({v} > 0, np.sqrt(np.abs({v}) + 1.0), np.exp(np.tanh({v}))))",
            f"np.nansum({v})", f"np.average({v})", f"np.sum(np.round({v}) * {v})", f"np.median({v})",
            f"np.linalg.det(np.eye({n}) + 0.1 * np.outer({v}, {v}))",
            f"np.sum(np.linalg.inv(np.eye({n}) * 2.0 + 0.1 * np.outer({v}, {v})))",
            f"np.sum(np.linalg.solve(np.eye({n}) * 2.0 + 0.1 * np.outer({v}, {v}), {v}))",
            f"np.sum(np.maximum({v}, {s}))", f"np.amax({v})", f"np.sum(np.fmax({v}, 0.1))",
            f"np.sum(np.diff({v}) ** 2)" if n > 1 else f"np.sum({v})",
        ])

    def vec_expr(self, env, n, d):
        c = self.r.randrange(18)
        if c in (0, 1, 2):
            return self.unary(self.expr(env, V(n), d - 1), V(n))
        if c in (3, 4):
            other = S() if self.chance(0.3) else V(n)
            a, b = self.expr(env, V(n), d - 1), self.expr(env, other, d - 1)
            return self.binop(a, b) if self.chance(0.5) else self.binop(b, a)
        if c == 5:
            k = self.pick(DIMS)
            m = self.expr(env, M(n, k), d - 1)
            v = self.expr(env, V(k), d - 1)
            return self.pick([f"{m} @ {v}", f"np.dot({m}, {v})", f"np.matmul({m}, {v})",
                              f"np.einsum('ij,j->i', {m}, {v})"])
        if c == 6:
            k = self.pick(DIMS)
            m = self.expr(env, M(k, n), d - 1)
            v = self.expr(env, V(k), d - 1)
            return self.pick([f"{v} @ {m}", f"({m}).T @ {v}", f"np.einsum('i,ij->j', {v}, {m})"])
        if c == 7:
            k = self.pick(DIMS)
            ax = self.r.randrange(2)
            m = self.expr(env, M(n, k) if ax == 1 else M(k, n), d - 1)
            red = self.pick(['np.sum', 'np.mean', 'np.max', 'np.min', 'np.var'])
            if self.chance(0.3):
                return f"{red}({m}, axis={ax}, keepdims=True).reshape({n})"
            return f"{red}({m}, axis={ax})" if self.chance(0.7) else f"({m}).{red[3:]}(axis={ax})"
        if c == 8:
            longer = [(k, v) for k, v in env.items() if v[0] == 'v' and v[1] > n]
            if longer:
                k, v = self.pick(longer)
                a = self.r.randrange(v[1] - n + 1)
                return f"{k}[{a}:{a + n}]"
            vs = self.vars_of(env, V(n))
            if vs:
                return self.pick([f"{self.pick(vs)}[::-1]", f"np.flip({self.pick(vs)})",
                                  f"np.roll({self.pick(vs)}, 1)"])
        if c == 9 and n >= 2:
            a = self.r.randrange(1, n)
            return f"np.concatenate([{self.expr(env, V(a), d - 1)}, {self.expr(env, V(n - a), d - 1)}])"
        if c == 10:
            src = [(k, v) for k, v in env.items() if v[0] == 'v']
            if src:
                k, v = self.pick(src)
                idx = [self.r.randrange(v[1]) for _ in range(n)]
                if self.chance(0.5):
                    return f"{k}[{idx}]"
                return f"{k}[np.array({idx})]"
        if c == 11:
            e = self.expr(env, V(n), d - 1)
            return self.pick([f"np.cumsum({e})", f"np.sort({e})", f"np.tanh({e}) * {self.expr(env, S(), d - 1)}",
                              f"np.where({e} > 0.1, {e}, {self.expr(env, S(), d - 1)})"])
        if c == 12:
            items = [self.expr(env, S(), d - 2) for _ in range(n)]
            return f"np.array([{', '.join(items)}])"
        if c == 13:
            if n == 4 and self.chance(0.5):
                return f"{self.expr(env, M(2, 2), d - 1)}.reshape(-1)"
            r_ = [(k, v) for k, v in env.items() if v[0] == 'm' and v[1] * v[2] == n]
            if r_:
                return f"{self.pick(r_)[0]}.ravel()"
        if c == 14 and self.helper_sigs:
            return self.call_helper(env, V(n), d)
        if c == 15:
            e = self.expr(env, V(n), d - 1)
            return f"np.stack([{e}, {self.expr(env, V(n), d - 1)}]).sum(axis=0)"
        if c == 16:
            e = self.expr(env, V(n), d - 1)
            return f"({e}) / (np.sum(np.abs({e})) + 1.0)"
        return self.binop(self.expr(env, V(n), d - 1), self.const())

    def mat_expr(self, env, r, c, d):
        k = self.r.randrange(11)
        if k in (0, 1):
            return self.unary(self.expr(env, M(r, c), d - 1), M(r, c))
        if k in (2, 3):
            other = self.pick([S(), V(c), M(r, c), M(r, c)])
            a, b = self.expr(env, M(r, c), d - 1), self.expr(env, other, d - 1)
            return self.binop(a, b)
        if k == 4:
            return f"np.outer({self.expr(env, V(r), d - 1)}, {self.expr(env, V(c), d - 1)})"
        if k == 5:
            return f"({self.expr(env, M(c, r), d - 1)}).T"
        if k == 6:
            j = self.pick(DIMS)
            a, b = self.expr(env, M(r, j), d - 1), self.expr(env, M(j, c), d - 1)
            return self.pick([f"{a} @ {b}", f"np.dot({a}, {b})", f"np.einsum('ij,jk->ik', {a}, {b})"])
        if k == 7:
            return f"{self.expr(env, V(r * c), d - 1)}.reshape({r}, {c})" if r * c <= 4 else \
                f"({self.expr(env, V(r), d - 1)})[:, None] * ({self.expr(env, V(c), d - 1)})[None, :]"
        if k == 8 and r == 2:
            return f"np.stack([{self.expr(env, V(c), d - 1)}, {self.expr(env, V(c), d - 1)}])"
        if k == 9:
            return f"np.transpose({self.expr(env, M(c, r), d - 1)})"
        return self.binop(self.expr(env, M(r, c), d - 1), self.const())

    def call_helper(self, env, kind, d):
        fits = [h for h in self.helper_sigs if h[2] == kind]
        if not fits:
            return self.leaf(env, kind)
        name, argk, _, kw = self.pick(fits)
        args = [self.expr(env, a, d - 2) for a in argk]
        if kw and self.chance(0.5):
            args.append(f"{kw}={self.const()}")
        return f"{name}({', '.join(args)})"

    # -- conditions ------------------------------------------------------
    def cond(self, env):
        k = self.any_kind(env)
        if k[0] == 'i':
            k = S()
        e = self.expr(env, k, 1)
        if k[0] != 's':
            e = self.pick([f"np.sum({e})", f"np.mean({e})", f"np.max({e})", f"({e})[0]" if k[0] == 'v'
                           else f"np.sum({e})"])
        c = f"{e} > {self.pick(['0.0', '0.5', '-0.3', '1.0'])}"
        if self.chance(0.15):
            c = f"{c} and {self.cond_simple(env)}"
        elif self.chance(0.1):
            c = f"not ({c})"
        return c

    def cond_simple(self, env):
        sc = self.vars_of(env, S())
        if sc:
            return f"{self.pick(sc)} < 2.0"
        return "True"


def _size(k):
    if k[0] == 'v':
        return k[1]
    return k[1] * k[2]


def _shape(k):
    return str(k[1]) if k[0] == 'v' else f"{k[1]}, {k[2]}"

