"""Derivative rules for Python builtins (abs, float, sum, max, min, pow, ...)."""

import builtins

import numpy as np

from . import FUNCTIONS, NOT_STATIC, Rule, general, nondiff, register, rule_copy


def _max_a(b=NOT_STATIC, **_):
    return "extremum_items_cot(g, a, ans)" if b is None else "g * (a >= b)"


def _min_a(b=NOT_STATIC, **_):
    return "extremum_items_cot(g, a, ans)" if b is None else "g * (a <= b)"


def _install():
    from .. import primitives, runtime
    nondiff(primitives.stop_gradient, "adsrc.stop_gradient")
    general(runtime.stack_ys, "stacking scan outputs", "ys", ys="unstack_cot(g, len(ys))")
    general(runtime.dict_values, "dict.values()", "d", container=True, d="values_cot(g, d)")
    general(runtime.dict_items, "dict.items()", "d", container=True, d="items_cot(g, d)")
    general(runtime.sequence, "iterating", "x", lazy=True, container=True, x="iterated_cot(g, x)")
    nondiff(runtime.dict_keys, "dict.keys()")
    for helper in (runtime.scan_length,):
        nondiff(helper, helper.__name__)
    register(builtins.abs, rule_copy(FUNCTIONS[np.absolute], "abs"))
    register(builtins.pow, rule_copy(FUNCTIONS[np.power], "pow"))
    register(builtins.float, Rule("float", "x=0.0, /", {"x": "g"}, kind="elementwise",
                                  scalar_out=lambda **_: True))
    # complex(re, im) = re + 1j im: holomorphic in each part (a real part's cotangent keeps Re, rules/__init__.py)
    register(builtins.complex, Rule("complex", "real=0, imag=0", {"real": "g", "imag": "g * 1j"}, kind="elementwise",
                                    scalar_out=lambda **_: True))
    general(builtins.sum, "sum", "iterable, /, start=0", lazy=True,
            iterable="iterable_sum_cot(g, iterable)", start="g")
    register(builtins.max, Rule("max", "a, b=None, /", {"a": _max_a, "b": "g * (a < b)"}, kind="general"))
    register(builtins.min, Rule("min", "a, b=None, /", {"a": _min_a, "b": "g * (a > b)"}, kind="general"))
    general(builtins.list, "list", "iterable=(), /", container=True, iterable="sequence_cot(g, iterable)")
    general(builtins.tuple, "tuple", "iterable=(), /", container=True, iterable="sequence_cot(g, iterable)")
    # Functions whose result never carries a derivative (integers, booleans, strings, types). Functions
    # that pass values through (zip, enumerate, getattr, sorted, ...) are deliberately not listed: used
    # on differentiated values outside a for-loop header, they are an error rather than a silent zero.
    for fn in (builtins.len, builtins.range, builtins.int, builtins.bool, builtins.isinstance, builtins.print,
               builtins.round, builtins.type, builtins.str, builtins.repr, builtins.hash, builtins.id,
               builtins.callable, builtins.hasattr, builtins.issubclass, builtins.format,
               builtins.any, builtins.all, builtins.ord, builtins.chr, builtins.slice):
        nondiff(fn, fn.__name__)
