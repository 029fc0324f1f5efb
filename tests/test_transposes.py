"""The written-out transposes of item_cot, seq_cot and sum_operand_cot (rules/transposes.py).

Each is checked against the general transpose (one basis vector at a time,
runtime_rules.transpose_linear) and by the dot-product test
<item_cot(g, i), h> = <g, item_cot_vjp(h, g, i)>; then through derivatives of
order four, where derivatives of generated code call them, against central
differences.
"""

import numpy as np
import pytest

import adsrc
from adsrc import runtime
from adsrc.rules import runtime_rules, transposes
from adsrc.rules.sharing import seq_cot

RNG = np.random.default_rng(7)


def r(*shape):
    return RNG.standard_normal(shape) if shape else float(RNG.standard_normal())


def dot(a, b):
    if isinstance(a, dict):
        return sum(dot(v, b[k]) for k, v in a.items())
    if isinstance(a, (list, tuple)):
        return sum(dot(x, y) for x, y in zip(a, b))
    return float(np.sum(np.asarray(a) * np.asarray(b)))


def same(a, b):
    if isinstance(a, dict):
        assert type(a) is type(b) and a.keys() == b.keys()
        for k in a:
            same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
    else:
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


ITEMS = [
    ((r(3), r(2, 2), r()), 1),
    ([r(4), r(4)], -1),
    ({"a": r(3), "b": r()}, "a"),
    ({"a": r(3), "b": r()}, "missing"),
    ([r(2), r(2), r(2)], slice(1, None)),
]


@pytest.mark.parametrize("k", range(len(ITEMS)))
def test_item_cot_transpose(k):
    g, index = ITEMS[k]
    out = runtime.HELPERS["item_cot"](g, index)
    h = runtime_rules._map(out, lambda p, v: r(*np.shape(v))) if not runtime.is_zero(out) else 0.0
    mine = transposes.item_cot_vjp(h, g, index)
    same(mine, runtime_rules.transpose_linear(runtime.HELPERS["item_cot"], 0, h, (g, index)))
    assert dot(out, h) == pytest.approx(dot(g, mine), rel=1e-12, abs=1e-12)


SEQS = [
    (r(3), [1.0, 2.0, 3.0]),
    (r(2, 3), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
    (r(3), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),         # g broadcast over the first axis
    (r(), (1.0, 2.0)),
]


@pytest.mark.parametrize("k", range(len(SEQS)))
def test_seq_cot_transpose_and_its_own(k):
    g, obj = SEQS[k]
    out = seq_cot(g, obj)
    h = runtime_rules._map(out, lambda p, v: r(*np.shape(v)))
    mine = transposes.seq_cot_vjp(h, g, obj)
    same(mine, runtime_rules.transpose_linear(seq_cot, 0, h, (g, obj)))
    assert dot(out, h) == pytest.approx(dot(g, mine), rel=1e-12)
    back = transposes.seq_cot_back(g, g, obj)          # the transpose of seq_cot_vjp is seq_cot again
    same(back, out)


@pytest.mark.parametrize("first", [True, False])
def test_sum_operand_cot_transpose_for_lists_and_arrays(first):
    f = runtime.HELPERS["sum_operand_cot"]
    x, other = [r(2), r(2)], [r(2)]
    out = x + other if first else other + x
    g = [r(2) for _ in out]
    part = f(g, x, other, out, first)
    h = [r(2) for _ in part]
    mine = transposes.sum_operand_cot_vjp(h, g, x, out, first)
    same(mine, runtime_rules.transpose_linear(f, 0, h, (g, x, other, out, first)))
    assert dot(part, h) == pytest.approx(dot(g, mine), rel=1e-12)
    xa, outa, ga = r(3), r(2, 3), r(2, 3)
    ha = r(3)
    assert dot(f(ga, xa, None, outa, first), ha) == \
        pytest.approx(dot(ga, transposes.sum_operand_cot_vjp(ha, ga, xa, outa, first)), rel=1e-12)


def logistic(x):
    return (1.0 - np.exp(-x)) / (1.0 + np.exp(-x))


def elementwise_grad(f):
    return adsrc.grad(lambda x: np.sum(f(x)))


def test_fourth_derivative_through_the_transposes_matches_differences():
    x = np.linspace(-3.0, 3.0, 40)
    fs = [logistic]
    for _ in range(4):
        fs.append(elementwise_grad(fs[-1]))
    h = 1e-4
    for k in range(1, 5):
        got = fs[k](x)
        want = (fs[k - 1](x + h) - fs[k - 1](x - h)) / (2 * h)
        assert np.all(np.isfinite(got))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


GATHERS = [
    (r(5), np.array([0, 2, 2]), r(3)),          # repeated indices add up
    (r(4, 3), (slice(1, 3),), r(3)),            # c broadcast over the rows it was added to
    (r(4, 3), 1, r()),
]


@pytest.mark.parametrize("g, idx, c", GATHERS, ids=["repeated", "broadcast-rows", "number"])
def test_gather_cot_back_is_the_transpose_of_gather_cot(g, idx, c):
    h = r(*np.shape(c)) if np.ndim(c) else r()
    back = runtime_rules.gather_cot_back(h, g, idx, c)
    assert dot(runtime_rules.gather_cot(g, idx, c), h) == pytest.approx(dot(g, back), rel=1e-12)
    same(back, runtime_rules.transpose_linear(runtime_rules.gather_cot, 0, h, (g, idx, c)))


LIKES = [
    ((r(3), r(2, 2)), (r(3), r(2, 2)), "tuple"),
    ([r(), r(2)], [r(), r(2)], "list-of-a-number"),
    ({"w": r(1, 3), "b": r()}, {"w": r(2, 3), "b": r()}, "dict-broadcast"),
]


@pytest.mark.parametrize("c, x, kind", LIKES, ids=[k for _, _, k in LIKES])
def test_like_cot_of_containers_sums_leaf_by_leaf_as_the_general_transpose_does(c, x, kind):
    g = runtime.full(x, x) if not isinstance(x, dict) else {k: r(*np.shape(v)) for k, v in x.items()}
    fast = runtime_rules.like_cot(runtime.full, g, c, x)
    slow = runtime_rules.transpose_linear(runtime.full, 0, g, (c, x))
    same(fast, slow)
