"""A third random-program generator, built on hypothesis: programs grown from a grammar by drawn choices.

test_hypothesis_programs.py runs it. Unlike progen.py (fixed shapes (3,), (4,), (4, 3), a random.Random
per seed), every choice here is a hypothesis draw, so a failing program shrinks by hypothesis' own rules
(fewer statements, earlier alternatives: each table lists its simplest entry first), and the sizes n != m
are drawn per program, so a wrong axis shows.

Values have shape codes (CODES): S (), N (n,), M (m,), C (n, 1), R (1, n), X (n, m), Y (m, n); a Q is a
well-conditioned (n, n) matrix, made only as 2.5 I + 0.3 tanh(square) so solve/inv/det are safe.
Expressions come from tables of templates (FORMS, UNARY, BINARY) whose fields ({N}, {X}, {T}, ...) are
filled with expressions of those codes, thresholds T0, T1, ... (chosen later by proginst.calibrate),
indices, split points and index lists. Statements (Writer.st_*) assign, update in place (items, slices,
masks, integer arrays, np.add.at, views made by reshape/.T/ravel/slicing), branch, loop (range, rows,
zip, enumerate, lists, dict items, while with a counter or a tolerance, break/continue, early return),
define module-level helpers, closures, lambdas, defaults and *args, and build and consume lists, dicts
and tuples. Each name's code is tracked, and whether it is fresh (shares memory with no input): only a
fresh array is changed in place, so a valid program never writes into its inputs.
"""

import ast
import re

import hypothesis.strategies as st

CODES = "SNMCRXY"
BROADCAST = {"S": [("S", "S")], "N": [("N", "N"), ("N", "S"), ("S", "N")],
             "M": [("M", "M"), ("M", "S"), ("S", "M")], "C": [("C", "C"), ("C", "S"), ("S", "C")],
             "R": [("R", "R"), ("R", "S"), ("R", "N"), ("N", "R")],
             "X": [("X", "X"), ("X", "S"), ("X", "M"), ("M", "X"), ("X", "C"), ("C", "X"), ("C", "M"), ("M", "C")],
             "Y": [("Y", "Y"), ("Y", "S"), ("Y", "N"), ("N", "Y"), ("Y", "R"), ("R", "Y")]}
INTO = {t: [b for a, b in pairs if a == t] for t, pairs in BROADCAST.items()}
UNARY = ["np.sin({0})", "np.tanh({0})", "np.cos({0})", "np.exp(np.tanh({0}))", "np.log1p({0} ** 2)",
         "np.sqrt(1.0 + {0} ** 2)", "np.arctan({0})", "(-{0})", "(0.5 * {0})", "({0} ** 2)", "np.abs({0})",
         "np.square({0})", "np.maximum({0}, 0.1)", "np.clip({0}, -0.5, 0.6)", "np.where({0} > {T}, {0}, 0.3 * {0})",
         "np.logaddexp({0}, 0.0)", "np.hypot({0}, 0.5)", "np.expm1(np.tanh({0}))", "({0} / (1.5 + {0} ** 2))",
         "np.power(1.5 + np.tanh({0}), 1.5)", "np.sign({0}) * {0}"]
BINARY = ["({0} + {1})", "({0} * {1})", "({0} - {1})", "({0} / (1.5 + {1} ** 2))", "np.maximum({0}, {1})",
          "np.minimum({0}, {1})", "np.add({0}, {1})", "np.multiply({0}, np.tanh({1}))", "np.hypot({0}, {1})",
          "np.arctan2({0}, 1.5 + {1} ** 2)", "np.where({0} > {1}, {0}, {1})"]
MATH = ["math.sin({S})", "math.exp(math.tanh({S}))", "math.sqrt(1.0 + {S} ** 2)", "math.log1p({S} ** 2)",
        "math.atan2({S}, 1.5)", "math.hypot({S}, 0.7)", "math.cos({S})", "float({S})", "math.tanh({S})"]
