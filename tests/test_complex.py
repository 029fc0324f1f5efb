"""Complex numbers follow JAX's convention: for a real loss L of z = x + iy, adsrc.grad returns
dL/dx - i dL/dy (a holomorphic function's rule multiplies by its derivative, no conjugate).

* Hand-derived examples pin the convention (|z|^2, Re(z) Im(z), Re(z^2), complex values built
  from real parameters).
* Every rule case of tests/rule_cases.py is run again with one argument made complex, under the
  real loss sum(Re(out) W1 + Im(out) W2), and checked against central differences in the real and
  the imaginary direction of every element; the rule must agree, or refuse (`real_only` rules:
  adsrc's TransformError), or NumPy itself must refuse the complex input.
* Every differentiable NumPy rule is accounted for: complex-ready (checked), refused by adsrc
  (checked to refuse), or refused by NumPy (checked to raise).
"""

import collections
import warnings
import zlib

import numpy as np
import pytest

import adsrc
from adsrc import rules
from complexkit import ComplexMismatch, check_complex_grad, complex_objective
import rule_cases
from rule_cases_more import OTHER_CASES

# -- the convention, on examples worked out by hand -------------------------------------------------------------


def abs_squared(z):
    return np.sum(np.abs(z) ** 2)


def real_times_imag(z):
    return np.sum(np.real(z) * np.imag(z))


def real_of_square(z):
    return np.real(np.sum(z * z))


def imag_attribute_squared(z):
    return np.sum(z.imag ** 2) + np.sum(z.real)


def conj_product(z):
    return np.sum(np.real(z * np.conj(z)))


Z = np.array([3.0 + 4.0j, 0.5 - 1.0j])


def test_jax_convention_on_hand_derived_examples():
    x, y = Z.real, Z.imag
    # |z|^2 = x^2 + y^2: 2x - 2iy = 2 conj(z)  (JAX: grad(lambda z: abs(z)**2)(3+4j) = 6-8j)
    assert np.allclose(adsrc.grad(abs_squared)(Z), 2.0 * np.conj(Z))
    assert np.allclose(adsrc.grad(abs_squared)(3.0 + 4.0j), 6.0 - 8.0j)
    # x y: y - i x
    assert np.allclose(adsrc.grad(real_times_imag)(Z), y - 1j * x)
    # Re(z^2) = x^2 - y^2: 2x + 2iy = 2z (the derivative of the holomorphic z^2)
    assert np.allclose(adsrc.grad(real_of_square)(Z), 2.0 * Z)
    # y^2 + x: 1 - 2iy
    assert np.allclose(adsrc.grad(imag_attribute_squared)(Z), 1.0 - 2j * y)
    assert np.allclose(adsrc.grad(conj_product)(Z), 2.0 * np.conj(Z))


def from_real_parts(x, y):
    return np.sum(np.abs(x + 1j * y) ** 2)


def polar(r, theta):
    w = r * np.exp(1j * theta)
    return np.sum(np.real(w) * 2.0 + np.imag(w) ** 2)


def parts_of_one_array(p):
    z = p[:, 0] + 0.5j * p[:, 1]
    return np.sum(np.abs(z) ** 2 + np.real(z * z))


def spectrum_power(x):
    return np.sum(np.abs(np.fft.fft(x)) ** 2) + np.sum(np.abs(np.fft.rfft(x)))


