"""Gradients through scipy.integrate.odeint (the adjoint method, adsrc/rules/scipy_ode.py), checked
against central finite differences of the same odeint calls at tight tolerances."""

import collections
import copy
import dataclasses
import functools

import numpy as np
import pytest

pytest.importorskip("scipy")      # an optional dependency (the `scipy` and `test` extras)

from scipy.integrate import odeint  # noqa: E402

import adsrc  # noqa: E402
from adsrc.rules import scipy_ode  # noqa: E402,F401  (loads the odeint rule's helpers)

RTOL, ATOL = 1e-5, 1e-7      # gradient against finite differences (both carry ~1e-9 solver error)


# -- finite differences over pytrees -------------------------------------------------------------------------

def _leaves(x, path=()):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            yield from _leaves(v, path + (i,))
    else:
        yield path, x


def _get(x, path):
    for k in path:
        x = x[k]
    return x


def _replace(x, path, value):
    if not path:
        return value
    k = path[0]
    if isinstance(x, dict):
        out = dict(x)
    else:
        out = list(x)
    out[k] = _replace(x[k], path[1:], value)
    return out if not isinstance(x, tuple) else tuple(out)


def numeric_grad(f, x, eps=1e-5):
    """Central differences of the scalar f at x (an array, a float or a pytree of them)."""
    out = copy.deepcopy(x) if isinstance(x, (dict, list, tuple)) else None
    if out is None:
        leaves = [((), x)]
    else:
        leaves = list(_leaves(x))
    grads = {}
    for path, leaf in leaves:
        a = np.array(leaf, dtype=float)
        g = np.zeros(a.shape)
        for i in np.ndindex(a.shape):
            hi, lo = a.copy(), a.copy()
            hi[i] += eps
            lo[i] -= eps
            wrap = (lambda v: float(v)) if np.ndim(leaf) == 0 else (lambda v: v)
            g[i] = (f(_replace(x, path, wrap(hi))) - f(_replace(x, path, wrap(lo)))) / (2 * eps)
        grads[path] = g
    return grads


def assert_grad(f, x, got):
    """got (adsrc's gradient of f at x) agrees with central differences and holds no NaN."""
    want = numeric_grad(f, x)
    for path, w in want.items():
        g = np.asarray(_get(got, path), dtype=float)
        assert not np.any(np.isnan(g)), path
        assert g.shape == w.shape, (path, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL, err_msg=str(path))


# -- scalar and vector states ------------------------------------------------------------------------------

def decay(y, t, k):
    return -k * y


def test_scalar_decay_matches_closed_form():
    def final(k):
        return odeint(decay, np.array([1.0]), np.array([0.0, 1.0]), args=(k,), rtol=1e-10, atol=1e-10)[-1, 0]
    g = adsrc.grad(final)(0.5)
    np.testing.assert_allclose(g, -np.exp(-0.5), rtol=1e-7)


def test_issue_repro_default_tolerances():
    def final_value(k):
        return odeint(decay, np.array([1.0]), np.array([0.0, 1.0]), args=(k,))[-1, 0]
    np.testing.assert_allclose(adsrc.grad(final_value)(0.5), -np.exp(-0.5), rtol=1e-6)


def test_scalar_float_y0_and_list_times():
    def final(y0, k):
        return odeint(decay, y0, [0.0, 0.3, 1.0], args=(k,), rtol=1e-10, atol=1e-10)[-1, 0] ** 2
    gy, gk = adsrc.grad(final, argnums=(0, 1))(2.0, 0.7)
    assert_grad(lambda y: final(y, 0.7), 2.0, gy)
    assert_grad(lambda k: final(2.0, k), 0.7, gk)


def lotka_volterra(y, t, p):
    prey, pred = y[0], y[1]
    return np.array([p[0] * prey - p[1] * prey * pred, p[2] * prey * pred - p[3] * pred])


P = np.array([1.1, 0.4, 0.1, 0.4])
Y0 = np.array([10.0, 5.0])
T = np.linspace(0.0, 3.0, 7)
W = np.linspace(0.5, 1.5, 14).reshape(7, 2)


def trajectory_loss(y0, t, p):
    """A loss that reads the whole trajectory."""
    ys = odeint(lotka_volterra, y0, t, args=(p,), rtol=1e-10, atol=1e-10)
    return np.sum(W * ys ** 2) / 100.0


