"""The gradient of a function defined inside the differentiated function (lowering/lifting.py):
`adsrc.grad(inner)(w)` where inner reads the outer function's variables. Each case is checked
against central differences of the outer function.
"""

import numpy as np
import pytest

import adsrc
from casekit import central_grad

DATA = np.linspace(-1.0, 1.0, 4)


def meta_learning(lam):
    """Three steps of gradient descent on an inner loss that reads the outer hyperparameter."""
    data = DATA * 1.5

    def inner(w):
        return np.sum((w * data - 1.0) ** 2) + lam * w ** 2
    w = 0.5
    for _ in range(3):
        w = w - 0.1 * adsrc.grad(inner)(w)
    return w ** 2 + lam * w


def named_gradient(lam):
    def inner(w):
        return np.sum(np.sin(w * DATA * lam) + w ** 3)
    g = adsrc.grad(inner)
    return g(lam) * lam


def of_a_lambda(s):
    return adsrc.grad(lambda v: np.sum(np.sin(v * s)))(np.ones(3) * s).sum()


def with_argnums(a):
    b = a * 2.0

    def inner(x, y):
        return np.sin(x * y) * a
    return adsrc.grad(inner, argnums=1)(a, b)


def value_and_gradient(a):
    def inner(x):
        return np.sin(x) * a
    v, d = adsrc.value_and_grad(inner)(a)
    return v + d


def of_arrays(W):
    x = np.array([0.3, -0.2])

    def inner(v):
        return np.sum(np.tanh(W @ v) ** 2)
    return np.sum(adsrc.grad(inner)(x) ** 2)


@pytest.mark.parametrize("f, x", [(meta_learning, 0.3), (named_gradient, 0.7), (of_a_lambda, 0.4),
                                  (with_argnums, 0.6), (value_and_gradient, 0.9),
                                  (of_arrays, np.array([[0.5, -0.3], [0.2, 0.8]]))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_gradient_of_a_nested_function(f, x):
    got = adsrc.grad(f)(x)
    assert not np.any(np.isnan(got))
    np.testing.assert_allclose(got, central_grad(f, x), rtol=1e-6, atol=1e-9)


def test_the_lifted_copy_is_made_once_and_its_source_shown():
    g = adsrc.grad(meta_learning)
    g(0.3)
    g(0.5)
    assert g.cache_info().misses == 1
    text = g.source(0.3)
    assert "inner_lifted_grad" in text and "data=data" in text


def declares_nonlocal(a):
    total = a

    def inner(w):
        nonlocal total
        total = total + w
        return w * total
    return adsrc.grad(inner)(a)


def test_the_gradient_of_a_nested_function_that_rebinds_an_outer_variable_is_refused():
    with pytest.raises(adsrc.TransformError, match=r"assigns the enclosing function's `total` \(`nonlocal`\) "
                                                   "and is used as a value"):
        adsrc.grad(declares_nonlocal)(0.5)


def two_lambdas_on_one_line(s):
    return adsrc.grad(lambda v: np.sin(v) * s)(s) + adsrc.grad(lambda v: np.cos(v) * s)(s)


def test_two_lambdas_on_one_line_are_two_functions():
    s = 0.7
    want = np.cos(s) * s - np.sin(s) * s
    assert two_lambdas_on_one_line(s) == pytest.approx(want)
    np.testing.assert_allclose(adsrc.grad(two_lambdas_on_one_line)(s), central_grad(two_lambdas_on_one_line, s),
                               rtol=1e-6, atol=1e-9)
