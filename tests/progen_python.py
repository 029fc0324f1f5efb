"""Random programs written the way users write Python (test_python_programs.py runs them): the constructs
test_random_programs.py's generator does not write.

Gen(seed).program() -> module source with `def f(x, v, M)`:
  x: Python float, v: ndarray (3,), M: ndarray (3, 3).
State kept by every program: y (scalar), a (fresh (3,) array), ls (list of scalars, length tracked),
d (dict with keys 'p' scalar and 'q' (3,) array), optional o (object of class Acc), optional nt (namedtuple).
Statements: list mutation (append/pop/insert/extend/del/slice assign/reverse/aliases), array aliasing and
overlapping in-place updates, dict mutation/aliasing, closures reading later-rebound variables, late-binding
lambdas, nested loops with break/continue/return/for-else, data-dependent while loops, zip/enumerate/reversed/
sorted/dict items, tuple unpacking, augmented assignment on subscripts/attributes, classes with mutating
methods/properties/staticmethods/class attributes, namedtuples, try/except/else/finally, conditional
expressions, comprehensions with conditions, int/bool arithmetic mixed with floats, data-dependent integer
indices, builtins min/max/abs/sum/sorted/round/len, math module, NumPy on scalars and arrays, walrus, match,
module globals, generator functions, *args/**kwargs helpers, recursion, functools.reduce/partial.
"""

import random

PRELUDE = '''import functools
import math
from collections import namedtuple

import numpy as np

SCALE = 0.7
COEF = [0.3, -0.2, 0.5]
Pair = namedtuple("Pair", "u w")


class Acc:
    rate = 0.5

    def __init__(self, w, b):
        self.w = w
        self.b = b
        self.hist = []

    def step(self, t):
        self.b = self.b * 0.8 + self.rate * np.tanh(t)
        self.hist.append(self.b)
        return self

    def push(self, t):
        self.w = self.w + 0.1 * t

    def bump(self, i, t):
        self.w[i] += t

    @property
    def total(self):
        return np.sum(self.w) * 0.1 + self.b + sum(self.hist) * 0.1

    @staticmethod
    def act(t):
        return np.tanh(t)

    def __call__(self, t):
        return self.act(t * self.b + 0.1)


def gen_scaled(seq, c):
    for t in seq:
        yield t * c


def rec(t, n):
    if n == 0:
        return t
    return rec(np.sin(t) * 0.9 + 0.05, n - 1)


def kw_helper(t, *rest, k=0.5, **kw):
    out = t * k
    for r in rest:
        out = out + 0.1 * r
    return out + kw.get("b", 0.0)


def first_above(seq, thr):
    for i, t in enumerate(seq):
        if t > thr:
            return i, t
    return -1, 0.0


def fill_list(out, t, n):
    for i in range(n):
        out.append(np.sin(t * (i + 1)))


'''


