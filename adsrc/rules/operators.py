"""Python operators: `+ - * / // % ** @`, unary `-` and `+`.

Operators are broadcasting elementwise functions (except `@`), so their rules
share the NumPy ufuncs' rules in `numpy_rules.py`.
"""

import gast
import numpy as np

from . import FUNCTIONS, OPERATORS, Rule, rule_copy

_BINARY = {
    gast.Add: np.add, gast.Sub: np.subtract, gast.Mult: np.multiply, gast.Div: np.true_divide,
    gast.Pow: np.power, gast.MatMult: np.matmul, gast.Mod: np.mod, gast.FloorDiv: np.floor_divide,
}
_SYMBOLS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.Pow: "**",
            gast.MatMult: "@", gast.Mod: "%", gast.FloorDiv: "//"}
_UNARY = {gast.USub: np.negative, gast.UAdd: np.positive}


def _install():
    for op, fn in _BINARY.items():
        OPERATORS[op] = rule_copy(FUNCTIONS[fn], f"`{_SYMBOLS[op]}`")
    for op, fn in _UNARY.items():
        OPERATORS[op] = rule_copy(FUNCTIONS[fn], "unary `-`" if op is gast.USub else "unary `+`")
    OPERATORS[gast.Invert] = Rule("`~`", "x, /", nondiff=True)
    for op in (gast.BitAnd, gast.BitXor, gast.LShift, gast.RShift):
        OPERATORS[op] = Rule("bitwise operator", "x, y, /", nondiff=True)
    # `d | e` merges dicts (y's values win): differentiated; of numbers and sets it has no derivative
    OPERATORS[gast.BitOr] = Rule("`|`", "x, y, /", {"x": "or_cot(g, x, y, 0)", "y": "or_cot(g, x, y, 1)"},
                                 container=True)