def test_vector_state_whole_trajectory_y0_t_args():
    gy, gt, gp = adsrc.grad(trajectory_loss, argnums=(0, 1, 2))(Y0, T, P)
    assert_grad(lambda y: trajectory_loss(y, T, P), Y0, gy)
    assert_grad(lambda t: trajectory_loss(Y0, t, P), T, gt)
    assert_grad(lambda p: trajectory_loss(Y0, T, p), P, gp)


def test_loss_on_middle_rows_only():
    def loss(p):
        ys = odeint(lotka_volterra, Y0, T, args=(p,), rtol=1e-10, atol=1e-10)
        return ys[2, 0] - 3.0 * ys[4, 1]
    assert_grad(loss, P, adsrc.grad(loss)(P))


def test_times_decreasing():
    def loss(y0, t):
        return np.sum(odeint(lotka_volterra, y0, t, args=(P,), rtol=1e-10, atol=1e-10)[1:] ** 2) / 100.0
    t = np.array([2.0, 1.2, 0.4])
    gy, gt = adsrc.grad(loss, argnums=(0, 1))(Y0, t)
    assert_grad(lambda y: loss(y, t), Y0, gy)
    assert_grad(lambda s: loss(Y0, s), t, gt)


def test_gradient_of_start_time_only():
    def loss(t0):
        return odeint(lotka_volterra, Y0, np.array([t0, 1.0]), args=(P,), rtol=1e-10, atol=1e-10)[-1, 1]
    assert_grad(loss, 0.2, adsrc.grad(loss)(0.2))


def test_output_at_start_only():
    def loss(y0):
        return np.sum(odeint(lotka_volterra, y0, np.array([0.0]), args=(P,), rtol=1e-10, atol=1e-10) ** 2)
    np.testing.assert_allclose(adsrc.grad(loss)(Y0), 2 * Y0)


# -- the user's function: control flow, other return types, tfirst --------------------------------------------

def piecewise(y, t, k, n):
    out = -k * y
    if t > 0.5:                   # continuous in t (a jump would make finite differences noisy)
        out = out + (t - 0.5) ** 2 * np.sin(y) * k[0]
    for i in range(n):
        out = out - 0.1 * y ** 2 / (i + 1)
    return out


def test_func_with_branch_and_loop():
    def loss(y0, k):
        ys = odeint(piecewise, y0, np.array([0.0, 0.4, 1.0]), args=(k, 3), rtol=1e-10, atol=1e-10)
        return np.sum(ys[1:] * np.array([[1.0, -2.0], [0.5, 3.0]]))
    y0, k = np.array([1.0, 0.5]), np.array([0.8, 1.3])
    gy, gk = adsrc.grad(loss, argnums=(0, 1))(y0, k)
    assert_grad(lambda v: loss(v, k), y0, gy)
    assert_grad(lambda v: loss(y0, v), k, gk)


def damped_while(y, t, c):
    x, v = y[0], y[1]
    acc = -x
    j = 0
    while j < 2:
        acc = acc - c * v / 2.0
        j += 1
    return [v, acc]        # a list: odeint flattens it


def test_func_with_while_loop_returning_a_list():
    def loss(c):
        return odeint(damped_while, [1.0, 0.0], np.linspace(0.0, 2.0, 4), args=(c,), rtol=1e-10, atol=1e-10)[-1, 0]
    assert_grad(loss, 0.3, adsrc.grad(loss)(0.3))


def test_tfirst():
    def rhs(t, y, k):
        return -k * y * (1.0 + t)
    def loss(y0, k):
        return np.sum(odeint(rhs, y0, np.array([0.0, 0.5, 1.0]), args=(k,), tfirst=True, rtol=1e-10, atol=1e-10))
    y0 = np.array([1.0, 2.0])
    gy, gk = adsrc.grad(loss, argnums=(0, 1))(y0, 0.6)
    assert_grad(lambda v: loss(v, 0.6), y0, gy)
    assert_grad(lambda v: loss(y0, v), 0.6, gk)


def test_discontinuous_branch_with_tcrit():
    def kick(y, t, k):
        if t > 0.5:
            return -2.0 * k * y
        return -k * y

    def loss(k):
        return odeint(kick, np.array([1.0]), np.array([0.0, 0.4, 1.0]), args=(k,), rtol=1e-10, atol=1e-10,
                      tcrit=np.array([0.5]))[-1, 0]
    # y(1) = exp(-0.5 k - 2 * 0.5 k) = exp(-1.5 k)
    np.testing.assert_allclose(adsrc.grad(loss)(0.8), -1.5 * np.exp(-1.2), rtol=1e-7)


