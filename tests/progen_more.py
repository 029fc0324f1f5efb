"""More statements of the program generator (methods of progen.Gen): lists, dicts, unpacking,
closures and map, module-level helpers, and the whole program."""

from progen_expr import ARRAYS, INTO, SHAPES, Helper, Scope, index_forms

LIST_USES = ["np.sum(np.stack({n}), axis=0)", "sum({n})", "np.mean({n}, axis=0)", "{n}[-1] * 0.5",
             "np.array({n}).sum(axis=0)", "np.max(np.stack({n}), axis=0)", "np.tanh({n}[0]) * len({n})",
             "np.stack({n})[-1]"]


def _pad(ind):
    return "    " * ind


def s_list_new(self, L, ind, sc, ctx, depth):
    r, pad = self.r, _pad(ind)
    n = self.name("ls")
    if "zs" in sc.lists and r.random() < 0.3:
        L.append(f"{pad}{n} = {r.choice(['list(zs)', 'zs[:]', '[z * 1.0 for z in zs]'])}")
        sc.lists[n] = [(3,), True]
        return
    t = r.choice([(), (3,), (4,), (4, 3), (1, 3)])
    k = r.random()
    if k < 0.4:
        L += [f"{pad}{n} = []", f"{pad}{n}.append({self.e(t, sc)})"]
    elif k < 0.8:
        L.append(f"{pad}{n} = [{self.e(t, sc)}]")
    else:
        L.append(f"{pad}{n} = [{self.e(t, sc)}, {self.e(t, sc, 1)}]")
    sc.lists[n] = [t, True]


def s_append(self, L, ind, sc, ctx, depth):
    r = self.r
    names = [n for n, (t, ours) in sc.lists.items() if ours and n not in sc.frozen]
    if not names:
        return False
    n = r.choice(names)
    t = sc.lists[n][0]
    form = r.choice(["{n}.append({x})"] * 4 + ["{n} += [{x}]", "{n} = {n} + [{x}]", "{n}.extend([{x}, {y}])",
                                               "{n}.insert(0, {x})", "{n}[0] = 0.5 * {n}[0] + {x}"])
    L.append(_pad(ind) + form.format(n=n, x=self.e(t, sc), y=self.e(t, sc, 2)))


def s_list_use(self, L, ind, sc, ctx, depth):
    if not sc.lists:
        return False
    r = self.r
    n = r.choice(sorted(sc.lists))
    t = sc.lists[n][0]
    y = self.name("y")
    if r.random() < 0.2:
        L.append(f"{_pad(ind)}{y} = np.sum({n}) * {self.e((), sc, 1)}")
        sc.set(y, (), False)
        return
    L.append(f"{_pad(ind)}{y} = {r.choice(LIST_USES).format(n=n)}")
    sc.set(y, t, True)


