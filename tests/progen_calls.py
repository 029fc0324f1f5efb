"""Statements of the program generator (methods of progen.Gen) for calls people write that pass things on:
a lambda or nested function handed to a module function of the program's (`HIGHER_ORDER` below), `min`/`max`
of several values or with a key, `next` on an iterator, itertools' accumulate and pairwise, calls through a
table of functions, and a branch that never runs calling what adsrc cannot differentiate (a debugging aid)."""

from progen_expr import ARRAYS

# module functions that take a function, written into every program
HIGHER_ORDER = [
    "def _iterate(fn, y, n):",
    "    for _ in range(n):",
    "        y = y + 0.1 * fn(y)",
    "    return y",
    "",
    "",
    "def _twice(fn, v, scale=1.0):",
    "    return fn(fn(v) * scale)",
    "",
    "",
    "_ACTS = {'tanh': np.tanh, 'sin': np.sin, 'soft': lambda v: np.log1p(np.exp(v)), 'sq': lambda v: v * v}",
    "",
    "",
]


def _pad(ind):
    return "    " * ind


def s_passed(self, L, ind, sc, ctx, depth):
    """y = _iterate(lambda v: ..., x, k) with the lambda reading the function's variables, or a closure
    defined before (sc.funcs) handed to _twice."""
    r, pad = self.r, _pad(ind)
    y = self.name("y")
    t = r.choice([()] + ARRAYS)
    ones = [g for g, a in sc.funcs.items() if a == 1]
    if ones and r.random() < 0.4:
        fn = r.choice(ones)
    else:
        c = self.e((), sc, 2)
        fn = r.choice([f"lambda v: np.tanh(v) * {c}", f"lambda v: -v * {c} + np.sin(v) * 0.5",
                       f"lambda v: np.sin(v + {c})"])
    if r.random() < 0.5:
        L.append(f"{pad}{y} = _iterate({fn}, {self.e(t, sc, 1)}, {r.choice([1, 2, 3])})")
    else:
        L.append(f"{pad}{y} = _twice({fn}, {self.e(t, sc, 1)}{', scale=0.5' if r.random() < 0.4 else ''})")
    sc.set(y, t, t != ())


def s_extremum(self, L, ind, sc, ctx, depth):
    """min/max of three values, or of an array's elements by a key."""
    r, pad = self.r, _pad(ind)
    y = self.name("y")
    if r.random() < 0.5:
        values = ", ".join(str(self.e((), sc, 1)) for _ in range(r.choice([3, 4])))
        L.append(f"{pad}{y} = {r.choice(['min', 'max'])}({values})")
    else:
        a = self.e(r.choice(ARRAYS), sc, 1)
        key = r.choice(["abs", "lambda v: (v - 0.3) ** 2", "lambda v: -v"])
        L.append(f"{pad}{y} = {r.choice(['min', 'max'])}(list(np.ravel({a})), key={key})")
    sc.set(y, (), False)


def s_next(self, L, ind, sc, ctx, depth):
    """The first element by `next`, then a loop over the rest of the iterator."""
    r, pad = self.r, _pad(ind)
    it, y = self.name("it"), self.name("y")
    a = self.e(r.choice(ARRAYS), sc, 1)
    L.append(f"{pad}{it} = iter(np.ravel({a}))")
    L.append(f"{pad}{y} = next({it})")
    L.append(f"{pad}for v in {it}:")
    L.append(f"{pad}    {y} = {y} * {r.choice(['0.5', '0.9'])} + np.tanh(v)")
    sc.set(y, (), False)


def s_itertools(self, L, ind, sc, ctx, depth):
    """A running sum, or a sum over neighbouring pairs, of an array's elements."""
    r, pad = self.r, _pad(ind)
    y = self.name("y")
    a = self.e(r.choice(ARRAYS), sc, 1)
    if r.random() < 0.5:
        L.append(f"{pad}{y} = list(itertools.accumulate(np.ravel({a})))[-1] * 0.5")
    else:
        L.append(f"{pad}{y} = sum(u * w for u, w in itertools.pairwise(np.ravel({a})))")
    sc.set(y, (), False)


def s_table(self, L, ind, sc, ctx, depth):
    """A call through a table of functions: the module's dict by a name chosen when the code runs, or a list
    made here indexed by a loop counter or an int."""
    r, pad = self.r, _pad(ind)
    y = self.name("y")
    t = r.choice([()] + ARRAYS)
    arg = self.e(t, sc, 1)
    if r.random() < 0.5 or not sc.ints:
        a, b = r.sample(["tanh", "sin", "soft", "sq"], 2)
        L.append(f"{pad}{y} = _ACTS['{a}' if {self.cond(sc)} else '{b}']({arg})")
    else:
        fs = self.name("fs")
        c = self.e((), sc, 2)
        L.append(f"{pad}{fs} = [np.sin, lambda v: v * {c}, np.tanh]")
        L.append(f"{pad}{y} = {fs}[{r.choice(sorted(sc.ints))} % 3]({arg})")
    sc.set(y, t, True)


def s_debug_branch(self, L, ind, sc, ctx, depth):
    """`if np.isnan(...)` around what adsrc refuses (np.i0 has no derivative): it never runs, so it must not
    stop the program or change its gradient."""
    names = [n for n, (t, _) in sc.arrays.items()]
    if not names:
        return False
    pad, v = _pad(ind), self.r.choice(names)
    L.append(f"{pad}if np.isnan(np.sum({v})):")
    L.append(f"{pad}    {v} = {v} + 0.0 * np.sum(np.i0({v}))")