# forms making a value of each code from values of other codes; fields with a digit are shared in a template
FORMS = {
    "S": ["np.sum({N})", "np.mean({X})", "{N}[{I}]", "{X}[{I}, {J}]", "({N} @ {N})", "np.dot({M}, {M})",
          "np.max({N})", "np.min({X})", "{N}[-1]", "np.linalg.det({Q})", "np.trace({Q})", "np.linalg.norm({N})",
          "{X}.sum()", "{N}.mean()", "np.prod(np.cos({N}))", "np.var({M})", "{N}[np.argmax({N})]",
          "np.sort({N})[-1]", "sum({N})", "np.sum({N}[{N} > {T}])", "np.cumsum({N})[-1]",
          "np.einsum('i,i->', {N}, {N})", "np.linalg.slogdet({Q})[1]", "{C}[{I}, 0]", "{R}[0, {I}]",
          "np.sum({C} * {R})", "np.std({N})", "{Y}[{J}, {I}]", "np.average({N}, weights=1.5 + np.tanh({N}))",
          "{N}.dot({N})", "{X}.std()", "{N}.prod()", "(np.log(np.sum(np.exp({N1} - np.max({N1})))) + np.max({N1}))",
          "({S} if {S} > {T} else {S})", "max({S}, {S})", "abs({S})", "{N}[{N} > {T}].sum()", "float({N}[{I}])",
          "{N}[{I}].item()", "np.linalg.norm({X})", "np.sum(np.triu({Q}))", "np.sum(np.diag({Q}))",
          "np.sum(({N1}[:, None] - {N1}[None, :]) ** 2)", "({S} ** 3)", "(1.5 ** {S})", "min({N}[{I}], {S})",
          "np.sum({N} * {BN})", "np.sum(np.where({BN}, {N}, 0.0))", "np.einsum('ij,ij->', {X}, {X})",
          "np.tensordot({X}, {X}, axes=2)", "np.inner({N}, {N})", "np.vdot({X}, {X})"],
    "N": ["np.sum({X}, axis=1)", "{X}[:, {J}]", "{C}[:, 0]", "{R}[0]", "{N}[::-1]", "np.mean({X}, axis=-1)",
          "np.max({X}, axis=1)", "{C}.ravel()", "{R}.reshape(-1)", "{C}.reshape({n})", "np.flip({N})",
          "{N}[np.argsort({N})]", "np.sort({N})", "np.cumsum({N})", "np.cumprod(0.8 + 0.2 * np.tanh({N}))",
          "np.diff({N}, prepend=0.0)", "np.concatenate([{N}[:{K1}], {N}[{K1}:]])", "np.where({N} > {T}, {N}, {N})",
          "({X} @ {M})", "np.dot({X}, {M})", "({Q} @ {N})", "np.linalg.solve({Q}, {N})",
          "(np.linalg.inv({Q}) @ {N})", "({Y}.T @ {M})", "{N}[{P}]", "np.take({N}, {P})", "np.roll({N}, 1)",
          "np.hstack([{N}[:{K1}], {N}[{K1}:]])", "np.einsum('ij,j->i', {X}, {M})", "{X}.sum(axis=1)",
          "np.sum({X} * {M}, axis=1)", "{Y}[{J}]", "np.min({Y}, axis=0)", "np.squeeze({C})", "{X}[:, -1]",
          "{X}[{P}, {J}]", "np.ravel({R})", "{X}.dot({M})", "{X}.mean(axis=1)", "{N}.clip(-0.5, 0.5)", "{N}.cumsum()",
          "np.linalg.norm({X}, axis=1)", "np.diag({Q})", "(np.exp({N1} - np.max({N1})) / np.sum(np.exp({N1} - np.max({N1}))))",
          "({N} if {S} > {T} else {N})", "np.append({N}[:{K1}], {N}[{K1}:])",
          "np.concatenate([{N}[:{K1}], [{S}] * ({n} - {K1})])", "{X}[np.arange({n}), {PX}]",
          "np.einsum('ij,ij->i', {X}, {X})", "(np.tril({Q}) @ {N})", "(np.linalg.cholesky({Q1} @ {Q1}.T) @ {N})",
          "({N} ** 3)", "np.power({N}, 2)", "(1.5 ** {N})", "{N}.reshape(-1, 1).T.ravel()", "np.where({BN}, {N}, {N})",
          "({N} * {BN})", "{BN}.astype(float)", "np.linalg.solve({Q}.T, {N})", "np.matmul({Q}, {N})",
          "np.linalg.inv({Q}).dot({N})", "np.sum({X}, axis=-1)", "np.linalg.norm({Y}, axis=0)", "{X}[..., {J}]",
          "np.sum({N}[:, None, None] * {X}[:, :, None] * {M}[None, None, :], axis=(1, 2))",
          "{X}[np.arange({n}), np.argmax({X}, axis=1)]", "np.einsum('ij,jk->i', {X}, {Y})", "np.min({X}, axis=1)"],
    "M": ["np.sum({X}, axis=0)", "{X}[{I}]", "{X}[-1]", "({N} @ {X})", "({X}.T @ {N})", "np.mean({X}, axis=0)",
          "np.min({X}, axis=0)", "{M}[::-1]", "np.sort({M})", "np.cumsum({M})", "{Y}[:, {I}]", "({Y} @ {N})",
          "np.max({Y}, axis=1)", "np.diff({M}, append=0.5)", "{X}[{I}, ::-1]", "np.dot({N}, {X})", "{X}.T.dot({N})",
          "{X}.max(axis=0)", "np.std({X}, axis=0)", "np.linalg.norm({X}, axis=0)", "np.einsum('ij->j', {X})",
          "np.sum({X}, axis=-2)", "np.mean({Y}, axis=1)", "({M} if {S} < {T} else {M})", "{Y}[..., {I}]",
          "np.sum({N}[:, None, None] * {X}[:, :, None] * {M}[None, None, :], axis=(0, 2))", "np.prod(0.5 + 0.3 * np.tanh({X}), axis=0)"],
    "C": ["{N}[:, None]", "{N}[:, np.newaxis]", "{N}.reshape({n}, 1)", "{N}.reshape(-1, 1)", "{X}[:, {L1} - 1:{L1}]",
          "np.sum({X}, axis=1, keepdims=True)", "np.max({X}, axis=1, keepdims=True)", "np.expand_dims({N}, 1)",
          "{R}.T", "({X} @ {M}[:, None])", "np.mean({X}, axis=-1, keepdims=True)", "({Q} @ {C})"],
    "R": ["{N}[None, :]", "{N}[np.newaxis]", "{N}.reshape(1, -1)", "{C}.T", "np.atleast_2d({N})",
          "np.sum({Y}, axis=0, keepdims=True)", "({M}[None, :] @ {Y})", "np.expand_dims({N}, 0)",
          "np.min({Y}, axis=0, keepdims=True)", "({R} @ {Q})"],
    "X": ["np.outer({N}, {M})", "({C} * {M})", "({C} @ {M}[None, :])", "{X}[::-1]", "{X}[:, ::-1]",
          "np.cumsum({X}, axis=0)", "np.cumsum({X}, axis=1)", "np.sort({X}, axis=0)", "np.sort({X})",
          "({Q} @ {X})", "np.linalg.solve({Q}, {X})", "(np.linalg.inv({Q}) @ {X})", "{Y}.T", "np.transpose({Y})",
          "{Y}.reshape({n}, {m})", "np.stack([{N} * (0.5 + 0.25 * kk) for kk in range({m})], axis=1)", "np.vstack([{M} - 0.1 * kk for kk in range({n})])",
          "np.concatenate([{X}[:{K1}], {X}[{K1}:]], axis=0)", "np.concatenate([{X}[:, :{L1}], {X}[:, {L1}:]], axis=1)",
          "np.where({X} > {T}, {X}, {X})", "np.clip({X}, -0.6, 0.5)", "{X}[{P}]", "{X}[:, {PM}]",
          "{X}[np.argsort({N})]", "np.einsum('i,j->ij', {N}, {M})", "np.tile({M}, ({n}, 1))",
          "np.diff({X}, axis=0, prepend=0.0)", "np.column_stack([{N}, {N}] + [{N}] * ({m} - 2))", "{X}[::-1, ::-1]",
          "np.broadcast_to({M}, ({n}, {m}))", "np.take_along_axis({X}, np.argsort({X}, axis=0), axis=0)",
          "{X}.clip(-0.5, 0.5)", "({N}[:, None] - {M}[None, :])", "({X1} - {X1}.mean(axis=0))",
          "({X1} / np.linalg.norm({X1}, axis=1, keepdims=True))", "{X}.reshape(-1).reshape({n}, {m})",
          "np.exp({X1} - np.max({X1}, axis=1, keepdims=True))", "np.where({X} > {T}, {X}, 0.0)", "np.maximum({X}, 0.0)",
          "({X} if {S} > {T} else {X})", "np.flip({X}, axis=1)", "np.roll({X}, 1, axis=0)", "(np.diag({N}) @ {X})",
          "({X} * np.arange({m}))", "np.matmul({Q}, {X})", "({X1} - np.mean({X1}, axis=1, keepdims=True))",
          "np.where({BX}, {X}, {X})", "np.outer({N}, {M}).cumsum(axis=1)", "({X} @ np.diag({M}))",
          "{X}[:, None, :].sum(axis=1)", "np.einsum('ij,jk->ik', {X}, np.outer({M}, {M}))",
          "(np.prod(0.6 + 0.3 * np.tanh({X}), axis=(0,), keepdims=True) * {X})"],
    "Y": ["{X}.T", "np.transpose({X})", "{X}.reshape({m}, {n})", "np.outer({M}, {N})", "{X}.T[::-1]",
          "np.swapaxes({X}, 0, 1)", "({M}[:, None] * {R})", "np.stack([{N} + 0.2 * kk for kk in range({m})])",
          "np.flip({X}.T, axis=0)", "{X}.T.copy()", "np.vstack([{R}] * {m}) * np.arange(1, {m} + 1)[:, None]"],
}
SQUARES = ["({X} @ {X}.T)", "np.outer({N}, {N})", "({C} * {R})", "({X} @ {Y})"]
FRESH_CALLS = re.compile(r"(np|math)\.(?!(asarray|atleast_2d|expand_dims|broadcast_to|flip|transpose|squeeze|"
                         r"ravel|reshape|swapaxes|take_along_axis)\b)\w+(\.\w+)?$|float$|sum$")
