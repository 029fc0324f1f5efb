"""A gradient is a new array: never one of the inputs, nor a view of one.

A gradient that is a view of an input (the other factor of a product, reshaped
or transposed) used to be handed out as it was: changing the gradient in place
(`g *= lr`) then changed the input. Each case is also checked against central
differences.
"""

import numpy as np
import pytest

import adsrc
from adsrc import check_grads


def reshaped(x, y):
    return np.sum(x * y.reshape(x.shape))


def reshaped_by_function(x, y):
    return np.sum(x * np.reshape(y, x.shape))


def transposed(x, y):
    return np.sum(x * y.T)


def transposed_by_function(x, y):
    return np.sum(x * np.transpose(y))


def sliced(x, y):
    return np.sum(x * y[1:])


def row(x, y):
    return np.sum(x * y[1])


def real_part(x, y):
    return np.sum(x * np.real(y))


def plain(x, y):
    return np.sum(x * y)


CASES = [
    (reshaped, (2, 3), (6,)),
    (reshaped_by_function, (2, 3), (6,)),
    (transposed, (2, 3), (3, 2)),
    (transposed_by_function, (2, 3), (3, 2)),
    (sliced, (2, 3), (3, 3)),
    (row, (2, 3), (2, 2, 3)),
    (real_part, (2, 3), (2, 3)),
    (plain, (2, 3), (2, 3)),
]


@pytest.mark.parametrize("f, xshape, yshape", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_shares_no_memory_with_the_inputs(f, xshape, yshape):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(xshape), rng.standard_normal(yshape)
    y_before = y.copy()
    gx = adsrc.grad(f)(x, y)
    assert not np.shares_memory(gx, y) and not np.shares_memory(gx, x)
    assert gx.flags.writeable
    gx *= 2.0                       # what an optimizer step may do
    np.testing.assert_array_equal(y, y_before)
    check_grads(f, (x, y), argnums=0, order=1, modes=("rev",), atol=1e-6, rtol=1e-6)
