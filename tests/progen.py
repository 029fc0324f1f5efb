"""Random NumPy programs written the way users write them (the grammar of issue 12).

`Gen(seed).program()` writes a module with helpers and `def f(xs, s, W[, p][, L])`.
Statements (one method each, `s_<kind>`): assignments, rebinding, item and
augmented item assignment (constant, negative, slice, fancy with repeated
indices, boolean mask), in-place operators, `x = x.copy()` followed by updates,
views updated in place (slices, reshape, .T, rows, aliases; the base or the
view read afterwards), if/elif/else with early return, for over
range/rows/elements/enumerate/zip/lists/dicts, while with break/continue,
lists (append/extend/+=, then np.stack, sum, np.sum), builtin sum,
tuple unpacking (also starred and swaps), dicts (build, d[k] = v, d[k] += v,
iterate keys/items/values, copies and comprehensions of the input dict),
lambdas and nested functions (closures) called directly and through map, nested
functions that assign an enclosing variable, call themselves or take *args (progen_try.py), try/except
(progen_try.py), lambdas and closures passed to module functions, min/max with keys, next and itertools
(progen_calls.py), and module-level helpers with their own control flow, returning tuples, recursive,
or changing an argument in place, and objects of classes (progen_objects.py). Expressions are in progen_expr.py.

The generator tracks, for each name, its shape and whether it may be changed
in place (`mutable`: it shares memory with no input); rebinding an existing
name always gives it a fresh value, so this stays true around loops. The
thresholds of comparisons are names T0, T1, ...; proginst.calibrate picks them.
"""

import random

import numpy as np

from progen_expr import ARRAYS, BOUND, INTO, SHAPES, Exprs, index_forms, meet

STMTS = [("assign", 12), ("rebind", 5), ("setitem", 8), ("inplace", 4), ("copy_update", 4), ("view_update", 6),
         ("if", 7), ("for", 7), ("while", 3), ("list_new", 3), ("append", 4), ("list_use", 2), ("list_loop", 3),
         ("unpack", 3), ("dict_new", 3), ("dict_write", 4), ("dict_iter", 2), ("closure", 3), ("map", 2),
         ("helper_stmt", 3), ("builtin_sum", 2), ("object", 3), ("try", 3), ("nonlocal", 2), ("nested_special", 2),
         ("passed", 3), ("extremum", 2), ("next", 1), ("itertools", 1), ("table", 2), ("debug_branch", 1)]
KINDS, WEIGHTS = zip(*STMTS)


