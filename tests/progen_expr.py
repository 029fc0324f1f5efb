"""Typed random NumPy expressions for the random-program generator (see progen.py).

An expression is generated for a target shape among SHAPES from what is in
scope. Every operation keeps values bounded (inputs are in [-1.5, 1.5]):
bounded ufuncs (sin, cos, tanh, exp(tanh), arctan), divisions by
(1.5 + x ** 2), sqrt(1 + x ** 2), log(1.5 + tanh(x)), reductions of at most 12
elements. Thresholds of comparisons are written as names T0, T1, ... and
chosen later (proginst.calibrate).

Each expression also says whether it may share memory with a named value
(`view`): only expressions that do not (fresh ones) may become arrays the
program later changes in place, so a program never writes into its inputs.
"""

import numpy as np

SHAPES = [(), (3,), (4,), (4, 3), (1, 3), (4, 1)]
ARRAYS = [t for t in SHAPES if t]


def bshape(a, b):
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


PAIRS = {t: [(a, b) for a in SHAPES for b in SHAPES if bshape(a, b) == t] for t in SHAPES}
INTO = {t: [a for a in SHAPES if bshape(a, t) == t] for t in SHAPES}    # shapes that broadcast into t

UNARY = ["np.sin({0})", "np.cos({0})", "np.tanh({0})", "np.exp(np.tanh({0}))", "np.sqrt(1.0 + {0} ** 2)",
         "np.log(1.5 + np.tanh({0}))", "np.arctan({0})", "(-{0})", "(0.5 * {0})", "({0} ** 2)",
         "np.abs({0})", "np.square(np.sin({0}))", "({0} / (1.5 + {0} ** 2))", "np.negative({0})"]
BINARY = ["({0} + {1})", "({0} - {1})", "({0} * {1})", "({0} / (1.5 + {1} ** 2))", "np.maximum({0}, {1})",
          "np.minimum({0}, {1})", "(0.5 * {0} + {1})", "np.add({0}, {1})", "np.multiply({0}, np.tanh({1}))"]
BOUND = ["np.tanh({0})", "np.sin({0})", "(0.5 * np.cos({0}))", "({0} / (1.5 + {0} ** 2))", "np.arctan({0})"]
CONST = {(): ["0.5", "(-0.3)", "1.2", "0.25"],      # distinct values: no ties in max, sort or abs
         (3,): ["np.linspace(-0.5, 0.7, 3)", "np.array([0.3, -0.2, 0.7])", "(np.arange(3) * 0.2 + 0.1)"],
         (4,): ["np.linspace(0.1, 0.7, 4)", "np.array([0.4, -0.1, 0.9, 0.2])"],
         (4, 3): ["np.linspace(-0.6, 0.6, 12).reshape(4, 3)", "(np.arange(12.0).reshape(4, 3) * 0.05 + 0.01)"],
         (1, 3): ["np.array([[0.2, -0.5, 0.8]])"],
         (4, 1): ["np.linspace(0.2, -0.4, 4)[:, None]", "(np.arange(4.0)[:, None] * 0.1 + 0.05)"]}
ONES = {(3,): "np.linspace(0.5, 1.0, 3)", (4,): "np.linspace(0.5, 1.0, 4)",
        (4, 3): "np.linspace(0.5, 1.0, 12).reshape(4, 3)", (1, 3): "np.array([[0.9, 0.6, 1.1]])",
        (4, 1): "np.linspace(1.0, 0.6, 4)[:, None]"}
BRIDGE = {(): "s", (3,): "xs", (4,): "W[:, 0]", (4, 3): "W", (1, 3): "xs[None, :]", (4, 1): "W[:, 1:2]"}


class E:
    """Expression text, and whether the value may share memory with a named value."""

    __slots__ = ("text", "view")

    def __init__(self, text, view=False):
        self.text = text
        self.view = view

    def __str__(self):
        return self.text


def atomic(text):
    return len(text) <= 28


