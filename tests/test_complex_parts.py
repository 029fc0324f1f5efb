"""Real arrays whose parts pass through complex values (spectral methods, transforms of rows, `complex(a, b)`):
the cotangent of a real value may carry an imaginary part that means nothing (rules/__init__.py), and adding one
into a real adjoint in place (`dx[i] += g`) once raised NumPy's casting error. Each gradient is checked against
central differences and must come back real, with the inputs unchanged."""

import numpy as np
import pytest

import adsrc
from casekit import assert_matches_differences


def spectral_smoothing(x):
    k = np.fft.fftfreq(x.shape[1])
    u = x[0]
    for _ in range(3):
        u = np.real(np.fft.ifft(np.fft.fft(u) * np.exp(-k ** 2)))
    return np.sum(u ** 2) + np.sum(x[1] * u)


def power_of_each_row(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.sum(np.abs(np.fft.fft(x[i])) ** 2) * (i + 1)
    return s


def transform_of_a_column_of_the_transpose(x):
    return np.abs(np.sum(np.fft.fft(x.T[1])))


def transform_of_a_scaled_block(x):
    return np.abs(np.sum(np.fft.ifft2(x[:2, :2] * 2.0)))


def rows_in_a_dict(x):
    d = {"a": x[0], "b": x[1]}
    return np.abs(np.sum(np.fft.fft(d["a"]) * d["b"]))


def vdot_of_rows(x):
    return np.abs(np.vdot(x[0] * 1j, x[1]))


def cross_spectrum(x):
    return np.real(np.sum(np.fft.fft(x[0]) * np.conj(np.fft.fft(x[1]))))


def n_dimensional_transform_of_rows(x):
    return np.abs(np.sum(np.fft.fftn(x[:2]) ** 2))


def a_row_used_twice(x):
    y = x[1] * 2.0
    return np.sum(y ** 2) + np.abs(np.sum(np.fft.fft(y) * np.arange(1.0, 5.0)))


@pytest.mark.parametrize("fn", [spectral_smoothing, power_of_each_row, transform_of_a_column_of_the_transpose,
                                transform_of_a_scaled_block, rows_in_a_dict, vdot_of_rows, cross_spectrum,
                                n_dimensional_transform_of_rows, a_row_used_twice])
def test_real_parts_through_complex_values_match_differences(fn):
    x = np.random.default_rng(7).uniform(-0.9, 0.9, (3, 4))
    before = x.copy()
    g = adsrc.grad(fn)(x)
    np.testing.assert_array_equal(x, before)
    assert g.dtype == np.float64 and g.shape == x.shape
    assert_matches_differences(fn, (x,), (g,), rtol=1e-5, atol=1e-7)


def complex_from_parts(x):
    z = complex(x[0], x[1])
    w = complex(x[2])
    return abs(z * z + w) + (z * np.conj(z)).real


def modulus_of_a_complex_made_of_floats(a, b):
    return abs(complex(a, b) ** 2 + 1.0)


def test_complex_of_real_parts_is_differentiated():
    x = np.array([0.3, -0.7, 0.4])
    assert_matches_differences(complex_from_parts, (x,), (adsrc.grad(complex_from_parts)(x),), rtol=1e-6,
                               atol=1e-8)
    # |(a + ib)^2 + 1| by hand: with u = a^2 - b^2 + 1, v = 2ab, d/da = (2au + 2bv) / r, d/db = (-2bu + 2av) / r
    a, b = 0.3, 0.8
    u, v = a * a - b * b + 1.0, 2 * a * b
    r = np.hypot(u, v)
    ga, gb = adsrc.grad(modulus_of_a_complex_made_of_floats, argnums=(0, 1))(a, b)
    assert type(ga) is float and type(gb) is float
    np.testing.assert_allclose([ga, gb], [(2 * a * u + 2 * b * v) / r, (-2 * b * u + 2 * a * v) / r], rtol=1e-12)
    _, tangent = adsrc.jvp(modulus_of_a_complex_made_of_floats, (a, b), (0.0, 1.0))
    np.testing.assert_allclose(tangent, (-2 * b * u + 2 * a * v) / r, rtol=1e-12)
