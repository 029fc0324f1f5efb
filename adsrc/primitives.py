"""Control-flow primitives with JAX's signatures, runnable as plain Python.

adsrc lowers Python `if`/`for`/`while` into these, and users may call them
directly. Called outside differentiation they simply run. Inside a function
that adsrc differentiates, the transformer recognizes them and generates
their adjoints (see `lowering/` and `differentiation/`).
"""

import numpy as np

from .arrays import is_duck


class _Undefined:
    """The value of a variable that one branch of an `if` never assigned."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self):
        return "UNDEFINED"

    def __reduce__(self):
        return (_Undefined, ())


UNDEFINED = _Undefined()


def cond(pred, true_fun, false_fun, *operands):
    """`true_fun(*operands)` if pred else `false_fun(*operands)`."""
    return true_fun(*operands) if pred else false_fun(*operands)


def attempt(body, handler, types):
    """A `try` in printed lowered code (ir.Cond.catches): (True, body()), or (False, handler(exception))
    when body raises one of types."""
    try:
        return True, body()
    except types as e:
        return False, handler(e)


def _leaves(xs):
    if isinstance(xs, (tuple, list)):
        return [leaf for x in xs for leaf in _leaves(x)]
    if isinstance(xs, dict):
        return [leaf for k in sorted(xs) for leaf in _leaves(xs[k])]
    return [xs]


def _slice(xs, i):
    if isinstance(xs, tuple) and not hasattr(xs, "_fields"):
        return tuple(_slice(x, i) for x in xs)
    if isinstance(xs, list):
        return [_slice(x, i) for x in xs]
    if isinstance(xs, dict):
        return {k: _slice(v, i) for k, v in xs.items()}
    if hasattr(xs, "_fields"):
        return type(xs)(*(_slice(x, i) for x in xs))
    return xs[i]


def _stack(ys):
    first = ys[0]
    if first is None:
        return None
    if isinstance(first, tuple) and not hasattr(first, "_fields"):
        return tuple(_stack([y[k] for y in ys]) for k in range(len(first)))
    if isinstance(first, list):
        return [_stack([y[k] for y in ys]) for k in range(len(first))]
    if isinstance(first, dict):
        return {k: _stack([y[k] for y in ys]) for k in first}
    if hasattr(first, "_fields"):
        return type(first)(*(_stack([y[k] for y in ys]) for k in range(len(first))))
    return np.stack([y if is_duck(y) else np.asarray(y) for y in ys])


def scan_length(xs, length):
    """The number of steps of a scan over xs (leading axis of every leaf)."""
    if xs is None:
        if length is None:
            raise ValueError("scan needs xs or length")
        return int(length)
    sizes = {len(leaf) for leaf in _leaves(xs)}
    if length is not None:
        sizes.add(int(length))
    if len(sizes) != 1:
        raise ValueError(f"scan got inconsistent lengths {sorted(sizes)} for xs and length")
    return sizes.pop()


def scan(f, init, xs=None, length=None, reverse=False):
    """Loop `carry, y = f(carry, x)` over the leading axis of xs.

    Returns `(final_carry, ys)` with the ys stacked along a new leading axis,
    as `jax.lax.scan` does. xs may be an array, a `range`, None (then
    `length` steps with x=None) or a tuple/list/dict of arrays scanned
    together.
    """
    n = scan_length(xs, length)
    carry = init
    ys = []
    steps = range(n - 1, -1, -1) if reverse else range(n)
    for i in steps:
        x = None if xs is None else _slice(xs, i)
        carry, y = f(carry, x)
        ys.append(y)
    if reverse:
        ys.reverse()
    if not ys:
        return carry, None
    return carry, _stack(ys)


def while_loop(cond_fun, body_fun, init_val):
    """`while cond_fun(val): val = body_fun(val)`; returns the final val."""
    val = init_val
    while cond_fun(val):
        val = body_fun(val)
    return val


def fori_loop(lower, upper, body_fun, init_val):
    """`for i in range(lower, upper): val = body_fun(i, val)`; returns val."""
    val = init_val
    for i in range(lower, upper):
        val = body_fun(i, val)
    return val


def stop_gradient(x):
    """x itself; when differentiating, no gradient flows through it."""
    return x


def within_grad():
    """False when a function runs normally, True inside the gradient adsrc generates for it.

    Inside generated code the call is replaced by the constant True when
    transforming, so a branch on it costs nothing.
    """
    return False


_PRIMITIVES = {cond: "cond", scan: "scan", while_loop: "while_loop", fori_loop: "fori_loop"}


def is_primitive(obj):
    try:
        return obj in _PRIMITIVES
    except TypeError:
        return False


def primitive_name(obj):
    return _PRIMITIVES[obj]
