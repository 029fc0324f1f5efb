"""What the backward pass keeps: values, not arrays kept for their shapes (issue 15, item 2).

Gradients are checked against central finite differences wherever a stand-in
replaces an array, a value is recomputed in the backward loop instead of
saved, or a buffer is released early; memory is checked with tracemalloc
(exact byte counts, not timings) against hand-written gradients.
"""

import gc
import tracemalloc

import numpy as np
import pytest

import adsrc
from casekit import central_grad
from adsrc.runtime import only_shape


def check(f, x, *rest, rtol=1e-6, atol=1e-8):
    before = [np.array(a, copy=True) for a in (x,) + rest]
    got = adsrc.grad(f)(x, *rest)
    for a, b in zip((x,) + rest, before):
        np.testing.assert_array_equal(a, b)           # inputs never changed
    want = central_grad(lambda v: f(v, *[np.array(r, copy=True) for r in rest]), x)
    assert not np.any(np.isnan(got))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    return got


# -- the stand-in ----------------------------------------------------------------------------------

def test_only_shape_keeps_shape_and_dtype_and_shares_one_element():
    a = np.arange(12.0).reshape(3, 4)
    s = only_shape(a)
    assert s.shape == (3, 4) and s.dtype == a.dtype
    assert not s.flags.writeable
    assert s is only_shape(np.ones((3, 4)))                  # one per shape and dtype
    assert only_shape(a.astype(np.complex128)).dtype == np.complex128
    assert only_shape(np.ones((3, 4), dtype=np.float32)) is not s
    assert s.base is not None and s.base.size == 1           # one element behind it


@pytest.mark.parametrize("value", [1.5, 3, np.float64(2.0), [1.0, 2.0], (np.ones(2),), {"a": 1.0}])
def test_only_shape_leaves_everything_but_ndarrays_alone(value):
    assert only_shape(value) is value


# -- gradients where stand-ins, recomputation and release apply --------------------------------------

def broadcast_in_loop(x, b):
    s = 0.0
    for t in range(3):
        y = x[:, None] * b + t        # x (n,) broadcast against b (n, m): its cotangent is summed over m
        s = s + np.sum(np.sin(y))
    return s


def test_broadcast_in_a_loop_sums_back_through_stand_ins():
    rng = np.random.default_rng(0)
    check(broadcast_in_loop, rng.standard_normal(4), rng.standard_normal((4, 3)))


def size_one_axis(x, b):
    z = x * b                       # x (n, 1) against b (n, m): only shapes tell how to sum back
    w = np.tanh(z)
    return np.sum(w * w)


def test_a_size_one_axis_released_after_its_last_value_read():
    rng = np.random.default_rng(1)
    g = adsrc.grad(size_one_axis)
    assert "only_shape(" in g.source()
    check(size_one_axis, rng.standard_normal((4, 1)), rng.standard_normal((4, 3)))


def complex_intermediate(x, c):
    z = x * c                       # real x, complex z: x's cotangent is the real part
    y = np.exp(z)
    return np.real(np.sum(y * np.conj(y))) + np.real(np.sum(z))


def test_complex_stand_ins_keep_the_dtype():
    rng = np.random.default_rng(2)
    c = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    check(complex_intermediate, rng.standard_normal((3, 1)), c)


def while_recomputed(x, n):
    s = x
    i = 0
    while i < n:
        s = np.sin(s) * x + np.cos(s * 0.5)
        i = i + 1
    return s


@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("x", [0.7, -1.3])
def test_while_loop_recomputes_elementwise_values_from_the_saved_carry(x, n):
    got = adsrc.grad(while_recomputed)(x, n)
    want = central_grad(lambda v: while_recomputed(float(v), n), x)
    assert not np.isnan(got)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_the_while_tape_holds_one_value_per_step():
    src = adsrc.grad(while_recomputed).source()
    assert "tape.append(s_1)" in src          # sin(s), cos(s * 0.5)... are recomputed from s


def items_of_a_parameter(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ xs[t] + h)
    return np.sum(h ** 2)


def test_items_of_a_parameter_are_recomputed_from_the_index():
    rng = np.random.default_rng(3)
    W, xs = rng.standard_normal((3, 2)), rng.standard_normal((6, 2))
    src = adsrc.grad(items_of_a_parameter).source()
    assert "xs_t = xs[t]" in src.split("backward pass")[1]
    check(items_of_a_parameter, W, xs)


def changed_after_the_loop(x, xs):
    xs = xs.copy()
    s = 0.0
    for t in range(xs.shape[0]):
        s = s + np.sum(np.sin(x * xs[t]))
    xs[0] = 100.0                      # a later change of the array items were read from
    return s + np.sum(xs * x)


def test_an_array_changed_after_the_loop_is_not_read_again_by_the_backward_loop():
    rng = np.random.default_rng(4)
    check(changed_after_the_loop, rng.standard_normal(3), rng.standard_normal((4, 3)))


