"""Rules for the new values of arrays changed in place by their methods (lowering/inplace_methods.py):
`x.resize(shape)` is `x = resized_value(x, shape)`, x's elements in C order, cut or padded with zeros to the new
shape, as ndarray.resize leaves them (np.resize repeats the elements instead). Loaded with the other tables."""

import numpy as np

from ..runtime import helper
from ..runtime_core import full, is_zero
from . import general


def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


@helper
def resized_value(x, shape, refcheck=True):
    """ndarray.resize's result: x's flattened elements, zeros after them, in the new shape (refcheck: see
    lowering/resize_checks.py)."""
    a = np.asarray(x)
    shape = tuple(shape) if np.ndim(shape) else (int(shape),)
    flat = np.ravel(a)
    n = _size(shape)
    if n <= flat.size:
        return np.reshape(flat[:n], shape).copy()
    return np.reshape(np.concatenate([flat, np.zeros(n - flat.size, dtype=a.dtype)]), shape)


@helper
def resized_value_cot(g, x, shape, refcheck=True):
    """The cotangent of x: the new array's first elements (zeros for the elements cut off)."""
    if is_zero(g):
        return 0.0
    a = np.asarray(x)
    flat = np.ravel(full(g, resized_value(x, shape)))
    k = min(flat.size, a.size)
    out = np.zeros(a.size, dtype=np.result_type(flat.dtype, float))
    out[:k] = flat[:k]
    return np.reshape(out, a.shape)


@helper
def check_numpy_generator(rng, where):
    """rng.shuffle(x) is followed as NumPy's shuffle (lowering/inplace_methods.py): refuse another object's."""
    if not isinstance(rng, (np.random.Generator, np.random.RandomState)):
        raise TypeError(f"adsrc follows `.shuffle(x)` as the method of a NumPy generator (np.random.Generator or "
                        f"RandomState), and this object is a {type(rng).__name__} ({where}). Shuffle an index array "
                        "outside the differentiated values (`order = list(range(n)); rnd.shuffle(order); "
                        "x = x[order]`) instead.")


def install():
    rule = general(resized_value, ".resize()", "x, shape, refcheck=True", x="resized_value_cot(g, x, shape)")
    rule.jvp_form = "linear"         # (the call on the tangent is its tangent)