def test_real_parameters_of_complex_values_get_real_gradients():
    x, y = np.array([0.3, -1.2]), np.array([2.0, 0.7])
    gx, gy = adsrc.grad(from_real_parts, argnums=(0, 1))(x, y)
    assert gx.dtype == float and gy.dtype == float
    assert np.allclose(gx, 2.0 * x) and np.allclose(gy, 2.0 * y)
    r, t = np.array([1.5, 0.4]), np.array([0.3, -2.0])
    gr, gt = adsrc.grad(polar, argnums=(0, 1))(r, t)
    # 2 r cos t + r^2 sin^2 t
    assert np.allclose(gr, 2.0 * np.cos(t) + 2.0 * r * np.sin(t) ** 2)
    assert np.allclose(gt, -2.0 * r * np.sin(t) + 2.0 * r ** 2 * np.sin(t) * np.cos(t))
    p = np.array([[0.3, 1.0], [-0.7, 2.0], [1.1, -0.4]])
    g = adsrc.grad(parts_of_one_array)(p)
    assert g.dtype == float
    # |z|^2 + Re(z^2) = 2 a^2 with z = a + 0.5 i b
    assert np.allclose(g, np.stack([4.0 * p[:, 0], np.zeros(3)], axis=1))
    adsrc.check_grads(spectrum_power, (np.array([0.3, -1.0, 2.0, 0.5, 0.1]),), full=True)


def scalar_parts(z):
    return z.real * z.imag + abs(z) ** 2


def _inner(w):
    return w * np.conj(w) + 1j * w


def loop_and_call(z):
    acc = 0.0 + 0.0j
    for i in range(z.shape[0]):
        acc = acc + _inner(z[i]) * (i + 1.0)
        if np.real(z[i]) > 0:
            acc = acc * 0.5
    return np.real(acc) + np.imag(acc) ** 2


def setitem_mixed(z, x):
    out = np.zeros(3, dtype=complex)
    out[0] = z[0] * x[0]
    out[1:] = z[1:] + x[1:]
    return np.sum(np.abs(out) ** 2)


def matmul_mixed(A, z):
    return np.sum(np.abs(A @ z) ** 2) + np.real(np.vdot(A @ z, A @ np.conj(z)))


def list_of_complex_broadcast(z):
    lst = [z[0], z[1] * 2.0]
    y = lst + np.array([[1.0], [0.5]])
    return np.sum(np.abs(y) ** 2)


def test_a_list_of_complex_numbers_keeps_its_imaginary_cotangent():
    # the list is broadcast against a real array: its cotangent must not be projected to real
    check_complex_grad(list_of_complex_broadcast, (np.array([0.3 + 0.4j, -1.0 + 0.2j]),), 0)