# -- pytree parameters and the ODE-net --------------------------------------------------------------------------

def dict_field(y, t, params):
    h = np.tanh(params["W1"] @ y + params["b1"])
    return params["W2"] @ h - params["decay"] * y


def test_dict_of_weight_matrices():
    rng = np.random.default_rng(0)
    params = {"W1": rng.normal(size=(3, 2)) * 0.5, "b1": rng.normal(size=3) * 0.1,
              "W2": rng.normal(size=(2, 3)) * 0.5, "decay": 0.3, "n": 2}
    t = np.linspace(0.0, 1.0, 4)
    y0 = np.array([0.5, -0.3])

    def loss(params):
        return np.sum(odeint(dict_field, y0, t, args=(params,), rtol=1e-10, atol=1e-10) ** 2)
    before = copy.deepcopy(params)
    g = adsrc.grad(loss)(params)
    assert set(g) == set(params) and g["n"] is None
    assert isinstance(g["decay"], float)
    floats = {k: v for k, v in params.items() if k != "n"}
    assert_grad(lambda p: loss({**p, "n": 2}), floats, {k: g[k] for k in floats})
    for k in params:
        np.testing.assert_array_equal(params[k], before[k])


def nn_predict(inputs, t, params):
    """A small MLP vector field (the ODE-net pattern): params is a list of (W, b) pairs."""
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = np.tanh(outputs)
    return outputs


def init_params(sizes, rng, scale=0.3):
    return [(scale * rng.normal(size=(m, n)), scale * rng.normal(size=n)) for m, n in zip(sizes[:-1], sizes[1:])]


def test_ode_net():
    rng = np.random.default_rng(1)
    params = init_params([2, 5, 2], rng)
    y0 = np.array([2.0, 0.0])
    t = np.linspace(0.0, 1.0, 5)
    target = odeint(lambda y, s: np.array([y[1], -y[0]]) * 0.5, y0, t)

    def ode_pred(params, y0, t, rtol):
        return odeint(nn_predict, y0, t, tuple((params,)), rtol=rtol, atol=1e-10)

    def train_loss(params, rtol=1e-10):
        pred = ode_pred(params, y0, t, rtol)
        return np.mean(np.abs(pred - target))

    before = copy.deepcopy(params)
    g = adsrc.grad(train_loss)(params)
    assert isinstance(g, list) and all(isinstance(pair, tuple) for pair in g)
    assert_grad(train_loss, params, g)
    for (W, b), (W0, b0) in zip(params, before):
        np.testing.assert_array_equal(W, W0)
        np.testing.assert_array_equal(b, b0)

    # the published example's loose tolerance: a gradient close to the tight one, and a descent direction
    loose = adsrc.grad(train_loss)(params, 0.01)
    flat = np.concatenate([np.ravel(x) for pair in g for x in pair])
    flat_loose = np.concatenate([np.ravel(x) for pair in loose for x in pair])
    assert not np.any(np.isnan(flat_loose))
    assert np.dot(flat, flat_loose) > 0.9 * np.linalg.norm(flat) * np.linalg.norm(flat_loose)
    step = [(W - 0.05 * gW, b - 0.05 * gb) for (W, b), (gW, gb) in zip(params, g)]
    assert train_loss(step) < train_loss(params)


def relu_predict(inputs, t, params):
    """The published ODE-net's vector field: a ReLU MLP."""
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = np.maximum(0, outputs)
    return outputs


def test_published_ode_net_trains():
    rng = np.random.default_rng(2)
    params = init_params([2, 20, 2], rng, scale=0.1)
    t = np.linspace(0.0, 2.0, 10)
    true_y0 = np.array([2.0, 0.0])
    true_A = np.array([[-0.1, 2.0], [-2.0, -0.1]])
    true_y = odeint(lambda y, t: np.dot(y ** 3, true_A), true_y0, t)

    def train_loss(params):
        pred = odeint(relu_predict, true_y0, t, tuple((params,)), rtol=0.01)
        return np.mean(np.abs(pred - true_y))
    loss_and_grad = adsrc.value_and_grad(train_loss)
    first, _ = loss_and_grad(params)
    for _ in range(6):
        value, g = loss_and_grad(params)
        assert not any(np.any(np.isnan(x)) for pair in g for x in pair)
        params = [(W - 0.02 * gW, b - 0.02 * gb) for (W, b), (gW, gb) in zip(params, g)]
    assert train_loss(params) < first


