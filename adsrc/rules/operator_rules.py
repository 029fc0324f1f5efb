"""Derivative rules for the `operator` module, dict(...), d.get(k, default) and sorted(...).

operator.add and operator.mul share the rules of `+` and `*` (which also
concatenate and repeat lists and tuples); the others share the NumPy ufuncs'.
"""

import builtins
import operator

import gast
import numpy as np

from ..runtime import helper, is_zero, item_cot
from . import FRESH_NAMES, FUNCTIONS, METHODS, OPERATORS, Rule, general, nondiff, register, rule_copy

# operator function -> the Python operator it computes
_AS_OPERATOR = {
    operator.add: gast.Add, operator.sub: gast.Sub, operator.mul: gast.Mult, operator.truediv: gast.Div,
    operator.pow: gast.Pow, operator.matmul: gast.MatMult, operator.mod: gast.Mod,
    operator.floordiv: gast.FloorDiv, operator.neg: gast.USub, operator.pos: gast.UAdd,
    operator.concat: gast.Add,
}
# never differentiated: comparisons, truth values, bitwise operators, indices
_CONSTANT = (operator.lt, operator.le, operator.eq, operator.ne, operator.ge, operator.gt, operator.not_,
             operator.truth, operator.is_, operator.is_not, operator.contains, operator.index, operator.invert,
             operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift, operator.countOf,
             operator.indexOf, operator.length_hint)


@helper
def getitem_value_cot(g, a, b):
    """Cotangent of a in operator.getitem(a, b) = a[b]."""
    from ..runtime import getitem_cot
    if is_zero(g):
        return 0.0
    return getitem_cot(a, b, g)


@helper
def dict_arg_cot(g, arg, keywords):
    """Cotangent of the positional argument of dict(arg, **keywords): a mapping or (key, value) pairs.

    Entries a keyword (or a later pair) overrides get no cotangent."""
    if is_zero(g):
        return 0.0
    if isinstance(arg, dict):
        return {k: (0.0 if k in keywords else item_cot(g, k)) for k in arg}
    pairs = list(arg)
    last = {}
    for i, (k, _) in enumerate(pairs):
        last[k] = i
    out = [(0.0, 0.0 if k in keywords or last[k] != i else item_cot(g, k)) for i, (k, _) in enumerate(pairs)]
    return out if isinstance(arg, list) else tuple(out)


@helper
def dict_get_cot(g, d, key):
    """Cotangent of d in d.get(key, default): g for that entry, if d has it."""
    if is_zero(g) or key not in d:
        return 0.0
    return {key: g}


@helper
def dict_default_cot(g, d, key):
    """Cotangent of the default in d.get(key, default): g when d has no such key."""
    return 0.0 if key in d else g


@helper
def sorted_cot(g, iterable, key, reverse):
    """Cotangent of the iterable in sorted(iterable, key=..., reverse=...): the stable sort's
    permutation, found again from the values, carries each item's cotangent back."""
    if is_zero(g) or isinstance(iterable, (dict, set, frozenset)):
        return 0.0          # keys: never differentiated
    items = list(iterable)
    order = sorted(range(len(items)), key=(lambda i: items[i]) if key is None else (lambda i: key(items[i])),
                   reverse=reverse)
    out = [0.0] * len(items)
    for j, i in enumerate(order):
        out[i] = item_cot(g, j)
    if isinstance(iterable, np.ndarray):
        rows = np.shape(iterable)[1:]
        return np.stack([np.broadcast_to(c, rows) for c in out])
    return out if isinstance(iterable, list) else tuple(out)


def _install():
    for fn, op in _AS_OPERATOR.items():
        rule = rule_copy(OPERATORS[op], OPERATORS[op].name)     # keeps `+`/`*` on lists and tuples
        rule.listing = f"operator.{fn.__name__}"
        register(fn, rule)
    register(operator.abs, rule_copy(FUNCTIONS[np.absolute], "operator.abs"))
    # a[b] may be a view of a, or an object a holds: never a fresh array (container=True, not in FRESH_NAMES)
    general(operator.getitem, "operator.getitem", "a, b, /", container=True, a="getitem_value_cot(g, a, b)")
    for fn in _CONSTANT:
        nondiff(fn, f"operator.{fn.__name__}")
    # dict(mapping_or_pairs, **keywords): a new dict holding the same values
    register(builtins.dict, Rule("dict", "iterable=None, /, **kwargs", {
        "iterable": lambda kwargs=(), **_: f"dict_arg_cot(g, iterable, {tuple(kwargs)!r})",
        "kwargs": "item_cot(g, {key})"}, container=True))
    # d.get(k) is the object d holds: it shares memory with d (view=True, container=True)
    METHODS["get"] = Rule(".get()", "d, key, default=None", {
        "d": "dict_get_cot(g, d, key)", "default": "dict_default_cot(g, d, key)"}, container=True, view=True)
    general(builtins.sorted, "sorted", "iterable, /, *, key=None, reverse=False", container=True,
            iterable="sorted_cot(g, iterable, key, reverse)")
    for fn in (operator.getitem, builtins.dict, builtins.sorted, builtins.list, builtins.tuple):
        FRESH_NAMES.discard(fn.__name__)      # new containers holding the same objects (or a view)
