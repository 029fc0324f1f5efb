"""Rules outside the NumPy tables checked by test_rules.py: np.r_[...] / np.c_[...], the operator
module, dict(...), d.get and sorted. Each case is checked against central finite differences in
every coordinate (tests/rulecheck.py); every such rule has a case; and the three silent wrong
gradients of issue 13 (np.r_/np.c_, einsum's sublist form, np.std over an axis of length 1) have
regression tests with their values worked out by hand."""

import operator

import numpy as np
import pytest

import adsrc
from adsrc import rules
from rule_cases_more import OTHER_CASES
from casekit import central_grad
from rulecheck import check_case, variants


@pytest.mark.parametrize("case, k, W", variants(OTHER_CASES))
def test_rule_matches_finite_differences(case, k, W):
    check_case(case, k, W)


def test_every_operator_dict_sorted_and_subscript_rule_has_a_case():
    covered = {name for c in OTHER_CASES for name in c.rules}
    names = {r.listing for fn, r in rules.FUNCTIONS.items()
             if not r.nondiff and (getattr(fn, "__module__", None) in ("_operator", "operator")
                                   or fn in (dict, sorted))}
    names |= {rule.name for _, rule in rules.numpy_more.SUBSCRIPTS.values()}
    names.add(".get()")
    assert {"operator.add", "operator.getitem", "dict", "sorted", "np.r_[...]", "np.c_[...]"} <= names
    assert not sorted(names - covered), f"rules without a finite-difference case: {sorted(names - covered)}"


# -- the silent wrong gradients of issue 13 ---------------------------------------------------------------------

def r_concat(x):
    return np.sum(np.r_[x, 2.0 * x, 0:2] ** 2)


def c_concat(x):
    return np.sum(np.c_[x, x] * np.array([[1.0, 2.0]]))


def test_r_and_c_are_not_a_zero_gradient():
    x = np.array([1.0, -2.0, 0.5])
    # sum(x^2) + sum(4 x^2) + const: 10 x
    assert np.allclose(adsrc.grad(r_concat)(x), 10.0 * x)
    # each x_i appears in column 0 (weight 1) and column 1 (weight 2)
    assert np.allclose(adsrc.grad(c_concat)(x), 3.0)


def einsum_transpose(a):
    return np.sum(np.einsum(a, [0, 1], [1, 0]) * np.arange(6.0).reshape(3, 2))


def einsum_sublists(a, b):
    return np.sum(np.einsum(a, [0, 1], b, [1, 2], [0, 2]))


def test_einsum_sublist_form_is_not_a_zero_gradient():
    a = np.arange(6.0).reshape(2, 3) / 3.0
    w = np.arange(6.0).reshape(3, 2)
    assert np.allclose(adsrc.grad(einsum_transpose)(a), w.T)
    b = np.array([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]])
    da, db = adsrc.grad(einsum_sublists, argnums=(0, 1))(a, b)
    # sum_ijk a_ij b_jk: d/da_ij = sum_k b_jk, d/db_jk = sum_i a_ij
    assert np.allclose(da, np.broadcast_to(b.sum(axis=1), (2, 3)))
    assert np.allclose(db, np.broadcast_to(a.sum(axis=0)[:, None], (3, 2)))


def batch_norm(x):
    mu = np.mean(x, axis=0)
    sd = np.std(x, axis=0)
    return np.sum((x - mu) / (sd + 1e-3) + sd)


def test_std_over_an_axis_of_length_one_has_gradient_zero():
    x = np.array([[0.3, -1.2, 2.0]])       # a batch of one: x - mu = 0 and sd = 0 whatever x is
    g = adsrc.grad(batch_norm)(x)
    assert not np.any(np.isnan(g)), g
    assert np.array_equal(g, np.zeros_like(x))
    y = np.array([[0.3, -1.2, 2.0], [0.1, 0.4, 1.0]])
    adsrc.check_grads(batch_norm, (y,), full=True)


# -- d.get shares its value with the dict: an in-place change is seen through the dict ------------------------------

def get_then_update(d):
    w = d.get("w")
    w += 1.0
    return np.sum(w * d["w"])


def getitem_then_update(a):
    w = operator.getitem(a, 0)
    w += 1.0
    return np.sum(w * a[0])


def test_get_and_getitem_results_share_their_container():
    # w += 1 changes d["w"] (a[0]) too: the loss is sum((w + 1) ** 2), gradient 2 (w + 1)
    d = {"w": np.array([1.0, 2.0])}
    np.testing.assert_allclose(adsrc.grad(get_then_update)(d)["w"], 2 * (d["w"] + 1), rtol=1e-12)
    assert np.array_equal(d["w"], [1.0, 2.0])            # the caller's dict is not changed
    a = np.array([[1.0, 2.0]])
    np.testing.assert_allclose(adsrc.grad(getitem_then_update)(a), 2 * (a + 1), rtol=1e-12)
    assert np.array_equal(a, [[1.0, 2.0]])


def list_then_update(t):
    lst = list(t)
    w = lst[0]
    w += 1.0
    return np.sum(w * t[0])


def tuple_then_update(t):
    w = tuple(t)[0]
    w += 1.0
    return np.sum(w * t[0])


def test_list_and_tuple_of_a_container_hold_its_arrays():
    # list(t) is a new list of the same arrays: w += 1 changes t[0] too (it once silently gave 2 w + 1)
    t = (np.array([1.0, 2.0]), np.array([3.0]))
    for fn in (list_then_update, tuple_then_update):
        g = adsrc.grad(fn)(t)
        np.testing.assert_allclose(g[0], 2 * (t[0] + 1), rtol=1e-12)
        np.testing.assert_allclose(g[1], [0.0])
        assert np.array_equal(t[0], [1.0, 2.0])


def spacing_differentiated(h, y):
    return np.sum(np.gradient(y, h) ** 2)


def test_np_gradient_with_a_differentiated_spacing_is_refused_not_dropped():
    # its derivative with respect to the spacing was silently zero
    y = np.array([0.1, 0.5, 0.4, 1.3])
    with pytest.raises(adsrc.TransformError, match="no derivative with respect to its argument `varargs`"):
        adsrc.grad(spacing_differentiated)(0.3, y)
    with pytest.raises(adsrc.TransformError, match="no derivative with respect to its argument `varargs`"):
        adsrc.jvp(spacing_differentiated, (0.3, y), (1.0, None))
    g = adsrc.grad(spacing_differentiated, argnums=1)(0.3, y)        # the spacing held constant is fine
    np.testing.assert_allclose(g, central_grad(lambda v: spacing_differentiated(0.3, v), y), rtol=1e-6)


def _sparse_logistic(w, Xs, y):
    return np.mean(np.log1p(np.exp(-y * (Xs @ w))))


def test_a_sparse_data_matrix_times_the_differentiated_vector():
    # matmul's cotangent took np.matmul of the sparse matrix (it crashed)
    sparse = pytest.importorskip("scipy.sparse")
    X = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])
    w, y = np.array([0.1, -0.2, 0.3]), np.array([1.0, -1.0])
    g = adsrc.grad(_sparse_logistic)(w, sparse.csr_matrix(X), y)
    np.testing.assert_allclose(g, central_grad(lambda v: _sparse_logistic(v, X, y), w), rtol=1e-7, atol=1e-9)
