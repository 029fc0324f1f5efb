"""Small functions in the style of a source-to-source AD library's own test file: scalars overwritten
in branches and loops, helpers called in loops, packed tuple and dict arguments, writes into arrays
made inside the function, and the two shapes adsrc once got wrong there: a write through a transposed
or reshaped view differentiated twice (the second gradient read a helper function its forward part
defined, unbound in the pullback: NameError), and a NumPy call spelling out `out=None` (refused).

SCALAR_CASES take floats at both signs so that each branch is taken; VECTOR_CASES take one vector and
are also checked at second order (a Hessian-vector product and a gradient of the gradient).
"""

import dataclasses

import numpy as np

from casekit import Registry, rand

CASES = Registry()
case = CASES.case

SIGNED = (-1.7, -0.4, 0.3, 1.9)


def _scalar(fn):
    for a in SIGNED:
        CASES.case(a, label=f"a={a}")(fn)
    return fn


@_scalar
def halve_or_triple(a):
    if a * a / 2.0 > 1.0:
        scale = 0.5
    else:
        scale = 3.0
    a = a * scale
    if a < -scale:
        a = a * a
    elif a > scale + a * 0.5:
        a = -a / scale
    return a


@_scalar
def shrink_until_small(a):
    while np.abs(a) > 0.25:
        a = a * 0.6
    return a * a


@_scalar
def squares_in_nested_loops(a):
    for _ in range(2):
        for _ in range(2):
            if a < 5.0:
                a = a * a * 0.5
    return a


def _times(u, v):
    return u * v


@_scalar
def helper_in_loop(a):
    out = 1.0
    for _ in range(3):
        out = _times(out, a) + 0.1
    return out


@_scalar
def arctangent_with_default_out(a):
    return np.arctan(a, out=None) * np.hypot(a, 2.0)


@_scalar
def list_entry_overwritten(a):
    xs = [2.0, a * a, -1.0]
    xs[1] = xs[0] * xs[1] + xs[2]
    return xs[1] * xs[1]


@case((0.7, -1.2, 0.4))
def packed_triple(abc):
    a, b, c = abc
    return {"p": a, "q": b * c}["q"] * a + c


@case({"outer": {"u": 1.3, "v": -0.6}})
def nested_mapping(p):
    inner = p["outer"]
    return inner["u"] * inner["v"] ** 2


@case(rand(3, 2), rand(2, 3), argnums=(0, 1))
def recurrence_into_rows(inputs, W):
    h = np.zeros((4, 3))
    for t in range(3):
        h[t + 1] = np.tanh(inputs[t] @ W) + 0.5 * h[t]
    return np.sum(h[1:] ** 2)


def _vector(fn):
    for n in (3, 5):
        CASES.case(rand(n), label=f"n={n}")(fn)
    VECTOR_CASES.append(fn)
    return fn


VECTOR_CASES = []


@_vector
def write_row_of_transpose(x):
    m = np.outer(x, x) * 1.0
    mt = m.T
    mt[0, :] = x ** 3
    return np.sum(m * m)


@_vector
def write_through_reshape(x):
    y = np.concatenate([x, x * x])
    m = y.reshape(2, -1)
    m[0] = m[0] * m[1]
    return np.sum(y * y * x[0])


@_vector
def write_through_transpose_in_branch(x):
    m = np.outer(x, np.sin(x))
    if x[0] > 0:
        v = m.T
        v[1, :] = v[1, :] * x
    return np.sum(m * m)


@_vector
def copy_rows_then_sum(x):
    h = np.zeros((len(x), 2))
    for t in range(len(h)):
        h[t] = x[t] * x[t - 1]
    return np.sum(h * h)


class Scaler:
    """A plain class (no pytree registration): its tangent is a Scaler, its cotangent a dict of fields."""

    def __init__(self, w):
        self.w = w * 2.0

    def apply(self, v):
        return np.sum(np.tanh(self.w * v))


@_vector
def object_field_replaced(x):
    s = Scaler(x)
    s.w = s.w * x
    return s.apply(x)


class Holder:
    """A plain object holding another (nested tangents and cotangents)."""

    def __init__(self, w):
        self.inner = Scaler(w)
        self.parts = [w * 0.5, w ** 2]
        self.label = "holder"


@_vector
def nested_field_replaced(x):
    h = Holder(x)
    h.inner.w = h.inner.w * 3.0
    return np.sum(h.inner.w * h.inner.w * h.parts[1]) + h.inner.apply(x)


@_vector
def nested_field_read(x):
    h = Holder(x)
    return np.sum(h.parts[1] * x) * np.sum(h.inner.w)


@dataclasses.dataclass
class Pair:
    left: np.ndarray
    factor: float


class Carrier:
    """A plain object holding a dataclass (whose cotangent a transpose gives as a Pair)."""

    def __init__(self, w):
        self.pair = Pair(w * 1.5, 0.5)
        self.w = w


@_vector
def dataclass_field_rebuilt(x):
    c = Carrier(x)
    c.pair = Pair(c.pair.left * x, c.pair.factor)
    return np.sum(c.pair.left * c.w ** 2) * c.pair.factor


# functions differentiated as grad of a jvp (a forward pass transposed): an object's tangent read through
# its attributes once came back from the transpose as the tangent object itself (a crash, or for an object
# inside an object a silently wrong derivative), and a tangent object was not zeroed where the transpose
# of a helper jointly linear in it and another tangent needed it zero
GRAD_OF_JVP = [object_field_replaced, nested_field_replaced, nested_field_read, dataclass_field_rebuilt,
               write_row_of_transpose]
