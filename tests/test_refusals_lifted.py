"""Calls adsrc used to refuse and now follows (in-place methods: test_inplace_lifted.py): np.roots, np.i0,
np.histogram2d, scipy.special.zeta / lambertw / wofz, scipy.linalg.logm / expm_frechet and the scipy.stats
distributions vonmises, skewnorm and truncnorm; each checked in reverse (and forward) mode against central
differences, and the ones still refused checked for their error."""

import numpy as np
import pytest

import adsrc
from liftedkit import POINTS, WEIGHTS, central, check_grad

sp = pytest.importorskip("scipy.special")
sl = pytest.importorskip("scipy.linalg")
st = pytest.importorskip("scipy.stats")


# -- NumPy functions ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("c", [np.array([1.0, -3.0, 2.0, 5.0]), np.array([2.0, 0.5, -4.0, 1.0, 0.3]),
                               np.array([1.0, -6.0, 11.0, -6.0])])
def test_roots_real_and_complex(c):
    def f(c):
        r = np.roots(c)
        return np.sum(np.abs(r) ** 2 * np.arange(1.0, r.size + 1.0)[np.argsort(np.argsort(r.real))]) + \
            np.sum(np.real(r) ** 3)
    check_grad(f, c, rtol=1e-5, atol=1e-6)


def test_roots_with_trailing_and_leading_zeros():
    def f(c):
        r = np.roots(c)
        return np.sum(np.real(r) ** 2 + np.imag(r) * np.real(r))
    check_grad(f, np.array([1.0, 0.5, 2.0, 0.0]), rtol=1e-5, atol=1e-6)      # a root at 0 from the last 0

    def leading(c):             # (a leading zero's own derivative does not exist: a root comes from infinity)
        return f(np.concatenate([np.zeros(1), c]))
    check_grad(leading, np.array([1.0, 0.5, 2.0, 0.0]), rtol=1e-5, atol=1e-6)


def test_roots_imaginary_parts():
    def f(c):
        r = np.roots(c)
        return np.sum(np.imag(r) ** 2) + np.real(np.prod(r))
    check_grad(f, np.array([1.0, 0.4, 2.0]))
    check_grad(f, np.array([2.0, -1.0, 3.0, 1.5]))


@pytest.mark.parametrize("x", POINTS + [np.array([0.0, 1e-7, -1e-3, 0.25]), np.array([-12.0, 25.0, 31.0, -40.0])])
def test_i0(x):
    scale = np.exp(-np.abs(x))              # (terms of one size, for the differences' rounding)
    check_grad(lambda x: np.sum(np.i0(x) * scale * WEIGHTS), x, rtol=1e-6, atol=1e-8)


def test_i1_without_scipy_matches_scipy():
    from adsrc.rules.bessel_i0 import i1_series
    x = np.concatenate([-np.logspace(-8, 2.8, 300), [0.0], np.logspace(-8, 2.8, 300)])
    np.testing.assert_allclose(i1_series(x), sp.i1(x), rtol=1e-13, atol=1e-300)


def test_i0_without_scipy(monkeypatch):
    from adsrc.rules import bessel_i0
    monkeypatch.setattr(bessel_i0, "_scipy_i1", lambda: None)
    for x in POINTS[:2]:
        check_grad(lambda x: np.sum(np.i0(x) * WEIGHTS), x, rtol=1e-6, atol=1e-8)


def test_i0_second_derivative():
    x = POINTS[1]
    h = adsrc.hessian(lambda x: np.sum(np.i0(x)))(x)
    np.testing.assert_allclose(np.diag(h), (sp.i0(x) + sp.iv(2, x)) / 2.0, rtol=1e-8)


# -- scipy.special ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("x", [np.array([-7.5, -3.0, -0.5, 0.0]), np.array([0.5, 1.5, 2.0, 3.7]),
                               np.array([1.2, 6.0, 10.0, 0.9])])
