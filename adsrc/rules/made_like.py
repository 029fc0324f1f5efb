"""`type(x)(value)`: a new object of x's class made from value, as tree utilities write
(`type(tree)(f(v) for v in tree)`), when x is a list, a tuple, a dict or a float.

The lowering (calls.py) turns the call into `made_like(x, value)`, linear in value; x only gives the class,
which is decided when the code runs. Another class is refused there, naming it.
"""

import numpy as np

from ..runtime import helper, is_zero, sequence_cot
from ..tangents import dict_tangent
from . import general
from .containers import dict_of_cot

_SEQUENCES = (list, tuple)


def _kind(x):
    cls = type(x)
    if cls in _SEQUENCES:
        return "sequence"
    if cls is dict:
        return "dict"
    if issubclass(cls, (float, np.floating)):
        return "float"
    raise TypeError(f"adsrc follows `type(x)(value)` when x is a list, a tuple, a dict or a float; here x is a "
                    f"{cls.__qualname__}. Call its class by name (`{cls.__qualname__}(...)`).")


@helper
def made_like(x, value):
    """type(x)(value), for the classes _kind accepts."""
    _kind(x)
    return type(x)(value)


@helper
def made_like_cot(g, x, value):
    """The cotangent of value in made_like(x, value)."""
    kind = _kind(x)
    if kind == "sequence":
        return sequence_cot(g, value)
    if kind == "dict":
        return dict_of_cot(g, value)
    if is_zero(g) or np.ndim(value) == 0:
        return g
    return np.full(np.shape(value), g)        # float(a) of a one-element array


@helper
def made_like_tangent(x, value, t_value):
    """The tangent of made_like(x, value) from value's tangent."""
    kind = _kind(x)
    if kind == "sequence":
        return type(x)(t_value) if not is_zero(t_value) else type(x)(0.0 for _ in value)
    if kind == "dict":
        return dict_tangent(value, t_value)
    return t_value


def install():
    general(made_like, "type(...)", "x, value, /", container=True, value="made_like_cot(g, x, value)")
