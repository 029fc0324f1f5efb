"""Scatter-adds whose values NumPy must broadcast. NumPy 2.4's `np.add.at` adds a values array with fewer
dimensions than the index selects wrongly (it reads memory it never wrote), and adsrc used it to add the
cotangent of `vals[index]` when that cotangent was broadcast (`toeplitz(c) * w`): the gradient was NaN or
garbage. runtime.scatter_add broadcasts the values first."""

import numpy as np
import pytest
import scipy.linalg as sla

import adsrc
from adsrc.runtime import scatter_add
from casekit import assert_matches_differences


def _looped(shape, idx, values):
    """out[idx] += values one element at a time (the meaning of np.add.at)."""
    out = np.zeros(shape)
    target = np.zeros(shape)[idx].shape
    vals = np.broadcast_to(values, target)
    flat = np.arange(out.size).reshape(shape)[idx]
    for pos, v in zip(np.ravel(flat), np.ravel(vals)):
        out.flat[pos] += v
    return out


@pytest.mark.parametrize("shape, idx, values", [
    ((3,), np.array([[0, 1], [1, 2]]), np.array([1.0, 10.0])),
    ((7,), np.array([[3, 4, 5, 6], [2, 3, 4, 5], [1, 2, 3, 4], [0, 1, 2, 3]]), np.arange(1.0, 5.0)),
    ((3, 2), (np.array([[0, 1], [2, 2]]), np.array([1, 0])), np.array([2.0, 5.0])),
    ((4, 3), (np.array([0, 0, 3]), slice(None)), np.array([1.0, 2.0, 3.0])),
    ((4,), np.array([1, 1, 2]), 2.5),
])
def test_scatter_add_broadcasts_values_as_the_index_selects(shape, idx, values):
    out = np.zeros(shape)
    scatter_add(out, idx, values)
    np.testing.assert_array_equal(out, _looped(shape, idx, values))


def toeplitz_weighted_by_columns(c):
    return np.sum(sla.toeplitz(c) * np.arange(1.0, 5.0))


def toeplitz_of_a_row_weighted(x):
    return np.sum(sla.toeplitz(x[0], x[1]) * np.arange(1.0, 5.0))


def circulant_weighted_by_columns(c):
    return np.sum(sla.circulant(c) * np.arange(1.0, 5.0))


def hankel_weighted_by_columns(c):
    return np.sum(sla.hankel(c) ** 2 * np.arange(1.0, 5.0))


def gathered_by_a_square_index_weighted_by_columns(x):
    idx = np.array([[0, 1, 2], [1, 2, 3], [2, 3, 0]])
    return np.sum(np.sin(x[idx]) * np.array([1.0, 2.0, 3.0]))


@pytest.mark.parametrize("fn, shape", [(toeplitz_weighted_by_columns, (4,)), (toeplitz_of_a_row_weighted, (2, 4)),
                                       (circulant_weighted_by_columns, (4,)), (hankel_weighted_by_columns, (4,)),
                                       (gathered_by_a_square_index_weighted_by_columns, (4,))])
def test_gradients_through_gathers_with_broadcast_cotangents_match_differences(fn, shape):
    x = np.random.default_rng(2).uniform(-1.0, 1.0, shape)
    g = adsrc.grad(fn)(x)
    assert_matches_differences(fn, (x,), (g,), rtol=1e-6, atol=1e-8)


def users_add_at_with_values_broadcast(x):
    out = np.zeros(3)
    np.add.at(out, np.array([[0, 1], [1, 2]]), x[:2])      # out = [x0, x0 + x1, x1]
    return np.sum(out ** 2)


def test_a_users_add_at_with_broadcast_values_computes_what_add_at_means():
    # (central differences cannot check this one: NumPy itself computes the function wrongly)
    x = np.array([0.3, -0.8, 0.5])
    a, b = x[:2]
    value, g = adsrc.value_and_grad(users_add_at_with_values_broadcast)(x)
    np.testing.assert_allclose(value, a * a + (a + b) ** 2 + b * b, rtol=1e-12)
    np.testing.assert_allclose(g, [2 * a + 2 * (a + b), 2 * (a + b) + 2 * b, 0.0], rtol=1e-12)