class Exprs:
    """Expression productions; mixed into the program generator (which has self.r, self.thr, self.helpers)."""

    max_depth = 3

    def e(self, t, sc, d=0):
        r = self.r
        if d >= self.max_depth or r.random() < 0.22:
            return self.leaf(t, sc)
        k = r.random()
        if k < 0.22:
            x = self.e(t, sc, d + 1)
            forms = [u for u in UNARY if atomic(x.text) or u.count("{0}") == 1]
            return E(r.choice(forms).format(x.text))
        if k < 0.44:
            a, b = r.choice(PAIRS[t])
            x, y = self.e(a, sc, d + 1), self.e(b, sc, d + 1)
            forms = [f for f in BINARY if (atomic(y.text) or f.count("{1}") == 1)
                     and (x.text != y.text or "max" not in f and "min" not in f)]   # no kink everywhere
            return E(r.choice(forms).format(x.text, y.text))
        if k < 0.52:
            c = self.call(t, sc, d)
            if c is not None:
                return c
        if k < 0.56:
            return self.where(t, sc, d)
        made = self.special(t, sc, d)
        return made if made is not None else self.leaf(t, sc)

    def fresh_e(self, t, sc, d=0):
        """An expression that shares memory with nothing named."""
        x = self.e(t, sc, d)
        return x if not x.view else E(self.r.choice(BOUND).format(x.text))

    def bounded(self, t, sc):
        x = self.e(t, sc)
        return E(self.r.choice(BOUND).format(x.text)) if self.r.random() < 0.6 or x.view else x

    def leaf(self, t, sc):
        """A name of shape t, a loop index, a dict or list item; else something made from a name of
        another shape, an input, or a constant."""
        r = self.r
        names = sc.names_of(t)
        k = r.random()
        if names and k < 0.8:
            return E(r.choice(names), view=True)
        if t == () and sc.ints and k < 0.88:
            return E(f"(0.1 * {r.choice(sorted(sc.ints))})")
        entries = sc.entries_of(t)
        if entries and k < 0.93:
            return E(r.choice(entries), view=True)
        others = [(n, u) for n, (u, _) in sc.arrays.items() if u != t]
        k = r.random()
        if others and k < 0.75:
            n, u = r.choice(others)
            if t == ():
                return E(r.choice([f"np.mean({n})", f"np.sum({n})"]) if u else n, view=u == ())
            if bshape(u, t) == t:
                return E(f"({n} * {ONES[t]})")
            return E(f"(np.mean({n}) * {r.choice(CONST[t])})")
        if sc.bridge and k < 0.9:
            return E(BRIDGE[t], view=True)
        return E(r.choice(CONST[t]))

    def where(self, t, sc, d):
        c = self.e(self.r.choice(INTO[t]), sc, d + 1)
        a, b = self.e(t, sc, d + 1), self.e(self.r.choice(INTO[t]), sc, d + 1)
        return E(f"np.where({c} > {self.thr()}, {a}, {b})")

    def call(self, t, sc, d):
        r = self.r
        options = [h for h in self.helpers if h.ret == t and not h.inplace]
        funcs = sc.funcs
        if funcs and (not options or r.random() < 0.5):
            name, arity = r.choice(sorted(funcs.items()))
            if arity == 1:
                return E(f"{name}({self.e(t, sc, d + 1)})")
            a, b = r.choice(PAIRS[t])
            return E(f"{name}({self.e(a, sc, d + 1)}, {self.e(b, sc, d + 1)})")
        if not options:
            return None
        h = r.choice(options)
        args = [self.e(p, sc, d + 1).text for p in h.params]
        if h.default and r.random() < 0.5:
            args.append(f"{h.default}={r.choice(['0.3', '0.8', '-0.4'])}")
        return E(f"{h.name}({', '.join(args)}{h.tail})")

    def special(self, t, sc, d):
        r = self.r

        def x(u):
            return self.e(u, sc, d + 1).text
        n = {(): 16, (3,): 20, (4,): 13, (4, 3): 16, (1, 3): 9, (4, 1): 9}[t]
        k = r.randrange(n)
        vw = False
        if t == ():
            a = r.choice(ARRAYS)
            text = [lambda: f"np.{r.choice(['sum', 'mean', 'max', 'min', 'var', 'std'])}({x(a)})",
                    lambda: f"np.prod(np.tanh({x(a)}))",
                    lambda: f"np.linalg.norm({x(a)})",
                    lambda: f"{x(r.choice([(3,), (4,)]))}[{r.choice(['0', '1', '-1', '2'])}]",
                    lambda: f"{x((4, 3))}[{r.randrange(-4, 4)}, {r.randrange(-3, 3)}]",
                    lambda: f"({x((3,))} @ {x((3,))})",
                    lambda: f"np.dot({x((4,))}, {x((4,))})",
                    lambda: f"sum({x(r.choice([(3,), (4,)]))})",
                    lambda: self.masked_sum(sc, d),
                    lambda: f"np.mean({x(a)}) * {x(())}",
                    lambda: f"float(np.sum({x(a)}))",
                    lambda: f"np.sum({x((4, 3))}, axis={r.choice([0, 1])})[{r.choice([0, -1])}]",
                    lambda: self.int_index(sc, d, ()),
                    lambda: f"np.max({x((4, 3))}, axis={r.choice([0, 1])}).sum()",
                    lambda: f"{x((4, 3))}.mean()",
                    lambda: f"{x((3,))}.sum()"][k]()
        elif t == (3,):
            v4 = r.choice([(4,)])
            text = [lambda: f"{x((4, 3))}[{r.randrange(-4, 4)}]",
                    lambda: f"np.{r.choice(['sum', 'mean', 'max', 'var'])}({x((4, 3))}, axis=0)",
                    lambda: f"np.linalg.norm({x((4, 3))}, axis=0)",
                    lambda: f"{x((1, 3))}[0]",
                    lambda: f"{x((1, 3))}.ravel()",
                    lambda: f"{x((1, 3))}.reshape(3)",
                    lambda: f"np.squeeze({x((1, 3))}, axis=0)",
                    lambda: f"np.cumsum({x((3,))})",
                    lambda: f"np.sort({x((3,))})",
                    lambda: f"{x((3,))}[::-1]",
                    lambda: f"{x((3,))}[{r.choice(['[2, 0, 0]', '[1, 1, 1]', '[0, 2, 1]', '[-1, 0, -1]'])}]",
                    lambda: f"{x(v4)}[{r.choice(['1:', ':3', '-3:', ':-1'])}]",
                    lambda: f"({x((4,))} @ {x((4, 3))})",
                    lambda: f"({x((4, 3))}.T @ {x((4,))})",
                    lambda: f"sum({x((4, 3))})",
                    lambda: f"np.concatenate([{x((3,))}[:1], {x((3,))}[1:]])",
                    lambda: f"np.array([{x(())}, {x(())}, {x(())}])",
                    lambda: f"np.stack([{x(())}, {x(())}, {x(())}])",
                    lambda: f"{x((4, 3))}.ravel()[{r.choice(['3:6', ':3', '-3:'])}]",
                    lambda: self.int_index(sc, d, (3,))][k]()
            vw = k in (0, 3, 4, 5, 6, 9, 11, 18, 19)
        elif t == (4,):
            text = [lambda: f"({x((4, 3))} @ {x((3,))})",
                    lambda: f"np.{r.choice(['sum', 'mean', 'min', 'std'])}({x((4, 3))}, axis=1)",
                    lambda: f"{x((4, 3))}[:, {r.randrange(-3, 3)}]",
                    lambda: f"{x((4, 1))}[:, 0]",
                    lambda: f"{x((4, 1))}.ravel()",
                    lambda: f"np.concatenate([{x((3,))}, [{x(())}]])",
                    lambda: f"np.concatenate([{x((3,))}, {x((3,))}[:1]])",
                    lambda: f"{x((3,))}[[0, 1, 2, 2]]",
                    lambda: f"np.linalg.norm({x((4, 3))}, axis=1)",
                    lambda: f"np.cumsum({x((4,))})",
                    lambda: f"np.sort({x((4,))})",
                    lambda: f"np.array([{x(())}, {x(())}, {x(())}, {x(())}])",
                    lambda: f"np.dot({x((4, 3))}, {x((3,))})"][k]()
            vw = k in (2, 3, 4)
        elif t == (4, 3):
            text = [lambda: f"np.outer({x((4,))}, {x((3,))})",
                    lambda: f"({x((4, 1))} * {x((1, 3))})",
                    lambda: f"np.stack([{x((3,))}, {x((3,))}, {x((3,))}, {x((3,))}])",
                    lambda: f"np.stack([{x((4,))}, {x((4,))}, {x((4,))}], axis=1)",
                    lambda: f"{x((4, 3))}.reshape(3, 4).T",
                    lambda: f"{x((4, 3))}[::-1]",
                    lambda: f"{x((4, 3))}[{r.choice(['[0, 0, 2, 3]', '[3, 1, 1, 0]'])}]",
                    lambda: f"{x((4, 3))}[:, {r.choice(['[2, 1, 1]', '[0, 0, 0]'])}]",
                    lambda: f"np.cumsum({x((4, 3))}, axis={r.choice([0, 1])})",
                    lambda: f"np.sort({x((4, 3))}, axis={r.choice([0, 1])})",
                    lambda: f"np.concatenate([{x((4, 3))}[:1], {x((4, 3))}[1:]])",
                    lambda: f"np.concatenate([{x((4, 1))}, {x((4, 1))}, {x((4, 1))}], axis=1)",
                    lambda: f"np.broadcast_to({x((3,))}, (4, 3))",
                    lambda: f"np.tile({x((1, 3))}, (4, 1))",
                    lambda: f"np.reshape({x((4, 3))}, (2, 6)).reshape(4, 3)",
                    lambda: f"{x((4, 3))}.T.T"][k]()
            vw = k in (4, 5, 12, 14, 15)
        elif t == (1, 3):
            text = [lambda: f"{x((3,))}[None]",
                    lambda: f"{x((3,))}[np.newaxis, :]",
                    lambda: f"{x((3,))}.reshape(1, 3)",
                    lambda: f"np.{r.choice(['sum', 'max', 'mean'])}({x((4, 3))}, axis=0, keepdims=True)",
                    lambda: f"{x((4, 3))}[{r.choice(['1:2', ':1', '-1:'])}]",
                    lambda: f"np.expand_dims({x((3,))}, 0)",
                    lambda: f"({x((4, 1))}.T @ {x((4, 3))})",
                    lambda: f"np.atleast_2d({x((3,))})",
                    lambda: f"{x((1, 3))}[:, ::-1]"][k]()
            vw = k not in (3, 6)
        else:
            text = [lambda: f"{x((4,))}[:, None]",
                    lambda: f"{x((4,))}[:, np.newaxis]",
                    lambda: f"{x((4,))}.reshape(4, 1)",
                    lambda: f"np.{r.choice(['sum', 'min', 'var'])}({x((4, 3))}, axis=1, keepdims=True)",
                    lambda: f"{x((4, 3))}[:, {r.choice(['1:2', ':1', '-1:'])}]",
                    lambda: f"({x((4, 3))} @ {x((3,))}[:, None])",
                    lambda: f"({x((4, 3))} @ {x((1, 3))}.T)",
                    lambda: f"np.reshape({x((4,))}, (4, 1))",
                    lambda: f"{x((4, 1))}[::-1]"][k]()
            vw = k not in (3, 5, 6)
        if text is None:
            return None
        return E(text, view=vw)   # a view of its operand, which may be a named value

    def masked_sum(self, sc, d):
        """Boolean-mask indexing (the mask from the array itself or another of its shape), or where."""
        r = self.r
        u = r.choice(ARRAYS)
        a = self.e(u, sc, d + 1).text
        k = r.random()
        if k < 0.4 and atomic(a):
            return f"np.sum({a}[{a} > {self.thr()}])"
        if k < 0.7:
            return f"np.sum({a}[{self.e(u, sc, d + 1)} < {self.thr()}])"
        return f"np.sum(np.where({self.e(r.choice(INTO[u]), sc, d + 1)} > {self.thr()}, {a}, 0.0))"

    def int_index(self, sc, d, t):
        """a[i] with a loop index i in range."""
        if t == ():
            ok = [(i, n) for i, n in sc.ints.items() if n <= 4]
            if not ok:
                return None
            i, n = self.r.choice(ok)
            return f"{self.e((4,) if n == 4 else self.r.choice([(3,), (4,)]), sc, d + 1)}[{i}]"
        ok = [i for i, n in sc.ints.items() if n <= 4]
        if not ok:
            return None
        return f"{self.e((4, 3), sc, d + 1)}[{self.r.choice(ok)}]"


