"""A third random-program generator, built on hypothesis: programs grown from a grammar by drawn choices.

test_hypothesis_programs.py runs it. Unlike progen.py (fixed shapes (3,), (4,), (4, 3), a random.Random
per seed), every choice here is a hypothesis draw, so a failing program shrinks by hypothesis' own rules
(fewer statements, earlier alternatives: each table lists its simplest entry first), and the sizes n != m
are drawn per program, so a wrong axis shows.

Values have shape codes (CODES): S (), N (n,), M (m,), C (n, 1), R (1, n), X (n, m), Y (m, n); a Q is a
well-conditioned (n, n) matrix, made only as 2.5 I + 0.3 tanh(square) so solve/inv/det are safe.
Expressions come from tables of templates (progen_hyp_grammar.py: FORMS, UNARY, BINARY) whose fields ({N}, {X}, {T}, ...) are
filled with expressions of those codes, thresholds T0, T1, ... (chosen later by proginst.calibrate),
indices, split points and index lists. Statements (Writer.st_*; progen_hyp_flow.py and, for changes in
place, progen_hyp_changes.py) assign, update in place (items, slices,
masks, integer arrays, np.add.at, views made by reshape/.T/ravel/slicing), branch, loop (range, rows,
zip, enumerate, lists, dict items, while with a counter or a tolerance, break/continue, early return),
define module-level helpers, closures, lambdas, defaults and *args, and build and consume lists, dicts
and tuples. Each name's code is tracked, and whether it is fresh (shares memory with no input): only a
fresh array is changed in place, so a valid program never writes into its inputs.
"""

import re

import hypothesis.strategies as st

from progen_hyp_changes import Changes
from progen_hyp_flow import Statements
from progen_hyp_grammar import BINARY, BROADCAST, CODES, FORMS, MATH, UNARY, Scope, postfix_safe


