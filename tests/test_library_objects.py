"""Library objects made inside the differentiated function: a frozen scipy.stats distribution built from the
parameters, and a seeded NumPy generator drawing with parameters (`rng.normal(mu, sigma)`, the
reparameterization trick). Each against central finite differences, to second order in both modes, and the
value against the function run by Python (the same numbers drawn from the same stream)."""

import numpy as np
import pytest

import adsrc
from casekit import assert_matches_differences

stats = pytest.importorskip("scipy.stats")


def drawn_and_frozen(mu, sigma):
    rng = np.random.default_rng(3)
    a = rng.normal(mu, sigma, size=4)
    b = rng.uniform(mu, mu + sigma, 3)
    c = rng.normal(mu * np.ones(2), sigma)
    d = rng.normal()
    dist = stats.norm(mu, scale=sigma)
    mu = mu * 3.0                         # a later change does not reach the frozen distribution
    e = dist.logpdf(a) + dist.cdf(0.2)
    p = stats.poisson(2.5)
    return np.sum(a ** 2) + np.sum(np.sin(b)) + np.sum(c) * d + np.sum(e) + p.logpmf(2) + mu


def frozen_multivariate(m):
    dist = stats.multivariate_normal(m, np.eye(2) * 2.0)
    return dist.logpdf(np.array([0.3, -0.1])) + dist.logpdf(m * 0.5)


@pytest.mark.parametrize("fn, args", [(drawn_and_frozen, (0.3, 1.1)), (frozen_multivariate, (np.array([0.2, 0.4]),))],
                         ids=["drawn_and_frozen", "frozen_multivariate"])
def test_library_objects_made_in_the_function(fn, args):
    value, grads = adsrc.value_and_grad(fn, argnums=tuple(range(len(args))))(*args)
    assert value == fn(*args)
    assert_matches_differences(fn, args, grads)
    adsrc.check_grads(fn, args, argnums=tuple(range(len(args))), modes=("rev", "fwd"), order=2)


def frozen_passed_on(mu, x):
    dist = stats.norm(mu, 1.0)
    return _logpdf_of(dist, x)


def _logpdf_of(dist, x):
    return np.sum(dist.logpdf(x))


def test_a_frozen_distribution_handed_to_another_function_is_refused_not_dropped():
    with pytest.raises(adsrc.TransformError, match="logpdf"):
        adsrc.grad(frozen_passed_on)(0.3, np.array([0.1, 0.2]))
