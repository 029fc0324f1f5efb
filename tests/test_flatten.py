"""adsrc.ravel_pytree (JAX's name), adsrc.misc.flatten and adsrc.misc.optimizers (autograd's): the flat
vector goes back and forth, is differentiable inside a transformed function (checked against central
differences over the flat vector), and the optimizers work on pytrees."""

from collections import namedtuple

import numpy as np
import pytest

import adsrc
from adsrc.misc import flatten
from adsrc.misc.optimizers import adam, rmsprop, sgd

RS = np.random.RandomState(0)
Pair = namedtuple("Pair", "w b")
TREES = {
    "list of layers": [(RS.randn(2, 3), RS.randn(3)), (RS.randn(3, 1), RS.randn(1))],
    "dict with an int": {"a": RS.randn(3), "b": 0.5, "n": 3},
    "namedtuple": Pair(RS.randn(2), 0.3),
    "dict in no sorted order": {"w": RS.randn(2), "b": [RS.randn(3), {"z": 0.2, "c": RS.randn(2)}]},
}


def test_ravel_and_unravel_round_trip():
    for tree in TREES.values():
        flat, unravel = adsrc.ravel_pytree(tree)
        assert flat.ndim == 1
        again = unravel(flat * 2.0)
        flat2, _ = adsrc.ravel_pytree(again)
        np.testing.assert_array_equal(flat2, flat * 2.0)
        assert type(again) is type(tree)
    assert flatten is adsrc.ravel_pytree
    from adsrc.misc.flatten import flatten as from_its_module      # autograd's other import path
    assert from_its_module is adsrc.ravel_pytree
    with pytest.raises(ValueError, match="vector of 4 numbers"):
        adsrc.ravel_pytree([np.ones(4)])[1](np.ones(3))


def test_a_dict_is_laid_out_by_its_sorted_keys_as_in_jax_and_autograd():
    # (adsrc laid dicts out in insertion order: a flat vector from autograd or JAX meant other leaves)
    flat, unravel = adsrc.ravel_pytree({"b": [1.0, 2.0], "a": np.array([3.0]), "c": {"y": 4.0, "x": 5.0}})
    np.testing.assert_array_equal(flat, [3.0, 1.0, 2.0, 5.0, 4.0])
    assert list(unravel(flat)) == ["a", "b", "c"] and unravel(flat)["c"] == {"x": 5.0, "y": 4.0}


def l2(params):
    flat, _ = flatten(params)
    return np.dot(flat, flat) + np.sum(flat[1:3] ** 3)


def sine_of_some(params):
    flat, unravel = adsrc.ravel_pytree(params)
    return np.sum(np.sin(flat[::2]))


@pytest.mark.parametrize("f", [l2, sine_of_some])
@pytest.mark.parametrize("name", list(TREES))
def test_the_flat_vector_is_differentiated(f, name):
    tree = TREES[name]
    g = adsrc.grad(f)(tree)
    assert type(g) is type(tree)
    flat, unravel = adsrc.ravel_pytree(tree)
    got, _ = adsrc.ravel_pytree(g)
    e = 1e-6
    want = np.array([(f(unravel(flat + e * u)) - f(unravel(flat - e * u))) / (2 * e) for u in np.eye(flat.size)])
    assert not np.any(np.isnan(got))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    if name == "dict with an int":
        assert g["n"] is None                      # a leaf that is not a float has no gradient (as elsewhere)


def quadratic(params, i):
    W, b = params
    return np.sum((W - 1.0) ** 2) + (b + 2.0) ** 2


@pytest.mark.parametrize("optimizer, options", [(adam, dict(step_size=0.1, num_iters=300)),
                                                (sgd, dict(step_size=0.1, num_iters=500)),
                                                (rmsprop, dict(step_size=0.01, num_iters=500))])
def test_optimizers_minimize_over_pytrees(optimizer, options):
    seen = []
    params = optimizer(adsrc.grad(quadratic), (np.zeros((2, 2)), 0.0),
                       callback=lambda p, i, g: seen.append((i, type(p))), **options)
    W, b = params
    np.testing.assert_allclose(W, np.ones((2, 2)), atol=0.05)
    assert abs(b + 2.0) < 0.05 and isinstance(b, float)
    assert seen[0] == (0, tuple) and len(seen) == options["num_iters"]


def test_forward_mode_and_the_hessian_through_the_flat_vector():
    tree = [RS.randn(3), 0.5]
    tangent = [RS.randn(3), 0.25]
    value, directional = adsrc.jvp(l2, (tree,), (tangent,))
    e = 1e-6
    plus = [tree[0] + e * tangent[0], tree[1] + e * tangent[1]]
    minus = [tree[0] - e * tangent[0], tree[1] - e * tangent[1]]
    assert value == pytest.approx(l2(tree))
    assert directional == pytest.approx((l2(plus) - l2(minus)) / (2 * e), rel=1e-6)
    x = RS.randn(4)
    H = adsrc.hessian(l2)(x)
    want = 2.0 * np.eye(4)
    want[[1, 2], [1, 2]] += 6.0 * x[1:3]
    np.testing.assert_allclose(H, want, rtol=1e-10, atol=1e-10)
