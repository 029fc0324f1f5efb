"""Programs written the way JAX users write them (with numpy for jax.numpy), which adsrc once refused or crashed
on: `adsrc.checkpoint(block)(x, W)` made where it is called, and the loss after one gradient step with the
parameters a list of (W, b) tuples or of dicts (a gradient called inside a differentiated function). Each is
checked against central finite differences."""

import numpy as np

import adsrc
from casekit import central_grad


def block(x, W):
    return np.tanh(x @ W)


def checkpointed_where_called(W, x):
    x = adsrc.checkpoint(block)(x, W)
    f = adsrc.checkpoint(block)
    x = f(x, W)
    return np.sum(x ** 2)


def test_checkpoint_made_where_it_is_called():
    W, x = np.eye(3) * 0.5 + 0.1, np.array([1.0, -0.5, 0.3])
    got = adsrc.grad(checkpointed_where_called)(W, x)
    np.testing.assert_allclose(got, central_grad(lambda w: checkpointed_where_called(w, x), W), rtol=1e-6,
                               atol=1e-8)


def tuple_loss(params, x):
    W, b = params[0]
    return np.sum(np.tanh(x @ W + b) ** 2)


def after_one_step(params, x):
    g = adsrc.grad(tuple_loss)(params, x)
    new = [(W - 0.1 * gW, b - 0.1 * gb) for (W, b), (gW, gb) in zip(params, g)]
    return tuple_loss(new, x) + np.sum(g[0][0])


def dict_loss(params, x):
    return np.sum(np.tanh(x @ params[0]["W"] + params[0]["b"]) ** 2)


def dict_gradient_norm(params, x):
    g = adsrc.grad(dict_loss)(params, x)
    return np.sum(g[0]["W"] ** 2) + np.sum(g[0]["b"])


def _check(fn, make, W, b, x):
    got = adsrc.grad(fn)(make(W, b), x)
    leaves = (got[0][0], got[0][1]) if isinstance(got[0], tuple) else (got[0]["W"], got[0]["b"])
    assert not any(np.any(np.isnan(v)) for v in leaves)
    np.testing.assert_allclose(leaves[0], central_grad(lambda w: fn(make(w, b), x), W), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(leaves[1], central_grad(lambda v: fn(make(W, v), x), b), rtol=1e-6, atol=1e-8)


def test_gradient_of_a_loss_after_a_gradient_step_with_parameters_in_lists():
    rng = np.random.default_rng(0)
    W, b, x = rng.normal(size=(2, 2)), rng.normal(size=2), rng.normal(size=(3, 2))
    _check(after_one_step, lambda W, b: [(W, b)], W, b, x)
    _check(dict_gradient_norm, lambda W, b: [{"W": W, "b": b}], W, b, x)


def jvp_of_local_functions(x, v, a):
    def g(z):
        return np.sin(z) * z * a
    _, t = adsrc.jvp(g, (x,), (v,))
    _, t2 = adsrc.jvp(lambda z: z ** 3 * a, (x,), (v,))
    return np.sum(t ** 2) + np.sum(t2)


def test_jvp_of_a_lambda_or_nested_def_inside_a_differentiated_function():
    # refused: adsrc.jvp inside followed only functions known when transforming (the closure's `a` is
    # differentiated too)
    x, v, a = np.array([0.3, -1.2]), np.array([1.0, 0.5]), 1.7
    gx, ga = adsrc.grad(jvp_of_local_functions, argnums=(0, 2))(x, v, a)
    np.testing.assert_allclose(gx, central_grad(lambda x: jvp_of_local_functions(x, v, a), x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ga, central_grad(lambda a: jvp_of_local_functions(x, v, a), a), rtol=1e-6, atol=1e-8)
