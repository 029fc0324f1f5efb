"""The grammar tables of the hypothesis program generator (progen_hyp.py): shape codes, broadcasting,
expression templates, and what the generator tracks about names (Scope, fresh)."""


import ast
import re

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
          "np.linalg.norm({X}, axis=1)", "np.diag({Q})",
          "(np.exp({N1} - np.max({N1})) / np.sum(np.exp({N1} - np.max({N1}))))",
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
          "np.sum({N}[:, None, None] * {X}[:, :, None] * {M}[None, None, :], axis=(0, 2))",
          "np.prod(0.5 + 0.3 * np.tanh({X}), axis=0)"],
    "C": ["{N}[:, None]", "{N}[:, np.newaxis]", "{N}.reshape({n}, 1)", "{N}.reshape(-1, 1)", "{X}[:, {L1} - 1:{L1}]",
          "np.sum({X}, axis=1, keepdims=True)", "np.max({X}, axis=1, keepdims=True)", "np.expand_dims({N}, 1)",
          "{R}.T", "({X} @ {M}[:, None])", "np.mean({X}, axis=-1, keepdims=True)", "({Q} @ {C})"],
    "R": ["{N}[None, :]", "{N}[np.newaxis]", "{N}.reshape(1, -1)", "{C}.T", "np.atleast_2d({N})",
          "np.sum({Y}, axis=0, keepdims=True)", "({M}[None, :] @ {Y})", "np.expand_dims({N}, 0)",
          "np.min({Y}, axis=0, keepdims=True)", "({R} @ {Q})"],
    "X": ["np.outer({N}, {M})", "({C} * {M})", "({C} @ {M}[None, :])", "{X}[::-1]", "{X}[:, ::-1]",
          "np.cumsum({X}, axis=0)", "np.cumsum({X}, axis=1)", "np.sort({X}, axis=0)", "np.sort({X})",
          "({Q} @ {X})", "np.linalg.solve({Q}, {X})", "(np.linalg.inv({Q}) @ {X})", "{Y}.T", "np.transpose({Y})",
          "{Y}.reshape({n}, {m})", "np.stack([{N} * (0.5 + 0.25 * kk) for kk in range({m})], axis=1)",
          "np.vstack([{M} - 0.1 * kk for kk in range({n})])",
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