class Scope:
    def __init__(self, bridge=True):
        self.arrays = {}     # name -> [shape, mutable]
        self.ints = {}       # loop index -> exclusive bound
        self.lists = {}      # name -> [element shape, ours (may be appended to)]
        self.dicts = {}      # name -> [{key: [shape, mutable]}, ours]
        self.funcs = {}      # closure or lambda -> arity
        self.frozen = set()  # lists and dicts being iterated (no appends, no new keys)
        self.bridge = bridge

    def copy(self):
        c = Scope(self.bridge)
        c.arrays = {k: list(v) for k, v in self.arrays.items()}
        c.ints = dict(self.ints)
        c.lists = {k: list(v) for k, v in self.lists.items()}
        c.dicts = {k: [{j: list(e) for j, e in v[0].items()}, v[1]] for k, v in self.dicts.items()}
        c.funcs = dict(self.funcs)
        c.frozen = set(self.frozen)
        return c

    def set(self, name, t, mutable):
        self.arrays[name] = [t, bool(mutable) and t != ()]

    def names_of(self, t):
        return [n for n, (sh, _) in self.arrays.items() if sh == t]

    def mutables(self, t=None):
        return [n for n, (sh, m) in self.arrays.items() if m and sh and (t is None or sh == t)]

    def entries_of(self, t):
        out = [f'{d}["{k}"]' for d, (ent, _) in self.dicts.items() for k, (sh, _) in ent.items() if sh == t]
        return out + [f"{n}[{i}]" for n, (sh, _) in self.lists.items() if sh == t for i in ("-1", "0")]