def s_list_loop(self, L, ind, sc, ctx, depth):
    """A list filled by append in a loop (at least once), then stacked, summed or np.summed."""
    if depth >= ctx["depth"]:
        return False
    r, pad = self.r, _pad(ind)
    t = r.choice([(), (3,), (4,), (1, 3)])
    n = self.name("hs")
    body = sc.copy()
    vec = [v for v, (s, _) in sc.arrays.items() if len(s) == 1] or ["xs"] * sc.bridge
    mats = [v for v, (s, _) in sc.arrays.items() if s == (4, 3)] or ["W"] * sc.bridge
    k = r.random()
    if k < 0.35 and mats:
        row, count = self.name("row"), 4
        header, used = f"for {row} in {r.choice(mats)}:", f"np.sum({row})"
        body.set(row, (3,), False)
    elif k < 0.6 and vec:
        v = r.choice(vec)
        i, x = self.name("i"), self.name("t")
        count = sc.arrays[v][0][0] if v in sc.arrays else 3
        header, used = f"for {i}, {x} in enumerate({v}):", f"{x} * (1.0 + {i})"
        body.set(x, (), False)
        body.ints[i] = count
    else:
        i, count = self.name("i"), r.randint(1, 4)
        header, used = f"for {i} in range({count}):", f"0.1 * {i}"
        body.ints[i] = count
    L += [f"{pad}{n} = []", pad + header]
    h = self.name("h")
    L.append(f"{pad}    {h} = np.tanh({self.e(t, body, 1)} + {used})")
    L.append(f"{pad}    {n}.append({h})")
    body.set(h, t, True)
    inner = dict(ctx, loop=True)
    extra = r.random() < 0.5
    if extra:
        self.block(L, ind + 1, body, inner, depth + 1, 1)
    if r.random() < 0.25:
        extra = True
        L += [f"{pad}    if {self.cond(body)}:", f"{pad}        {n}.append({self.e(t, body, 1)})"]
    sc.lists[n] = [t, True]
    y = self.name("y")
    if not extra and (count,) + t in SHAPES:
        L.append(f"{pad}{y} = {r.choice(['np.stack({n})', 'np.array({n})'])}".format(n=n))
        sc.set(y, (count,) + t, True)
    else:
        L.append(f"{pad}{y} = {r.choice(LIST_USES[:4]).format(n=n)}")
        sc.set(y, t, True)


def s_unpack(self, L, ind, sc, ctx, depth):
    r, pad = self.r, _pad(ind)
    k = r.random()
    tuples = [h for h in self.helpers if isinstance(h.ret, list)]
    if k < 0.15 and tuples:
        h = r.choice(tuples)
        a, b = self.name(), self.name()
        L.append(f"{pad}{a}, {b} = {h.name}({', '.join(self.e(p, sc, 1).text for p in h.params)})")
        sc.set(a, h.ret[0], True)
        sc.set(b, h.ret[1], True)
        return
    if k < 0.35:
        t1, t2 = r.choice(SHAPES), r.choice(SHAPES)
        a, b = self.name(), self.name()
        x, y = self.e(t1, sc, 1), self.e(t2, sc, 1)
        L.append(f"{pad}{a}, {b} = {x}, {y}")
        sc.set(a, t1, not x.view)
        sc.set(b, t2, not y.view)
        return
    if k < 0.45:
        pairs = [(a, b) for a in sc.arrays for b in sc.arrays if a < b and sc.arrays[a] == sc.arrays[b]]
        if pairs:
            a, b = r.choice(pairs)
            L.append(f"{pad}{a}, {b} = {b}, {a}")
            return
    if k < 0.65:
        t = r.choice([(3,), (4,)])
        names = [self.name() for _ in range(t[0])]
        L.append(f"{pad}{', '.join(names)} = {self.e(t, sc, 1)}")
        for a in names:
            sc.set(a, (), False)
        return
    if k < 0.8:
        x = self.e((4, 3), sc, 1)
        names = [self.name("r") for _ in range(4)]
        L.append(f"{pad}{', '.join(names)} = {x}")
        for a in names:
            sc.set(a, (3,), not x.view)
        return
    if k < 0.9:
        a, rest = self.name(), self.name("rest")
        L.append(f"{pad}{a}, *{rest} = {self.e((4,), sc, 1)}")
        sc.set(a, (), False)
        sc.lists[rest] = [(), True]
        return
    a, b, c = self.name(), self.name(), self.name()
    x, y, z = self.e((), sc, 1), self.e((3,), sc, 1), self.e((), sc, 1)
    L.append(f"{pad}({a}, {b}), {c} = ({x}, {y}), {z}")
    sc.set(a, (), False)
    sc.set(b, (3,), not y.view)
    sc.set(c, (), False)


DICT_KEYS = ["a", "b", "c", "w", "bias"]


