"""SciPy derivative rules: every rule agrees with central finite differences in every coordinate of
every argument (x and the distributions' parameters), every rule has a case, the three spellings of
a distribution's method find its rule, frozen distributions work in x, refusals are clear, and the
incomplete gamma and beta derivatives match an independent quadrature."""

import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("scipy")      # an optional dependency (the `scipy` and `test` extras)
import scipy.integrate
import scipy.linalg as sl
import scipy.signal as ss
import scipy.special as sp
import scipy.stats as st

import adsrc
from adsrc import rules
from complexkit import check_complex_grad
from rulecheck import check_case, variants
from scipy_rule_cases import SCIPY_CASES


@pytest.mark.parametrize("case, k, W", variants(SCIPY_CASES))
def test_scipy_rule_matches_finite_differences(case, k, W):
    check_case(case, k, W)


def test_every_scipy_rule_has_a_case():
    rules.load_scipy_tables(all_tables=True)
    names = {r.name for r in rules.FUNCTIONS.values() if r.name.startswith("scipy.") and not r.nondiff}
    covered = {name for c in SCIPY_CASES for name in c.rules}
    assert len(names) >= 90
    assert not sorted(names - covered), f"SciPy rules without a finite-difference case: {sorted(names - covered)}"
    assert not sorted(covered - names), f"cases name rules the tables do not have: {sorted(covered - names)}"


def test_the_spellings_of_a_distribution_method_find_one_rule():
    from scipy import stats
    from scipy.stats import norm
    rule = rules.lookup(norm.logpdf)
    assert rule is not None and rule.name == "scipy.stats.norm.logpdf"
    assert rules.lookup(st.norm.logpdf) is rule and rules.lookup(stats.norm.logpdf) is rule
    assert rules.lookup(st.norm.cdf) is not rule


def test_adsrc_does_not_import_scipy_stats(tmp_path):
    code = ("import sys, numpy as np, adsrc\n"
            "assert 'scipy.stats' not in sys.modules and 'scipy.special' not in sys.modules\n"
            "import scipy.special as sp\n"
            "def f(x):\n"
            "    return np.sum(sp.gammaln(x))\n"
            "import tempfile, importlib.util, pathlib\n")
    # a file, so adsrc can read the function's source
    script = code.replace("import tempfile, importlib.util, pathlib\n", "") + (
        "g = adsrc.grad(f)(np.array([1.5, 2.0]))\n"
        "assert np.allclose(g, sp.digamma(np.array([1.5, 2.0])))\n"
        "assert 'scipy.stats' not in sys.modules\n"
        "print('ok')\n")
    path = tmp_path / "lazy_scipy.py"
    path.write_text(script)
    env = dict(os.environ, PYTHONPATH=str(_root()))
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, cwd=str(_root()), env=env)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr


def _root():
    import pathlib
    return pathlib.Path(__file__).parent.parent


# -- frozen distributions ---------------------------------------------------------------------------------------

T_FROZEN = st.t(4.0, loc=0.5, scale=2.0)
GAMMA_FROZEN = st.gamma(2.5, scale=0.7)
MVN_FROZEN = st.multivariate_normal(np.array([0.1, -0.2]), np.array([[2.0, 0.3], [0.3, 1.0]]))
DIR_FROZEN = st.dirichlet(np.array([1.5, 2.0, 3.0]))
POISSON_FROZEN = st.poisson(3.0)


def frozen_losses(x):
    u = np.exp(x[:3]) / np.sum(np.exp(x[:3]))
    return (np.sum(T_FROZEN.logpdf(x)) + np.sum(T_FROZEN.logsf(x)) + np.sum(GAMMA_FROZEN.cdf(x * x + 0.1))
            + MVN_FROZEN.logpdf(x[:2]) + MVN_FROZEN.pdf(x[1:3]) + DIR_FROZEN.logpdf(u)
            + np.sum(POISSON_FROZEN.logpmf(np.array([1, 2]))) * x[0])


def frozen_with_differentiated_parameters(x, mu):
    return np.sum(st.norm(mu, 1.0).logpdf(x))


def test_frozen_distributions_are_differentiated_in_x():
    adsrc.check_grads(frozen_losses, (np.array([0.3, -1.0, 2.0, 0.8]),), full=True)


def test_a_frozen_distribution_of_differentiated_parameters_made_in_the_function():
    # its method's call is the distribution's own with the parameters (it was refused)
    x = np.array([0.3, 1.0])
    g = adsrc.grad(frozen_with_differentiated_parameters, argnums=1)(x, 0.5)
    f = frozen_with_differentiated_parameters
    want = (f(x, 0.5 + 1e-6) - f(x, 0.5 - 1e-6)) / 2e-6
    np.testing.assert_allclose(g, want, rtol=1e-6)