def meet(*scopes):
    """What is bound after any of the scopes: names bound in all; mutable where mutable in all."""
    out = scopes[0].copy()
    for sc in scopes[1:]:
        out.arrays = {n: [v[0], v[1] and sc.arrays[n][1]] for n, v in out.arrays.items()
                      if n in sc.arrays and sc.arrays[n][0] == v[0]}
        out.ints = {n: b for n, b in out.ints.items() if n in sc.ints}
        out.lists = {n: [v[0], v[1] and sc.lists[n][1]] for n, v in out.lists.items()
                     if n in sc.lists and sc.lists[n][0] == v[0]}
        dicts = {}
        for n, (ent, ours) in out.dicts.items():
            if n in sc.dicts:
                other = sc.dicts[n][0]
                dicts[n] = [{k: [e[0], e[1] and other[k][1]] for k, e in ent.items()
                             if k in other and other[k][0] == e[0]}, ours and sc.dicts[n][1]]
        out.dicts = dicts
        out.funcs = {n: a for n, a in out.funcs.items() if sc.funcs.get(n) == a}
    return out


def index_forms(shape, repeats=True):
    """(index text, shape of the indexed part, repeats an element) for writing into an array of this shape.

    NumPy leaves unspecified which write wins when an index repeats and the values written there
    differ: `a[[0, 0]] = v` is left out, and `a[[0, 0]] += v` (well defined) is written only with a
    value that is the same at the repeated places (see Gen.write).
    """
    n = shape[0]
    rest = shape[1:]
    forms = [("0", rest, False), ("-1", rest, False), (f"{n - 1}", rest, False)]
    if repeats:
        forms += [(f"[0, {n - 1}, 0]", (3,) + rest, True), ("[-1, -1]", (2,) + rest, True)]
    if n > 1:
        forms += [("1:", (n - 1,) + rest, False), (":-1", (n - 1,) + rest, False),
                  ("::2", ((n + 1) // 2,) + rest, False), (f"[{n - 1}, 0]", (2,) + rest, False)]
    if len(shape) == 2:
        m = shape[1]
        forms += [(f"{n - 1}, {m - 1}", (), False), (f"-1, {m // 2}", (), False), (f":, {m - 1}", (n,), False),
                  ("..., 0", (n,), False)]
        if n > 1:
            forms.append((f"[0, {n - 1}], [{m - 1}, {m - 1}]", (2,), False))
        if m > 1:
            forms.append(("0, 1:", (m - 1,), False))
    return forms


class Helper:
    def __init__(self, name, params, ret, inplace=False, default=None, tail=""):
        self.name, self.params, self.ret = name, params, ret
        self.inplace, self.default, self.tail = inplace, default, tail