def s_dict_new(self, L, ind, sc, ctx, depth):
    r, pad = self.r, _pad(ind)
    d = self.name("d")
    if "p" in sc.dicts and r.random() < 0.35:
        form, fresh = r.choice([("dict(p)", False), ("p.copy()", False), ("{k: np.tanh(v) for k, v in p.items()}", True),
                                ("{k: v * 1.0 for k, v in p.items()}", True), ("{**p}", False)])
        L.append(f"{pad}{d} = {form}")
        sc.dicts[d] = [{k: [e[0], fresh] for k, (e) in sc.dicts["p"][0].items()}, True]
        return
    keys = r.sample(DICT_KEYS, r.randint(1, 3))
    ent = {}
    parts = []
    for k in keys:
        t = r.choice(SHAPES)
        x = self.e(t, sc, 1)
        ent[k] = [t, not x.view]
        parts.append((k, x))
    form = r.random()
    if form < 0.5:
        L.append(f"{pad}{d} = {{{', '.join(f'{k!r}: {x}' for k, x in parts)}}}".replace("'", '"'))
    elif form < 0.75:
        L.append(f"{pad}{d} = dict({', '.join(f'{k}={x}' for k, x in parts)})")
    else:
        L.append(f"{pad}{d} = {{}}")
        L += [f'{pad}{d}["{k}"] = {x}' for k, x in parts]
    sc.dicts[d] = [ent, True]


def s_dict_write(self, L, ind, sc, ctx, depth):
    r, pad = self.r, _pad(ind)
    names = [d for d, (ent, ours) in sc.dicts.items() if ours]
    if not names:
        return False
    d = r.choice(names)
    ent = sc.dicts[d][0]
    new = [k for k in DICT_KEYS if k not in ent]
    if (not ent or r.random() < 0.3) and new and d not in sc.frozen:
        k, t = r.choice(new), r.choice(SHAPES)
        x = self.e(t, sc, 1)
        L.append(f'{pad}{d}["{k}"] = {x}' if r.random() < 0.8 else f'{pad}{d}.update({k}={x})')
        ent[k] = [t, not x.view]
        return
    if not ent:
        return False
    k = r.choice(sorted(ent))
    t, mutable = ent[k]
    x = self.e(r.choice(INTO[t]), sc, 1)
    item = f'{d}["{k}"]'
    forms = [(f"{item} = 0.5 * {item} + np.tanh({x})", True), (f"{item} = {self.fresh_e(t, sc, 1)}", True)]
    if mutable or t == ():
        forms += [(f"{item} += {x}", mutable), (f"{item} *= np.cos({x})", mutable)]
    if mutable and t:
        idx, part, _ = r.choice(index_forms(t))
        forms.append((f"{item}[{idx}] -= {self.e((), sc, 1)}", mutable))
    text, now_mutable = r.choice(forms)
    L.append(pad + text)
    ent[k] = [t, now_mutable]


def s_dict_iter(self, L, ind, sc, ctx, depth):
    if not sc.dicts:
        return False
    r = self.r
    if r.random() < 0.5 and depth < ctx["depth"]:
        return self.s_for(L, ind, sc, ctx, depth)
    d = r.choice(sorted(sc.dicts))
    y = self.name("y")
    form = r.choice(["sum(np.sum(v) for v in {d}.values())", "sum(np.tanh({d}[k]).sum() for k in {d})",
                     "np.sum([np.mean(v) for v in {d}.values()])", "np.sum({d}[list({d})[0]])",
                     "sum(np.sum(v * v) for k, v in {d}.items())", "len({d}) * 0.1 + np.mean({d}[sorted({d})[-1]])"])
    L.append(f"{_pad(ind)}{y} = {form.format(d=d)}")
    sc.set(y, (), False)


