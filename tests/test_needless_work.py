"""The generated code and the helpers it calls do no needless work (what benchmark workloads showed).

Each test checks what the code does or how it is shaped (never how long it takes), and each gradient
against central differences.
"""

import numpy as np

import adsrc
from casekit import assert_matches_differences


def grad_checked(f, args, argnums=0, rtol=1e-6, atol=1e-8):
    """adsrc's gradient of f at args, checked against central differences; and its generated source."""
    g = adsrc.grad(f, argnums=argnums)
    got = g(*args)
    nums = (argnums,) if isinstance(argnums, int) else argnums
    assert_matches_differences(f, args, [got] if isinstance(argnums, int) else list(got), rtol=rtol, atol=atol) \
        if len(nums) == len(args) else _check_some(f, args, nums, got, rtol, atol)
    return got, g.source(*args)


def code(source):
    """The generated source without its comments (which quote the user's lines)."""
    return "\n".join(line for line in source.splitlines() if not line.strip().startswith("#"))


def _check_some(f, args, nums, got, rtol, atol):
    got = [got] if len(nums) == 1 else list(got)
    for k, g in zip(nums, got):
        def moved(*chosen, k=k):
            new = list(args)
            new[k] = chosen[0]
            return f(*new)
        assert_matches_differences(moved, (args[k],), [g], rtol=rtol, atol=atol)


# -- values a loop carries that the gradient does not need ---------------------------------------------------

def rnn_with_running_loss(W, xs):
    h = np.zeros(W.shape[0])
    loss = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
        loss = loss + np.sum(h ** 2)      # the loss is carried with h (h_1, loss_1 = h_2, loss_2)
    return loss


def test_a_loop_carried_value_only_the_output_reads_is_not_computed():
    rng = np.random.default_rng(0)
    W, xs = rng.standard_normal((4, 4)) * 0.5, rng.standard_normal((6, 4))
    _, source = grad_checked(rnn_with_running_loss, (W, xs))
    # the running loss is the output: grad needs its cotangent, never its value
    assert "np.sum(" not in code(source) and " loss_2 = " not in code(source)
    assert "h_1 = h_2" in source


def carried_pair(x):
    a = x
    b = 0.0 * x
    for _ in range(3):
        a, b = np.sin(a) + b, a        # a pair of the carry reads the other: both stay
    return np.sum(a)


def test_a_loop_carry_whose_names_read_each_other_keeps_both():
    x = np.linspace(-1.0, 1.0, 5)
    grad_checked(carried_pair, (x,))


# -- helpers on their general path for common operands --------------------------------------------------------

def ridge_by_dot(x, A, b):
    r = np.dot(A, x) - b
    return 0.5 * np.dot(r, r) + 0.1 * np.dot(x, np.dot(A.T, np.dot(A, x)))


def test_np_dot_of_vectors_and_matrices_pulls_back_with_products_not_tensordot(monkeypatch):
    rng = np.random.default_rng(1)
    args = (rng.standard_normal(4), rng.standard_normal((6, 4)), rng.standard_normal(6))
    g = adsrc.grad(ridge_by_dot, argnums=(0, 1, 2))
    g(*args)                                        # transformed before tensordot is taken away

    def no_tensordot(*a, **k):
        raise AssertionError("np.tensordot for a product of vectors and matrices")
    monkeypatch.setattr(np, "tensordot", no_tensordot)
    got = g(*args)
    monkeypatch.undo()
    assert_matches_differences(ridge_by_dot, args, list(got))


def test_dot_cotangents_of_every_rank_pairing_are_the_products_transposes():
    from adsrc.rules.helpers import dot_dx, dot_dy
    rng = np.random.default_rng(2)
    for xs, ys in [((3,), (3,)), ((4, 3), (3,)), ((3,), (3, 5)), ((4, 3), (3, 5)), ((2, 4, 3), (3,)),
                   ((3,), (2, 3, 5)), ((2, 4, 3), (2, 3, 5))]:
        for x in (rng.standard_normal(xs), rng.standard_normal(xs) + 1j * rng.standard_normal(xs)):
            y = rng.standard_normal(ys)
            g = rng.standard_normal(np.shape(np.dot(x, y)))
            dx, dy = dot_dx(g, x, y), dot_dy(g, x, y)
            # <g, dot(dx_, y)> = <dot_dx(g), dx_> for every basis direction dx_ (and alike for y)
            want_x = np.array([np.sum(g * np.dot(e.reshape(xs), y)) for e in np.eye(x.size)]).reshape(xs)
            want_y = np.array([np.sum(g * np.dot(x, e.reshape(ys))) for e in np.eye(y.size)]).reshape(ys)
            assert np.shape(dx) == xs and np.shape(dy) == ys
            np.testing.assert_allclose(dx, want_x, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(dy, want_y, rtol=1e-12, atol=1e-12)


def taps(w, x):
    n = x.shape[0] - w.shape[0] + 1
    y = w[0] * x[0:n]
    for j in range(1, w.shape[0]):
        y = y + w[j] * x[j:j + n]       # w[j] a number broadcast over a slice: its cotangent a sum
    return np.sum(np.tanh(y) ** 2)


def test_a_number_broadcast_over_an_array_gets_a_number_as_its_cotangent():
    from adsrc.runtime import unbroadcast
    g = np.arange(6.0).reshape(2, 3)
    for x in (np.float64(2.0), 2.0, np.float32(2.0)):
        got = unbroadcast(g, x, g)
        assert np.ndim(got) == 0 and not isinstance(got, np.ndarray) and got == 15.0
    z = unbroadcast(g * (1 + 1j), 2.0, g)                  # a real number's cotangent is real
    assert not np.iscomplexobj(z) and z == 15.0
    rng = np.random.default_rng(3)
    grad_checked(taps, (rng.standard_normal(4), rng.standard_normal(30)), argnums=(0, 1))
