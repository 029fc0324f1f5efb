"""Statements of the hypothesis program generator (progen_hyp.py) that change arrays in place: items, slices,
masks, np.add.at, views and views of views, aliases, arrays held by containers or chosen on data, ufuncs
with out=, helpers and closures writing into their arguments: a mixin of Writer."""

from progen_hyp_grammar import INTO, postfix_safe, shape


class Changes:
    def st_copy(self, L, ind, sc, ctx):
        names = sorted(k for k, (c, _) in sc.arrays.items() if c != "S")
        if not names:
            return False
        src = self.pick(names)
        v = self.name("c")
        how = self.pick(["{0}.copy()", "np.copy({0})", "np.array({0})", "{0} + 0.0", "{0}.astype(float)",
                         "np.array({0}, copy=True)", "1.0 * {0}"])
        L.append(f"{'    ' * ind}{v} = {how.format(src)}")
        sc.arrays[v] = [sc.arrays[src][0], True]
        for _ in range(self.pick([1, 2])):
            self.write_into(L, ind, sc, v)

    def st_setitem(self, L, ind, sc, ctx):
        names = sc.writable()
        if not names:
            return False
        self.write_into(L, ind, sc, self.pick(names))

    def write_into(self, L, ind, sc, v, code=None):
        """One in-place change of the array v (of the given code) through items, slices, masks or ufunc.at."""
        n, m, pad = self.n, self.m, "    " * ind
        code = code or sc.arrays[v][0]
        op = self.pick(["+=", "=", "*=", "-="])
        rhs = {"*=": "(0.5 + 0.4 * np.tanh({0}))"}.get(op, "{0}")
        if code in "NM":
            k = n if code == "N" else m
            i, a = self.pick(range(-k, k)), self.pick(range(1, k))
            forms = [(f"{v}[{i}]", "S"), (f"{v}[{a}:]", "S"), (f"{v}[:{a}]", f"{code}[:{a}]"), (f"{v}[::-1]", code),
                     (f"{v}[:]", code), (f"{v}[{v} > {self.thr()}]", "S"), (f"{v}[::2]", "S"),
                     (f"{v}[{self.ex(code, sc, 2)} > {self.thr()}]", "S"),
                     (f"{v}[[{i}, {a}]]", "S"), (f"{v}[[{i}, {i}, {a}]]", "S"), (f"{v}[...]", code),
                     ("add.at", "S"), (f"{v}[{a}::-1]", "S")]
        else:
            rows, cols = shape(code, n, m)
            i, j = self.pick(range(-rows, rows)), self.pick(range(-cols, cols))
            rc = {"X": ("M", "N"), "Y": ("N", "M"), "C": (None, "N"), "R": ("N", None)}[code]
            forms = [(f"{v}[{i}, {j}]", "S"), (f"{v}[{v} > {self.thr()}]", "S"), (f"{v}[:, ::-1]", code),
                     (f"{v}[::-1]", code), (f"{v}[{i}, :]", "S"), ("add.at2", "S")]
            if rc[0]:
                forms.append((f"{v}[{i}]", rc[0]))
            if rc[1]:
                forms.append((f"{v}[:, {j}]", rc[1]))
        target, rcode = self.pick(forms)
        if target == "add.at":
            idx = [str(self.pick(range(n if code == "N" else m))) for _ in range(3)]
            L.append(f"{pad}np.add.at({v}, [{', '.join(idx)}], {self.ex('S', sc, 1)})")
            return
        if target == "add.at2":
            rows = [str(self.pick(range(shape(code, n, m)[0]))) for _ in range(3)]
            cols = [str(self.pick(range(shape(code, n, m)[1]))) for _ in range(3)]
            L.append(f"{pad}np.add.at({v}, ([{', '.join(rows)}], [{', '.join(cols)}]), {self.ex('S', sc, 1)})")
            return
        if ":" in rcode:
            rhs_text = f"{postfix_safe(self.ex(rcode[0], sc, 1))}{rcode[1:]}"
        else:
            rhs_text = self.ex(rcode, sc, 1)
        L.append(f"{pad}{target} {op} {rhs.format(rhs_text)}")

    def st_view(self, L, ind, sc, ctx):
        names = sc.writable()
        if not names:
            return False
        base = self.pick(names)
        code, n, m, pad = sc.arrays[base][0], self.n, self.m, "    " * ind
        views = {"N": [("{0}[1:]", None), ("{0}[::-1]", "N"), ("{0}.reshape(1, -1)", "R"),
                       ("{0}.reshape(-1, 1)", "C"), ("{0}[:]", "N")],
                 "M": [("{0}[::-1]", "M"), ("{0}[:]", "M")],
                 "X": [("{0}.T", "Y"), (f"{{0}}.reshape({m}, {n})", "Y"), ("{0}.ravel()", None), ("{0}[1:]", None),
                       ("{0}[:, 0]", "N"), ("{0}[0]", "M"), ("{0}[:, ::-1]", "X")],
                 "Y": [("{0}.T", "X"), ("{0}[:, 0]", "M"), ("{0}[-1]", "N")],
                 "C": [("{0}.T", "R"), ("{0}[:, 0]", "N"), ("{0}.ravel()", "N")],
                 "R": [("{0}.T", "C"), ("{0}[0]", "N"), ("{0}.reshape(-1)", "N")]}[code]
        form, vcode = self.pick(views)
        w = self.name("w")
        L.append(f"{pad}{w} = {form.format(base)}")
        if vcode is None:
            L.append(f"{pad}{w}[{self.pick([0, -1])}] {self.pick(['+=', '*=', '='])} {self.ex('S', sc, 1)}")
            if self.coin(0.5):
                L.append(f"{pad}{w} *= 0.5 + 0.4 * np.tanh({self.ex('S', sc, 1)})")
            return
        self.write_into(L, ind, sc, w, vcode)
        if self.coin(0.5):
            L.append(f"{pad}{w} {self.pick(['*=', '+=', '-='])} {self.ex(self.pick(INTO[vcode]), sc, 1)}")
        sc.arrays[w] = [vcode, True]

    def st_fill(self, L, ind, sc, ctx):
        n, m, pad = self.n, self.m, "    " * ind
        v, i = self.name("out"), self.name("i")
        code = self.pick("NXM")
        made = {"N": ["np.zeros({n})", "np.empty({n})"], "M": ["np.zeros({m})", "np.ones({m})"],
                "X": ["np.zeros(({n}, {m}))", "np.empty(({n}, {m}))"]}[code]
        like = [f"np.{k}_like({v})" for v in sorted(n for n, (c, _) in sc.arrays.items() if c == code)
                for k in ("zeros", "empty", "ones")]
        make = self.pick(made + like)
        L.append(f"{pad}{v} = {make.format(n=n, m=m)}")
        size = {"N": n, "M": m, "X": n}[code]
        length = self.pick([str(size)] + [f"len({k})" for k, (c, _) in sc.arrays.items() if c == code] +
                           [f"{k}.shape[0]" for k, (c, _) in sc.arrays.items() if c == code])
        inner = sc.child()
        inner.ints[i] = {"N": "n", "M": "m", "X": "n"}[code]
        L.append(f"{pad}for {i} in range({length}):")
        if code == "X":
            L.append(f"{pad}    {v}[{i}{self.pick(['', ', :'])}] = {self.ex('M', inner, 1)}")
        else:
            L.append(f"{pad}    {v}[{i}] = {self.ex('S', inner, 1)}")
        if self.coin(0.4):
            L.append(f"{pad}    {v}[{i}] {self.pick(['+=', '*='])} {self.ex('S', inner, 2)}")
        sc.arrays[v] = [code, True]

    def st_rows(self, L, ind, sc, ctx):
        names = sc.writable("X") + sc.writable("Y")
        if not names:
            return False
        c, r, pad = self.pick(names), self.name("row"), "    " * ind
        rcode = "M" if sc.arrays[c][0] == "X" else "N"
        inner = sc.child()
        inner.frozen.add(c)
        inner.arrays[r] = [rcode, False]
        head = self.pick([f"for {r} in {c}:", f"for {r} in {c}.T:"])
        if head.endswith(".T:"):
            rcode = "N" if rcode == "M" else "M"
            inner.arrays[r] = [rcode, False]
        L.append(pad + head)
        L.append(f"{pad}    {r} {self.pick(['*=', '+=', '-='])} {self.ex(self.pick(INTO[rcode]), inner, 1)}")
        if self.coin(0.4):
            L.append(f"{pad}    {r}[0] = {self.ex('S', inner, 2)}")

    def st_swap(self, L, ind, sc, ctx):
        names = sc.writable()
        if not names:
            return False
        c, pad = self.pick(names), "    " * ind
        rows = shape(sc.arrays[c][0], self.n, self.m)[0]
        i, j = self.pick(range(rows)), self.pick(range(rows))
        L.append(pad + self.pick([f"{c}[{i}], {c}[{j}] = {c}[{j}], {c}[{i}]", f"{c}[[{i}, {j}]] = {c}[[{j}, {i}]]",
                                  f"{c}[{i}], {c}[{j}] = {c}[{j}].copy(), {c}[{i}].copy()"]))

    def st_shift(self, L, ind, sc, ctx):
        names = sc.writable()
        if not names:
            return False
        c, pad = self.pick(names), "    " * ind
        code = sc.arrays[c][0]
        forms = ["{c}[1:] = {c}[:-1] * 0.5 + 0.1", "{c}[1:] += {c}[:-1]", "{c}[:-1] -= 0.5 * {c}[1:]",
                 "{c}[::-1] += {c}", "{c}[1:] *= np.tanh({c}[:-1])"]
        if code in "XY":
            forms += ["{c}[:, 1:] += {c}[:, :-1]", "{c}[:, :-1] = {c}[:, 1:] * 0.5", "{c} += {c}[::-1]",
                      "{c}[0] = {c}[-1] + {c}[0]"]
        if shape(code, self.n, self.m)[0] < 2:
            return False
        L.append(pad + self.pick(forms).format(c=c))

    def st_mask(self, L, ind, sc, ctx):
        b, code, pad = self.name("mask"), self.pick("NX"), "    " * ind
        L.append(f"{pad}{b} = {self.pick(['{0} > {1}', '{0} < {1}', '({0} > {1}) & ({0} < 0.9)', '~({0} > {1})'])}"
                 .format(self.ex(code, sc, 1), self.thr()))
        sc.masks[b] = code
        names = sc.writable(code)
        if names and self.coin(0.5):
            c = self.pick(names)
            L.append(f"{pad}{c}[{b}] {self.pick(['=', '*=', '+='])} {self.ex('S', sc, 1)}")
        elif self.coin(0.5):
            v = self.name("v")
            L.append(f"{pad}{v} = {self.ex(code, sc, 1)}[{b}]")
            L.append(f"{pad}{v} = np.sum({v} ** 2) + {self.ex('S', sc, 2)}")
            sc.arrays[v] = ["S", True]

    def st_alias(self, L, ind, sc, ctx):
        """Another name for a fresh array, maybe rebound in a branch or loop; changes through either name."""
        names = sc.writable()
        if not names:
            return False
        c, b, pad = self.pick(names), self.name("b"), "    " * ind
        code = sc.arrays[c][0]
        L.append(f"{pad}{b} = {c}")
        sc.arrays[b] = [code, True]
        k = self.pick(["write", "branch", "loop"])
        if k == "branch" and ctx["depth"] < 2:
            L.append(f"{pad}if {self.cond(sc)}:")
            L.append(f"{pad}    {b} = {self.pick(['np.tanh', 'np.sin', '0.5 * '])}({b})")
        elif k == "loop" and ctx["depth"] < 2:
            k2 = self.name("k")
            L.append(f"{pad}{k2} = 0")
            L.append(f"{pad}while {k2} < {self.pick([1, 2])} and np.sum({b}) > {self.thr()}:")
            L.append(f"{pad}    {b} = 0.8 * {b} - 0.1")
            L.append(f"{pad}    {k2} += 1")
        self.write_into(L, ind, sc, self.pick([b, c]))
        if self.coin(0.5):
            self.write_into(L, ind, sc, self.pick([b, c]))

    def st_ufunc_out(self, L, ind, sc, ctx):
        names = sc.writable()
        if not names:
            return False
        c, pad = self.pick(names), "    " * ind
        code = sc.arrays[c][0]
        e = self.ex(self.pick(INTO[code]), sc, 1)
        form = self.pick(["np.add({c}, {e}, out={c})", "np.multiply({c}, np.tanh({e}), out={c})", "np.copyto({c}, {e})",
                          "np.subtract({c}, {e}, out={c})", "np.tanh({c}, out={c})", "{c}.sort()" if code in "NM" else
                          "{c}.sort(axis=0)", "np.clip({c}, -0.6, 0.7, out={c})", "np.sin({c}, out={c})"])
        L.append(pad + form.format(c=c, e=e))

    def st_view_chain(self, L, ind, sc, ctx):
        """A view of a view of a fresh array changed in place, the array and both views read later."""
        names = sc.writable("N") + sc.writable("M") + sc.writable("X")
        if not names:
            return False
        c, pad = self.pick(names), "    " * ind
        code = sc.arrays[c][0]
        w, u = self.name("w"), self.name("u")
        first, vcode = self.pick({"N": [("{0}[::-1]", "N"), ("{0}[:]", "N"), ("{0}.reshape(1, -1)", "R")],
                                  "M": [("{0}[::-1]", "M"), ("{0}[:]", "M")],
                                  "X": [("{0}.T", "Y"), ("{0}[::-1]", "X"), ("{0}[:, ::-1]", "X")]}[code])
        L.append(f"{pad}{w} = {first.format(c)}")
        second, ucode = self.pick({"N": [("{0}[1:]", None), ("{0}[::-1]", "N")], "M": [("{0}[::-1]", "M")],
                                   "R": [("{0}[0]", "N"), ("{0}.T", "C")], "X": [("{0}[0]", "M"), ("{0}.T", "Y")],
                                   "Y": [("{0}[0]", "N"), ("{0}[:, 0]", "M"), ("{0}.T", "X")]}[vcode])
        L.append(f"{pad}{u} = {second.format(w)}")
        L.append(f"{pad}{u}[{self.pick([0, -1])}] {self.pick(['+=', '*=', '='])} {self.ex('S', sc, 1)}")
        sc.arrays[w] = [vcode, True]
        if ucode:
            sc.arrays[u] = [ucode, True]
            if self.coin(0.5):
                L.append(f"{pad}{u} {self.pick(['+=', '*='])} {self.ex(self.pick(INTO[ucode]), sc, 1)}")

    def st_held(self, L, ind, sc, ctx):
        """Fresh arrays held by a list, dict or tuple, changed in place through the container."""
        names = sc.writable()
        if not names:
            return False
        pad = "    " * ind
        c = self.pick(names)
        same = [k for k in names if sc.arrays[k][0] == sc.arrays[c][0]]
        d = self.pick(same)
        code = sc.arrays[c][0]
        h = self.name("held")
        kind = self.pick(["list", "dict", "tuple"])
        L.append(f"{pad}{h} = " + {"list": f"[{c}, {d}]", "dict": f'{{"a": {c}, "b": {d}}}',
                                   "tuple": f"({c}, {d})"}[kind])
        item = {"list": f"{h}[{self.pick([0, -1, 1])}]", "dict": f'{h}["{self.pick("ab")}"]',
                "tuple": f"{h}[{self.pick([0, 1])}]"}[kind]
        how = self.pick(["item", "loop", "name"])
        if how == "loop" and kind != "tuple" and ctx["depth"] < 2:
            a = self.name("a")
            L.append(f"{pad}for {a} in {h}{'.values()' if kind == 'dict' else ''}:")
            L.append(f"{pad}    {a} {self.pick(['*=', '+=', '-='])} {self.ex(self.pick(INTO[code]), sc, 2)}")
        elif how == "name":
            e = self.name("e")
            L.append(f"{pad}{e} = {item}")
            self.write_into(L, ind, sc, e, code)
        else:
            idx = "0" if code in "NM" else "0, 0"
            L.append(f"{pad}{item}[{idx}] {self.pick(['+=', '=', '*='])} {self.ex('S', sc, 1)}")
        if kind == "list":
            sc.lists[h] = [code, True, 2]
        elif kind == "dict":
            sc.dicts[h] = {"a": [code, True], "b": [code, True]}
        else:
            sc.tuples[h] = [code, code]

    def st_view_helper(self, L, ind, sc, ctx):
        """A module-level helper returning a view of its argument, written into by the caller."""
        names = sc.writable("N") + sc.writable("X")
        if not names:
            return False
        c, pad = self.pick(names), "    " * ind
        code = sc.arrays[c][0]
        forms = {"N": [("u[1:]", None), ("u[::-1]", "N"), ("u.reshape(-1, 1)", "C")],
                 "X": [("u[0]", "M"), ("u.T", "Y"), ("u[:, 1]", "N"), ("u.reshape(-1)", None)]}[code]
        body, vcode = self.pick(forms)
        fname = f"view{len(self.helpers)}"
        self.helpers += [f"def {fname}(u):", f"    return {body}", "", ""]
        w = self.name("w")
        L.append(f"{pad}{w} = {fname}({c})")
        if vcode is None:
            L.append(f"{pad}{w}[0] {self.pick(['+=', '*=', '='])} {self.ex('S', sc, 1)}")
        else:
            self.write_into(L, ind, sc, w, vcode)
            sc.arrays[w] = [vcode, True]

    def st_pick_alias(self, L, ind, sc, ctx):
        """One of two fresh arrays chosen on data, then changed in place."""
        names = sc.writable()
        pairs = [(a, b) for a in names for b in names if a < b and sc.arrays[a][0] == sc.arrays[b][0]]
        if not pairs:
            return False
        a, b = self.pick(pairs)
        v, pad = self.name("b"), "    " * ind
        L.append(f"{pad}{v} = {a} if {self.cond(sc)} else {b}")
        sc.arrays[v] = [sc.arrays[a][0], True]
        self.write_into(L, ind, sc, v)

    def st_mutator(self, L, ind, sc, ctx):
        """A closure that changes an enclosing array in place, called (maybe more than once)."""
        names = sc.writable()
        if not names:
            return False
        c, g, t, pad = self.pick(names), self.name("g"), self.name("t"), "    " * ind
        L.append(f"{pad}def {g}({t}):")
        inner = sc.child()
        inner.arrays[t] = ["S", False]
        self.write_into(L, ind + 1, inner, c)
        if self.coin(0.5):
            L.append(f"{pad}    return {self.ex('S', inner, 2)}")
        for _ in range(self.pick([1, 2])):
            L.append(f"{pad}{g}({self.ex('S', sc, 1)})")