def s_closure(self, L, ind, sc, ctx, depth):
    r, pad = self.r, _pad(ind)
    g = self.name("g")
    scalars = sc.names_of(())
    arrays = [n for n, (t, _) in sc.arrays.items() if t]
    k = r.random()
    c = r.choice(scalars) if scalars and k < 0.6 else f"np.mean({r.choice(arrays)})" if arrays and k < 0.9 else "0.7"
    if r.random() < 0.2:
        forms = [[f"{g} = lambda a, b: a * np.tanh(b) + {c}"],
                 [f"def {g}(a, b):", f"    return np.sin(a) * {c} + b / (1.5 + b ** 2)"]]
        arity = 2
    else:
        forms = [[f"{g} = lambda t: np.tanh(t) * {c} + 0.1"], [f"{g} = lambda t: np.sin(t + {c})"],
                 [f"def {g}(t):", f"    return np.tanh(t) * {c} + t * 0.5"],
                 [f"def {g}(t):", f"    if np.sum(t) > {self.thr()}:", f"        return np.sin(t) * {c}",
                  "    return np.tanh(t)"],
                 [f"def {g}(t):", "    out = t", "    for _ in range(2):", f"        out = np.sin(out) * {c}",
                  "    return out"]]
        arity = 1
    L += [pad + line for line in r.choice(forms)]
    sc.funcs[g] = arity


def s_map(self, L, ind, sc, ctx, depth):
    r, pad = self.r, _pad(ind)
    ones = [g for g, a in sc.funcs.items() if a == 1]
    twos = [g for g, a in sc.funcs.items() if a == 2]
    y = self.name("y")
    if twos and r.random() < 0.3:
        g = r.choice(twos)
        t = r.choice([(3,), (4,)])
        x, z = self.e(t, sc, 1), self.e(t, sc, 1)
        if r.random() < 0.5:
            L.append(f"{pad}{y} = np.array(list(map({g}, {x}, {z})))")
            sc.set(y, t, True)
        else:
            L.append(f"{pad}{y} = sum(map({g}, {x}, {z}))")
            sc.set(y, (), False)
        return
    g = r.choice(ones) if ones and r.random() < 0.8 else "lambda t: np.sin(t) * 0.5"
    v, m = self.e((3,), sc, 1), self.e((4, 3), sc, 1)
    form, t = r.choice([("np.array(list(map({g}, {v})))", (3,)), ("sum(map({g}, {v}))", ()),
                        ("np.stack(list(map({g}, {m})))", (4, 3)), ("sum(map({g}, {m}))", (3,)),
                        ("np.array([({g})(t) for t in {v}])", (3,)), ("list(map({g}, {m}))", None)])
    L.append(f"{pad}{y} = {form.format(g=g, v=v, m=m)}")
    if t is None:
        sc.lists[y] = [(3,), True]
    else:
        sc.set(y, t, t != ())


def s_helper_stmt(self, L, ind, sc, ctx, depth):
    r, pad = self.r, _pad(ind)
    inplace = [h for h in self.helpers if h.inplace]
    r.shuffle(inplace)
    for h in inplace:
        t = h.params[0]
        targets = sc.mutables(t)
        if t == (3,):
            targets += [f"{m}[{r.randrange(4)}]" for m in sc.mutables((4, 3))]
        if not targets:
            continue
        a = r.choice(targets)
        call = f"{h.name}({a}, {self.e((), sc, 1)})"
        if h.ret == () and r.random() < 0.6:
            y = self.name("y")
            L.append(f"{pad}{y} = {call}")
            sc.set(y, (), False)
        else:
            L.append(pad + call)
        return
    return self.s_unpack(L, ind, sc, ctx, depth) if self.helpers else False


def s_builtin_sum(self, L, ind, sc, ctx, depth):
    r = self.r
    y, q = self.name("y"), self.name("q")
    form, t = r.choice([("sum({v})", ()), ("sum({m})", (3,)), ("sum(np.tanh({q}) for {q} in {m})", (3,)),
                        ("sum([{q} * {s} for {q} in {v}])", ()), ("sum({v} * 2.0)", ()), ("sum(-{v})", ())])
    L.append(_pad(ind) + f"{y} = " + form.format(v=self.e(r.choice([(3,), (4,)]), sc, 1), m=self.e((4, 3), sc, 1),
                                                 q=q, s=self.e((), sc, 2)))
    sc.set(y, t, t != ())