FRESH_METHODS = {"copy", "sum", "mean", "max", "min", "astype"}


def shape(code, n, m):
    return {"S": (), "N": (n,), "M": (m,), "C": (n, 1), "R": (1, n), "X": (n, m), "Y": (m, n)}[code]


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id] + parts[::-1]) if isinstance(node, ast.Name) else None


def enclosed(text):
    """Whether text is one parenthesized expression."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for k, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return k == len(text) - 1
    return False


def postfix_safe(text):
    """text, parenthesized unless it is a name, call, subscript, attribute or non-negative number."""
    if enclosed(text):
        return text
    node = ast.parse(text, mode="eval").body
    ok = isinstance(node, (ast.Name, ast.Call, ast.Subscript, ast.Attribute)) or \
        isinstance(node, ast.Constant) and not str(node.value).startswith("-")
    return text if ok else f"({text})"


def fresh(text):
    """Whether the value of text certainly shares memory with no name (a new array or an immutable scalar)."""
    node = ast.parse(text, mode="eval").body
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in FRESH_METHODS:
        return True
    if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Constant, ast.GeneratorExp)):
        return True
    if isinstance(node, ast.Call):
        name = _dotted(node.func)
        return bool(name and FRESH_CALLS.match(name))
    return False


class Scope:
    """What a block can use: arrays by code (name -> [code, fresh]), ints (name -> bound), lists
    (name -> [code, fresh, length at least]), dicts (name -> {key: [code, fresh]}), tuples (name -> codes),
    well-conditioned matrices, callables (name -> (parameter codes, result code, how to call)); names the block
    must not rebind or change (loop iterables, enclosing names of a nested function)."""

    def __init__(self):
        self.arrays, self.ints, self.lists, self.dicts, self.tuples = {}, {}, {}, {}, {}
        self.mats, self.funcs, self.frozen, self.masks = [], {}, set(), {}

    def child(self):
        c = Scope()
        c.arrays = {k: list(v) for k, v in self.arrays.items()}
        c.ints = dict(self.ints)
        c.lists = {k: list(v) for k, v in self.lists.items()}
        c.dicts = {k: {j: list(e) for j, e in v.items()} for k, v in self.dicts.items()}
        c.tuples, c.mats, c.funcs = dict(self.tuples), list(self.mats), dict(self.funcs)
        c.frozen, c.masks = set(self.frozen), dict(self.masks)
        return c

    def writable(self, code=None):
        return sorted(k for k, (c, f) in self.arrays.items() if f and k not in self.frozen and c != "S"
                      and (code is None or c == code))


class Writer:
    """Draws one program: module-level helpers and `def f(<params>)`, written as source lines."""

    max_depth = 3

    def __init__(self, draw, n, m):
        self.draw, self.n, self.m = draw, n, m
        self.count, self.nt = 0, 0
        self.helpers = []           # source lines of module-level helpers
        self.global_funcs = {}      # helper name -> (parameter codes, result code, how to call)

    # -- drawing ---------------------------------------------------------------------------------
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

    # -- expressions -----------------------------------------------------------------------------
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

    # -- statements ------------------------------------------------------------------------------
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
            L += [f"{pad}def {g}(*{u}):", f"{pad}    return sum(np.sum(np.tanh(e)) * {self.ex('S', sc, 2)} for e in {u})"]
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


    # -- loops filling arrays, rows changed in place, swaps, overlapping slices, data-dependent counts ------
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

    def st_count(self, L, ind, sc, ctx):
        if ctx["depth"] >= 2:
            return False
        pad, cnt, i = "    " * ind, self.name("cnt"), self.name("i")
        L.append(f"{pad}{cnt} = {self.pick(['int(np.sum({N} > {T}))', 'int(np.argmax({N}))', 'int(np.argmin({N}))', 'np.count_nonzero({N} < {T})'])}"
                 .replace("{N}", self.ex("N", sc, 1)).replace("{T}", self.thr()))
        inner = sc.child()
        inner.ints[i] = "n"
        L.append(f"{pad}for {i} in range({cnt}):")
        self.block(L, ind + 1, inner, dict(ctx, depth=ctx["depth"] + 1, loop="for"), self.pick([1, 2]))
        sc.ints[cnt] = "n1"

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