class Gen(Exprs):
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.n = 0
        self.nt = 0
        self.helpers = []
        self.small = self.r.random() < 0.5      # half the programs are small: quicker, and easier to read

    def name(self, prefix="v"):
        self.n += 1
        return f"{prefix}{self.n}"

    def thr(self):
        self.nt += 1
        return f"T{self.nt - 1}"

    # -- blocks -----------------------------------------------------------------------------------
    def block(self, L, ind, sc, ctx, depth, count=None):
        for _ in range(count or self.r.choice([1, 1, 2] if self.small else [1, 1, 2, 2, 3])):
            for _ in range(20):
                kind = self.r.choices(KINDS, WEIGHTS)[0]
                if getattr(self, "s_" + kind)(L, ind, sc, ctx, depth) is not False:
                    break

    def jump(self, L, ind, sc, ctx):
        """Maybe end a branch with return / break / continue; True when it does."""
        r, pad = self.r, "    " * ind
        if ctx["loop"] and r.random() < 0.25:
            L.append(pad + r.choice(["break", "continue"]))
            return True
        if r.random() < (0.3 if ctx["fn"] == "helper" else 0.2):
            L.append(pad + self.ret_stmt(sc, ctx))
            return True
        return False

    def ret_stmt(self, sc, ctx):
        ret = ctx.get("ret", ())
        if ctx["fn"] == "main":
            return f"return {self.final(sc)}"
        if ret is None:
            return "return"
        if isinstance(ret, list):
            return "return " + ", ".join(self.fresh_e(t, sc).text for t in ret)
        return f"return {self.fresh_e(ret, sc)}"

    def final(self, sc):
        r, terms = self.r, []
        for n, (t, _) in sc.arrays.items():
            forms = [n, f"np.sin({n})", f"{n} ** 2"] if t == () else \
                [f"np.sum({n})", f"np.mean(np.sin({n}))", f"np.sum({n} ** 2)", f"np.sum(np.tanh({n}) * {n})"]
            terms.append(r.choice(forms))
        for n in sc.lists:
            terms.append(r.choice([f"np.sum({n})", f"np.sum(np.stack({n}))", f"sum(np.sum(e) for e in {n})"]))
        for n in sc.dicts:
            terms.append(r.choice([f"sum(np.sum(e) for e in {n}.values())", f"np.sum([np.sum({n}[k]) for k in {n}])"]))
        return " + ".join(terms) if terms else "0.0"

    def cond(self, sc):
        r, k = self.r, self.r.random()
        if k < 0.4:
            return f"{self.e((), sc, 1)} {r.choice(['>', '<'])} {self.thr()}"
        if k < 0.55:
            return f"np.sum({self.e(r.choice(ARRAYS), sc, 1)}) > {self.thr()}"
        if k < 0.65:
            return f"np.{r.choice(['any', 'all'])}({self.e(r.choice(ARRAYS), sc, 1)} > {self.thr()})"
        if k < 0.75:
            return f"{self.e((), sc, 2)} > {self.e((), sc, 2)}"
        if k < 0.83 and sc.ints:
            i = r.choice(sorted(sc.ints))
            return r.choice([f"{i} % 2 == 0", f"{i} > 0", f"{i} == 1"])
        return r.choice(["{} and {}", "{} or {}", "not {}"]).format(
            f"{self.e((), sc, 2)} > {self.thr()}", f"{self.e((), sc, 2)} < {self.thr()}")

    # -- assignments ------------------------------------------------------------------------------
    def s_assign(self, L, ind, sc, ctx, depth):
        t, v = self.r.choice(SHAPES), self.name()
        x = self.bounded(t, sc)
        L.append(f"{'    ' * ind}{v} = {x}")
        sc.set(v, t, not x.view)

    def s_rebind(self, L, ind, sc, ctx, depth):
        names = [n for n, (t, _) in sc.arrays.items()]
        if not names:
            return False
        n = self.r.choice(names)
        t = sc.arrays[n][0]
        x = self.e(self.r.choice(INTO[t]), sc)
        form = self.r.choice(["{n} = 0.7 * {n} + 0.3 * np.tanh({x})", "{n} = np.tanh({n} * {x})",
                              "{n} = np.sin({n}) + 0.1 * {x}"] + (["{n} += 0.1 * np.tanh({x})"] if t == () else []))
        L.append("    " * ind + form.format(n=n, x=x))
        sc.set(n, t, True)

    def write(self, L, ind, sc, a, shape):
        """One item assignment, augmented item assignment or in-place operator on the array named a."""
        r, pad = self.r, "    " * ind
        op = r.choice(["=", "+=", "-=", "*="])
        k = r.random()
        if k < 0.15:
            m = f"{a} > {self.thr()}" if r.random() < 0.6 or shape not in SHAPES else f"{self.e(shape, sc, 2)} < {self.thr()}"
            rhs = f"np.sin({a}[{m}])" if op == "=" and r.random() < 0.5 else self.e((), sc, 2)
            L.append(f"{pad}{a}[{m}] {op} {rhs}")
        elif k < 0.3:
            rhs = self.e(r.choice(INTO[shape]) if shape in SHAPES else (), sc, 1)
            L.append(f"{pad}{a} {op if op != '=' else '+='} {rhs}" if op != "*=" else f"{pad}{a} *= np.cos({rhs})")
        else:
            idx, part, repeated = r.choice(index_forms(shape, repeats=op != "="))
            same = part[1:] if repeated else part        # the same value at repeated places
            if same in SHAPES and same and r.random() < 0.5:
                rhs = self.e(r.choice(INTO[same]), sc, 1)
            elif r.random() < 0.4:
                rhs = f"{r.choice(BOUND).format(f'{a}[{idx}]')}"
            else:
                rhs = self.e((), sc, 1)
            L.append(f"{pad}{a}[{idx}] {op} {rhs}")

    def s_setitem(self, L, ind, sc, ctx, depth):
        names = sc.mutables()
        if not names:
            return False
        a = self.r.choice(names)
        self.write(L, ind, sc, a, sc.arrays[a][0])

    def s_inplace(self, L, ind, sc, ctx, depth):
        names = sc.mutables()
        if not names:
            return False
        a = self.r.choice(names)
        t = sc.arrays[a][0]
        op = self.r.choice(["+=", "-=", "*=", "/="])
        x = self.e(self.r.choice(INTO[t]), sc, 1)
        rhs = {"*=": f"np.cos({x})", "/=": f"(1.5 + {x} ** 2)"}.get(op, str(x))
        L.append(f"{'    ' * ind}{a} {op} {rhs}")

    def s_copy_update(self, L, ind, sc, ctx, depth):
        r = self.r
        names = [n for n, (t, _) in sc.arrays.items() if t]
        if not names:
            return False
        x = r.choice(names)
        t = sc.arrays[x][0]
        c = x if r.random() < 0.4 else self.name("c")
        form = r.choice(["{}.copy()", "np.copy({})", "np.array({})", "{}.astype(float)", "{} * 1.0", "+{}"])
        L.append(f"{'    ' * ind}{c} = {form.format(x)}")
        sc.set(c, t, True)
        for _ in range(r.randint(1, 2)):
            self.write(L, ind, sc, c, t)

    VIEWS = {(3,): ["{a}[1:]", "{a}[::2]", "{a}[None]", "{a}.reshape(1, 3)", "{a}[:]", "{a}", "{a}[::-1]"],
             (4,): ["{a}[1:]", "{a}.reshape(4, 1)", "{a}[:, None]", "{a}.reshape(2, 2)", "{a}[-3:]", "{a}"],
             (4, 3): ["{a}[1:]", "{a}[2]", "{a}[:, 1]", "{a}.T", "{a}.reshape(3, 4)", "{a}.reshape(-1)",
                      "{a}[1:3, ::2]", "{a}[:, :1]", "{a}", "{a}.ravel()", "{a}[-1]"],
             (1, 3): ["{a}[0]", "{a}.T", "{a}.reshape(3)", "{a}[:, 1:]", "np.squeeze({a})"],
             (4, 1): ["{a}[:, 0]", "{a}.T", "{a}[1:]", "{a}.reshape(4)", "{a}.ravel()"]}
    def s_view_update(self, L, ind, sc, ctx, depth):
        """A view of a local array; one of them changed in place, the other read afterwards."""
        r, pad = self.r, "    " * ind
        bases = sc.mutables()
        if not bases:
            a, t = self.name("a"), r.choice(ARRAYS)
            L.append(f"{pad}{a} = {self.fresh_e(t, sc)}")
            sc.set(a, t, True)
        else:
            a = r.choice(bases)
            t = sc.arrays[a][0]
        form = r.choice(self.VIEWS[t])
        vshape = eval(form.format(a="np.zeros(t)"), {"np": np, "t": t}).shape
        v = self.name("w")
        L.append(f"{pad}{v} = {form.format(a=a)}")
        base_first = r.random() < 0.3
        for _ in range(r.randint(1, 2)):
            self.write(L, ind, sc, a if base_first else v, t if base_first else vshape)
        u = self.name()
        read, rt = (v, vshape) if base_first else (a, t)
        L.append(f"{pad}{u} = np.sum(np.sin({read}) * {self.e((), sc, 1)})")
        sc.set(u, (), False)
        if vshape in SHAPES:
            sc.set(v, vshape, True)

    # -- control flow -----------------------------------------------------------------------------
    def s_if(self, L, ind, sc, ctx, depth):
        if depth >= ctx["depth"]:
            return False
        r, pad = self.r, "    " * ind
        L.append(f"{pad}if {self.cond(sc)}:")
        first = sc.copy()
        self.block(L, ind + 1, first, ctx, depth + 1)
        paths = [] if self.jump(L, ind + 1, first, ctx) else [first]
        if r.random() < 0.3:
            L.append(f"{pad}elif {self.cond(sc)}:")
            paths.append(sc.copy())
            self.block(L, ind + 1, paths[-1], ctx, depth + 1)
        if r.random() < 0.6:
            L.append(f"{pad}else:")
            paths.append(sc.copy())
            self.block(L, ind + 1, paths[-1], ctx, depth + 1)
        else:
            paths.append(sc)
        new = meet(*paths)
        sc.__dict__.update(new.__dict__)

    def loop_header(self, sc, body):
        """The for-loop header; binds its names in body. Returns (header, something the loop reads)."""
        r = self.r
        kinds = ["range", "range", "rows", "elems", "enumerate", "zip"]
        kinds += ["list"] * bool(sc.lists) + ["dict"] * bool(sc.dicts)
        kind = r.choice(kinds)
        vec = [n for n, (t, _) in sc.arrays.items() if len(t) == 1] or ["xs"] * sc.bridge
        mats = [n for n, (t, _) in sc.arrays.items() if t in ((4, 3), (1, 3))] or ["W"] * sc.bridge
        if kind == "range" or (kind in ("elems", "enumerate", "zip") and not vec) or (kind == "rows" and not mats):
            i, k = self.name("i"), r.choice([0, 1, 2, 3, 4])
            body.ints[i] = k
            return (f"for {i} in range({k}):", f"0.1 * {i}") if r.random() < 0.7 else \
                (f"for {i} in range({k} - 1, -1, -1):", f"0.1 * {i}")
        if kind == "rows":
            m = r.choice(mats)
            row = self.name("row")
            body.set(row, (3,), m in sc.arrays and sc.arrays[m][1])
            return f"for {row} in {m}:", f"np.sum({row})"
        if kind == "elems":
            t = self.name("t")
            body.set(t, (), False)
            return f"for {t} in {r.choice(vec)}:", t
        if kind == "enumerate":
            v, i, t = r.choice(vec), self.name("i"), self.name("t")
            body.ints[i] = sc.arrays[v][0][0] if v in sc.arrays else 3
            body.set(t, (), False)
            return f"for {i}, {t} in enumerate({v}):", f"{t} * {i}"
        if kind == "zip":
            t, u = self.name("t"), self.name("u")
            body.set(t, (), False)
            if mats and r.random() < 0.4:
                body.set(u, (3,), False)
                return f"for {t}, {u} in zip({r.choice(vec)}, {r.choice(mats)}):", f"{t} * np.sum({u})"
            body.set(u, (), False)
            if r.random() < 0.3:
                i = self.name("i")
                body.ints[i] = 3
                return f"for {i}, ({t}, {u}) in enumerate(zip({r.choice(vec)}, {r.choice(vec)})):", f"{t} * {u}"
            return f"for {t}, {u} in zip({r.choice(vec)}, {r.choice(vec)}):", f"{t} * {u}"
        if kind == "list":
            n = r.choice(sorted(sc.lists))
            e = self.name("e")
            body.set(e, sc.lists[n][0], False)
            body.frozen.add(n)
            return f"for {e} in {n}:", f"np.sum({e})"
        d = r.choice(sorted(sc.dicts))
        body.frozen.add(d)
        k, val = self.name("k"), self.name("val")
        return r.choice([(f"for {k} in {d}:", f"np.mean(np.tanh({d}[{k}]))"),
                         (f"for {k}, {val} in {d}.items():", f"np.sum(np.sin({val}))"),
                         (f"for {val} in {d}.values():", f"np.mean({val})"),
                         (f"for {k} in sorted({d}):", f"np.sum({d}[{k}])")])

    def carry(self, L, ind, sc, body, used):
        """A value carried around the loop, updated from what the loop reads."""
        names = [n for n in sc.arrays]
        if not names:
            return
        acc = self.r.choice(names)
        t = sc.arrays[acc][0]
        x = self.e(self.r.choice(INTO[t]), body, 2)
        L.append(f"{'    ' * ind}{acc} = {acc} * 0.6 + 0.4 * np.tanh({x} + {used})")
        body.set(acc, t, True)

    def s_for(self, L, ind, sc, ctx, depth, dict_only=False):
        if depth >= ctx["depth"]:
            return False
        r, pad = self.r, "    " * ind
        body = sc.copy()
        header, used = self.loop_header(sc, body)
        L.append(pad + header)
        self.carry(L, ind + 1, sc, body, used)
        inner = dict(ctx, loop=True)
        if r.random() < 0.8:
            self.block(L, ind + 1, body, inner, depth + 1)
        if r.random() < 0.3:
            L.append(f"{pad}    if {self.cond(body)}:")
            L.append(f"{pad}        {r.choice(['break', 'continue'])}")
            self.carry(L, ind + 1, sc, body, "0.0")
        new = meet(sc, body)
        new.frozen = sc.frozen
        sc.__dict__.update(new.__dict__)

    def s_while(self, L, ind, sc, ctx, depth):
        if depth >= ctx["depth"]:
            return False
        r, pad = self.r, "    " * ind
        c = self.name("c")
        L.append(f"{pad}{c} = 0")
        extra = f" and ({self.cond(sc)})" if r.random() < 0.4 else ""
        L.append(f"{pad}while {c} < {r.randint(1, 4)}{extra}:")
        L.append(f"{pad}    {c} += 1")
        body = sc.copy()
        self.carry(L, ind + 1, sc, body, f"0.1 * {c}")
        inner = dict(ctx, loop=True)
        if r.random() < 0.4:
            L.append(f"{pad}    if {self.cond(body)}:")
            L.append(f"{pad}        continue")
        self.block(L, ind + 1, body, inner, depth + 1)
        if r.random() < 0.4:
            L.append(f"{pad}    if {self.cond(body)}:")
            L.append(f"{pad}        break")
        new = meet(sc, body)
        new.frozen = sc.frozen
        sc.__dict__.update(new.__dict__)

    from progen_more import (s_append, s_builtin_sum, s_closure, s_dict_iter, s_dict_new, s_dict_write,  # noqa
                             s_helper_stmt, s_list_loop, s_list_new, s_list_use, s_map, s_unpack, helper, program)
    from progen_objects import s_object  # noqa
    from progen_try import s_nested_special, s_nonlocal, s_try  # noqa
    from progen_calls import s_debug_branch, s_extremum, s_itertools, s_next, s_passed, s_table  # noqa