def helper(self, L):
    """A module-level function: with its own control flow, returning a tuple, recursive, or changing an argument."""
    r = self.r
    name = f"h{len(self.helpers) + 1}"
    kind = r.choices(["pure", "tuple", "inplace", "recursive"], [5, 2, 3, 1])[0]
    sc = Scope(bridge=False)
    if kind == "recursive":
        t = r.choice(SHAPES)
        sc.set("a", t, False)
        L += [f"def {name}(a, n):", "    if n <= 0:", f"        return {self.fresh_e(t, sc, 1)}",
              f"    return {name}(np.sin(a) * 0.9 + 0.1, n - 1) * 0.8 + 0.1 * {self.e(t, sc, 2)}"]
        self.helpers.append(Helper(name, [t], t, tail=f", {r.randint(0, 3)}"))
        return
    if kind == "inplace":
        t = r.choice(ARRAYS)
        sc.set("a", t, True)
        sc.set("c", (), False)
        L.append(f"def {name}(a, c):")
        for _ in range(r.randint(1, 2)):
            if r.random() < 0.3:
                L.append(f"    if {self.cond(sc)}:")
                self.write(L, 2, sc, "a", t)
            else:
                self.write(L, 1, sc, "a", t)
        ret = () if r.random() < 0.5 else None
        if ret == ():
            L.append(f"    return np.sum(a) * c")
        self.helpers.append(Helper(name, [t, ()], ret, inplace=True))
        return
    params = [r.choice(SHAPES) for _ in range(r.randint(1, 2))]
    names = ["a", "b"][:len(params)]
    for n, t in zip(names, params):
        sc.set(n, t, False)
    default = "k" if r.random() < 0.3 else None
    if default:
        sc.set("k", (), False)
    ret = [r.choice(SHAPES), r.choice(SHAPES)] if kind == "tuple" else r.choice(SHAPES)
    L.append(f"def {name}({', '.join(names)}{', k=0.5' if default else ''}):")
    ctx = dict(fn="helper", ret=ret, loop=False, depth=1)
    self.block(L, 1, sc, ctx, 0)
    L.append("    " + self.ret_stmt(sc, ctx))
    self.helpers.append(Helper(name, params, ret, default=default))


def program(self):
    """(module source with thresholds T0, T1, ... unset, the parameter names of f)."""
    r = self.r
    from progen_calls import HIGHER_ORDER
    L = ["import itertools", "import math", "import numpy as np", "", ""] + HIGHER_ORDER
    for _ in range(r.choice([0, 1] if self.small else [0, 1, 1, 2])):
        self.helper(L)
        L += ["", ""]
    params = ["xs", "s", "W"]
    sc = Scope()
    sc.set("xs", (3,), False)
    sc.set("s", (), False)
    sc.set("W", (4, 3), False)
    if r.random() < 0.3:
        params.append("p")
        sc.dicts["p"] = [{"w": [(3,), False], "b": [(), False]}, False]
    if r.random() < 0.2:
        params.append("zs")
        sc.lists["zs"] = [(3,), False]
    L.append(f"def f({', '.join(params)}):")
    ctx = dict(fn="main", loop=False, depth=2)
    top = 2 if self.small else 3
    self.block(L, 1, sc, ctx, 0, r.randint(1, top))
    self.s_if(L, 1, sc, ctx, 0)
    self.block(L, 1, sc, ctx, 0, r.randint(1, top))
    L.append(f"    return {self.final(sc)}")
    if getattr(self, "objects", False):
        from progen_objects import CLASSES
        L += CLASSES
    return "\n".join(L) + "\n", params