def test_complex_values_through_calls_loops_branches_and_setitem():
    # z = 3 + 4i: x y + x^2 + y^2 -> (y + 2x) - i (x + 2y)
    assert np.allclose(adsrc.grad(scalar_parts)(3.0 + 4.0j), 10.0 - 11.0j)
    z = np.array([0.3 + 0.5j, -0.7 + 0.2j, 1.1 - 0.4j])
    x = np.array([0.5, -1.2, 0.8])
    A = np.array([[1.0, 0.5, -0.3], [0.2, -1.0, 0.4]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # the real part of a complex cotangent, written into x's
        check_complex_grad(loop_and_call, (z,), 0)
        check_complex_grad(setitem_mixed, (z, x), 0)
        gx = adsrc.check_grads(setitem_mixed, (z, x), argnums=1, full=True)
        check_complex_grad(matmul_mixed, (A, z), 1)
        gA = adsrc.check_grads(matmul_mixed, (A, z), argnums=0, full=True)
    assert gx.dtype == float and gA.dtype == float


# -- every rule case, made complex ------------------------------------------------------------------------------

_RNG = np.random.default_rng(31)
# built on ties (a kink, where finite differences mean nothing), or on np.arange, whose length with a complex start
# or step jumps with the sign of their imaginary parts
_SKIP = {"max_tie_shares_gradient", "arange"}


def _complex_variants():
    seen = collections.Counter()
    out = []
    for c in rule_cases.CASES + OTHER_CASES:
        if c.fn.__name__ in _SKIP or seen[c.rules] >= 1:
            continue
        seen[c.rules] += 1
        for i, a in enumerate(c.args):
            if isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f"):
                out.append(pytest.param(c, i, id=f"{c.id}-arg{i}"))
    return out


def _complexify(a, rng):
    z = a + 0.4j * rng.uniform(-1.0, 1.0, np.shape(a)) * np.maximum(np.abs(a), 0.3)
    return complex(z) if isinstance(a, float) else z


OUTCOMES = collections.defaultdict(set)      # outcome -> rule names
SHARD_AS_ONE = True     # CI runs this file in one shard: the last test sums up what the cases here found


@pytest.mark.parametrize("case, i", _complex_variants())
def test_rule_case_with_a_complex_argument(case, i):
    args = list(case.args)
    rng = np.random.default_rng(zlib.crc32(f"{case.id}-{i}".encode()))   # a case's draws do not depend on others
    args[i] = _complexify(args[i], rng)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = case.fn(*args)
    except TypeError:
        OUTCOMES["numpy refuses"].update(case.rules)
        return
    outs = out if isinstance(out, (tuple, list)) else (out,)
    W1 = [rng.standard_normal(np.shape(o)) for o in outs]
    W2 = [rng.standard_normal(np.shape(o)) for o in outs]
    if not isinstance(out, (tuple, list)):
        W1, W2 = W1[0], W2[0]
    f = complex_objective(case.fn, len(args), W1, W2)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check_complex_grad(f, args, i, rtol=max(case.rtol, 1e-5), atol=max(case.atol, 1e-5))
    except adsrc.TransformError as e:
        assert "not written for complex" in str(e), str(e)
        assert all(_rule_named(r).real_only for r in case.rules if _rule_named(r) is not None
                   and r.startswith("np.linalg")), case.rules
        OUTCOMES["adsrc refuses"].update(case.rules)
        return
    except ComplexMismatch as e:
        pytest.fail(f"{case.id}, complex argument {i}: {e}")
    OUTCOMES["complex-ready"].update(case.rules)


def _rule_named(name):
    for r in rules.FUNCTIONS.values():
        if r.name == name:
            return r
    return None


# -- refusals: adsrc's real_only rules, and NumPy's own -------------------------------------------------------------

def qr_loss(a):
    return np.sum(np.abs(np.linalg.qr(a)[1]) ** 2)


def pinv_loss(a):
    return np.sum(np.abs(np.linalg.pinv(a)) ** 2)


@pytest.mark.parametrize("fn", [qr_loss, pinv_loss])
def test_rules_not_complex_ready_refuse_complex_arguments(fn):
    a = np.array([[2.0, 0.5j], [-0.5j, 1.0]])
    with pytest.raises(adsrc.TransformError, match="not written for complex"):
        adsrc.grad(fn)(a)
    assert np.isfinite(adsrc.grad(fn)(a.real)).all()        # real arguments still work


# -- Hermitian eigenproblems, SVD and Cholesky of complex matrices ---------------------------------------------------
# Losses that do not depend on the phases of eigenvectors or singular vectors (those are not unique).

def eigh_loss(a):
    w, v = np.linalg.eigh(a)
    return np.sum(w ** 3 * np.arange(1.0, 5.0)) + np.sum(np.abs(v) ** 2 * np.arange(4.0))


def eigh_upper_loss(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    return np.sum(np.abs(v[:, 1:]) ** 3) + np.sum(np.sin(w))


def eigvalsh_loss(a):
    return np.sum(np.linalg.eigvalsh(a) ** 2 * np.arange(4.0))


def svd_loss(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum(s ** 2 * np.arange(1.0, len(s) + 1.0)) + np.sum(np.abs(u) ** 3) + np.sum(np.abs(vh) ** 4)


def svd_product_loss(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum(np.abs(u @ vh * np.arange(1.0, a.shape[1] + 1.0)) ** 2)


def svd_values_loss(a):
    return np.sum(np.linalg.svd(a, compute_uv=False) ** 1.5)


def cholesky_loss(a):
    L = np.linalg.cholesky(a @ np.conj(a.T) + 4.0 * np.eye(a.shape[0]))
    return np.sum(np.abs(L) ** 2 * np.arange(4.0)) + np.real(np.sum(L * (1.0 + 2.0j)))


def cholesky_triangle_loss(a):
    L = np.linalg.cholesky(a)
    return np.sum(np.abs(L) ** 3) + np.sum(np.real(L) * np.imag(L))


def _complex_matrices():
    rng = np.random.default_rng(1)
    z = rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4))
    spd = z @ np.conj(z.T) + 4.0 * np.eye(4)
    spd[0, 2] = 7.0 + 3.0j          # the upper triangle and the diagonal's imaginary parts are not read
    spd[1, 1] += 0.3j
    return z, spd


_Z, _SPD = _complex_matrices()
FACTORIZATIONS = [(eigh_loss, _Z), (eigh_upper_loss, _Z), (eigvalsh_loss, _Z), (svd_loss, _Z[:3]),
                  (svd_loss, _Z[:, :3]), (svd_loss, _Z), (svd_product_loss, _Z[:3]), (svd_product_loss, _Z[:, :3]),
                  (svd_values_loss, _Z[:, :2]), (cholesky_loss, _Z), (cholesky_triangle_loss, _SPD),
                  (lambda a: np.linalg.norm(a, "nuc"), _Z[:, :3])]


@pytest.mark.parametrize("fn, z", FACTORIZATIONS, ids=lambda v: getattr(v, "__name__", None) or str(np.shape(v)))
def test_factorizations_of_complex_matrices(fn, z):
    check_complex_grad(fn, (z,), 0, rtol=1e-5, atol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        adsrc.check_grads(fn, (z,), modes=("fwd", "rev"), order=2)
    real = np.real(z) + 4.0 * np.eye(*np.shape(z)) if fn is cholesky_triangle_loss else np.real(z)
    np.testing.assert_allclose(adsrc.grad(fn)(real + 0j).real, adsrc.grad(fn)(real), rtol=1e-9, atol=1e-12)


def upper_cholesky_loss(a):
    U = np.linalg.cholesky(a @ np.conj(a.T) + 4.0 * np.eye(a.shape[0]), upper=True)
    return np.sum(np.abs(U) ** 3) + np.real(np.sum(U * (2.0 - 1.0j)))


@pytest.mark.skipif(not hasattr(np, "exceptions") or np.__version__ < "2", reason="cholesky's upper= is NumPy 2")
def test_upper_cholesky_of_complex_matrices():
    check_complex_grad(upper_cholesky_loss, (_Z,), 0, rtol=1e-5, atol=1e-6)
    adsrc.check_grads(upper_cholesky_loss, (_Z,), modes=("fwd", "rev"), order=2)


# Differentiable NumPy rules whose functions NumPy itself refuses on complex arguments.
NUMPY_REFUSES = {
    "np.arctan2", "np.cbrt", "np.copysign", "np.deg2rad", "np.degrees", "np.divmod", "np.fabs", "np.fmod",
    "np.heaviside", "np.hypot", "np.ldexp", "np.logaddexp", "np.logaddexp2", "np.modf", "np.percentile",
    "np.quantile", "np.rad2deg", "np.radians", "np.remainder", "np.random.normal", "np.random.uniform",
    "np.bincount", "np.fft.rfft",
}


def test_numpy_refuses_complex_for_the_listed_rules():
    fns = {r.name: fn for fn, r in rules.FUNCTIONS.items() if r.name in NUMPY_REFUSES}
    z = np.array([0.5 + 0.2j, 0.3 - 0.1j])
    for name, fn in sorted(fns.items()):
        nargs = {"np.ldexp": None, "np.bincount": None, "np.percentile": 2, "np.quantile": 2}.get(name, 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(TypeError):
                if name == "np.ldexp":
                    fn(z, np.array([1, 2]))
                elif name == "np.bincount":
                    fn(np.array([0, 1]), weights=z)
                elif name in ("np.random.normal", "np.random.uniform"):
                    fn(z, 1.0)
                elif nargs == 2:
                    fn(z, 0.5)
                else:
                    try:
                        fn(z)
                    except TypeError:
                        raise
                    except Exception:
                        fn(z, z)


def test_every_differentiable_numpy_rule_is_complex_ready_or_refuses():
    names = {r.name for r in rules.FUNCTIONS.values() if not r.nondiff and r.name.startswith("np.")}
    ready = OUTCOMES["complex-ready"]
    refused = {r.name for r in rules.FUNCTIONS.values() if r.real_only}
    if not ready:
        pytest.skip("run with the parametrized complex cases")       # -k selected this test alone
    missing = sorted(names - ready - refused - NUMPY_REFUSES - {"np.arange"})      # (see _SKIP)
    assert not missing, f"rules neither checked with complex arguments nor refusing them: {missing}"
    assert not (ready & refused), sorted(ready & refused)


# -- forward mode through a custom_vjp: the tangent from the pullback keeps Re(c t) ------------------------------
@adsrc.custom_vjp
def conj_squared(z):
    return np.conj(z) ** 2             # not holomorphic: its output depends on conj(z)


conj_squared.defvjp(lambda z: (np.conj(z) ** 2, z), lambda z, ct: (2.0 * z * np.conj(ct),))


@adsrc.custom_vjp
def abs_squared_custom(z):
    return np.abs(z) ** 2              # a real output of a complex input


abs_squared_custom.defvjp(lambda z: (np.abs(z) ** 2, z), lambda z, ct: (2.0 * np.conj(z) * ct,))


def through_custom(z):
    return conj_squared(z) * 0.5 + abs_squared_custom(z) * (1.0 + 2.0j)


@pytest.mark.parametrize("z", [0.4 - 0.7j, np.array([0.4 - 0.7j, 1.2 + 0.1j])])
def test_jvp_through_a_custom_vjp_with_complex_values(z):
    for t in (0.3 + 0.9j, 1.0, 1j):
        t = t * np.ones_like(z)
        value, tangent = adsrc.jvp(through_custom, (z,), (t,))
        expected = (through_custom(z + 1e-6 * t) - through_custom(z - 1e-6 * t)) / 2e-6
        np.testing.assert_allclose(value, through_custom(z), rtol=1e-12)
        np.testing.assert_allclose(tangent, expected, rtol=1e-6, atol=1e-8)
        assert not np.any(np.isnan(tangent))
    real_value, real_tangent = adsrc.jvp(abs_squared_custom, (z,), ((0.3 + 0.9j) * np.ones_like(z),))
    assert not np.iscomplexobj(real_tangent)


def scaled_by_a_complex_constant(x):
    return x * (1.0 + 0.2j)


def sum_of_a_spectrum(x):
    return np.sum(np.fft.fft(x))


def _rotated(x):
    return x * np.exp(0.3j)


def through_a_helper_that_makes_it_complex(x):
    return np.sum(_rotated(x) * 2.0)


@pytest.mark.parametrize("fn,x", [(scaled_by_a_complex_constant, 1.0), (sum_of_a_spectrum, np.array([0.3, 0.5])),
                                  (through_a_helper_that_makes_it_complex, np.array([0.3, 0.5]))])
def test_a_complex_output_of_real_inputs_is_refused_not_cut_to_its_real_part(fn, x):
    # the gradient of the real part alone came back (1.0, [2, 0]), as if the function were real
    with pytest.raises(TypeError, match="returned a complex number"):
        adsrc.grad(fn)(x)


def test_the_gradient_for_a_python_complex_is_a_python_complex():
    g = adsrc.grad(lambda z: np.real(z) * 2.0 + np.imag(z) ** 2)(0.5 + 1.5j)
    assert type(g) is complex
    assert g == 2.0 - 3.0j


def imaginary_parts_of_eigenvalues(a):
    w, v = np.linalg.eig(a)
    return np.sum(np.imag(w) ** 2) + np.sum(np.abs(v[:, 0]) ** 2 * np.arange(3.0))


def test_second_derivative_through_complex_eigenvalues_in_reverse_over_reverse():
    # a helper's transpose, taken entry by entry, probed only the real direction of complex cotangents
    rng = np.random.default_rng(0)
    a = np.array([[0.0, -1.0, 0.2], [1.0, 0.0, 0.3], [0.1, 0.2, 0.5]]) + 0.1 * rng.normal(size=(3, 3))
    u, w = rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
    grad = adsrc.grad(imaginary_parts_of_eigenvalues)

    def paired(x):
        return np.sum(grad(x) * w)
    expected = (paired(a + 1e-5 * u) - paired(a - 1e-5 * u)) / 2e-5
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        got = np.sum(adsrc.grad(paired)(a) * u)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)


def through_sign(z):
    return np.sum(np.real(np.sign(z) * (1.0 - 2.0j)) + np.abs(np.sign(z) + 0.5) ** 2 + np.sign(np.real(z)))


def test_sign_of_complex_values_is_differentiated_as_z_over_its_modulus():
    z = np.array([0.3 + 0.4j, -1.0 + 0.2j, 0.0 + 0.0j])
    adsrc.check_grads(through_sign, (z[:2],), modes=("fwd", "rev"), order=2)
    g = adsrc.grad(through_sign)(z)
    assert g[2] == 0.0 and np.all(np.isfinite(g))          # no derivative at 0, as for |z|


@pytest.mark.parametrize("ord", [None, 1, 2, 3, np.inf, -np.inf])
def test_vector_norms_of_complex_values(ord):
    v = np.array([0.3 + 0.4j, -1.2 + 0.1j, 0.5 - 0.9j, 2.0 + 0.0j])
    adsrc.check_grads(lambda z: np.linalg.norm(z, ord), (v,), modes=["fwd", "rev"], order=2)


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 2, -2, 1, np.inf])
def test_matrix_norms_of_complex_values(ord):
    z = np.array([[2.0, 0.5j, 0.1], [-0.5j, 1.0 + 0.3j, 0.2], [0.3 - 0.2j, 0.1j, -1.5]])
    adsrc.check_grads(lambda a: np.linalg.norm(a, ord), (z,), modes=["fwd", "rev"], order=1)
    np.testing.assert_allclose(adsrc.grad(lambda a: np.linalg.norm(a, ord))(z.real),
                               adsrc.grad(lambda a: np.linalg.norm(a, ord))(z.real + 0j).real, rtol=1e-10)


def time_evolution_loss(x):
    import scipy.linalg as sl
    h = np.array([[x[0], x[1]], [x[1], -x[0]]])
    u = sl.expm(-1j * h * 0.7)          # quantum time evolution: a complex matrix exponential
    return np.abs(u[0, 1]) ** 2 + np.real(u[0, 0] * (1 - 2j))


def test_matrix_exponential_of_complex_matrices():
    pytest.importorskip("scipy")
    x = np.array([0.3, 0.45])
    adsrc.check_grads(time_evolution_loss, (x,), modes=("fwd", "rev"), order=1)
    z = np.array([[0.2 + 0.1j, -0.3j], [0.5, 0.1 - 0.4j]])
    import scipy.linalg as sl
    check_complex_grad(lambda a: np.sum(np.abs(sl.expm(a)) ** 2), (z,), 0, rtol=1e-5, atol=1e-6)


def _holomorphic_product(z):
    return np.sin(z) * z


def test_holomorphic_gradients_as_in_jax():
    # grad(f, holomorphic=True) is f'(z) (the keyword was refused); real arguments are refused as JAX does
    z = 1.0 + 0.5j
    exact = np.cos(z) * z + np.sin(z)
    assert adsrc.grad(_holomorphic_product, holomorphic=True)(z) == pytest.approx(exact, rel=1e-13)
    value, g = adsrc.value_and_grad(_holomorphic_product, holomorphic=True)(z)
    assert value == pytest.approx(np.sin(z) * z, rel=1e-13) and g == pytest.approx(exact, rel=1e-13)
    eps = 1e-6        # the complex derivative by differences along the real axis
    difference = (_holomorphic_product(z + eps) - _holomorphic_product(z - eps)) / (2 * eps)
    assert difference == pytest.approx(exact, rel=1e-8)
    with pytest.raises(TypeError, match="holomorphic=True needs complex arguments"):
        adsrc.grad(_holomorphic_product, holomorphic=True)(1.0)