def parameter_updated_in_the_loop(x, v):
    for t in range(3):
        v[t] = np.sin(x[t]) * v[t]     # the parameter itself is changed (copy-on-write)
    return np.sum(v * x)


def test_a_parameter_changed_in_the_loop_keeps_its_values_on_the_tape():
    rng = np.random.default_rng(5)
    check(parameter_updated_in_the_loop, rng.standard_normal(4), rng.standard_normal(4))


def calls_in_a_loop(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = _cell(W, h, xs[t])
    return np.sum(h)


def _cell(W, h, x):
    return np.tanh(W @ h + x)


def test_a_callee_returns_stand_ins_among_its_residuals():
    rng = np.random.default_rng(6)
    W, xs = rng.standard_normal((3, 3)), rng.standard_normal((4, 3))
    check(calls_in_a_loop, W, xs)


def test_second_derivatives_read_through_stand_ins():
    rng = np.random.default_rng(7)
    W, xs = rng.standard_normal((3, 2)) * 0.5, rng.standard_normal((4, 2))
    v = rng.standard_normal((3, 2))
    hv = adsrc.hvp(items_of_a_parameter, W, v, xs)
    g = adsrc.grad(items_of_a_parameter)
    eps = 1e-6
    want = (g(W + eps * v, xs) - g(W - eps * v, xs)) / (2 * eps)
    assert not np.any(np.isnan(hv))
    np.testing.assert_allclose(hv, want, rtol=1e-5, atol=1e-7)


# -- memory (exact byte counts from tracemalloc, with generous bounds) ---------------------------------

def _peak(fn):
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak


def _per_step(fn, steps):
    return (_peak(lambda: fn(2 * steps)) - _peak(lambda: fn(steps))) / steps


def rnn_by_hand(W, xs):
    hs = [np.zeros(W.shape[0])]
    for t in range(xs.shape[0]):
        hs.append(np.tanh(W @ xs[t] + hs[-1]))
    dh = 2.0 * hs[-1]
    dW = np.zeros_like(W)
    for t in range(xs.shape[0] - 1, -1, -1):
        da = dh * (1.0 - hs[t + 1] ** 2)
        dW += np.outer(da, xs[t])
        dh = da
    return dW


def test_rnn_tape_bytes_per_step_close_to_hand_written():
    rng = np.random.default_rng(8)
    W = rng.standard_normal((16, 8)) * 0.1
    data = rng.standard_normal((4000, 8))
    g = adsrc.grad(items_of_a_parameter)
    np.testing.assert_allclose(g(W, data[:50]), rnn_by_hand(W, data[:50]), rtol=1e-10)
    ours = _per_step(lambda n: g(W, data[:n]), 2000)
    hand = _per_step(lambda n: rnn_by_hand(W, data[:n]), 2000)
    assert ours <= 1.6 * hand, (ours, hand)


def test_mlp_like_peak_close_to_hand_written():
    rng = np.random.default_rng(9)
    X, W1, b1 = rng.standard_normal((2048, 64)), rng.standard_normal((64, 128)) * 0.1, rng.standard_normal(128)

    def loss(W1):
        a = X @ W1 + b1
        h = np.tanh(a)
        return np.sum(h * h)

    def by_hand(W1):
        h = np.tanh(X @ W1 + b1)
        return X.T @ (2.0 * h * (1.0 - h * h))
    g = adsrc.grad(loss)
    np.testing.assert_allclose(g(W1), by_hand(W1), rtol=1e-10)
    assert _peak(lambda: g(W1)) <= 1.25 * _peak(lambda: by_hand(W1))


def chain(x):
    a = np.sin(x)
    b = a * 2.0
    c = np.exp(b)
    d = c @ c.T
    return np.sum(d)


def test_arrays_not_read_again_are_deleted_and_the_gradient_is_right():
    src = adsrc.grad(chain).source()
    assert "del a" in src and "d = only_shape(d)" in src
    x = np.random.default_rng(10).standard_normal((3, 4)) * 0.5
    check(chain, x, rtol=1e-6, atol=1e-7)


# -- lists grown in a loop -----------------------------------------------------------------------------

def running_values(x):
    s = 0.0
    out = []
    for i in range(x.shape[0]):
        s = s * 0.9 + x[i]          # the loop carries s and out: two names
        out.append(s)
    return np.sum(np.array(out) ** 2)


def test_a_list_grown_in_a_loop_carrying_other_names_is_appended_to_in_place():
    # copying the list at every append would make the gradient quadratic in the loop's length
    x = np.linspace(-1.0, 1.0, 7)
    check(running_values, x)
    g = adsrc.grad(running_values)
    g(x)
    source = g.source()
    assert "list_append_inplace(" in source and "list_append(" not in source
    assert "is copied" not in source