class Writer(Statements, Changes):
    """Draws one program: module-level helpers and `def f(<params>)`, written as source lines."""

    max_depth = 3

    def __init__(self, draw, n, m):
        self.draw, self.n, self.m = draw, n, m
        self.count, self.nt = 0, 0
        self.helpers = []           # source lines of module-level helpers
        self.global_funcs = {}      # helper name -> (parameter codes, result code, how to call)

    def pick(self, options):
        options = list(options)
        return options[self.draw(st.integers(0, len(options) - 1))] if len(options) > 1 else options[0]

    def coin(self, p):
        """True with probability p; shrinks to False."""
        return self.draw(st.integers(0, 99)) >= 100 - round(100 * p)

    def name(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def thr(self):
        self.nt += 1
        return f"T{self.nt - 1}"

    def ex(self, code, sc, d=0):
        if d >= self.max_depth or not self.coin(0.7):
            return self.leaf(code, sc)
        k = self.pick(["form", "unary", "binary", "form", "call", "comp", "math"])
        if k == "unary":
            x = self.ex(code, sc, d + 1)
            return postfix_safe(self.fill(self.pick(UNARY), sc, d + 1, x))
        if k == "binary":
            a, b = self.pick(BROADCAST[code])
            if self.coin(0.5):
                a, b = b, a
            if a != code and b != code:
                a = code
            return postfix_safe(self.fill(self.pick(BINARY), sc, d + 1, self.ex(a, sc, d + 1), self.ex(b, sc, d + 1)))
        if k == "call" and self.callables(code, sc):
            return self.call(code, sc, d)
        if k == "comp":
            got = self.comp(code, sc, d)
            if got:
                return got
        if k == "math" and code == "S":
            return self.fill(self.pick(MATH), sc, d + 1)
        forms = [f for f in FORMS[code] if sc.mats or not re.search(r"\{Q\d*\}", f)]
        return postfix_safe(self.fill(self.pick(forms), sc, d + 1))

    def fill(self, template, sc, d, *operands):
        shared = {}

        def one(mo):
            key = mo.group(1)
            if key.isdigit():
                return operands[int(key)]
            if key in shared:
                return shared[key]
            out = self.field(key.rstrip("0123456789"), sc, d)
            if key[-1].isdigit():
                shared[key] = out
            return out
        return re.sub(r"\{(\w+)\}", one, template)

    def field(self, key, sc, d):
        n, m = self.n, self.m
        if key in CODES:
            return self.ex(key, sc, d)
        if key == "T":
            return self.thr()
        if key == "n":
            return str(n)
        if key == "m":
            return str(m)
        if key in ("I", "J"):
            size = n if key == "I" else m
            ints = [v for v, b in sc.ints.items() if b == ("n" if key == "I" else "m")]
            if ints and self.coin(0.5):
                return self.pick(ints)
            return str(self.pick(list(range(size)) + [-1, -size]))
        if key in ("K", "L"):
            return str(self.pick(range(1, n if key == "K" else m)))
        if key in ("P", "PM"):
            size = n if key == "P" else m
            idx = [self.pick(range(-size, size)) for _ in range(size)]
            return "[" + ", ".join(map(str, idx)) + "]"
        if key == "Q":
            return self.pick(sc.mats)
        if key == "PX":
            return "[" + ", ".join(str(self.pick(range(m))) for _ in range(n)) + "]"
        if key in ("BN", "BX"):
            masks = [k for k, c in sc.masks.items() if c == key[1]]
            if masks and self.coin(0.6):
                return self.pick(masks)
            return f"({self.ex(key[1], sc, d)} > {self.thr()})"
        raise KeyError(key)

    def leaf(self, code, sc):
        opts = [k for k, (c, _) in sc.arrays.items() if c == code]
        opts += [f'{k}["{j}"]' for k, v in sc.dicts.items() for j, (c, _) in v.items() if c == code]
        opts += [f"{k}[{i}]" for k, v in sc.tuples.items() for i, c in enumerate(v) if c == code]
        for k, (c, _, length) in sc.lists.items():
            if c == code:
                opts += [f"{k}[0]", f"{k}[-1]", f"sum({k})",
                         f"np.mean(np.stack({k}), axis=0)", f"np.sum({k}, axis=0)"]
        if opts and self.coin(0.9):
            return self.pick(opts)
        return self.const(code)

    def const(self, code):
        n, m = self.n, self.m
        a, b = self.pick([(-0.4, 0.6), (0.3, -0.7), (0.1, 0.9)])
        size = {"S": 1, "N": n, "M": m, "C": n, "R": n, "X": n * m, "Y": n * m}[code]
        if code == "S":
            return self.pick(["0.5", "1.25", "(-0.3)", "0.8"])
        base = f"np.linspace({a}, {b}, {size})"
        return {"N": base, "M": base, "C": f"{base}[:, None]", "R": f"{base}[None, :]",
                "X": f"{base}.reshape({n}, {m})", "Y": f"{base}.reshape({m}, {n})"}[code]

    def callables(self, code, sc):
        funcs = dict(self.global_funcs, **sc.funcs)
        return sorted(k for k, (_, out, how) in funcs.items() if out == code and how not in ("inplace", "tuple"))

    def call(self, code, sc, d):
        fname = self.pick(self.callables(code, sc))
        params, _, how = dict(self.global_funcs, **sc.funcs)[fname]
        if how == "varargs":
            args = [self.ex(self.pick("SNMX"), sc, d + 1) for _ in range(self.pick([1, 2, 3]))]
        else:
            args = [self.ex(c, sc, d + 1) for c in params]
            if how == "default" and self.coin(0.5):
                args.append(f"k={self.ex('S', sc, d + 1)}" if self.coin(0.5) else self.ex("S", sc, d + 1))
        return f"{fname}({', '.join(args)})"

    def comp(self, code, sc, d):
        """A comprehension or generator expression of the given code, or None."""
        n, m = self.n, self.m
        v = self.name("q")
        inner = sc.child()
        # (iterable, element code bound to v, result template, element code), the iterable drawn when chosen
        kinds = {"N": [("N", "S", "np.array([{e} for {v} in {it}])", "S"),
                       (f"range({n})", "n", "np.array([{e} for {v} in {it}])", "S"),
                       ("X", "M", "np.array([np.sum({e}) for {v} in {it}])", "M")],
                 "S": [("X", "M", "sum(np.sum({e}) for {v} in {it})", "M"),
                       ("N", "S", "sum({e} for {v} in {it} if {v} > {t})", "S"),
                       (f"range({m})", "m", "sum([{e} for {v} in {it}], 0.0)", "S")],
                 "X": [("X", "M", "np.stack([{e} for {v} in {it}])", "M"),
                       (f"range({m})", "m", "np.stack([{e} for {v} in {it}], axis=1)", "N")],
                 "M": [("Y", "N", "np.array([np.dot({v}, {e}) for {v} in {it}])", "N")]}
        if code not in kinds:
            return None
        it, vcode, template, ecode = self.pick(kinds[code])
        if vcode in ("n", "m"):
            inner.ints[v] = vcode
        else:
            inner.arrays[v] = [vcode, False]
            it = self.ex(it, sc, d + 1)
        e = self.ex(ecode, inner, d + 1)
        return template.format(e=e, v=v, it=it, t=self.thr())


PARAMS = [("x", "N"), ("A", "X"), ("s", "S"), ("y", "M")]


@st.composite
def programs(draw):
    """(source, parameter names, parameter codes, n, m, seed for inputs, checks to run)."""
    n, m = draw(st.sampled_from([(3, 2), (2, 3), (4, 3), (3, 4), (4, 2)]))
    w = Writer(draw, n, m)
    params = PARAMS[:draw(st.integers(1, 4))]
    sc = Scope()
    for p, c in params:
        sc.arrays[p] = [c, False]
    dict_param = draw(st.booleans())
    if dict_param:
        sc.dicts["p"] = {"w": ["M", False], "b": ["S", False]}
        sc.frozen.add("p")          # the caller's dict: never written into
    body = []
    w.block(body, 1, sc, {"fn": "main", "depth": 0}, draw(st.integers(1, 8)))
    body.append(f"    return {w.final(sc)}")
    names = [p for p, _ in params] + (["p"] if dict_param else [])
    codes = [c for _, c in params] + (["D"] if dict_param else [])
    src = "\n".join(["import math", "", "import numpy as np", "", ""] + w.helpers +
                    [f"def f({', '.join(names)}):"] + body) + "\n"
    seed = draw(st.integers(0, 2 ** 16))
    checks = draw(st.sampled_from(["grad", "grad+jvp", "grad+jvp", "grad+hessian", "grad+jvp+hessian"]))
    return src, names, codes, n, m, seed, checks
