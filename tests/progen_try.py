"""Statements of the program generator (methods of progen.Gen) for `try`/`except` and for what nested
functions do besides returning a value: assign an enclosing variable (`nonlocal`), call themselves, take
*args and keyword arguments."""

from progen_expr import ARRAYS


def _pad(ind):
    return "    " * ind


def s_try(self, L, ind, sc, ctx, depth):
    """A try block that raises on some inputs (a test on a threshold, or math.sqrt of a negative number),
    and an `except` clause that computes the value another way; in a loop, the clause may break or continue."""
    r, pad = self.r, _pad(ind)
    y = self.name("y")
    t = r.choice([()] + ARRAYS)
    exc = r.choice(["ValueError", "(ValueError, ZeroDivisionError)", "Exception", "FloatingPointError"])
    if exc == "FloatingPointError":
        raise_line = "raise FloatingPointError('too large')"
    else:
        raise_line = r.choice(["raise ValueError('out of range')", "raise ValueError"])
    L.append(f"{pad}try:")
    if t == () and r.random() < 0.4 and exc != "FloatingPointError":
        L.append(f"{pad}    {y} = {self.e((), sc, 1)} * math.sqrt({self.e((), sc, 1)} + {self.thr()})")
    else:
        L.append(f"{pad}    if {self.cond(sc)}:")
        L.append(f"{pad}        {raise_line}")
        L.append(f"{pad}    {y} = {self.e(t, sc, 1)}")
    L.append(f"{pad}except {exc}{' as err' if r.random() < 0.2 else ''}:")
    if ctx["loop"] and r.random() < 0.2:
        L.append(f"{pad}    {r.choice(['break', 'continue'])}")
        return      # y is not bound after the statement on every path: not recorded
    L.append(f"{pad}    {y} = {self.e(t, sc, 1)}")
    if r.random() < 0.2:
        L.append(f"{pad}else:")
        L.append(f"{pad}    {y} = {y} * 0.5")
    sc.set(y, t, t != ())


def s_nonlocal(self, L, ind, sc, ctx, depth):
    """A nested function that adds to one of the enclosing function's numbers, called twice."""
    if ctx["fn"] != "main":
        return False
    r, pad = self.r, _pad(ind)
    scalars = [n for n in sc.names_of(()) if n not in ("s",)]
    acc = r.choice(scalars) if scalars and r.random() < 0.5 else None
    if acc is None:
        acc = self.name("acc")
        L.append(f"{pad}{acc} = {self.e((), sc, 2)}")
        sc.set(acc, (), False)
    g = self.name("g")
    t = r.choice(ARRAYS)
    body = r.choice([f"{acc} = {acc} + np.sum(np.tanh(v)) * 0.5",
                     f"{acc} += np.mean(v * v)",
                     f"{acc} = {acc} * 0.9 + np.max(v)"])
    L += [f"{pad}def {g}(v):", f"{pad}    nonlocal {acc}", f"{pad}    {body}"]
    L += [f"{pad}{g}({self.e(t, sc, 1)})", f"{pad}{g}({self.e(t, sc, 1)})"]


def s_nested_special(self, L, ind, sc, ctx, depth):
    """A nested function that calls itself, or takes *args and a keyword argument."""
    r, pad = self.r, _pad(ind)
    g, y = self.name("g"), self.name("y")
    t = r.choice(ARRAYS)
    c = self.e((), sc, 2)
    if r.random() < 0.5:
        L += [f"{pad}def {g}(a, n):", f"{pad}    if n <= 0:", f"{pad}        return a",
              f"{pad}    return np.sin({g}(a, n - 1)) * {c} + a * 0.1"]
        L.append(f"{pad}{y} = {g}({self.e(t, sc, 1)}, {r.choice([1, 2, 3])})")
        sc.set(y, t, True)
        return
    L += [f"{pad}def {g}(*vs, scale=1.0):", f"{pad}    out = 0.0", f"{pad}    for v in vs:",
          f"{pad}        out = out + np.sum(v * v) * scale", f"{pad}    return out"]
    args = ", ".join(self.e(r.choice(ARRAYS), sc, 1).text for _ in range(r.choice([1, 2, 3])))
    L.append(f"{pad}{y} = {g}({args}{', scale=' + str(c) if r.random() < 0.6 else ''})")
    sc.set(y, (), False)
