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
