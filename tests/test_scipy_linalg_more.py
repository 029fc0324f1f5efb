"""scipy.linalg's qr, norm, pinv, lstsq, polar and Lyapunov solvers inside a gradient (written over NumPy's
counterparts, rules/scipy_linalg_source.py): the values are SciPy's, the gradients agree with central
differences, and what cannot be differentiated (Q of a tall matrix in mode='full') is refused by name."""

import numpy as np
import pytest
import scipy.linalg as sl

import adsrc
from casekit import central_grad

RNG = np.random.default_rng(4)
A = RNG.normal(size=(4, 3))
STABLE = RNG.normal(size=(3, 3)) * 0.3 - 2.0 * np.eye(3)
Q = np.eye(3) + 0.1
W3, W12 = np.arange(9.0).reshape(3, 3), np.arange(12.0).reshape(3, 4)


def economic_qr(a):
    q, r = sl.qr(a, mode="economic")
    return np.sum(q * np.arange(3.0)) + np.sum(r ** 2)


def r_only(a):
    (r,) = sl.qr(a, mode="r")
    return np.sum(r ** 3)


def qr_of_a_square_block(a):
    q, r = sl.qr(a[:3])
    return np.sum(q * np.arange(3.0)) + np.sum(np.diag(r))


def norms(a):
    return sl.norm(a) + sl.norm(a, 1) + np.sum(sl.norm(a, axis=0)) + sl.norm(a[0])


def pseudo_inverse(a):
    return np.sum(sl.pinv(a) * W12)


def least_squares(a):
    x, residues, rank, sv = sl.lstsq(a, np.arange(4.0))
    return np.sum(x ** 2) + np.sum(residues) + np.sum(sv)


def polar_parts(a):
    u, p = sl.polar(a[:3])
    ul, pl = sl.polar(a[:3], side="left")
    return np.sum(u * W3) + np.sum(p ** 2) + np.sum(pl * W3) + np.sum(ul ** 3)


def continuous_lyapunov(s):
    return np.sum(sl.solve_continuous_lyapunov(s, Q) * W3)


def discrete_lyapunov(s):
    return np.sum(sl.solve_discrete_lyapunov(s * 0.2, Q) * W3)


@pytest.mark.parametrize("fn, x", [(economic_qr, A), (r_only, A), (qr_of_a_square_block, A), (norms, A),
                                   (pseudo_inverse, A), (least_squares, A), (polar_parts, A),
                                   (continuous_lyapunov, STABLE), (discrete_lyapunov, STABLE)])
def test_scipy_linalg_values_and_gradients(fn, x):
    value, g = adsrc.value_and_grad(fn)(x.copy())
    np.testing.assert_allclose(value, fn(x), rtol=1e-12, atol=1e-12)     # SciPy's own value
    assert not np.any(np.isnan(g))
    np.testing.assert_allclose(g, central_grad(fn, x), rtol=1e-5, atol=1e-7)


def full_qr_of_a_tall_matrix(a):
    q, r = sl.qr(a)
    return np.sum(q)


def test_q_of_a_tall_matrix_in_full_mode_is_refused_naming_the_way_out():
    with pytest.raises(adsrc.TransformError, match=r"mode='full'.*mode='economic'"):
        adsrc.grad(full_qr_of_a_tall_matrix)(A)
