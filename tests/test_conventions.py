"""Conventions a user of JAX or autograd expects where the derivative is a choice: a tie between the arguments of
np.maximum / np.minimum / np.clip is shared evenly (as JAX, autograd and central differences give, and as adsrc's
np.max shares a tie among equal elements); arguments of dict subclasses come back as such."""

import collections

import numpy as np
import pytest

import adsrc
from casekit import central_grad


def _ties(x):
    return np.sum(np.maximum(x, 0.0)) + np.sum(np.clip(x, 0.0, 1.0)) + np.sum(np.minimum(x, 1.0)) + \
        np.sum(np.fmax(x, 0.5))


X = np.array([0.0, 1.0, 0.5, -0.2])


def test_a_tie_is_shared_evenly_in_both_modes():
    # (adsrc gave the whole cotangent to the first argument: relu'(0) = 1, clip'(bound) = 1)
    exact = np.array([0.5 + 0.5 + 1.0 + 0.0, 1.0 + 0.5 + 0.5 + 1.0, 1.0 + 1.0 + 1.0 + 0.5, 0.0 + 0.0 + 1.0 + 0.0])
    np.testing.assert_allclose(adsrc.grad(_ties)(X), exact, rtol=1e-14)
    np.testing.assert_allclose(central_grad(_ties, X), exact, rtol=1e-6)          # what differences see
    t = np.array([1.0, -2.0, 0.5, 3.0])
    assert adsrc.jvp(_ties, (X,), (t,))[1] == pytest.approx(exact @ t, rel=1e-14)
    a, b = adsrc.grad(lambda u, v: np.sum(np.maximum(u, v)), argnums=(0, 1))(np.array([1.0]), np.array([1.0]))
    assert a[0] == 0.5 and b[0] == 0.5


def test_a_tie_is_shared_evenly_by_the_numba_backend_too():
    pytest.importorskip("numba")
    np.testing.assert_allclose(adsrc.grad(_ties, backend="numba")(X), adsrc.grad(_ties)(X), rtol=1e-14)


def _weights_norm(p):
    return np.sum(p["W"] ** 2) + p["b"]


def test_a_defaultdict_argument_gets_a_defaultdict_gradient():
    # (building the gradient crashed: defaultdict(<generator>))
    p = collections.defaultdict(float)
    p["W"], p["b"] = np.array([1.0, -2.0]), 0.5
    g = adsrc.grad(_weights_norm)(p)
    assert type(g) is collections.defaultdict and g.default_factory is float
    np.testing.assert_allclose(g["W"], [2.0, -4.0], rtol=1e-14)
    assert g["b"] == 1.0