# -- refusals -----------------------------------------------------------------------------------------------------

def bessel_in_its_order(v, x):
    return np.sum(sp.jv(v, x))


def singular_mvn(x, c):
    return st.multivariate_normal.logpdf(x, cov=c, allow_singular=True)


def gamma_of_complex(z):
    return np.sum(np.abs(sp.gamma(z)))


def erf_of_complex(z):
    return np.sum(np.real(sp.erf(z)) * np.array([1.0, 2.0]) + np.imag(sp.erfc(z)) ** 2)


COMPLEX_READY = ("scipy.special.erf", "scipy.special.erfc", "scipy.signal.convolve", "scipy.signal.correlate",
                 "scipy.integrate.trapezoid", "scipy.linalg.expm", "scipy.linalg.solve_sylvester",
                 "scipy.special.lambertw", "scipy.special.wofz", "scipy.linalg.logm", "scipy.linalg.expm_frechet")


def signal_of_complex(a, v):
    return (np.sum(np.abs(ss.convolve(a, v, mode="same")) ** 2) + np.sum(np.real(ss.correlate(a, v)))
            + np.sum(np.imag(ss.correlate(v, a, mode="valid")) * 3.0) + np.real(scipy.integrate.trapezoid(a)))


def test_signal_and_trapezoid_are_complex_ready():
    a = np.array([0.3 + 0.4j, -0.5 + 0.2j, 1.0 - 0.7j, 0.2 + 0.1j])
    v = np.array([0.8 - 0.3j, 0.1 + 0.6j])
    check_complex_grad(signal_of_complex, (a, v), 0)
    check_complex_grad(signal_of_complex, (a, v), 1)
    check_complex_grad(signal_of_complex, (a, v.real.copy()), 0)      # mixed real and complex
    g = adsrc.grad(signal_of_complex, argnums=1)(a, v.real.copy())
    assert g.dtype == float


def sylvester_of_complex(a, q):
    x = sl.solve_sylvester(a, a.T + 1.0, q)
    return np.sum(np.abs(x) ** 2) + np.real(np.sum(x * (0.3 - 0.2j)))


def test_solve_sylvester_is_complex_ready():
    a = np.array([[1.5 + 0.2j, 0.3], [-0.4j, 1.2 - 0.1j]])
    q = np.array([[0.5 - 0.3j, 1.0], [0.2 + 0.7j, -0.6]])
    check_complex_grad(sylvester_of_complex, (a, q), 0)
    check_complex_grad(sylvester_of_complex, (a, q), 1)
    check_complex_grad(sylvester_of_complex, (a.real.copy(), q), 1)     # a real matrix, a complex right side


def test_scipy_rules_refuse_complex_arguments_except_the_complex_ready_ones():
    rules.load_scipy_tables(all_tables=True)
    for rule in rules.FUNCTIONS.values():
        if rule.name.startswith("scipy.") and not rule.nondiff:
            assert rule.real_only == (rule.name not in COMPLEX_READY), rule.name


def test_rules_listing_groups_scipy_by_module():
    from adsrc import rule_table
    text = rule_table.report()
    for module in rule_table.SCIPY_MODULES:
        assert f"[{module}: " in text
    assert "scipy.special.jv (= jn)" in text and "scipy.stats.norm.logpdf" in text
    c = rule_table.counts()
    assert c["differentiable scipy callables"] == sum(c[f"{m} callables"] for m in rule_table.SCIPY_MODULES) >= 100


def test_refusals_are_clear():
    with pytest.raises(adsrc.TransformError, match="with respect to its order(.|\n)*bessel_in_its_order"):
        adsrc.grad(bessel_in_its_order)(1.5, np.array([0.5, 2.0]))
    with pytest.raises(adsrc.TransformError, match="allow_singular"):
        adsrc.grad(singular_mvn, argnums=1)(np.array([0.3, 0.1]), np.eye(2))
    with pytest.raises(adsrc.TransformError, match="not written for complex"):
        adsrc.grad(gamma_of_complex)(np.array([1.0 + 0.5j, 2.0 - 0.1j]))


def test_erf_and_erfc_are_complex_ready():
    check_complex_grad(erf_of_complex, (np.array([0.3 + 0.4j, -0.5 + 0.2j]),), 0)


# -- the incomplete gamma and beta functions' derivatives in their parameters, against quadrature ------------------

