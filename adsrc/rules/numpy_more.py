"""More NumPy rules: np.r_ / np.c_, np.fft (in `fft_rules.py`), np.gradient, np.partition and
np.linalg.lstsq / eig / eigvals, and the ufunc methods reduce / accumulate. Helpers are in
`numpy_more_helpers.py`.
"""

import gast
import numpy as np

from . import FUNCTIONS, Rule, general
from . import fft_rules, numpy_more_helpers  # noqa: F401  (registers the np.fft rules and the helpers)

la = np.linalg

# -- np.r_[a, b] and np.c_[a, b]: subscripts of objects, with a rule per object ---------------------------------
SUBSCRIPTS = {}
_ITEMS = tuple(f"x{i}" for i in range(16))


def _concat_template(which, k):
    def template(**static):
        given = ", ".join(o for o in _ITEMS if static[o] is not None)
        return f"index_concat_vjp(g, {which!r}, ({given},), {k})"
    return template


for _obj, _which in ((np.r_, "r_"), (np.c_, "c_")):
    SUBSCRIPTS[id(_obj)] = (_obj, Rule(f"np.{_which}[...]", ", ".join(f"{o}=None" for o in _ITEMS) + ", /",
                                       {o: _concat_template(_which, k) for k, o in enumerate(_ITEMS)}))


def subscript_rule(obj):
    """The rule for `obj[...]` when obj is an object whose subscripts compute (np.r_, np.c_), else None."""
    entry = SUBSCRIPTS.get(id(obj))
    return entry[1] if entry is not None and entry[0] is obj else None


def bind_subscript(rule, index):
    """Bind the items of `obj[a, b, ...]` (slices become slice(...) calls) to the rule's parameters."""
    items = list(index.elts) if isinstance(index, gast.Tuple) else [index]
    args = []
    for item in items:
        if isinstance(item, gast.Slice):
            bounds = [b if b is not None else gast.Constant(value=None, kind=None)
                      for b in (item.lower, item.upper, item.step)]
            item = gast.Call(func=gast.Name(id="slice", ctx=gast.Load(), annotation=None, type_comment=None),
                             args=bounds, keywords=[])
        args.append(item)
    return rule.bind(args, [])


# -- np.linalg ----------------------------------------------------------------------------------------------
general(la.lstsq, "np.linalg.lstsq", "a, b, rcond=None", tuple_output=True, real_only=True,
        a="lstsq_vjp(g, a, b, ans, 0)", b="lstsq_vjp(g, a, b, ans, 1)")
general(la.eig, "np.linalg.eig", "a", tuple_output=True, a="eig_vjp(g, ans)")      # distinct eigenvalues
general(la.eigvals, "np.linalg.eigvals", "a", a="eigvals_vjp(g, a)")

# -- differences and selections --------------------------------------------------------------------------------
general(np.gradient, "np.gradient", "f, *varargs, axis=None, edge_order=1", container=True,
        f="gradient_vjp(g, f, varargs, axis, edge_order)")
FUNCTIONS[np.gradient].unsupported = ("varargs",)      # the spacing's derivative is not written
general(np.partition, "np.partition", "a, kth, axis=-1, kind='introselect'", a="partition_vjp(g, a, ans, axis)")

# -- ufunc methods: np.add.reduce(a) is np.sum(a, axis=0), np.multiply.accumulate(a) np.cumprod(a, axis=0)... --
_UFUNC_REDUCE = "a, axis=0, dtype=None, keepdims=False"
_REDUCE_VJPS = {np.add: "expand_to(g, a, axis, keepdims)", np.multiply: "prod_vjp(g, a, ans, axis, keepdims)",
                np.maximum: "extremum_vjp(g, a, ans, axis, keepdims)",
                np.minimum: "extremum_vjp(g, a, ans, axis, keepdims)"}
for _u, _vjp in _REDUCE_VJPS.items():
    general(_u.reduce, f"np.{_u.__name__}.reduce", _UFUNC_REDUCE, lazy=True, a=_vjp)
general(np.add.accumulate, "np.add.accumulate", "a, axis=0, dtype=None", a="cumsum_vjp(g, a, axis)")
general(np.multiply.accumulate, "np.multiply.accumulate", "a, axis=0, dtype=None", a="cumprod_vjp(g, a, ans, axis)")