# -- the user's tolerances, inputs left alone, refusals ---------------------------------------------------------

def test_backward_solve_uses_the_users_tolerances(monkeypatch):
    seen = []
    real = scipy_ode.si.odeint

    def spy(*a, **kw):
        seen.append((kw.get("rtol"), kw.get("atol")))
        return real(*a, **kw)
    monkeypatch.setattr(scipy_ode.si, "odeint", spy)

    def loss(k):
        return odeint(decay, np.array([1.0, 2.0]), np.array([0.0, 0.5, 1.0]), args=(k,), rtol=1e-4,
                      atol=np.array([1e-6, 1e-7]))[-1, 1]
    adsrc.grad(loss)(0.5)
    assert len(seen) == 2
    for rtol, atol in seen:
        assert rtol == 1e-4
        np.testing.assert_array_equal(atol, [1e-6, 1e-7, 1e-7, 1e-7, 1e-7])   # y, then adjoint and k_bar


def test_inputs_not_mutated():
    y0, t, p = Y0.copy(), T.copy(), P.copy()
    adsrc.grad(trajectory_loss, argnums=(0, 1, 2))(y0, t, p)
    np.testing.assert_array_equal(y0, Y0)
    np.testing.assert_array_equal(t, T)
    np.testing.assert_array_equal(p, P)


def test_value_and_grad_value_is_odeints():
    v, _ = adsrc.value_and_grad(trajectory_loss)(Y0, T, P)
    assert v == trajectory_loss(Y0, T, P)


def test_closure_over_differentiated_value_goes_through_args():
    def loss(k):        # rhs reads k: it is given k through args (frontend/closure_args.py)
        def rhs(y, s):
            return -k * y
        return odeint(rhs, np.array([1.0]), np.array([0.0, 1.0]), rtol=1e-11, atol=1e-12)[-1, 0]
    eps = 1e-6
    expected = (loss(0.5 + eps) - loss(0.5 - eps)) / (2 * eps)
    assert adsrc.grad(loss)(0.5) == pytest.approx(expected, rel=1e-6)
    assert adsrc.grad(loss)(0.5) == pytest.approx(-np.exp(-0.5), rel=1e-6)     # y(1) = exp(-k)


def test_partial_over_differentiated_value_is_refused():
    def loss(k):
        return odeint(functools.partial(decay, k=k), np.array([1.0]), np.array([0.0, 1.0]))[-1, 0]
    with pytest.raises(TypeError, match="odeint.*args="):
        adsrc.grad(loss)(0.5)


def test_closure_over_constant_is_fine():
    A = np.array([[0.0, 1.0], [-1.0, 0.0]])

    def loss(y0):
        def rhs(y, s):
            return A @ y
        return odeint(rhs, y0, np.array([0.0, 1.0]), rtol=1e-10, atol=1e-10)[-1, 0]
    np.testing.assert_allclose(adsrc.grad(loss)(np.array([1.0, 0.0])), [np.cos(1.0), np.sin(1.0)], rtol=1e-7)


def test_full_output_is_refused():
    def loss(k):
        ys, info = odeint(decay, np.array([1.0]), np.array([0.0, 1.0]), args=(k,), full_output=True)
        return ys[-1, 0]
    with pytest.raises(Exception, match="full_output"):
        adsrc.grad(loss)(0.5)


# -- forward mode and Jacobians ----------------------------------------------------------------------------------