def _dP_da(a, x):
    """d/da of P(a, x) = int_0^x t^(a-1) e^-t dt / Gamma(a), by quadrature."""
    integral = scipy.integrate.quad(lambda t: np.log(t) * t ** (a - 1.0) * np.exp(-t), 0.0, x, limit=200, epsabs=0.0, epsrel=1e-12)[0]
    return integral / sp.gamma(a) - sp.digamma(a) * sp.gammainc(a, x)


def _dQ_da(a, x):
    integral = scipy.integrate.quad(lambda t: np.log(t) * t ** (a - 1.0) * np.exp(-t), x, np.inf, limit=200, epsabs=0.0, epsrel=1e-12)[0]
    return integral / sp.gamma(a) - sp.digamma(a) * sp.gammaincc(a, x)


def _dI(a, b, x):
    """d/da and d/db of I_x(a, b) = int_0^x t^(a-1) (1-t)^(b-1) dt / B(a, b), by quadrature."""
    w = lambda t: t ** (a - 1.0) * (1.0 - t) ** (b - 1.0) / sp.beta(a, b)      # noqa: E731
    ia = scipy.integrate.quad(lambda t: np.log(t) * w(t), 0.0, x, limit=200, epsabs=0.0, epsrel=1e-12)[0]
    ib = scipy.integrate.quad(lambda t: np.log1p(-t) * w(t), 0.0, x, limit=200, epsabs=0.0, epsrel=1e-12)[0]
    i = sp.betainc(a, b, x)
    return ia - i * (sp.digamma(a) - sp.digamma(a + b)), ib - i * (sp.digamma(b) - sp.digamma(a + b))


def test_incomplete_gamma_and_beta_parameter_derivatives_match_quadrature():
    from adsrc.rules import scipy_helpers as h
    for a, x in [(0.5, 0.1), (2.0, 1.0), (3.0, 7.9), (10.0, 11.0), (1.5, 4.0)]:
        assert abs(h.gammainc_da(np.array([a]), np.array([x]))[0] - _dP_da(a, x)) < 1e-10
    for a, x in [(5.0, 30.0), (0.7, 25.0), (2.0, 60.0)]:           # the upper tail: relative accuracy
        got, want = -h.gammainc_da(np.array([a]), np.array([x]))[0], _dQ_da(a, x)
        assert abs(got - want) < 1e-6 * abs(want), (a, x, got, want)
    for a, b, x in [(2.0, 3.0, 0.3), (1.5, 1.5, 0.9), (5.0, 1.5, 0.95), (1.2, 8.0, 0.05), (10.0, 2.0, 0.8)]:
        da, db = h.betainc_partials(a, b, x)
        qa, qb = _dI(a, b, x)
        assert abs(da - qa) < 1e-8 and abs(db - qb) < 1e-8, (a, b, x, da, qa, db, qb)


def _quantiles(q, m, s):
    return np.sum(st.norm.ppf(q, m, s) * 2.0 + st.norm.isf(q, m, s) ** 2)


def _poisson_tails(mu):
    k = np.array([0, 2, 5])
    return np.sum(st.poisson.cdf(k, mu) * np.array([1.0, 2.0, 3.0]) + st.poisson.sf(k, mu))


def _entropy_of(c):
    return st.multivariate_normal.entropy(np.zeros(2), c @ c.T + np.eye(2))


@pytest.mark.parametrize("fn, args, argnums", [
    (_quantiles, (np.array([0.1, 0.5, 0.83]), 0.2, 1.3), (0, 1, 2)), (_poisson_tails, (2.3,), 0),
    (_entropy_of, (np.array([[1.0, 0.3], [0.2, 0.8]]),), 0)])
def test_norm_quantiles_poisson_tails_and_gaussian_entropy(fn, args, argnums):
    # written in SciPy functions adsrc has rules for (ndtri, gammaincc, slogdet); they were refused
    adsrc.check_grads(fn, args, argnums=argnums, modes=["fwd", "rev"], order=2, rtol=1e-5, atol=1e-7)


def _builders(p, y):
    import scipy.linalg
    t = scipy.linalg.toeplitz(p, p[::-1] * 0.5) @ y + scipy.linalg.toeplitz(p ** 2) @ y
    c = scipy.linalg.circulant(p) @ y + scipy.linalg.hankel(p, y) @ y
    b = scipy.linalg.block_diag(p[0] * np.eye(2), np.outer(p[1:], y[1:]), 3.0)
    ct = scipy.integrate.cumulative_trapezoid(p * y, dx=0.5) + scipy.integrate.cumulative_trapezoid(
        np.outer(p, y), y, axis=0, initial=0)[-1][:2]
    return np.sum(t ** 2) + np.sum(np.sin(c)) + np.sum(b ** 2) + np.sum(ct * p[:ct.shape[0]])


