"""Derivative rules for ndarray methods and attributes (`x.sum()`, `x.T`).

A method's receiver is its rule's first parameter. Most methods share the
rule of the NumPy function of the same name.
"""

import numpy as np

from . import ATTRIBUTES, FUNCTIONS, METHODS, Rule, rule_copy

_SAME_AS_FUNCTION = {
    "sum": np.sum, "mean": np.mean, "prod": np.prod, "max": np.max, "min": np.min, "var": np.var,
    "std": np.std, "cumsum": np.cumsum, "cumprod": np.cumprod, "dot": np.dot,
    "ravel": np.ravel, "squeeze": np.squeeze, "conjugate": np.conjugate, "take": np.take,
    "diagonal": np.diagonal, "trace": np.trace, "repeat": np.repeat,
}


def _install():
    for name, fn in _SAME_AS_FUNCTION.items():
        METHODS[name] = rule_copy(FUNCTIONS[fn], f".{name}()")
    METHODS["conj"] = rule_copy(FUNCTIONS[np.conjugate], ".conj()")
    METHODS["reshape"] = Rule(".reshape()", "a, *shape, order='C'", {"a": "reshape_like(g, a, order)"})
    METHODS["transpose"] = Rule(".transpose()", "a, *axes", {"a": "transpose_method_vjp(g, axes)"})
    METHODS["flatten"] = Rule(".flatten()", "a, order='C'", {"a": "reshape_like(g, a, order)"})
    METHODS["copy"] = Rule(".copy()", "a, order='C'", {"a": "g"}, kind="elementwise")
    # no `copy=False` here: the result could be the array itself; calls.py makes that call np.asarray(x, dtype)
    METHODS["astype"] = Rule(".astype()", "a, dtype, order='K', casting='unsafe'", {"a": "cast_cot(g, dtype)"},
                             kind="elementwise")
    METHODS["view"] = Rule(".view()", "a, dtype=None, type=None", {"a": "view_cot(g, a, dtype)"},
                           kind="elementwise")
    METHODS["tolist"] = Rule(".tolist()", "a", {"a": "tolist_cot(g, a)"}, container=True)
    METHODS["item"] = Rule(".item()", "a, *args", {"a": "item_vjp(g, a, args)"})
    METHODS["swapaxes"] = Rule(".swapaxes()", "a, axis1, axis2", {"a": "np.swapaxes(g, axis1, axis2)"})
    # x.clip(min, max) = np.clip(x, min, max)
    METHODS["clip"] = Rule(".clip()", "a, min=None, max=None", {"a": "g * clip_mask(a, min, max)",
                           "min": "g * clip_low_mask(a, min, max)", "max": "g * clip_high_mask(a, min, max)"},
                           kind="elementwise")
    METHODS["compress"] = Rule(".compress()", "a, condition, axis=None", {"a": "compress_vjp(g, condition, a, axis)"})
    for name in ("argmax", "argmin", "argsort", "argpartition", "nonzero", "all", "any", "round",
                 "searchsorted"):
        METHODS[name] = Rule(f".{name}()", "*args", nondiff=True)
    ATTRIBUTES["T"] = Rule(".T", "x", {"x": "np.transpose(g)"})
    ATTRIBUTES["mT"] = Rule(".mT", "x", {"x": "np.swapaxes(g, -1, -2)"})
    ATTRIBUTES["real"] = Rule(".real", "x", {"x": "real_cot(g, x)"}, kind="elementwise")
    ATTRIBUTES["imag"] = Rule(".imag", "x", {"x": "imag_cot(g, x)"}, kind="elementwise")
