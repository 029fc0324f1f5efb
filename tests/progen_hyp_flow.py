"""Statements of the hypothesis program generator (progen_hyp.py) that assign, branch, loop, define and call
functions, and build containers: a mixin of Writer, which has the drawing and expression methods."""

from progen_hyp_grammar import INTO, SQUARES, Scope, fresh, postfix_safe, shape


class Statements:
    STMTS = [("assign", 10), ("aug", 4), ("copy", 5), ("setitem", 5), ("view", 4), ("if", 5), ("for", 5),
             ("while", 2), ("helper", 3), ("closure", 3), ("list", 3), ("dict", 2), ("tuple", 2), ("matrix", 2),
             ("argsort", 1), ("rebind", 3), ("fill", 3), ("rows", 2), ("swap", 2), ("shift", 2), ("count", 2),
             ("mask", 2), ("ternary", 1), ("recursive", 1), ("mutator", 2), ("alias", 3), ("ufunc_out", 2),
             ("view_chain", 2), ("held", 3), ("view_helper", 2), ("pick_alias", 2)]

    def block(self, L, ind, sc, ctx, count):
        table = [k for k, w in self.STMTS for _ in range(w)]
        for _ in range(count):
            for _ in range(10):
                if getattr(self, "st_" + self.pick(table))(L, ind, sc, ctx) is not False:
                    break

    def final(self, sc):
        terms = []
        forms = ["np.sum(np.sin({0}))", "np.sum({0} ** 2)", "np.mean(np.tanh({0}))", "np.sum({0} * 0.7)"]
        for k, (c, _) in sorted(sc.arrays.items()):
            terms.append(f"{k} ** 2" if c == "S" and self.coin(0.3) else self.pick(forms).format(k))
        for k in sorted(sc.lists):
            terms.append(f"sum(np.sum(e) for e in {k})")
        for k in sorted(sc.dicts):
            terms.append(f"sum(np.sum(np.cos(e)) for e in {k}.values())")
        for k, codes in sorted(sc.tuples.items()):
            terms.append(f"np.sum({k}[{len(codes) - 1}])")
        return " + ".join(terms) if terms else "0.0"

    def ret(self, sc, ctx):
        return f"return {self.final(sc)}" if ctx["fn"] == "main" else f"return {self.ex(ctx['out'], sc)}"

    def jump(self, L, ind, sc, ctx):
        pad = "    " * ind
        if ctx.get("loop") and self.coin(0.3):
            L.append(pad + ("break" if ctx["loop"] == "while" else self.pick(["break", "continue"])))
        elif self.coin(0.2):
            L.append(pad + self.ret(sc, ctx))

    def st_assign(self, L, ind, sc, ctx):
        code = self.pick("SNXMCRY")
        v, x = self.name("v"), self.ex(code, sc)
        L.append(f"{'    ' * ind}{v} = {x}")
        sc.arrays[v] = [code, fresh(x)]

    def st_rebind(self, L, ind, sc, ctx):
        names = sorted(k for k in sc.arrays if k not in sc.frozen)
        if not names:
            return False
        v = self.pick(names)
        code = sc.arrays[v][0]
        x = self.ex(code, sc)
        if not fresh(x) and (ctx["depth"] or code != "S"):
            x = f"np.tanh({x})"
        L.append(f"{'    ' * ind}{v} = {x}")
        sc.arrays[v][1] = True

    def st_aug(self, L, ind, sc, ctx):
        names = sorted(k for k in sc.arrays if k not in sc.frozen)
        if not names:
            return False
        v = self.pick(names)
        code, is_fresh = sc.arrays[v]
        op = self.pick(["+", "-", "*", "/"])
        x = self.ex(self.pick(INTO[code]), sc, 1)
        x = f"(1.5 + {x} ** 2)" if op == "/" else f"np.tanh({x})" if op == "*" else x
        pad = "    " * ind
        L.append(f"{pad}{v} {op}= {x}" if is_fresh or code == "S" and not ctx["depth"] else f"{pad}{v} = {v} {op} {x}")
        if code == "S":
            sc.arrays[v][1] = True

    def cond(self, sc):
        t = self.thr()
        forms = ["np.sum({N}) > {t}", "{S} < {t}", "np.max({X}) > {t}", "np.all({N} > {t})", "np.any({M} < {t})",
                 "float(np.mean({X})) > {t}", "math.tanh({S}) > {t}", "{S} > {t} and {S} < {T}",
                 "not np.sum({C}) > {t}", "{S} > {t} or np.min({N}) < {T}", "np.linalg.norm({N}) > {t}",
                 "{N}[{I}] > {t}"]
        return self.fill(self.pick(forms).replace("{t}", t), sc, 1)

    def branch_body(self, L, ind, sc, ctx):
        inner = sc.child()
        self.block(L, ind, inner, dict(ctx, depth=ctx["depth"] + 1), self.pick([1, 2]))
        if self.coin(0.5):
            self.jump(L, ind, inner, ctx)

    def st_if(self, L, ind, sc, ctx):
        if ctx["depth"] >= 2:
            return False
        pad = "    " * ind
        L.append(f"{pad}if {self.cond(sc)}:")
        self.branch_body(L, ind + 1, sc, ctx)
        if self.coin(0.3):
            L.append(f"{pad}elif {self.cond(sc)}:")
            self.branch_body(L, ind + 1, sc, ctx)
        if self.coin(0.5):
            L.append(f"{pad}else:")
            self.branch_body(L, ind + 1, sc, ctx)

    def st_for(self, L, ind, sc, ctx):
        if ctx["depth"] >= 2:
            return False
        n, m, pad = self.n, self.m, "    " * ind
        inner = sc.child()
        kind = self.pick(["range", "rows", "elems", "zip", "enumerate", "list", "items", "reversed", "cols"])
        i, r = self.name("i"), self.name("r")
        if kind == "range":
            it = self.pick([f"range({n})", f"range(1, {n})", f"range({n} - 1, -1, -1)", f"range(0, {n}, 2)"])
            inner.ints[i] = "n"
            head = f"for {i} in {it}:"
        elif kind == "reversed":
            inner.ints[i] = "m"
            head = f"for {i} in reversed(range({m})):"
        elif kind in ("rows", "enumerate", "cols"):
            src = self.pick([k for k, (c, _) in sc.arrays.items() if c == "X"] or ["A"])
            if src not in sc.arrays:
                return False
            inner.frozen.add(src)
            inner.arrays[r] = ["M" if kind != "cols" else "N", False]
            if kind == "enumerate":
                inner.ints[i] = "n"
                head = f"for {i}, {r} in enumerate({src}):"
            else:
                head = f"for {r} in {src}{'.T' if kind == 'cols' else ''}:"
        elif kind in ("elems", "zip"):
            a = self.ex("N", sc, 1)
            inner.arrays[r] = ["S", False]
            if kind == "elems":
                head = f"for {r} in {a}:"
            else:
                inner.arrays[i] = ["S", False]
                head = f"for {r}, {i} in zip({a}, {self.ex('N', sc, 1)}):"
        elif kind == "list":
            if not sc.lists:
                return False
            src = self.pick(sorted(sc.lists))
            inner.frozen.add(src)
            inner.arrays[r] = [sc.lists[src][0], False]
            head = f"for {r} in {src}:"
        else:
            if not sc.dicts:
                return False
            src = self.pick(sorted(sc.dicts))
            codes = {c for c, _ in sc.dicts[src].values()}
            if len(codes) != 1:
                return False
            inner.frozen.add(src)
            inner.arrays[r] = [codes.pop(), False]
            head = f"for {i}, {r} in {src}.items():"
        if self.coin(0.5):
            acc, code = self.name("acc"), self.pick("SNM")
            L.append(f"{pad}{acc} = {self.pick(['np.zeros', 'np.ones'])}({shape(code, n, m)})"
                     if code != "S" else f"{pad}{acc} = 0.0")
            sc.arrays[acc] = [code, True]
            inner.arrays[acc] = [code, True]
            L.append(pad + head)
            L.append(f"{pad}    {acc} = {acc} + {self.ex(self.pick(INTO[code]), inner, 1)}")
        else:
            L.append(pad + head)
        body = dict(ctx, depth=ctx["depth"] + 1, loop="for")
        self.block(L, ind + 1, inner, body, self.pick([1, 2]))
        if self.coin(0.4):
            L.append(f"{pad}    if {self.cond(inner)}:")
            self.jump(L, ind + 2, inner, body)
            if L[-1].endswith(":"):
                L.append(f"{pad}        break")

    def st_while(self, L, ind, sc, ctx):
        if ctx["depth"] >= 2:
            return False
        pad, k = "    " * ind, self.name("k")
        body = dict(ctx, depth=ctx["depth"] + 1, loop="while")
        if self.coin(0.5):
            # a fixed-point iteration stopping on a tolerance
            code = self.pick("SNM")
            z, err = self.name("z"), self.name("err")
            L += [f"{pad}{z} = {self.ex(code, sc, 1)}", f"{pad}{err} = 1.0", f"{pad}{k} = 0"]
            inner = sc.child()
            L.append(f"{pad}while {err} > {self.thr()} and {k} < {self.pick([6, 10, 20])}:")
            zn = self.name("zn")
            inner.arrays[z] = [code, False]
            L.append(f"{pad}    {zn} = 0.5 * np.tanh({z}) + 0.3 * {self.ex(self.pick(INTO[code]), inner, 1)}")
            L.append(f"{pad}    {err} = float(np.sum(({zn} - {z}) ** 2))")
            L += [f"{pad}    {z} = {zn}", f"{pad}    {k} += 1"]
            sc.arrays[z] = [code, True]
            sc.arrays[err] = ["S", True]
            return
        L += [f"{pad}{k} = 0", f"{pad}while {k} < {self.pick([2, 3, 4])}:", f"{pad}    {k} += 1"]
        inner = sc.child()
        self.block(L, ind + 1, inner, body, self.pick([1, 2]))
        if self.coin(0.5):
            L.append(f"{pad}    if {self.cond(inner)}:")
            L.append(f"{pad}        break")

    def st_helper(self, L, ind, sc, ctx):
        if len(self.global_funcs) < 2 and ctx["fn"] == "main" and self.coin(0.6):
            self.make_helper()
        if not any(how != "recursive" for _, _, how in self.global_funcs.values()):
            return False
        fname = self.pick(sorted(k for k, (_, _, how) in self.global_funcs.items() if how != "recursive"))
        params, out, how = self.global_funcs[fname]
        v = self.name("h")
        if how == "tuple":
            v2 = self.name("h")
            L.append(f"{'    ' * ind}{v}, {v2} = {fname}({', '.join(self.ex(c, sc, 1) for c in params)})")
            sc.arrays[v], sc.arrays[v2] = [out[0], False], [out[1], False]
            return
        if how == "inplace":
            names = sc.writable(params[0])
            if not names:
                return False
            tgt = self.pick(names)
            L.append(f"{'    ' * ind}{v} = {fname}({tgt}, {self.ex('S', sc, 1)})")
            sc.arrays[v] = [out, False]
            return
        L.append(f"{'    ' * ind}{v} = {fname}({', '.join(self.ex(c, sc, 1) for c in params)})")
        sc.arrays[v] = [out, False]

    def make_helper(self):
        fname = f"helper{len(self.global_funcs) + 1}"
        how = self.pick(["plain", "default", "tuple", "inplace"])
        params = [self.pick("NSXM") for _ in range(self.pick([1, 2]))]
        names = [f"u{k}" for k in range(len(params))]
        sc = Scope()
        for p, c in zip(names, params):
            sc.arrays[p] = [c, False]
        out = self.pick("SNM")
        head = ", ".join(names)
        if how == "default":
            head += ", k=0.5"
            sc.arrays["k"] = ["S", False]
        if how == "inplace":
            params[0] = self.pick("NX")
            sc.arrays["u0"] = [params[0], True]
            params = params[:1]
            head = "u0, t"
            sc.arrays = {"u0": [params[0], True], "t": ["S", False]}
        body = []
        ctx = {"fn": "helper", "depth": 0, "out": out}
        if how == "inplace":
            self.write_into(body, 1, sc, "u0")
            sc.frozen.add("u0")
            body.append(f"    return {self.ex(out, sc)}")
        else:
            self.block(body, 1, sc, ctx, self.pick([1, 2]))
            if how == "tuple":
                out = (out, self.pick("SN"))
                body.append(f"    return {self.ex(out[0], sc)}, {self.ex(out[1], sc)}")
            else:
                body.append(f"    return {self.ex(out, sc)}")
        self.helpers += [f"def {fname}({head}):"] + body + ["", ""]
        self.global_funcs[fname] = (params, out, how)

    def st_closure(self, L, ind, sc, ctx):
        pad = "    " * ind
        g = self.name("g")
        kind = self.pick(["lambda", "def", "default", "varargs"])
        pc, out = self.pick("SNM"), self.pick("SNM")
        inner = sc.child()
        inner.frozen |= set(sc.arrays) | set(sc.lists) | set(sc.dicts)
        u = self.name("u")
        inner.arrays[u] = [pc, False]
        if kind == "lambda":
            L.append(f"{pad}{g} = lambda {u}: {self.ex(out, inner, 1)}")
            sc.funcs[g] = ([pc], out, "plain")
        elif kind == "varargs":
            L += [f"{pad}def {g}(*{u}):",
                  f"{pad}    return sum(np.sum(np.tanh(e)) * {self.ex('S', sc, 2)} for e in {u})"]
            sc.funcs[g] = ([], "S", "varargs")
        else:
            head = u
            if kind == "default":
                dflt = self.pick(sorted(k for k, (c, _) in sc.arrays.items() if c == "S") or ["0.5"])
                head += f", k={dflt}"
                inner.arrays["k"] = ["S", False]
            L.append(f"{pad}def {g}({head}):")
            self.block(L, ind + 1, inner, {"fn": "nested", "depth": 1, "out": out}, self.pick([0, 1]))
            L.append(f"{pad}    return {self.ex(out, inner, 1)}")
            sc.funcs[g] = ([pc], out, "default" if kind == "default" else "plain")

    def st_list(self, L, ind, sc, ctx):
        pad = "    " * ind
        names = sorted(k for k in sc.lists if k not in sc.frozen)
        if names and self.coin(0.6):
            v = self.pick(names)
            code = sc.lists[v][0]
            form = self.pick(["{v}.append({x})", "{v} += [{x}]", "{v}.extend([{x}, {y}])", "{v}.insert(0, {x})",
                              "{v}[0] = {x}", "{v} = {v} + [{x}]", "{v}.pop()"])
            if form == "{v}.pop()" and (sc.lists[v][2] < 2 or ctx["depth"]):
                form = "{v}.append({x})"
            L.append(pad + form.format(v=v, x=self.ex(code, sc, 1), y=self.ex(code, sc, 1)))
            if form == "{v}.pop()":
                sc.lists[v][2] -= 1
            elif ctx["depth"] == 0 and "[0]" not in form:
                sc.lists[v][2] += 1
            return
        v, code = self.name("ls"), self.pick("SNM")
        if self.coin(0.3) and code == "M":
            L.append(f"{pad}{v} = [{self.ex('M', sc, 2)} * {self.pick(['r', 'np.tanh(r)'])} for r in "
                     f"{self.ex('X', sc, 1)}]")
            sc.lists[v] = [code, True, self.n]
            return
        items = [self.ex(code, sc, 1) for _ in range(self.pick([1, 2, 3]))]
        L.append(f"{pad}{v} = [{', '.join(items)}]")
        sc.lists[v] = [code, True, len(items)]

    def st_dict(self, L, ind, sc, ctx):
        pad = "    " * ind
        names = sorted(k for k in sc.dicts if k not in sc.frozen)
        if names and self.coin(0.6):
            v = self.pick(names)
            key = self.pick(sorted(sc.dicts[v]))
            code, is_fresh = sc.dicts[v][key]
            op = self.pick(["=", "+=", "*="]) if is_fresh else "="
            x = self.ex(code, sc, 1)
            if op == "=" and ctx["depth"] and not fresh(x):
                x = f"np.tanh({x})"
            L.append(f'{pad}{v}["{key}"] {op} {x if op != "*=" else f"np.tanh({x})"}')
            if op == "=":
                sc.dicts[v][key][1] = fresh(x)
            return
        v = self.name("d")
        codes = [self.pick("SNM") for _ in range(self.pick([1, 2]))]
        items = {f"k{j}": self.ex(c, sc, 1) for j, c in enumerate(codes)}
        L.append(f"{pad}{v} = {{{', '.join(f'{k!r}: {x}'.replace(chr(39), chr(34)) for k, x in items.items())}}}")
        sc.dicts[v] = {k: [c, fresh(items[k])] for k, c in zip(items, codes)}
        if self.coin(0.3) and len(set(codes)) == 1:
            w = self.name("d")
            L.append(f"{pad}{w} = {{key: np.tanh(val) for key, val in {v}.items()}}")
            sc.dicts[w] = {k: [codes[0], True] for k in items}

    def st_tuple(self, L, ind, sc, ctx):
        pad = "    " * ind
        names = sorted(k for k, (c, _) in sc.arrays.items() if k not in sc.frozen)
        same = [(a, b) for a in names for b in names if a < b and sc.arrays[a] == sc.arrays[b]]
        if same and self.coin(0.3):
            a, b = self.pick(same)
            L.append(f"{pad}{a}, {b} = {b}, {a}")
            sc.arrays[a], sc.arrays[b] = sc.arrays[b], sc.arrays[a]
            return
        codes = [self.pick("SNMX") for _ in range(2)]
        t = self.name("t")
        L.append(f"{pad}{t} = ({self.ex(codes[0], sc, 1)}, {self.ex(codes[1], sc, 1)})")
        if self.coin(0.5):
            a, b = self.name("p"), self.name("p")
            L.append(f"{pad}{a}, {b} = {t}")
            sc.arrays[a], sc.arrays[b] = [codes[0], False], [codes[1], False]
        sc.tuples[t] = codes

    def st_matrix(self, L, ind, sc, ctx):
        q = self.name("Q")
        L.append(f"{'    ' * ind}{q} = 2.5 * np.eye({self.n}) + 0.3 * np.tanh({self.fill(self.pick(SQUARES), sc, 2)})")
        sc.mats.append(q)

    def st_argsort(self, L, ind, sc, ctx):
        o, v, pad = self.name("o"), self.name("v"), "    " * ind
        code = self.pick("NX")
        L.append(f"{pad}{o} = np.argsort({self.ex('N', sc, 1)})")
        L.append(f"{pad}{v} = {postfix_safe(self.ex(code, sc, 1))}[{o}]")
        sc.arrays[v] = [code, True]


    def st_count(self, L, ind, sc, ctx):
        if ctx["depth"] >= 2:
            return False
        pad, cnt, i = "    " * ind, self.name("cnt"), self.name("i")
        how = self.pick(["int(np.sum({N} > {T}))", "int(np.argmax({N}))", "int(np.argmin({N}))",
                         "np.count_nonzero({N} < {T})"])
        L.append(f"{pad}{cnt} = " + how.replace("{N}", self.ex("N", sc, 1)).replace("{T}", self.thr()))
        inner = sc.child()
        inner.ints[i] = "n"
        L.append(f"{pad}for {i} in range({cnt}):")
        self.block(L, ind + 1, inner, dict(ctx, depth=ctx["depth"] + 1, loop="for"), self.pick([1, 2]))
        sc.ints[cnt] = "n1"

    def st_ternary(self, L, ind, sc, ctx):
        code, v = self.pick("SNX"), self.name("v")
        L.append(f"{'    ' * ind}{v} = {self.ex(code, sc, 1)} if {self.cond(sc)} else {self.ex(code, sc, 1)}")
        sc.arrays[v] = [code, False]

    def st_recursive(self, L, ind, sc, ctx):
        fname = "rec"
        if fname not in self.global_funcs:
            self.helpers += ["def rec(u, k):", "    if k == 0:", "        return u",
                             "    return rec(np.sin(u) * 0.9 + 0.1 * u ** 2, k - 1)", "", ""]
            self.global_funcs[fname] = ([], None, "recursive")
        code, v = self.pick("SNX"), self.name("v")
        L.append(f"{'    ' * ind}{v} = rec({self.ex(code, sc, 1)}, {self.pick([0, 1, 2, 3])})")
        sc.arrays[v] = [code, False]
