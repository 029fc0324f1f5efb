"""Values the gradient reads only for their shapes are not computed.

`np.sum(x * c)` needs `x * c` only for its shape in the backward pass (the
cotangent of the product is broadcast to it); the gradient computes
`broadcast_only(x, c)`, a stand-in with the product's shape and dtype, instead
of the product. Checked: the stand-in's shape and dtype against the real
operation's, the generated source, and the gradients against central
differences.
"""

import numpy as np
import pytest

import adsrc
from adsrc import check_grads
from adsrc.runtime import broadcast_only

F32 = np.ones((2, 3), np.float32)
OPERANDS = [
    (np.ones((2, 3)), np.ones((2, 3))),
    (np.ones((2, 3)), np.ones(3)),
    (np.ones((4, 1)), np.ones((1, 5))),
    (np.ones((2, 3)), 2.0),
    (3.0, np.ones(4)),
    (F32, 2.0),
    (F32, np.ones(3)),
    (np.arange(1, 7).reshape(2, 3), np.arange(1, 4)),
    (np.ones((2, 3), bool), np.ones(3)),
    (np.ones((2, 3), complex), np.ones(3)),
    (np.ones(()), np.ones(())),
    (2.0, 3.0),
]
OPS = [np.add, np.subtract, np.multiply, np.true_divide]


@pytest.mark.parametrize("op", OPS, ids=[o.__name__ for o in OPS])
@pytest.mark.parametrize("k", range(len(OPERANDS)))
def test_broadcast_only_has_the_shape_and_dtype_of_the_result(op, k):
    a, b = OPERANDS[k]
    real = op(a, b)
    stand_in = broadcast_only(a, b, op is np.true_divide)
    assert np.shape(stand_in) == np.shape(real)
    assert np.result_type(stand_in) == np.result_type(real)


def scaled_sum(x, c):
    return np.sum(x * c)


def mean_square(x, y):
    return np.mean((x - y) * 2.0)


def ratio_sum(x, y):
    return np.sum(x / y) + np.sum(x * x)


@pytest.mark.parametrize("f", [scaled_sum, mean_square, ratio_sum])
def test_products_read_only_for_their_shape_are_not_computed(f):
    rng = np.random.default_rng(1)
    x, y = rng.uniform(0.5, 1.5, (3, 4)), rng.uniform(0.5, 1.5, (4,))
    g = adsrc.grad(f)
    source = g.source(x, y)
    assert "broadcast_only(" in source, source
    check_grads(f, (x, y), argnums=0, order=1, modes=("rev",), atol=1e-6, rtol=1e-6)
    v, gx = adsrc.value_and_grad(f)(x, y)           # the value needs the product: computed there
    np.testing.assert_allclose(v, f(x, y), rtol=1e-12)
    np.testing.assert_allclose(gx, g(x, y), rtol=1e-12)
