"""scipy.integrate.quad inside a gradient (rules/scipy_quad.py), and integrands that capture the caller's values
(frontend/closure_args.py: quad, odeint and solve_ivp get them through `args`), against central differences."""

import numpy as np
import pytest

si = pytest.importorskip("scipy.integrate")

import adsrc  # noqa: E402
from casekit import assert_matches_differences  # noqa: E402
from adsrc.errors import TransformError  # noqa: E402


def check(f, *args, rtol=1e-6, atol=1e-8):
    before = [np.array(a, dtype=float, copy=True) for a in args]
    grads = adsrc.grad(f, argnums=tuple(range(len(args))))(*args)
    assert_matches_differences(f, args, grads, rtol=rtol, atol=atol)
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a, b)       # the inputs are not changed


def _decay(t, a):
    return np.exp(-a * t)


def with_args(a):
    return si.quad(_decay, 0.0, 1.0, args=(a,))[0]


def limits(lo, hi):
    value, err = si.quad(np.cos, lo, hi)
    return value * value


def _wave(t, w, c):
    return np.sum(np.sin(w * t) ** 2) * c


def vector_parameter(w, c, b):
    value, _ = si.quad(_wave, 0.0, b, args=(w, c))
    return 2.0 * value


def lambda_closure(a, b):
    return si.quad(lambda t: np.exp(-a * t) * t, 0.0, b)[0]


def def_closure(w):
    scale = np.cos(w)

    def integrand(t):
        return scale * np.sin(w * t)
    value, err = si.quad(integrand, 0.0, 2.0)
    return value + w


def closure_and_args(c):
    total = 0.0
    for k in range(3):
        total = total + si.quad(lambda t, j: c * t ** j, 0.0, 1.0, args=(k,))[0]
    return total


def odeint_closure(k, y0):
    def rhs(y, t):
        return -k * y + 0.1 * np.sin(t)
    ys = si.odeint(rhs, y0, np.linspace(0.0, 1.0, 5), rtol=1e-11, atol=1e-12)
    return np.sum(ys[-1] ** 2)


def solve_ivp_closure(k, y0):
    sol = si.solve_ivp(lambda t, y: -k * y + np.sin(t), (0.0, 1.0), y0, t_eval=[0.5, 1.0], rtol=1e-11,
                       atol=1e-12)
    return np.sum(sol.y ** 2)


@pytest.mark.parametrize("f, args", [
    (with_args, (0.7,)), (with_args, (-1.3,)),
    (limits, (0.2, 1.1)), (limits, (-0.5, 2.5)),
    (vector_parameter, (np.array([0.3, 1.2]), 0.8, 1.5)),
    (lambda_closure, (0.7, 1.3)), (lambda_closure, (-0.4, 0.6)),
    (def_closure, (0.9,)), (def_closure, (2.1,)),
    (closure_and_args, (0.4,)),
    (odeint_closure, (0.7, np.array([1.0, 2.0]))),
    (solve_ivp_closure, (0.7, np.array([1.0, -2.0]))),
], ids=lambda v: getattr(v, "__name__", None))
def test_gradients_match_central_differences(f, args):
    check(f, *args, rtol=1e-5 if f in (odeint_closure, solve_ivp_closure) else 1e-6)


def test_forward_mode_matches_central_differences():
    primals, tangents = (0.7, 1.3), (1.0, 0.5)
    value, dot = adsrc.jvp(lambda_closure, primals, tangents)
    eps = 1e-6
    expected = (lambda_closure(0.7 + eps, 1.3 + 0.5 * eps) - lambda_closure(0.7 - eps, 1.3 - 0.5 * eps)) / (2 * eps)
    assert value == pytest.approx(lambda_closure(*primals), rel=1e-12)
    assert dot == pytest.approx(expected, rel=1e-6)


def test_the_captured_value_is_passed_through_args_in_the_generated_code():
    text = adsrc.grad(lambda_closure).source(0.7, 1.3)
    assert "def lambda_1(t, a):" in text and "args=tup" in text, text


def test_a_weighted_quad_is_refused_naming_the_way_out():
    def weighted(a):
        return si.quad(lambda t: a * t, 0.0, 1.0, weight="cos", wvar=2.0)[0]
    with pytest.raises(TypeError, match="weight"):
        adsrc.grad(weighted)(0.5)


def test_second_derivatives_through_quad_are_refused_by_name():
    with pytest.raises(TransformError, match="scipy.integrate.quad"):
        adsrc.hessian(lambda_closure)(0.7, 1.3)


def test_a_nonlocal_integrand_is_left_as_a_closure_and_refused():
    def counting(a):
        calls = 0

        def integrand(t):
            nonlocal calls
            calls += 1
            return a * t
        return si.quad(integrand, 0.0, 1.0)[0]
    with pytest.raises(TransformError):
        adsrc.grad(counting)(0.5)


def test_a_module_imported_in_the_function_is_read_as_it_is():
    def local_import(a):
        import numpy as xp
        return si.quad(lambda t: xp.exp(-a * t), 0.0, 1.0)[0]
    check(local_import, 0.8)


def test_a_partial_over_a_differentiated_value_is_refused_naming_quad():
    import functools

    def partial_integrand(a):
        return si.quad(functools.partial(_decay, a=a), 0.0, 1.0)[0]
    with pytest.raises(TypeError, match="scipy.integrate.quad.*args="):
        adsrc.grad(partial_integrand)(0.5)
