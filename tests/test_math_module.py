"""Python's math and statistics functions on floats inside a gradient, against central differences (two points
each, of either sign): math.hypot of any number of coordinates, statistics.geometric_mean and harmonic_mean
(refused before), and the others users reach for."""

import math
import statistics

import numpy as np
import pytest

import adsrc


def hypot_of_several(a, b):
    return math.hypot(a, b) + math.hypot(a, b, 1.0) + math.hypot(3.0 * a) + math.dist([a, b], [1.0, 2.0])


def means_of_positive_data(a, b):
    data = [a + 2.0, b + 2.0, a * b + 3.0]
    return (statistics.geometric_mean(data) + statistics.harmonic_mean(data) * 2.0 + statistics.fmean(data)
            + statistics.harmonic_mean(data[:2], weights=[1.0, 3.0]))


def spread(a, b):
    data = [a, b, a * b, 0.3]
    return statistics.stdev(data) + statistics.pvariance(data) + statistics.median(data) * a


def elementary(a, b):
    return (math.atan2(a, b + 2.0) + math.erf(a) * math.lgamma(b + 2.0) + math.log(b + 2.0, 3.0) + math.fsum([a, b * b])
            + math.prod([a, b, 2.0]) + math.copysign(a, -1.0) + math.fmod(a + 5.0, 2.0) + math.expm1(a))


@pytest.mark.parametrize("fn", [hypot_of_several, means_of_positive_data, spread, elementary])
@pytest.mark.parametrize("a, b", [(0.37, 0.81), (-0.42, 0.23)])
def test_math_and_statistics_match_differences(fn, a, b):
    ga, gb = adsrc.grad(fn, argnums=(0, 1))(a, b)
    assert type(ga) is float and type(gb) is float
    eps = 1e-6
    np.testing.assert_allclose([ga, gb], [(fn(a + eps, b) - fn(a - eps, b)) / (2 * eps),
                                          (fn(a, b + eps) - fn(a, b - eps)) / (2 * eps)], rtol=1e-6, atol=1e-8)


def test_hypot_by_hand_and_at_the_origin():
    # d/da sqrt(a^2 + b^2 + c^2) = a / r
    a, b, c = 0.3, -0.4, 1.2
    g = adsrc.grad(lambda u, v: math.hypot(u, v, c), argnums=(0, 1))(a, b)
    r = math.sqrt(a * a + b * b + c * c)
    np.testing.assert_allclose(g, [a / r, b / r], rtol=1e-12)
    assert adsrc.grad(lambda u: math.hypot(u, 0.0))(0.0) == 0.0       # |u| at 0: the subgradient 0, not NaN
    assert math.hypot(1e200, 1e200) == adsrc.value_and_grad(lambda u: math.hypot(u, 1e200))(1e200)[0]