def test_riemann_zeta(x):
    check_grad(lambda x: np.sum(sp.zeta(x) * WEIGHTS), x, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("x, q", [(np.array([1.5, 2.0, 3.3, 6.0]), np.array([0.3, 1.5, 7.0, 0.6])),
                                  (np.array([2.5, 4.0, 1.1, 8.0]), np.array([2.0, 0.2, 1.0, 3.0]))])
def test_hurwitz_zeta_in_both_arguments(x, q):
    check_grad(lambda x: np.sum(sp.zeta(x, q) * WEIGHTS), x, rtol=1e-6, atol=1e-7)
    check_grad(lambda q: np.sum(sp.zeta(x, q) * WEIGHTS), q, rtol=1e-6, atol=1e-7)
    one = adsrc.grad(lambda x: sp.zeta(x, 3.0))(8.0)          # (alone: the differences' rounding is small)
    np.testing.assert_allclose(one, (sp.zeta(8.0 + 1e-4, 3.0) - sp.zeta(8.0 - 1e-4, 3.0)) / 2e-4, rtol=1e-7)


@pytest.mark.parametrize("x", [np.array([0.0, 0.5, 2.0, 10.0]), np.array([-0.3, 1e-3, 5.0, 100.0])])
def test_lambertw(x):
    check_grad(lambda x: np.sum(np.real(sp.lambertw(x)) * WEIGHTS), x, rtol=1e-6, atol=1e-9)
    check_grad(lambda x: np.sum(np.abs(sp.lambertw(x + 0.0, 0)) ** 2), x, rtol=1e-6, atol=1e-9)


def test_lambertw_other_branch_and_complex_argument():
    x = np.array([-0.3, -0.2, -0.1])
    check_grad(lambda x: np.sum(np.real(sp.lambertw(x, -1)) * WEIGHTS[:3]), x, rtol=1e-6, atol=1e-9)

    def f(t):                # along a complex path: the holomorphic rule
        z = t * (1.0 + 0.5j) + 0.7j        # (off the branch cut, the negative real axis)
        w = sp.lambertw(z, 1)
        return np.sum(np.real(w) * WEIGHTS + np.imag(w) ** 2)
    check_grad(f, POINTS[2], rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("x", POINTS)
def test_wofz(x):
    check_grad(lambda x: np.sum(np.real(sp.wofz(x)) * WEIGHTS + np.imag(sp.wofz(x)) ** 2), x, rtol=1e-6, atol=1e-9)

    def complex_path(t):
        w = sp.wofz(t + 0.3j * t * t)
        return np.sum(np.abs(w) ** 2 * WEIGHTS)
    check_grad(complex_path, x, rtol=1e-6, atol=1e-9)


# -- scipy.stats ------------------------------------------------------------------------------------------------

STATS_METHODS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
STATS_CASES = {
    "vonmises": (np.array([-2.3, -0.3, 0.7, 2.2]), (1.7,)),       # (sf < 0 past a turn: no logsf)
    "skewnorm": (np.array([-1.5, -0.2, 0.4, 2.1]), (2.5,)),
    "truncnorm": (np.array([-0.8, -0.1, 0.5, 1.4]), (-1.2, 1.9)),
}


@pytest.mark.parametrize("dist", sorted(STATS_CASES))
@pytest.mark.parametrize("method", STATS_METHODS)
def test_new_distributions_in_every_parameter(dist, method):
    fn = getattr(getattr(st, dist), method)
    x, shape = STATS_CASES[dist]
    loc, scale = 0.15, 1.3
    x = loc + scale * x
    params = np.array(list(shape) + [loc, scale])
    w = WEIGHTS
    if len(shape) == 1:         # (a function per number of shape parameters: adsrc checks every call's arguments)
        def in_x(x):
            return np.sum(fn(x, shape[0], loc=loc, scale=scale) * w)

        def in_params(p):
            return np.sum(fn(x, p[0], loc=p[1], scale=p[2]) * w)
    else:
        def in_x(x):
            return np.sum(fn(x, shape[0], shape[1], loc=loc, scale=scale) * w)

        def in_params(p):
            return np.sum(fn(x, p[0], p[1], loc=p[2], scale=p[3]) * w)
    check_grad(in_x, x, rtol=1e-5, atol=1e-8)
    check_grad(in_params, params, rtol=1e-5, atol=1e-8)


def test_vonmises_large_concentration_and_several_turns():
    x = np.array([-9.0, -3.0, 0.05, 7.0])
    for kappa in (0.05, 30.0):
        check_grad(lambda k: np.sum(st.vonmises.cdf(x, k[0]) * WEIGHTS), np.array([kappa]), rtol=1e-5, atol=1e-8)
        check_grad(lambda k: np.sum(st.vonmises.logpdf(x, k[0]) * WEIGHTS), np.array([kappa]), rtol=1e-6)


def test_truncnorm_outside_its_bounds_and_in_far_tails():
    x = np.array([-3.0, 0.0, 2.5, 9.0])
    check_grad(lambda p: np.sum(st.truncnorm.cdf(x, p[0], p[1]) * WEIGHTS), np.array([-1.0, 2.0]), rtol=1e-5, atol=1e-8)
    tail = np.array([6.1, 6.5, 7.0])
    check_grad(lambda p: np.sum(st.truncnorm.logpdf(tail, p[0], p[1])), np.array([6.0, 8.0]), rtol=1e-5, atol=1e-8)
    check_grad(lambda p: np.sum(st.truncnorm.logpdf(-tail, -p[1], -p[0])), np.array([6.0, 8.0]), rtol=1e-5,
               atol=1e-8)


# -- np.histogram2d ---------------------------------------------------------------------------------------------

HIST_RNG = np.random.default_rng(4)
HX, HY, HW = HIST_RNG.normal(size=40), HIST_RNG.normal(size=40), HIST_RNG.random(40) + 0.2


@pytest.mark.parametrize("kw", [dict(bins=3), dict(bins=[3, 4]), dict(bins=np.linspace(-2.0, 2.0, 5)),
                                dict(bins=3, range=[[-1.0, 1.0], [-0.5, 2.0]]), dict(bins=4, density=True)])
def test_histogram2d_weights_are_linear(kw):
    cell = np.cos(np.arange(16.0))

    def f(w):
        H, xe, ye = np.histogram2d(HX, HY, weights=w * w, **kw)
        return np.sum(H * cell[:H.size].reshape(H.shape))
    check_grad(f, HW, rtol=1e-6, atol=1e-8)
    value = adsrc.value_and_grad(lambda w: np.sum(np.histogram2d(HX, HY, weights=w, **kw)[0]))(HW)[0]
    np.testing.assert_allclose(value, np.sum(np.histogram2d(HX, HY, weights=HW, **kw)[0]), rtol=1e-12)


def test_histogram2d_samples_move_only_the_edges():
    def counts(x):              # piecewise constant: zero gradient between bin edges
        H, xe, ye = np.histogram2d(x, HY, bins=[3, 4], range=[[-3.0, 3.0], [-3.0, 3.0]])
        return np.sum(H * np.arange(12.0).reshape(3, 4))
    g = check_grad(counts, HX, rtol=1e-6, atol=1e-8)
    assert np.all(g == 0.0)

    def edges(x):               # the edges follow min(x) and max(x), and the density's areas with them
        H, xe, ye = np.histogram2d(x, HY, bins=3, density=True)
        return np.sum(H * np.arange(9.0).reshape(3, 3)) + np.sum(xe ** 2)
    g = check_grad(edges, HX, rtol=1e-5, atol=1e-7)
    assert np.count_nonzero(g) == 2


# -- scipy.linalg ---------------------------------------------------------------------------------------------

LA_RNG = np.random.default_rng(1)
LA_W = LA_RNG.normal(size=(4, 4))
LA_E = LA_RNG.normal(size=(4, 4))
MATRICES = [np.eye(4) * 2.0 + 0.3 * LA_RNG.normal(size=(4, 4)), np.eye(4) + 0.2 * LA_RNG.normal(size=(4, 4)),
            np.diag([0.5, 1.0, 3.0, 7.0]) + 0.1 * LA_RNG.normal(size=(4, 4))]


@pytest.mark.parametrize("a", MATRICES)
def test_logm(a):
    check_grad(lambda a: np.sum(sl.logm(a) * LA_W), a, rtol=1e-6, atol=1e-8)


def test_logm_with_complex_values():
    a = np.array([[-1.0, 0.3, 0.0], [0.1, 2.0, 0.2], [0.0, 0.4, 1.5]])      # a negative eigenvalue

    def f(a):
        x = sl.logm(a)
        return np.sum(np.real(x) * LA_W[:3, :3]) + np.sum(np.imag(x) ** 2)
    check_grad(f, a, rtol=1e-6, atol=1e-8)


def test_logm_disp_false_is_refused():
    def f(a):
        return np.sum(sl.logm(a, disp=False)[0])
    with pytest.raises(adsrc.TransformError, match=r"logm(.|\n)*sl\.logm\(a, disp=False\)"):
        adsrc.grad(f)(MATRICES[0])


@pytest.mark.parametrize("a", MATRICES)
def test_expm_frechet_in_both_arguments(a):
    def in_a(a):
        x, l = sl.expm_frechet(a, LA_E)
        return np.sum(l * LA_W) + np.sum(x * x)

    def in_e(e):
        return np.sum(sl.expm_frechet(a, e * e, compute_expm=False) * LA_W)
    # (wider steps: scipy's expm_frechet is accurate to ~1e-13 of values up to e^14 here)
    size = np.exp(2.0 * np.max(np.real(np.linalg.eigvals(a))))       # the gradient's scale
    check_grad(in_a, a, rtol=1e-6, atol=1e-6 + 1e-9 * size, eps=1e-4)
    check_grad(in_e, LA_E, rtol=1e-6, atol=1e-7 + 1e-9 * size)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_real_schur_with_real_eigenvalues(seed):
    rng = np.random.default_rng(seed)
    q = np.linalg.qr(rng.normal(size=(4, 4)))[0]
    b = q @ (np.triu(rng.normal(size=(4, 4)), 1) + np.diag([1.0, -2.0, 3.5, 5.0])) @ q.T

    def f(b):
        t, z = sl.schur(b)
        return np.sum(t * LA_W) + np.sum((z * LA_W) ** 2) + np.sum(z[:, 0] * LA_W[0])
    check_grad(f, b, rtol=1e-6, atol=1e-7)


def test_schur_refusals():
    rotation = np.array([[0.0, -1.0, 0.2], [1.0, 0.0, 0.1], [0.0, 0.0, 2.0]])      # eigenvalues +-i, 2

    def real(b):
        return np.sum(sl.schur(b)[0])
    with pytest.raises(ValueError, match="2 x 2 blocks"):
        adsrc.grad(real)(rotation)

    def complex_output(b):
        return np.sum(np.abs(sl.schur(b, output="complex")[0]))
    with pytest.raises(adsrc.TransformError, match=r"output='real'(.|\n)*schur\(b, output=\"complex\"\)"):
        adsrc.grad(complex_output)(MATRICES[0])


# -- complex arguments: adsrc.grad gives dL/dx - i dL/dy (JAX's convention) ----------------------------------------

def check_complex_grad(f, z, rtol=1e-6, atol=1e-8):
    before = z.copy()
    g = adsrc.grad(f)(z)
    assert np.array_equal(z, before)
    dx = central(lambda x: f(x + 1j * z.imag), z.real)
    dy = central(lambda y: f(z.real + 1j * y), z.imag)
    assert not np.any(np.isnan(g))
    np.testing.assert_allclose(g, dx - 1j * dy, rtol=rtol, atol=atol)


def test_complex_ready_rules_on_complex_arguments():
    z = np.array([0.4 + 0.3j, 1.5 - 0.8j, -0.2 + 1.1j])
    check_complex_grad(lambda z: np.sum(np.abs(sp.lambertw(z)) ** 2 + np.real(sp.lambertw(z, 1))), z)
    check_complex_grad(lambda z: np.sum(np.abs(sp.wofz(z)) ** 2 * WEIGHTS[:3]), z)
    check_complex_grad(lambda c: np.sum(np.abs(np.roots(c)) ** 3), np.array([1.0 + 0.2j, -0.5 + 1.0j, 2.0 - 0.3j]))
    a = MATRICES[0][:3, :3] + 0.2j * LA_E[:3, :3]
    check_complex_grad(lambda a: np.sum(np.abs(sl.logm(a)) ** 2), a)
    check_complex_grad(lambda a: np.sum(np.real(sl.expm_frechet(a, LA_E[:3, :3] * 1j)[1] * LA_W[:3, :3])), a)


# -- np.frompyfunc ------------------------------------------------------------------------------------------------

def _cube_minus(a):
    return a ** 3 - 2.0 * a


@pytest.mark.parametrize("x", POINTS)
def test_frompyfunc_called_where_made_and_by_name(x):
    def named(x):
        u = np.frompyfunc(_cube_minus, 1, 1)
        return np.sum(u(x).astype(float) * WEIGHTS)

    def inline(x):
        return np.sum(np.frompyfunc(lambda a, b: a * np.sin(b), 2, 1)(x, 2.0 * x).astype(float))
    check_grad(named, x)
    check_grad(inline, x)


def test_frompyfunc_refusals_name_the_line():
    def wrong_count(x):
        u = np.frompyfunc(_cube_minus, 1, 1)
        return np.sum(u(x, x).astype(float))
    with pytest.raises(adsrc.TransformError, match=r"np.frompyfunc takes 1 argument(.|\n)*u\(x, x\)"):
        adsrc.grad(wrong_count)(POINTS[0])

    def passed_on(x):           # the ufunc object itself used as a value: found when the code runs, and refused
        u = np.frompyfunc(_cube_minus, 1, 1)
        v = u
        return np.sum(v(x).astype(float))
    with pytest.raises(adsrc.TransformError, match=r"found when the code ran(.|\n)*cannot differentiate through "
                                                   r"`_cube_minus \(vectorized\)`(.|\n)*v\(x\)"):
        adsrc.grad(passed_on)(POINTS[0])