class Ctx:
    def __init__(self, ind=1, loop=False, top=True, scal=(), ints=(), frozen=(), infn=True, depth=0):
        self.ind, self.loop, self.top = ind, loop, top
        self.scal, self.ints, self.frozen = list(scal), list(ints), set(frozen)
        self.infn, self.depth = infn, depth

    def sub(self, **kw):
        c = Ctx(self.ind + 1, self.loop, False, self.scal, self.ints, self.frozen, self.infn, self.depth + 1)
        for k, v in kw.items():
            setattr(c, k, v)
        return c

    @property
    def pad(self):
        return "    " * self.ind


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.n = 0
        self.lslen = 3          # exact length of ls at top level
        self.has_o = False
        self.has_nt = False
        self.closures = []      # (name, arity) usable
        self.tags = set()

    def nm(self, p="t"):
        self.n += 1
        return f"{p}{self.n}"

    def thr(self):
        return f"{self.r.uniform(-0.6, 0.6):.3f}"

    # ---------------- expressions ----------------
    def leaf(self, c):
        r = self.r
        opts = ["x", "y", "y", f"v[{r.randrange(-3, 3)}]", f"a[{r.randrange(-3, 3)}]",
                f"M[{r.randrange(3)}, {r.randrange(3)}]", f"ls[{r.randrange(-3, 3)}]", "d['p']",
                f"d['q'][{r.randrange(3)}]", f"{r.uniform(-1, 1):.2f}", "SCALE", f"COEF[{r.randrange(3)}]"]
        if self.has_o:
            opts += ["o.b", f"o.w[{r.randrange(3)}]"]
        if self.has_nt:
            opts += ["nt.u", "nt[1]"]
        opts += c.scal * 3
        opts += [f"(0.1 * {i})" for i in c.ints]
        return r.choice(opts)

    def se(self, c, d=0):
        """scalar expression, magnitude O(1)"""
        r = self.r
        if d >= 2 or r.random() < 0.3:
            return self.leaf(c)
        k = r.randrange(40)
        e = lambda: self.se(c, d + 1)  # noqa
        if k < 4:
            return f"({e()} {r.choice(['+', '-', '*'])} {e()})"
        if k < 6:
            return f"({e()} / (1.5 + {e()} ** 2))"
        if k == 6:
            return f"math.{r.choice(['sin', 'cos', 'tanh', 'atan'])}({e()})"
        if k == 7:
            return f"math.exp(math.tanh({e()}))"
        if k == 8:
            return f"math.log(1.5 + math.tanh({e()}))"
        if k == 9:
            return f"math.sqrt(1.0 + {e()} ** 2)"
        if k == 10:
            return f"math.hypot({e()}, 0.5)"
        if k == 11:
            return f"math.atan2({e()}, 1.5 + {e()} ** 2)"
        if k == 12:
            return f"abs({e()})"
        if k == 13:
            return f"{r.choice(['max', 'min'])}({e()}, {e()}{', ' + e() if r.random() < 0.3 else ''})"
        if k == 14:
            return f"({e()} if {self.cond(c)} else {e()})"
        if k == 15:
            return f"(({e()} > {self.thr()}) * {e()})"
        if k == 16:
            return f"(int({e()} > {self.thr()}) + {e()})"
        if k == 17:
            return f"np.{r.choice(['sin', 'tanh', 'cos', 'arctan'])}({e()})"
        if k == 18:
            return f"float({e()})"
        if k == 19:
            return f"np.float64({e()})"
        if k == 20:
            return f"sum(ls) * {r.choice(['0.2', '0.1'])}"
        if k == 21:
            return f"np.sum({self.ae(c, d + 1)}) * 0.3"
        if k == 22:
            return f"({self.ae(c, d + 1)} @ v) * 0.2"
        if k == 23:
            return f"np.linalg.norm({self.ae(c, d + 1)})"
        if k == 24:
            return f"{r.choice(['max', 'min'])}(ls)"
        if k == 25:
            return f"sum(t * 0.5 for t in ls if t > {self.thr()})"
        if k == 26:
            return f"len(ls) * 0.1 * {e()}"
        if k == 27:
            return "math.fsum(ls) * 0.2"
        if k == 28:
            return "functools.reduce(lambda p, q: p * 0.5 + q, ls)"
        if k == 29:
            return f"sorted(ls)[{r.choice([0, -1, 1])}]"
        if k == 30:
            return "min(ls, key=abs)"
        if k == 31:
            return f"{self.ae(c, d + 1)}.{r.choice(['max', 'min', 'sum', 'mean'])}()"
        if k == 32:
            return "np.mean(ls)"
        if k == 33:
            return f"math.copysign({e()}, {self.thr()})"
        if k == 34:
            return f"(round({e()} * 3) * 0.1 + {e()})"
        if k == 35:
            return f"np.prod(np.tanh({self.ae(c, d + 1)}))"
        if k == 36:
            return f"{e()} ** 2"
        if k == 37:
            return f"a[int(np.argmax({self.ae(c, d + 1)}))]"
        if k == 38 and self.closures:
            g, ar = r.choice(self.closures)
            return f"{g}({', '.join(e() for _ in range(ar))})"
        return f"np.float64({e()}).item()" if r.random() < 0.3 else f"(-{e()})"

    def ae(self, c, d=0):
        """(3,) array expression"""
        r = self.r
        if d >= 2 or r.random() < 0.3:
            return r.choice(["a", "v", "a", "d['q']", "M[1]", "M[:, 0]"] + (["o.w"] if self.has_o else []))
        s = lambda: self.se(c, d + 1)  # noqa
        x = lambda: self.ae(c, d + 1)  # noqa
        k = r.randrange(36)
        forms = [
            lambda: f"(M @ {x()}) * 0.3", lambda: f"np.tanh({x()})", lambda: f"np.sin({x()} + {s()})",
            lambda: f"{x()}[::-1]", lambda: f"np.roll({x()}, {r.choice([1, -1, 2])})",
            lambda: f"np.cumsum({x()}) * 0.3", lambda: f"np.sort({x()})", lambda: f"np.clip({x()}, -0.5, 0.6)",
            lambda: f"np.where({x()} > {self.thr()}, {x()}, 0.1 * {x()})",
            lambda: f"np.concatenate([{x()}[1:], [{s()}]])", lambda: f"np.array([{s()}, {s()}, {s()}])",
            lambda: f"(M.T @ {x()}) * 0.3", lambda: f"np.maximum({x()}, {x()})",
            lambda: f"({x()} / (1.5 + {x()} ** 2))", lambda: f"np.exp(np.tanh({x()}))",
            lambda: f"np.linalg.solve(2.0 * np.eye(3) + 0.1 * M, {x()})",
            lambda: f"np.einsum('ij,j->i', M, {x()}) * 0.3", lambda: f"np.diff(np.concatenate([[0.0], {x()}]))",
            lambda: f"np.hypot({x()}, 0.5)", lambda: f"np.arctan2({x()}, 2.0)", lambda: f"np.logaddexp({x()}, {x()})",
            lambda: f"np.take({x()}, [2, 0, 1])", lambda: f"np.full(3, {s()})", lambda: f"np.ones(3) * {s()}",
            lambda: f"(np.zeros_like({x()}) + {s()})", lambda: f"np.abs({x()})", lambda: f"np.square({x()})",
            lambda: f"np.power(np.abs({x()}) + 0.5, 1.5)", lambda: f"({x()} * {s()})",
            lambda: "np.array(ls[:3]) * 0.5", lambda: "np.asarray([t * 0.5 for t in ls[-3:]])",
            lambda: f"np.stack([{x()}, {x()}]).sum(axis=0) * 0.5", lambda: f"{x()}.clip(-0.7, 0.7)",
            lambda: f"np.outer({x()}, v) @ np.array([0.1, 0.2, 0.3])", lambda: f"{x()}.copy()",
            lambda: f"np.dot(M, {x()}) * 0.2",
        ]
        return forms[k]()

    def cond(self, c):
        r = self.r
        k = r.randrange(16)
        s = lambda: self.se(c, 1)  # noqa
        if k < 4:
            return f"{s()} {r.choice(['>', '<'])} {self.thr()}"
        if k == 4:
            lo = r.uniform(-0.8, 0.0)
            return f"{lo:.3f} < {s()} < {lo + r.uniform(0.3, 1.0):.3f}"
        if k == 5:
            return f"a[{r.randrange(3)}] > a[{r.randrange(3)}] + {self.thr()}"
        if k == 6:
            return f"len(ls) > {r.randint(2, 5)}"
        if k == 7 and c.ints:
            return f"{r.choice(c.ints)} % 2 == {r.randrange(2)}"
        if k == 8:
            return f"not ({s()} > {self.thr()})"
        if k == 9:
            return f"{r.choice(['any', 'all'])}(t > {self.thr()} for t in ls)"
        if k == 10:
            return "isinstance(y, float)"
        if k == 11:
            return f"d.get('p', 0.0) > {self.thr()}"
        if k == 12:
            return f"'{r.choice(['p', 'z'])}' in d"
        if k == 13:
            return f"np.any(a > {self.thr()})"
        if k == 14:
            return f"({s()} > {self.thr()}) {r.choice(['and', 'or'])} ({s()} < {self.thr()})"
        return f"{s()} > {s()}"

    # ---------------- statements ----------------
    def block(self, L, c, n=None):
        n = n or self.r.choice([1, 1, 2, 2, 3])
        for _ in range(n):
            for _ in range(30):
                kinds = [("y", 8), ("arr", 6), ("alias", 4), ("lst", 6), ("lalias", 2), ("dct", 4), ("for", 5),
                         ("while", 3), ("if", 5), ("closure", 3), ("obj", 3), ("try", 3), ("comp", 3), ("intmix", 3),
                         ("unpack", 3), ("walrus", 1), ("match", 1), ("misc", 3), ("nested", 3), ("nt", 1)]
                k = self.r.choices([a for a, _ in kinds], [b for _, b in kinds])[0]
                if getattr(self, "s_" + k)(L, c) is not False:
                    self.tags.add(k)
                    break

    def emit(self, L, c, *lines):
        L.extend(c.pad + ln for ln in lines)

    def s_y(self, L, c):
        r = self.r
        e = self.se(c)
        form = r.choice(["y = np.tanh({e})", "y = 0.6 * y + 0.4 * math.sin({e})", "y += 0.2 * np.tanh({e})",
                         "y -= 0.1 * {e} / (1.0 + abs({e}))".replace("{e}", "{e}", 1), "y *= 0.5 + 0.4 * math.cos({e})",
                         "y = 0.5 * y + 0.3 * np.tanh({e})"])
        self.emit(L, c, form.format(e=e))

    def s_arr(self, L, c):
        r = self.r
        i = r.randrange(-3, 3)
        s = self.se(c, 1)
        forms = [f"a = np.tanh({self.ae(c)})", f"a[{i}] = np.tanh({s})", f"a[{i}] += 0.3 * np.tanh({s})",
                 "a[1:] += 0.5 * a[:-1]", "a[:-1] = a[1:] * 0.8", "a[:] = np.tanh(a[::-1] + 0.1)",
                 f"a[::-1] += 0.1 * {s}", "a *= 0.9", f"a[a > {self.thr()}] *= 0.5",
                 f"np.add(a, 0.1 * np.tanh({s}), out=a)", f"np.copyto(a, np.sin({self.ae(c, 1)}))",
                 f"a[[0, 2]] += 0.2 * np.tanh({s})", "a[[0, 0, 1]] += 0.2", f"a[...] = np.sin({self.ae(c, 1)})",
                 f"a.fill(np.tanh({s}))" if r.random() < 0.3 else "a -= 0.1 * a[::-1]",
                 "a = a.copy()", "a.sort()", f"a[1:] = np.tanh(a[1:] * {s})", "a[0], a[2] = a[2], a[0]",
                 f"a += np.array([0.1, {s} * 0.1, 0.0])", "a[:2] = a[1:] * 0.7"]
        self.emit(L, c, r.choice(forms))

    def s_alias(self, L, c):
        r = self.r
        b = self.nm("b")
        s = self.se(c, 1)
        k = r.randrange(16)
        if k == 0:
            self.emit(L, c, f"{b} = a", f"{b} += 0.2 * np.tanh({self.ae(c, 1)})")
        elif k == 1:
            self.emit(L, c, f"{b} = a[1:]", f"{b} *= 0.5 + 0.1 * np.tanh({s})")
        elif k == 2:
            self.emit(L, c, f"{b} = a[:2]", f"{b}[0] = np.tanh({s})", f"y += 0.1 * {b}[1]")
        elif k == 3:
            self.emit(L, c, f"{b} = a", "a = a * 0.5", f"{b}[0] += 0.3", f"y += 0.1 * {b}[0] + 0.1 * a[0]")
        elif k == 4:
            self.emit(L, c, f"{b} = M.copy()", f"{b}[{r.randrange(3)}, {r.randrange(3)}] += np.tanh({s})",
                      f"{b}[1] *= 0.5", f"a = np.tanh({b} @ a)")
        elif k == 5:
            self.emit(L, c, f"{b} = M[0]", f"y += 0.2 * np.tanh(np.sum({b} * a))")
        elif k == 6:
            self.emit(L, c, f"{b} = a[::-1]", f"{b}[0] -= 0.2 * np.tanh({s})", f"y += 0.1 * np.sum({b})")
        elif k == 7:
            self.emit(L, c, f"{b} = a.reshape(3, 1)", f"{b}[1, 0] = np.tanh({s})")
        elif k == 8:
            self.emit(L, c, f"{b} = np.stack([a, v])", f"{b}[:, 0] += 0.1", f"a = np.tanh({b}[0] + {b}[1])")
        elif k == 9:
            self.emit(L, c, f"{b} = a", f"a = np.tanh({self.ae(c, 1)})", f"y += 0.2 * np.sum({b})")
        elif k == 10:
            self.emit(L, c, f"{b} = [a, {self.ae(c, 1)}]", f"a[{r.randrange(3)}] += 0.3 * np.tanh({s})",
                      f"y += 0.2 * np.sum({b}[0] * {b}[1])")
        elif k == 11:
            self.emit(L, c, "d['q'] = a", f"a *= 0.8 + 0.1 * np.tanh({s})")
        elif k == 12:
            self.emit(L, c, "a = d['q']", f"d['q'][{r.randrange(3)}] -= 0.2 * np.tanh({s})")
        elif k == 13:
            self.emit(L, c, f"{b} = {{'u': a}}", f"{b}['u'] += 0.1 * np.tanh({s})", f"y += 0.1 * {b}['u'][0]")
        elif k == 14:
            self.emit(L, c, f"{b} = (a, y)", f"{b}[0][1] = np.tanh({s})", f"y = 0.5 * {b}[1] + 0.2 * a[1]")
        else:
            self.emit(L, c, f"{b} = a.T", f"{b} += 0.1", f"{b} = {b} * 2.0", f"y += 0.1 * np.sum({b}) + 0.1 * a[0]")

    def s_lst(self, L, c):
        r = self.r
        if "ls" in c.frozen:
            return False
        s = lambda: self.se(c, 1)  # noqa
        keep = [f"ls.append(np.tanh({s()}))\n{{p}}ls.pop(0)", f"ls.insert(0, np.tanh({s()}))\n{{p}}del ls[-1]",
                f"ls[1:3] = [np.tanh({s()}), np.sin({s()})]", "ls.reverse()",
                f"ls[{r.randrange(-3, 3)}] += 0.3 * np.tanh({s()})", f"ls[{r.randrange(-3, 3)}] *= 0.8",
                f"ls = ls[1:] + [np.tanh({s()})]", "ls[:] = [np.tanh(t + 0.1) for t in ls]",
                "ls = [np.tanh(t) * 0.9 for t in ls]", "ls[0], ls[-1] = ls[-1], ls[0]",
                f"ls.append(np.tanh({s()}))\n{{p}}del ls[{r.choice([0, 1, -1])}]",
                f"ls.insert(1, np.tanh({s()}))\n{{p}}ls.pop()", "ls.sort()",
                f"ls.extend([np.tanh({s()})])\n{{p}}ls = ls[-{{n}}:]",
                "ls[-1] = ls[0] * 0.5 + ls[-1] * 0.5"]
        grow = [f"ls.append(np.tanh({s()}))", f"ls.extend([np.tanh({s()}), np.sin({s()})])",
                f"ls += [np.tanh({s()})]", f"ls.insert({r.randrange(3)}, np.tanh({s()}))",
                f"fill_list(ls, {s()}, 2)"]
        shrink = ["ls.pop()", "ls.pop(1)", "del ls[0]", "del ls[1:2]", "ls = ls[:-1]", "ls.remove(ls[1])"]
        if c.top and self.lslen < 7 and r.random() < 0.4:
            form = r.choice(grow)
            self.lslen += 2 if ("extend" in form or "fill_list" in form) else 1
        elif c.top and self.lslen > 3 and r.random() < 0.5:
            form = r.choice(shrink)
            self.lslen -= 1
        else:
            form = r.choice(keep)
        n = self.lslen if c.top else 3
        self.emit(L, c, *form.replace('{p}', '').replace('{n}', str(n)).split("\n"))

    def s_lalias(self, L, c):
        r = self.r
        if "ls" in c.frozen:
            return False
        m = self.nm("m")
        k = r.randrange(4)
        if k == 0 and c.top and self.lslen < 7:
            self.emit(L, c, f"{m} = ls", f"{m}.append(np.tanh({self.se(c, 1)}))", "y += 0.1 * ls[-1]")
            self.lslen += 1
        elif k == 1:
            self.emit(L, c, f"{m} = ls[:]", f"{m}[0] = 5.0", f"y += 0.1 * ({m}[1] + ls[0])")
        elif k == 2:
            self.emit(L, c, f"{m} = [ls, [y, x]]", f"{m}[0][1] += 0.2 * x", f"{m}[1][0] = np.tanh({m}[1][0])",
                      f"y = {m}[1][0] + 0.1 * ls[1]")
        else:
            self.emit(L, c, f"{m} = list(ls)", f"{m}.pop()", f"y += 0.1 * sum({m})")

    def s_dct(self, L, c):
        r = self.r
        s = self.se(c, 1)
        forms = [f"d['p'] += 0.2 * np.tanh({s})", f"d['q'] = np.tanh(d['q'] + {s})", f"d.update(p=np.tanh({s}))",
                 f"d['q'][{r.randrange(3)}] *= 0.7", "d['q'] *= 0.9",
                 f"for k, val in d.items():\n{{p}}    y += 0.1 * np.sum(val)",  # noqa: F541,E501
                 f"d2 = d\n{{p}}d2['p'] = d2['p'] * 0.5 + 0.1 * {s}",
                 f"d['tmp'] = {s}\n{{p}}y += 0.1 * d.pop('tmp')", f"y += 0.1 * d.get('z', {s})",
                 f"d = {{k: np.tanh(val) for k, val in d.items()}}", "d.setdefault('p', 0.0)",  # noqa: F541,E501
                 f"d = dict(d, p=np.tanh({s}))", f"d['tmp'] = {s}\n{{p}}del d['tmp']",
                 f"for k in sorted(d):\n{{p}}    d[k] = d[k] * 0.9",  # noqa: F541,E501
                 f"dd = {{}}\n{{p}}for i, t in enumerate(ls):\n{{p}}    dd[f'k{{i}}'] = t * 0.5\n{{p}}y += 0.1 * sum(dd.values())"]  # noqa: F541,E501
        if self.has_nt and r.random() < 0.2:
            forms.append("nt = nt._replace(u=np.tanh(nt.u + y))")
        self.emit(L, c, *r.choice(forms).replace('{p}', '').split("\n"))

    def s_for(self, L, c):
        r = self.r
        if c.depth >= 2:
            return False
        k = r.randrange(11)
        body = c.sub(loop=True)
        t, i = self.nm("t"), self.nm("i")
        if k == 0:
            hdr = f"for {i} in range({r.randint(0, 4)}):"
            body.ints.append(i)
        elif k == 1:
            hdr = f"for {i}, {t} in enumerate(ls):"
            body.ints.append(i)
            body.scal.append(t)
            body.frozen.add("ls")
        elif k == 2:
            hdr = f"for {t} in reversed(ls):"
            body.scal.append(t)
            body.frozen.add("ls")
        elif k == 3:
            u = self.nm("u")
            hdr = f"for {t}, {u} in zip(ls, v):"
            body.scal += [t, u]
            body.frozen.add("ls")
        elif k == 4:
            hdr = f"for {t}, {i} in sorted(zip(v, range(3))):"
            body.scal.append(t)
            body.ints.append(i)
        elif k == 5:
            row = self.nm("row")
            hdr = f"for {row} in M:"
            body.scal.append(f"{row}[{r.randrange(3)}]")
        elif k == 6:
            hdr = f"for {t} in a:"
            body.scal.append(t)
        elif k == 7:
            hdr = f"for {i} in range(len(ls)):"
            body.ints.append(i)
            body.scal.append(f"ls[{i}]")
        elif k == 8:
            kk, val = self.nm("k"), self.nm("val")
            hdr = f"for {kk}, {val} in d.items():"
            body.scal.append(f"np.sum({val})")
            body.frozen.add("d")
        elif k == 9:
            hdr = f"for {i} in range({r.randint(1, 3)}, -1, -1):"
            body.ints.append(i)
        else:
            hdr = f"for {i}, ({t}, {self.nm('u')}) in enumerate(zip(v, a), start=1):"
            body.ints.append(i)
            body.scal.append(t)
        self.emit(L, c, hdr)
        self.block(L, body)
        if r.random() < 0.45:
            self.emit(L, body, f"if {self.cond(body)}:")
            inner = body.sub()
            j = r.random()
            if j < 0.4:
                self.emit(L, inner, "break")
            elif j < 0.7:
                self.emit(L, inner, "continue")
            else:
                self.emit(L, inner, f"return {self.final()}")
            if r.random() < 0.4:
                self.s_y(L, body)
        if r.random() < 0.15:
            self.emit(L, c, "else:")
            self.s_y(L, c.sub())

    def s_nested(self, L, c):
        """two nested loops with break/continue/return in the inner one"""
        if c.depth >= 1:
            return False
        r = self.r
        i, j = self.nm("i"), self.nm("j")
        self.emit(L, c, f"for {i} in range({r.randint(1, 3)}):")
        b1 = c.sub(loop=True)
        b1.ints.append(i)
        self.emit(L, b1, f"for {j} in range({r.randint(1, 3)}):")
        b2 = b1.sub()
        b2.ints.append(j)
        self.emit(L, b2, f"y = 0.7 * y + 0.3 * np.tanh({self.se(b2, 1)} + 0.1 * {j} - 0.05 * {i})")
        self.emit(L, b2, f"if {self.cond(b2)}:")
        self.emit(L, b2.sub(), r.choice(["break", "continue", f"return {self.final()}"]))
        self.block(L, b2, 1)
        if r.random() < 0.5:
            self.emit(L, b1, f"if {self.cond(b1)}:")
            self.emit(L, b1.sub(), r.choice(["break", "continue", f"return {self.final()}"]))
        self.s_arr(L, b1)

    def s_while(self, L, c):
        if c.depth >= 2:
            return False
        r = self.r
        n = self.nm("n")
        k = r.randrange(4)
        body = c.sub(loop=True)
        body.ints.append(n)
        if k == 0:
            self.emit(L, c, f"{n} = 0", f"while y < {r.uniform(0.2, 1.5):.3f} and {n} < {r.randint(1, 6)}:")
            self.emit(L, body, f"y = y + 0.25 + 0.1 * math.sin({self.se(body, 1)})", f"{n} += 1")
        elif k == 1:
            self.emit(L, c, f"{n} = 0", "while True:")
            self.emit(L, body, f"{n} += 1", f"y = 0.8 * y + 0.2 * np.tanh({self.se(body, 1)})")
            self.block(L, body, 1)
            self.emit(L, body, f"if {n} >= {r.randint(1, 4)} or {self.cond(body)}:", "    break")
            return
        elif k == 2:
            z = self.nm("z")
            self.emit(L, c, f"{z} = abs({self.se(c, 1)}) + 0.1", f"{n} = 0",
                      f"while {z} < 2.0:")
            self.emit(L, body, f"{z} = {z} * 1.7 + 0.05", f"{n} += 1", f"y += 0.1 * np.tanh({z})")
        else:
            self.emit(L, c, f"{n} = {r.randint(1, 4)}", f"while {n}:")
            self.emit(L, body, f"{n} -= 1")
        self.block(L, body, 1)
        if r.random() < 0.2:
            self.emit(L, c, "else:")
            self.s_y(L, c.sub())

    def s_if(self, L, c):
        if c.depth >= 2:
            return False
        r = self.r
        self.emit(L, c, f"if {self.cond(c)}:")
        b = c.sub()
        self.block(L, b)
        if c.infn and r.random() < 0.15:
            self.emit(L, b, f"return {self.final()}")
        if r.random() < 0.3:
            self.emit(L, c, f"elif {self.cond(c)}:")
            self.block(L, c.sub())
        if r.random() < 0.6:
            self.emit(L, c, "else:")
            self.block(L, c.sub())

    def s_closure(self, L, c):
        if not c.top:
            return False
        r = self.r
        g = self.nm("g")
        k = r.randrange(9)
        if k == 0:   # reads y, rebound after
            self.emit(L, c, f"def {g}(t):", "    return np.tanh(t) * y + 0.1")
            self.closures.append((g, 1))
        elif k == 1:
            self.emit(L, c, f"{g} = lambda t: np.sin(t * a[0]) + y * 0.2")
            self.closures.append((g, 1))
        elif k == 2:
            self.emit(L, c, f"{g} = lambda t, cc=y: t * cc")
            self.closures.append((g, 1))
        elif k == 3:
            fs = self.nm("fs")
            self.emit(L, c, f"{fs} = [lambda t, kk=kk: t * kk for kk in (0.5, 1.0, 1.5)]",
                      f"y = 0.5 * y + 0.2 * sum(h(y) for h in {fs})")
        elif k == 4:
            fs = self.nm("fs")
            self.emit(L, c, f"{fs} = [lambda t, kk=kk: t * kk for kk in (0.5, 1.0, 1.5)]",
                      f"y = 0.5 * y + 0.2 * {fs}[0](y)" if r.random() < 0.2 else f"y = 0.5 * y + 0.2 * sum(h(y) for h in {fs})")  # noqa: F541,E501
        elif k == 5:
            if "ls" in c.frozen:
                return False
            self.emit(L, c, f"def {g}(t):", "    ls.append(np.tanh(t))", "    ls.pop(0)")
            self.emit(L, c, f"{g}({self.se(c, 1)})")
        elif k == 6:
            self.emit(L, c, f"def {g}(t, n=2):", "    acc = 0.0", "    for j in range(n):",
                      f"        if acc > {r.uniform(0.5, 1.5):.2f}:", "            return acc",
                      "        acc += np.tanh(t + j * y)", "    return acc")
            self.closures.append((g, 1))
        elif k == 7:
            self.emit(L, c, f"{g} = functools.partial(kw_helper, k=y)")
            self.closures.append((g, 1))
        else:
            self.emit(L, c, f"def {g}(t):", "    a[0] = a[0] * 0.5 + 0.1 * np.tanh(t)", "    return a[0]")
            self.emit(L, c, f"y += 0.2 * {g}({self.se(c, 1)})")

    def s_obj(self, L, c):
        r = self.r
        if not self.has_o:
            if not c.top:
                return False
            w = r.choice(["np.tanh(a)", "a.copy()", "a", "np.zeros(3)", "v * 0.5"])
            self.emit(L, c, f"o = Acc({w}, {self.se(c, 1)})")
            self.has_o = True
            return
        s = self.se(c, 1)
        forms = [f"o.b += 0.2 * np.tanh({s})", f"o.w[{r.randrange(3)}] += 0.2 * np.tanh({s})",
                 f"o.step({s}).step(y)", f"o.push(np.tanh({s}))", f"o.bump({r.randrange(3)}, 0.1 * np.tanh({s}))",
                 f"y = 0.5 * y + 0.3 * o({s})", "y = 0.5 * y + 0.1 * o.total", "o.rate = 0.3",
                 f"o.hist.append(np.tanh({s}))", "o.w = o.w * 0.9", "o.w *= 0.9",
                 f"y += 0.1 * Acc.act({s})", "a = np.tanh(a + o.w)"]
        self.emit(L, c, r.choice(forms))

    def s_nt(self, L, c):
        if self.has_nt or not c.top:
            return False
        self.emit(L, c, f"nt = Pair({self.se(c, 1)}, {self.se(c, 1)})")
        self.has_nt = True

    def s_try(self, L, c):
        r = self.r
        z = self.nm("z")
        k = r.randrange(6)
        s = self.se(c, 1)
        if k == 0:
            self.emit(L, c, "try:", f"    {z} = ls[{r.choice([1, 5, 9, -2])}] * {s}",
                      "except IndexError:", f"    {z} = {self.se(c, 1)}")
        elif k == 1:
            self.emit(L, c, "try:", f"    {z} = d['{r.choice(['p', 'z'])}'] + {s}",
                      "except KeyError:", f"    {z} = 0.5 * {s}")
        elif k == 2:
            self.emit(L, c, "try:", f"    {z} = float({s}) / (len(ls) - {r.choice([3, 4, 100])})",
                      "except ZeroDivisionError:", f"    {z} = {s}")
        elif k == 3:
            self.emit(L, c, "try:", f"    {z} = math.sqrt({s} + {r.uniform(-0.5, 0.5):.2f})",
                      "except ValueError:", f"    {z} = 0.0", "else:", f"    {z} = {z} * 0.5")
        elif k == 4:
            self.emit(L, c, "try:", f"    {z} = np.tanh({s})", "finally:", "    y = y * 0.9")
        else:
            self.emit(L, c, "try:", f"    if {self.cond(c)}:", "        raise ValueError('no')",
                      f"    {z} = {s}", "except ValueError as err:", f"    {z} = -{s}")
        self.emit(L, c, f"y = 0.7 * y + 0.3 * np.tanh({z})")

    def s_comp(self, L, c):
        r = self.r
        q = self.nm("q")
        forms = [f"{q} = [t * 0.5 + {self.se(c, 1)} for t in ls if t > {self.thr()}]\n{{p}}y += 0.1 * sum({q})",
                 f"{q} = [t * u for t in a for u in ls[:2]]\n{{p}}y += 0.05 * sum({q})",
                 f"{q} = {{i: t for i, t in enumerate(ls)}}\n{{p}}y += 0.1 * {q}[1]",
                 f"{q} = [np.tanh(row @ a) for row in M if row[0] > {self.thr()}]\n{{p}}y += 0.1 * sum({q}, 0.0)",
                 f"{q} = [[t * u for u in v] for t in a]\n{{p}}y += 0.1 * {q}[1][2] + 0.05 * sum(map(sum, {q}))",
                 f"{q} = np.array([t if t > {self.thr()} else -t for t in a])\n{{p}}a = np.tanh(a + 0.1 * {q})",
                 f"y += 0.1 * sum(gen_scaled(ls, {self.se(c, 1)}))",
                 f"{q} = list(zip(*[ls[:3], a]))\n{{p}}y += 0.1 * {q}[0][0] * {q}[2][1]",
                 f"{q} = max(enumerate(a), key=lambda p: p[1])\n{{p}}y += 0.1 * {q}[1] + 0.01 * {q}[0]"]
        self.emit(L, c, *r.choice(forms).replace('{p}', '').split("\n"))

    def s_intmix(self, L, c):
        r = self.r
        n = self.nm("n")
        forms = [f"{n} = int(y > {self.thr()}) + len(ls)\n{{p}}y = y * 0.5 + 0.05 * {n}",
                 f"{n} = round(3 * abs(y)) % 3\n{{p}}y = 0.5 * y + 0.3 * a[{n}]",
                 f"{n} = int(np.argmax(a))\n{{p}}y += 0.2 * a[{n}] * v[{n}]",
                 f"{n} = sum(1 for t in ls if t > {self.thr()})\n{{p}}y += 0.1 * {n} * y",
                 f"{n} = (y > 0) + (x > 0)\n{{p}}y = y + 0.1 * {n} * x",
                 f"{n} = len(ls) // 2\n{{p}}y = 0.5 * y + 0.4 * ls[{n}]",
                 f"y = 0.5 * y + 0.3 * ls[int(y > {self.thr()})]",
                 f"{n} = True\n{{p}}y = y * {n} + 0.1 * (not {n})",
                 "y = y - (y // 1.0) * 0.0 + 0.1 * (x % 1.0)",
                 f"{n} = divmod(len(ls), 2)\n{{p}}y += 0.1 * {n}[1] * y",
                 f"y += 0.1 * float(np.sum(a > {self.thr()})) * a[0]",
                 "y += 0.1 * np.count_nonzero(v > 0) * x"]
        self.emit(L, c, *r.choice(forms).replace('{p}', '').split("\n"))

    def s_unpack(self, L, c):
        r = self.r
        p, q, w = self.nm("p"), self.nm("q"), self.nm("w")
        forms = [f"{p}, {q}, {w} = a\n{{p}}a = np.array([{w}, {p}, np.tanh({q} + y)])",
                 f"{p}, *{q} = ls\n{{p}}y = 0.5 * y + 0.2 * {p} + 0.1 * sum({q})",
                 f"*{q}, {p} = ls\n{{p}}y += 0.1 * {p}",
                 "y, x = 0.5 * x + 0.3 * y, y",
                 f"({p}, {q}), {w} = (y, x), a[0]\n{{p}}y = np.tanh({p} * {q} + {w})",
                 f"{p}, {q} = first_above(ls, {self.thr()})\n{{p}}y += 0.2 * {q} + 0.01 * {p}",
                 f"{p}, {q} = divmod(y + 2.0, 1.0)\n{{p}}y = 0.5 * y + 0.3 * {q}",
                 f"{p}, {q} = sorted([y, x])\n{{p}}y = 0.6 * {p} + 0.3 * {q}",
                 f"{p} = ({q} := np.tanh(y)) * 2\n{{p}}y = {p} + {q}"]
        self.emit(L, c, *r.choice(forms).replace('{p}', '').split("\n"))

    def s_walrus(self, L, c):
        z = self.nm("z")
        self.emit(L, c, f"if ({z} := np.tanh({self.se(c, 1)})) > {self.thr()}:", f"    y += 0.3 * {z}",
                  "else:", f"    y -= 0.1 * {z}")

    def s_match(self, L, c):
        r = self.r
        subj = r.choice(c.ints) if c.ints else "len(ls) % 3"
        self.emit(L, c, f"match {subj}:", "    case 0:", "        y = y * 0.5 + 0.1",
                  "    case 1 | 2:", f"        y = np.tanh(y + {self.se(c, 1)})", "    case _:", "        y -= 0.1")

    def s_misc(self, L, c):
        r = self.r
        s = self.se(c, 1)
        forms = [f"y = 0.5 * y + 0.3 * rec({s}, {r.randint(0, 3)})",
                 f"y = 0.5 * y + 0.3 * kw_helper({s}, {r.choice(['ls[0], ls[1]', 'x', '*[y, x]'])}, k=0.3, b={self.se(c, 1)})",  # noqa: F541,E501
                 f"assert np.all(np.isfinite(a)), 'bad'\n{{p}}y += 0.1 * a[1]",  # noqa: F541,E501
                 "y = y + 0.1 * sum(COEF[i] * t for i, t in enumerate(a))",
                 f"y = 0.5 * y + 0.3 * np.interp({s}, [-1.0, 0.0, 1.0], [0.0, 0.5, 0.2])",
                 f"y = 0.5 * y + 0.2 * np.float64(SCALE) * np.tanh({s})",
                 f"y = 0.5 * y + 0.2 * np.polyval([0.1, {s}, 0.3], y)",
                 f"y = 0.5 * y + 0.2 * np.asarray({s}).item()",
                 "y = 0.5 * y + 0.2 * math.prod([np.tanh(t) for t in ls[:3]])",
                 f"y = 0.5 * y + 0.2 * math.dist((y, x), (0.1, {s}))",
                 f"y = 0.5 * y + 0.2 * np.sum(np.array(ls)[np.array(ls) > {self.thr()}])",
                 "y = 0.5 * y + 0.2 * np.sum(np.asarray(ls) ** 2) ** 0.5",
                 f"y = 0.5 * y + 0.1 * pow({s}, 2) + 0.1 * 2 ** np.tanh({s})"]
        self.emit(L, c, *r.choice(forms).replace('{p}', '').split("\n"))

    # ---------------- program ----------------
    def final(self):
        parts = ["y", "0.3 * np.sum(a * a)", "0.2 * sum(ls)", "0.1 * (d['p'] + np.sum(d['q']))"]
        if self.has_o:
            parts.append("0.1 * o.total")
        if self.has_nt:
            parts.append("0.1 * nt.u * nt.w")
        return " + ".join(parts)

    def program(self):
        r = self.r
        L = ["def f(x, v, M):"]
        c = Ctx()
        self.emit(L, c, f"y = {r.choice(['x', 'x * 0.5', 'np.tanh(x)', 'math.sin(x)', 'np.sum(v) * 0.3'])}",
                  f"a = {r.choice(['np.tanh(v)', 'v.copy()', 'v * 1.0', 'np.array(v)', 'M @ v * 0.3', 'v + x'])}",
                  f"ls = {r.choice(['[x, v[0], v[1]]', 'list(v)', '[math.sin(x), 0.5, v[2]]', 'v.tolist()', '[t * x for t in v]'])}",  # noqa: F541,E501
                  "d = " + r.choice(["{'p': x, 'q': v * 0.5}", "dict(p=x * 0.5, q=np.tanh(v))"]))
        self.block(L, c, r.randint(2, 6))
        L.append(f"    return {self.final()}")
        return PRELUDE + "\n".join(L) + "\n"


if __name__ == "__main__":
    import sys
    print(Gen(int(sys.argv[1])).program())
