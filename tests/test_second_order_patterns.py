"""Second derivatives (reverse over reverse) of patterns the random programs found wrong.

Found by tests/second_order_report.py: d2f/ds2 of generated programs against
central differences of adsrc's own first derivative. Each pattern here gave a
silently wrong second derivative:

* a sum over broadcast axes of a cotangent that is constant along them
  (`np.sum(A + x * s)` with A of shape (4, 1)): unbroadcast returns the sum in
  x's smaller shape, and its transpose spread it over every axis of the output;
* a view of an array, then an item assignment to the array, in the generated
  code: the second-order code copied the view before changing the array in
  place, and the generated test "is this still a view of it" then said no;

and three were refused or crashed: np.sort (its cotangent helper had no
transpose), unpacking an array into names (`a, b, c = x`), and a loop over a
dict's items (`list(d)`, its keys, passed a cotangent on to the dict).

The last test runs the report's check on the first random programs and fails on
any mismatch or crash (refusals and timeouts are reported by the script).
"""

import os
import warnings

import numpy as np
import pytest

import adsrc
from adsrc import runtime, runtime_core

A = np.arange(4.0)[:, None]
H = 1e-5


def broadcast_sum(xs, s):
    ys = xs * s
    return np.sin(np.sum(A + ys))


def broadcast_mean(xs, s):
    ys = xs * s
    return np.sin(np.mean(A + ys)) + np.sum(np.cos(ys))


def view_then_item_assignment(xs, s):
    a = np.array([0.9, 0.2])
    w = a[-3:]
    a[1:] = np.sum(xs)
    return np.sum(w * s) ** 2


def loop_with_item_updates(xs, s):
    xs = 0.7 * xs
    for _ in range(3):
        xs[:1] += np.add(A, xs).mean()
        xs[2] = s
    return np.mean(np.sin(xs))


def sorted_weights(xs, s):
    return np.sum(np.sort(xs * s) * np.array([1.0, 2.0, 3.0])) ** 2 + np.sum(np.sort(np.outer(xs, xs) * s, axis=0)[0])


def unpacked(xs, s):
    a, b, c = np.tanh(xs * s)
    return a * b ** 2 + np.sin(c)


def dict_items_loop(xs, s):
    d = {"w": xs * s, "b": np.array([s, 1.0])}
    total = 0.0
    for k, v in d.items():
        total = total + np.sum(np.sin(v)) * (2.0 if k == "w" else 1.0)
    return total


@pytest.mark.parametrize("f", [broadcast_sum, broadcast_mean, view_then_item_assignment, loop_with_item_updates,
                               sorted_weights, unpacked, dict_items_loop])
@pytest.mark.parametrize("s", [0.207, -0.6])
def test_second_derivative_matches_differences_of_the_gradient(f, s):
    xs = np.array([0.032, 0.828, 0.986])
    g1 = adsrc.grad(f, argnums=1)
    g2 = adsrc.grad(g1, argnums=1)
    want = (g1(xs, s + H) - g1(xs, s - H)) / (2 * H)
    got = g2(xs, s)
    assert np.isfinite(got)
    assert got == pytest.approx(want, rel=1e-6, abs=1e-8)
    assert adsrc.jvp(lambda t: g1(xs, t), (s,), (1.0,))[1] == pytest.approx(got, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("gs, xs, os_", [
    ((), (3,), (4, 3)),          # constant along everything: the sum keeps the shape ()
    ((4, 3), (3,), (4, 3)),
    ((4, 1), (1, 3), (4, 3)),
    ((1, 3), (4, 1), (2, 4, 3)),
    ((2, 1, 3), (3,), (2, 4, 3)),
])
def test_sum_to_transpose_passes_the_dot_product_test(gs, xs, os_):
    rng = np.random.default_rng(3)
    g = rng.standard_normal(gs)
    summed = runtime_core._sum_to(g, xs, os_)
    h = rng.standard_normal(np.shape(summed))
    back = runtime.sum_to_transpose(h, gs, xs, os_)
    assert np.shape(back) == gs
    assert np.sum(summed * h) == pytest.approx(np.sum(g * back), rel=1e-12)


def test_sort_cotangent_transpose_passes_the_dot_product_test():
    from adsrc.rules.helpers import sort_vjp
    from adsrc.rules.transposes import sort_vjp_back
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 4))
    for axis in (None, 0, 1):
        g = rng.standard_normal(np.sort(x, axis=axis).shape)
        h = rng.standard_normal(x.shape)
        assert np.sum(sort_vjp(g, x, axis) * h) == pytest.approx(np.sum(g * sort_vjp_back(h, g, x, axis)),
                                                                  rel=1e-12)


COUNT = int(os.environ.get("ADSRC_SECOND_ORDER_PROGRAMS", 40))


def test_random_programs_have_no_wrong_or_crashing_second_derivatives():
    from proginst import make_case
    from second_order_report import second_derivative_outcome
    wrong = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(COUNT):
            kind, line = second_derivative_outcome(make_case(seed))
            if kind in ("mismatch", "crash"):
                wrong.append(f"seed {seed}: {kind}: {line}")
    assert not wrong, "\n".join(wrong)