def test_forward_mode_and_jacobians():
    def traj(k):
        return odeint(decay, np.array([1.0, 2.0]), np.array([0.0, 0.5, 1.0]), args=(k,), rtol=1e-10, atol=1e-10)
    want = -np.array([0.0, 0.5, 1.0])[:, None] * traj(0.5)
    _, tangent = adsrc.jvp(traj, (0.5,), (1.0,))
    np.testing.assert_allclose(tangent, want, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(adsrc.jacfwd(traj)(0.5), want, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(adsrc.jacrev(traj)(0.5), want, rtol=1e-7, atol=1e-12)


def test_forward_mode_y0_t_and_pytree_args_match_reverse():
    params = {"A": np.array([[-0.3, 1.0], [-1.0, -0.2]]), "c": 0.4, "steps": 2}

    def field(y, s, params):
        out = params["A"] @ y
        for _ in range(params["steps"]):
            out = out - params["c"] * y ** 3 / 3.0
        return out

    def traj(y0, t, params):
        return odeint(field, y0, t, args=(params,), rtol=1e-10, atol=1e-10)

    y0, t = np.array([1.0, 0.5]), np.array([0.2, 0.7, 1.5])
    rng = np.random.default_rng(3)
    y_dot, t_dot = rng.normal(size=2), rng.normal(size=3)
    p_dot = {"A": rng.normal(size=(2, 2)), "c": 0.7, "steps": 0.0}
    out, tangent = adsrc.jvp(traj, (y0, t, params), (y_dot, t_dot, p_dot))
    assert not np.any(np.isnan(tangent))
    np.testing.assert_array_equal(out, traj(y0, t, params))
    # against reverse mode: <w, J v> = <J^T w, v>
    w = rng.normal(size=out.shape)
    gy, gt, gp = adsrc.grad(lambda y, s, p: np.sum(w * traj(y, s, p)), argnums=(0, 1, 2))(y0, t, params)
    want = gy @ y_dot + gt @ t_dot + np.sum(gp["A"] * p_dot["A"]) + gp["c"] * p_dot["c"]
    np.testing.assert_allclose(np.sum(w * tangent), want, rtol=1e-6)
    # against finite differences along the same direction
    eps = 1e-6
    step = lambda h: traj(y0 + h * y_dot, t + h * t_dot,  # noqa: E731
                          {"A": params["A"] + h * p_dot["A"], "c": params["c"] + h * p_dot["c"], "steps": 2})
    np.testing.assert_allclose(tangent, (step(eps) - step(-eps)) / (2 * eps), rtol=1e-5, atol=1e-7)


def test_second_order_is_refused_by_name():
    def final(k):
        return odeint(decay, np.array([1.0]), np.array([0.0, 1.0]), args=(k,))[-1, 0]
    with pytest.raises(Exception, match="scipy.integrate.odeint"):
        adsrc.hessian(final)(0.5)


def test_vjp_pullback_called_twice_with_a_reused_buffer():
    def traj(k):
        return odeint(decay, np.array([1.0, 2.0]), np.array([0.0, 0.5, 1.0]), args=(k,), rtol=1e-10, atol=1e-10)
    out, pullback = adsrc.vjp(traj, 0.5)
    buf = np.zeros(out.shape)
    buf[-1, 0] = 1.0
    first = pullback(buf)[0]
    buf[-1, 0] = 0.0
    buf[1, 1] = 1.0
    second = pullback(buf)[0]
    np.testing.assert_allclose(first, -np.exp(-0.5), rtol=1e-7)
    np.testing.assert_allclose(second, -0.5 * 2.0 * np.exp(-0.25), rtol=1e-7)


def test_final_time_in_a_list():
    def final(T, k):
        return odeint(decay, np.array([1.0]), [0.0, T], args=(k,), rtol=1e-10, atol=1e-10)[-1, 0]
    gT, gk = adsrc.grad(final, argnums=(0, 1))(2.0, 0.3)
    np.testing.assert_allclose([gT, gk], [-0.3 * np.exp(-0.6), -2.0 * np.exp(-0.6)], rtol=1e-7)


@adsrc.register_dataclass
@dataclasses.dataclass
class LinearParams:
    A: np.ndarray
    c: float


LinearTuple = collections.namedtuple("LinearTuple", "A c")


@pytest.mark.parametrize("cls", [LinearParams, LinearTuple])
def test_registered_dataclass_and_namedtuple_args(cls):
    def field(y, t, p):
        return p.A @ y - p.c * y

    def loss(A, c):
        p = cls(A, c)
        return np.sum(odeint(field, np.array([1.0, 0.5]), np.array([0.0, 0.5, 1.0]), args=(p,), rtol=1e-10,
                             atol=1e-10) ** 2)
    A, c = np.array([[0.0, 1.0], [-1.0, -0.3]]), 0.2
    gA, gc = adsrc.grad(loss, argnums=(0, 1))(A, c)
    assert_grad(lambda v: loss(v, c), A, gA)
    assert_grad(lambda v: loss(A, v), c, gc)

    def loss_of_params(p):
        return loss(p.A, p.c)
    g = adsrc.grad(loss_of_params)(cls(A, c))
    assert type(g) is cls
    np.testing.assert_allclose(g.A, gA, rtol=1e-8)
    np.testing.assert_allclose(g.c, gc, rtol=1e-8)
