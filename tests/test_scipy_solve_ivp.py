"""Gradients through scipy.integrate.solve_ivp with t_eval (the adjoint method, adsrc/rules/scipy_ivp.py),
checked against central finite differences at tight tolerances."""

import copy

import numpy as np
import pytest

pytest.importorskip("scipy")      # an optional dependency (the `scipy` and `test` extras)

from scipy.integrate import solve_ivp  # noqa: E402

import adsrc  # noqa: E402
from test_scipy_odeint import assert_grad  # noqa: E402


def field(t, y, k):
    return -k * y * (1.0 + 0.5 * np.sin(t)) + 0.2 * y[::-1]


TE = np.array([0.5, 1.0, 1.5])


def loss(y0, k, t_eval, t0):
    sol = solve_ivp(field, (t0, 2.0), y0, t_eval=t_eval, args=(k,), rtol=1e-10, atol=1e-10)
    return np.sum(sol.y ** 2 * np.array([[1.0, 2.0, 3.0]])) + np.sum(sol.t * 0.3)


@pytest.mark.parametrize("which", [0, 1, 2, 3])
def test_y0_args_t_eval_and_start_time(which):
    args = [np.array([1.0, 2.0]), np.array([0.7, 0.4]), TE.copy(), 0.1]
    before = copy.deepcopy(args)
    g = adsrc.grad(loss, argnums=which)(*args)

    def f(v):
        a = list(args)
        a[which] = v
        return loss(*a)
    assert_grad(f, args[which], g)
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a, b)


def test_t_eval_starting_at_t0_and_sol_item_access():
    def final(y0, k):
        sol = solve_ivp(field, [0.0, 1.0], y0, t_eval=[0.0, 0.6, 1.0], args=(k,), rtol=1e-10, atol=1e-10)
        return sol["y"][0, -1] - sol.y[1, 0] + sol.y[1, 1]
    y0, k = np.array([1.0, -0.5]), 0.8
    gy, gk = adsrc.grad(final, argnums=(0, 1))(y0, k)
    assert_grad(lambda v: final(v, k), y0, gy)
    assert_grad(lambda v: final(y0, v), k, gk)


@pytest.mark.parametrize("method", ["RK45", "DOP853", "Radau", "LSODA"])
def test_methods_and_pytree_args(method):
    def mlp(t, y, params):
        h = np.tanh(params["W1"] @ y + params["b"])
        return params["W2"] @ h

    rng = np.random.default_rng(5)
    params = {"W1": rng.normal(size=(3, 2)) * 0.5, "b": rng.normal(size=3) * 0.1,
              "W2": rng.normal(size=(2, 3)) * 0.5}

    def f(params):
        sol = solve_ivp(mlp, (0.0, 1.0), np.array([0.3, -0.2]), method=method, t_eval=np.array([0.5, 1.0]),
                        args=(params,), rtol=1e-10, atol=1e-10)
        return np.sum(sol.y ** 2)
    assert_grad(f, params, adsrc.grad(f)(params))


def test_forward_mode_matches_reverse_and_finite_differences():
    def traj(y0, k, t_eval, t0):
        sol = solve_ivp(field, (t0, 2.0), y0, t_eval=t_eval, args=(k,), rtol=1e-10, atol=1e-10)
        return sol.y * 2.0 + sol.t
    primals = (np.array([1.0, 2.0]), np.array([0.7, 0.4]), TE.copy(), 0.1)
    rng = np.random.default_rng(7)
    tangents = (rng.normal(size=2), rng.normal(size=2), rng.normal(size=3) * 0.1, 0.3)
    out, tangent = adsrc.jvp(traj, primals, tangents)
    assert not np.any(np.isnan(tangent))
    eps = 1e-6
    shifted = [traj(*[p + h * t for p, t in zip(primals, tangents)]) for h in (eps, -eps)]
    np.testing.assert_allclose(tangent, (shifted[0] - shifted[1]) / (2 * eps), rtol=1e-5, atol=1e-7)
    w = rng.normal(size=out.shape)
    grads = adsrc.grad(lambda *a: np.sum(w * traj(*a)), argnums=(0, 1, 2, 3))(*primals)
    np.testing.assert_allclose(np.sum(w * tangent), sum(np.sum(g * t) for g, t in zip(grads, tangents)), rtol=1e-6)


def test_refusals_name_solve_ivp():
    def no_t_eval(k):
        return solve_ivp(field, (0.0, 1.0), np.array([1.0, 2.0]), args=(k,)).y[0, -1]
    with pytest.raises(adsrc.TransformError, match="solve_ivp only with `t_eval`"):
        adsrc.grad(no_t_eval)(0.5)

    def dense(k):
        return solve_ivp(field, (0.0, 1.0), np.array([1.0, 2.0]), t_eval=[1.0], args=(k,),
                         dense_output=True).y[0, -1]
    with pytest.raises(adsrc.TransformError, match="dense_output"):
        adsrc.grad(dense)(0.5)

    def closure(k):     # args given as a name, not a tuple display: rhs is left a closure over k
        params = (0.3,)

        def rhs(t, y, c):
            return -k * y * c
        return solve_ivp(rhs, (0.0, 1.0), np.array([1.0]), t_eval=[1.0], args=params).y[0, 0]
    with pytest.raises(adsrc.TransformError, match="uses `k`"):
        adsrc.grad(closure)(0.5)


def test_calls_on_constants_take_any_option():
    def f(k):
        s = solve_ivp(field, (0.0, 1.0), np.array([1.0, 2.0]), args=(0.3,), dense_output=True)
        return k * s.sol(0.5)[0]
    np.testing.assert_allclose(adsrc.grad(f)(2.0), solve_ivp(field, (0.0, 1.0), np.array([1.0, 2.0]), args=(0.3,),
                                                            dense_output=True).sol(0.5)[0])
