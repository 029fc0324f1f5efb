"""Modules and scipy.stats distributions passed as arguments (`loglik(st.norm, x, ...)`, `xp=np`,
`def f(v, m=math)`): the callee's `dist.logpdf(...)` and `xp.sum(...)` find their rules, as when the code names
the object itself. They were refused ("adsrc does not know what `dist` is when it transforms"), or, for the
differentiated function's own parameter, an error when the code ran. Checked against central differences."""

import math

import numpy as np
import pytest
import scipy.stats as st

import adsrc
from casekit import central_grad


def _loglik(dist, x, *params):
    return np.sum(dist.logpdf(x, *params))


def likelihood_of_two_families(theta, x):
    return _loglik(st.norm, x, theta[0], theta[1]) + _loglik(st.t, x, 3.0, theta[0])


def _softplus_sum(v, xp):
    return xp.sum(xp.log1p(xp.exp(v)))


def module_passed_to_a_helper(x):
    return _softplus_sum(x, np) * 2.0


def _wave(v, m=math):
    return m.sin(v) * m.exp(v)


def module_as_a_helpers_default(a):
    return _wave(a) + _wave(a * 2.0, math)


PRIOR = st.gamma(2.0, scale=1.5)


def _log_density(d, x):
    return np.sum(d.logpdf(x))


def frozen_distribution_passed(x):
    return _log_density(PRIOR, x) * 2.0


def loop_over_distributions(x):
    total = 0.0
    for dist in (st.norm, st.logistic, st.cauchy):
        total = total + np.sum(dist.logpdf(x))
    return total


def methods_chosen_by_name(x):
    total = 0.0
    for name in ("logpdf", "cdf"):
        total = total + np.sum(getattr(st.norm, name)(x))
    return total


def array_namespace_parameter(x, xp=np):
    return xp.sum(xp.tanh(x) ** 2)


X = np.array([0.3, 1.2, 2.5])


@pytest.mark.parametrize("fn", [module_passed_to_a_helper, frozen_distribution_passed, loop_over_distributions,
                                methods_chosen_by_name, array_namespace_parameter])
def test_library_objects_as_arguments_match_differences(fn):
    x = X.copy()
    g = adsrc.grad(fn)(x)
    np.testing.assert_array_equal(x, X)
    np.testing.assert_allclose(g, central_grad(fn, X), rtol=1e-6, atol=1e-8)


def test_a_module_passed_to_the_differentiated_function_itself():
    np.testing.assert_allclose(adsrc.grad(array_namespace_parameter)(X, np), central_grad(array_namespace_parameter, X),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(adsrc.grad(array_namespace_parameter)(X, xp=np),
                               central_grad(array_namespace_parameter, X), rtol=1e-6, atol=1e-8)


def test_distributions_passed_to_a_helper_in_every_mode():
    theta = np.array([0.4, 1.3])

    def f(t):
        return likelihood_of_two_families(t, X)
    g = adsrc.grad(f)(theta)
    np.testing.assert_allclose(g, central_grad(f, theta), rtol=1e-6, atol=1e-8)
    _, tangent = adsrc.jvp(f, (theta,), (np.array([1.0, -0.5]),))
    np.testing.assert_allclose(tangent, g @ np.array([1.0, -0.5]), rtol=1e-10)
    h = adsrc.hessian(f)(theta)
    fd = np.array([central_grad(lambda t: adsrc.grad(f)(t)[i], theta) for i in range(2)])
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-7)


def test_a_module_as_a_callees_default():
    a = 0.3
    fd = (module_as_a_helpers_default(a + 1e-6) - module_as_a_helpers_default(a - 1e-6)) / 2e-6
    assert np.isclose(adsrc.grad(module_as_a_helpers_default)(a), fd, rtol=1e-7)