def test_scipy_linalg_builders_and_cumulative_trapezoid():
    # toeplitz, circulant, hankel, block_diag and cumulative_trapezoid on differentiated values were refused
    # (adsrc read SciPy's own source and gave up); they follow SciPy's definitions in plain NumPy now
    from casekit import central_grad
    p, y = np.array([0.6, -1.1, 0.4]), np.array([0.2, 0.9, -0.5])
    value, _ = adsrc.value_and_grad(_builders)(p, y)
    np.testing.assert_allclose(value, _builders(p, y), rtol=1e-12)
    gp, gy = adsrc.grad(_builders, argnums=(0, 1))(p, y)
    np.testing.assert_allclose(gp, central_grad(lambda v: _builders(v, y), p), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gy, central_grad(lambda v: _builders(p, v), y), rtol=1e-6, atol=1e-8)


def _lu_everywhere(a):
    p, lower, upper = sl.lu(a)
    rows, lower2, upper2 = sl.lu(a, p_indices=True)
    pl, upper3 = sl.lu(a, permute_l=True)
    return (np.sum(np.log(np.abs(np.diag(upper)))) + np.sum(np.sin(lower @ upper2)) + np.sum(p @ lower2)
            + np.sum(lower2[rows] ** 2) + np.sum(pl * upper3))


def test_scipy_linalg_lu():
    # refused: adsrc read SciPy's own lu and stopped at a starred index; it follows lu_factor now (P, L, U with
    # A = P L U, p_indices and permute_l as SciPy documents them)
    from casekit import central_grad
    a = np.array([[0.3, 2.0, -0.4], [1.1, 0.2, 1.7], [2.2, -0.5, 0.1]])
    a0 = a.copy()
    value, g = adsrc.value_and_grad(_lu_everywhere)(a)
    assert np.array_equal(a, a0) and not np.any(np.isnan(g))
    np.testing.assert_allclose(value, _lu_everywhere(a), rtol=1e-12)
    np.testing.assert_allclose(g, central_grad(_lu_everywhere, a), rtol=1e-6, atol=1e-8)
    h = adsrc.hessian(lambda m: np.sum(sl.lu(m)[2] ** 2))(a)
    assert h.shape == (3, 3, 3, 3) and not np.any(np.isnan(h))
    np.testing.assert_allclose(h[0, 1], central_grad(lambda m: adsrc.grad(lambda m: np.sum(sl.lu(m)[2] ** 2))(m)[0, 1],
                                                     a), rtol=1e-5, atol=1e-7)


def _lu_rectangular(a):
    p, lower, upper = sl.lu(a)
    rows, lower2, upper2 = sl.lu(a, p_indices=True)
    pl, upper3 = sl.lu(a, permute_l=True)
    packed, piv = sl.lu_factor(a)
    return (np.sum(np.sin(lower)) + np.sum(upper ** 2) + np.sum(np.cos(p @ lower2 @ upper2)) + np.sum(pl ** 3)
            + np.sum(upper3 * upper) + np.sum(lower2[rows] * a[:, :1]) + np.sum(packed ** 2))


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (1, 4), (4, 1)])
def test_scipy_linalg_lu_of_a_rectangular_matrix(shape):
    # (refused when the code ran, without the user's line: "square matrices only"); P is m x m, L m x k, U k x n
    from casekit import central_grad
    a = np.random.default_rng(7).normal(size=shape)
    a0 = a.copy()
    p, lower, upper = sl.lu(a)
    k = min(shape)
    assert p.shape == (shape[0], shape[0]) and lower.shape == (shape[0], k) and upper.shape == (k, shape[1])
    value, g = adsrc.value_and_grad(_lu_rectangular)(a)
    assert np.array_equal(a, a0) and not np.any(np.isnan(g))
    np.testing.assert_allclose(value, _lu_rectangular(a), rtol=1e-12)
    np.testing.assert_allclose(g, central_grad(_lu_rectangular, a), rtol=1e-6, atol=1e-8)
    t = np.random.default_rng(8).normal(size=shape)
    _, dot = adsrc.jvp(_lu_rectangular, (a,), (t,))
    fd = (_lu_rectangular(a + 1e-6 * t) - _lu_rectangular(a - 1e-6 * t)) / 2e-6
    np.testing.assert_allclose(dot, fd, rtol=1e-6, atol=1e-8)
