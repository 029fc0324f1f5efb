"""backend="numba": gradients compiled with numba agree with the NumPy backend and with finite differences,
compile once per signature (never per loop length), and refuse loudly what they cannot compile."""

import copy
import importlib
import sys

import numpy as np
import pytest

import adsrc
from casekit import _same, central_grad

numba = pytest.importorskip("numba")

from adsrc.numba_backend.kernel import BackendError  # noqa: E402  (needs numba)

RTOL, ATOL = 1e-9, 1e-12        # the same formulas in both backends: only the order of sums differs
CASE_FILES = ["cases_core", "cases_control", "cases_ordinary", "cases_programs", "cases_changes", "cases_methods",
              "cases_nested", "cases_passed", "cases_numpy_written", "cases_python_features", "cases_try",
              "cases_syntax", "cases_composed"]
CASES = [c for m in CASE_FILES for c in importlib.import_module(m).CASES]
OUTCOMES = []


def _leaves(g):
    return list(g) if isinstance(g, tuple) else [g]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case_files_agree_with_the_numpy_backend(case):
    expected = adsrc.grad(case.fn, case.argnums)(*case.args, **case.kwargs)
    before = copy.deepcopy(case.args)
    try:
        got = adsrc.grad(case.fn, case.argnums, backend="numba")(*case.args, **case.kwargs)
    except BackendError as e:
        OUTCOMES.append("refused")
        text = str(e)
        assert "at " in text and "backend='numpy'" in text, text      # where, and what to do instead
        return
    OUTCOMES.append("compiled")
    for a, b in zip(case.args, before):
        assert _same(a, b), "an input was changed"
    for g, e in zip(_leaves(got), _leaves(expected)):
        assert type(g) is type(e)
        assert not np.any(np.isnan(g)) and not np.any(np.isnan(e))
        np.testing.assert_allclose(g, e, rtol=RTOL, atol=ATOL)


def test_enough_of_the_case_files_compile():
    # over the cases the test above ran in this process: all of them, or CI's share (ADSRC_TEST_SHARD)
    if len(OUTCOMES) < 40:
        pytest.skip("needs the parametrized test above (40 of its cases or more) in the same run")
    # about 0.37 of the 487 cases compile; a CI shard of about 120 of them varies by about 0.05 either way
    # (one had 40 of 122 compiled, 0.33), so the bar is below that: it catches a backend that compiles few
    assert OUTCOMES.count("compiled") >= 0.25 * len(OUTCOMES)


# -- workloads, checked against central differences ---------------------------------------------

def scalar_loop(x):
    s = 0.0
    for i in range(100):
        s += np.sin(x * i)
    return s


def while_loop(x):
    s = x
    while s < 100.0:
        s = s * 1.5 + np.sin(s)
    return s


def rnn(W, U, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h * h)


def loop_of_length(x, n):
    s = x
    for i in range(n):
        s = s * np.cos(s) + 0.1 * i
    return s


def layer(W, h):
    return np.tanh(W @ h)


def two_layers(W, x):
    return np.sum(layer(W, layer(W, x)) ** 2)


def with_aux(x):
    y = np.sin(x)
    return np.sum(y * y), y


def _fd(f, x):
    return central_grad(f, x)


@pytest.mark.parametrize("fn, x", [(scalar_loop, 0.3), (while_loop, 1.3), (while_loop, 7.0)])
def test_scalar_loops_match_finite_differences(fn, x):
    g = adsrc.grad(fn, backend="numba")(x)
    assert type(g) is float
    np.testing.assert_allclose(g, _fd(fn, x), rtol=1e-6, atol=1e-8)


def test_rnn_matches_finite_differences():
    r = np.random.default_rng(1)
    W, U, xs, h0 = r.normal(size=(4, 4)) * 0.5, r.normal(size=(4, 3)), r.normal(size=(6, 3)), r.normal(size=4)
    gW, gU = adsrc.grad(rnn, argnums=(0, 1), backend="numba")(W, U, xs, h0)
    np.testing.assert_allclose(gW, _fd(lambda w: rnn(w, U, xs, h0), W), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gU, _fd(lambda u: rnn(W, u, xs, h0), U), rtol=1e-6, atol=1e-8)


def test_calls_to_other_functions_are_compiled_too():
    r = np.random.default_rng(2)
    W, x = r.normal(size=(3, 3)), r.normal(size=3)
    g = adsrc.grad(two_layers, backend="numba")
    np.testing.assert_allclose(g(W, x), _fd(lambda w: two_layers(w, x), W), rtol=1e-6, atol=1e-8)
    assert g.source().count("@numba.njit") == 5     # the gradient, and vjp and pullback of each call's unit


def test_one_compilation_serves_every_loop_length():
    g = adsrc.grad(loop_of_length, backend="numba")
    for n in (1, 5, 17, 50):
        np.testing.assert_allclose(g(0.4, n), _fd(lambda x: loop_of_length(x, n), 0.4), rtol=1e-6, atol=1e-8)
    assert g.cache_info().misses == 1
    kernel = g._data[next(iter(g._data))][0].__globals__["loop_of_length_grad_kernel"]
    assert len(kernel.signatures) == 1           # (float64, int64): the length is not part of it


def test_a_new_dtype_or_rank_is_a_new_signature_of_the_same_code():
    g = adsrc.grad(lambda x: np.sum(np.tanh(x) ** 2), backend="numba")
    for x in (np.linspace(0, 1, 4), np.linspace(0, 1, 6).reshape(2, 3), np.linspace(0, 1, 3).astype(np.float32)):
        got = g(x)
        assert got.dtype == x.dtype and got.shape == x.shape
        np.testing.assert_allclose(got, 2 * np.tanh(x) / np.cosh(x) ** 2, rtol=1e-5)
    assert g.cache_info().misses == 1


def test_value_and_grad_and_has_aux():
    x = np.array([0.2, -0.7, 1.1])
    value, grad = adsrc.value_and_grad(scalar_loop, backend="numba")(0.3)
    assert value == pytest.approx(scalar_loop(0.3), rel=1e-12) and type(grad) is float
    (g, aux) = adsrc.grad(with_aux, has_aux=True, backend="numba")(x)
    np.testing.assert_allclose(aux, np.sin(x), rtol=1e-12)
    np.testing.assert_allclose(g, 2 * np.sin(x) * np.cos(x), rtol=1e-12)


def test_the_source_is_what_numba_compiles():
    g = adsrc.grad(while_loop, backend="numba")
    text = g.source()
    assert "@numba.njit\ndef while_loop_grad_kernel(x):" in text
    assert "for k in range(len(tape) - 1, -1, -1):" in text
    assert "# line " in text                       # the user's lines, as in the NumPy backend


# -- refusals -------------------------------------------------------------------------------------

def sorts(x):
    return np.sum(np.array(sorted([x[0], x[1]])))


def float_or_array(x, flag):
    v = 0.0
    if flag > 0:
        v = x * 2.0
    return np.sum(v * x)            # v is a float on one path and an array on the other


def test_a_helper_without_a_numba_version_is_refused_naming_the_line():
    with pytest.raises(BackendError, match=r"(?s)cannot compile.*test_numba_backend.py:\d+: .*backend='numpy'"):
        adsrc.grad(sorts, backend="numba")(np.array([0.3, 0.1]))


def test_a_name_holding_a_float_or_an_array_is_refused_naming_the_line():
    with pytest.raises(BackendError, match=r"(?s)test_numba_backend.py:\d+: .*numba: .*unify"):
        adsrc.grad(float_or_array, backend="numba")(np.array([0.3, 0.1]), 1.0)


def test_backend_names_are_checked_and_compiled_gradients_are_not_differentiated_again():
    with pytest.raises(ValueError, match="backend must be one of 'numpy', 'numba'"):
        adsrc.grad(scalar_loop, backend="jax")
    inner = adsrc.grad(scalar_loop, backend="numba")
    with pytest.raises(Exception, match="backend='numba'.*higher order"):
        adsrc.grad(lambda x: inner(x) * x)(0.3)


def relaxation(x):
    s = x
    for i in range(20):
        s = np.sin(s) * 0.9 + x * 0.1
    return s


def test_vjp_compiled_with_numba():
    r = np.random.default_rng(3)
    W, x, ct = r.normal(size=(2, 3)), r.normal(size=3), r.normal(size=2)
    out, pullback = adsrc.vjp(layer, W, x, backend="numba")
    np.testing.assert_allclose(out, layer(W, x), rtol=1e-12)
    gW, gx = pullback(ct)
    np.testing.assert_allclose(gW, _fd(lambda w: ct @ layer(w, x), W), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gx, _fd(lambda v: ct @ layer(W, v), x), rtol=1e-6, atol=1e-8)
    value, pullback = adsrc.vjp(relaxation, 0.3, backend="numba")
    (g,) = pullback(1.0)
    assert value == pytest.approx(relaxation(0.3), rel=1e-12) and type(g) is float
    np.testing.assert_allclose(g, _fd(relaxation, 0.3), rtol=1e-6, atol=1e-8)


def test_auto_compiles_what_numba_can_and_runs_the_rest_with_numpy(caplog):
    x = np.array([0.3, 0.1])
    with caplog.at_level("DEBUG", logger="adsrc"):
        np.testing.assert_allclose(adsrc.grad(sorts, backend="auto")(x), [1.0, 1.0], rtol=1e-12)
        np.testing.assert_allclose(adsrc.grad(float_or_array, backend="auto")(x, 1.0), 4 * x, rtol=1e-12)
    refused = [r.getMessage() for r in caplog.records if "backend='auto'" in r.getMessage()]
    assert len(refused) == 2 and "sorted" in refused[0] and "no version of it" in refused[0] and "unify" in refused[1]
    caplog.clear()
    g = adsrc.grad(while_loop, backend="auto")
    with caplog.at_level("DEBUG", logger="adsrc"):
        np.testing.assert_allclose(g(1.3), _fd(while_loop, 1.3), rtol=1e-6, atol=1e-8)
    assert not [r for r in caplog.records if "backend='auto'" in r.getMessage()] and "@numba.njit" in g.source()


def through_float32(x):
    return np.sum(np.sin(x.astype(np.float32)) * 2.0)


def test_astype_to_another_float_dtype():
    x = np.linspace(0.5, 2.5, 3)
    got = adsrc.grad(through_float32, backend="numba")(x)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, 2.0 * np.cos(x), rtol=1e-6)      # float32 arithmetic inside
    np.testing.assert_allclose(got, adsrc.grad(through_float32)(x), rtol=1e-6)


def sine_layer(W, h):
    return np.sin(W @ h)


def test_rebinding_a_called_function_transforms_again(monkeypatch):
    import sys
    r = np.random.default_rng(4)
    W, x = r.normal(size=(3, 3)), r.normal(size=3)
    g = adsrc.grad(two_layers, backend="numba")
    np.testing.assert_allclose(g(W, x), _fd(lambda w: two_layers(w, x), W), rtol=1e-6, atol=1e-8)
    assert g.source().count("@numba.njit\ndef layer_vjp(") == 1 and "np.tanh" in g.source()   # each unit once
    monkeypatch.setattr(sys.modules[__name__], "layer", sine_layer)     # the guards see the rebinding
    np.testing.assert_allclose(g(W, x), _fd(lambda w: two_layers(w, x), W), rtol=1e-6, atol=1e-8)
    assert "np.sin" in g.source() and "@numba.njit\ndef sine_layer_vjp" in g.source()
    assert g.cache_info().misses == 2


# -- globals and closure values are read when the gradient runs (numba would freeze them) -----------

SCALE = np.array([1.0, 2.0, 3.0])
GAIN = 2.0


def scaled(x):
    return np.sum(np.sin(SCALE * x)) * GAIN


def calls_scaled(x):
    SCALE = 0.5                 # a local of the caller: the callee's global keeps its own name's value
    return scaled(x) * SCALE


@pytest.mark.parametrize("fn", [scaled, calls_scaled])
def test_globals_changed_in_place_or_rebound_are_read_when_the_gradient_runs(fn, monkeypatch):
    x = np.array([0.3, -0.2, 0.7])
    g = adsrc.grad(fn, backend="numba")
    np.testing.assert_allclose(g(x), _fd(fn, x), rtol=1e-6, atol=1e-8)
    saved = SCALE.copy()
    try:
        SCALE[0] = 5.0                                      # in place
        np.testing.assert_allclose(g(x), _fd(fn, x), rtol=1e-6, atol=1e-8)
    finally:
        SCALE[:] = saved
    monkeypatch.setattr(sys.modules[__name__], "SCALE", np.array([-1.0, 0.5, 4.0]))     # rebound
    monkeypatch.setattr(sys.modules[__name__], "GAIN", -3.0)
    np.testing.assert_allclose(g(x), _fd(fn, x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g(x), adsrc.grad(fn)(x), rtol=RTOL, atol=ATOL)
    assert g.cache_info().misses == 1


def test_closure_values_are_read_when_the_gradient_runs():
    w = np.array([1.0, -2.0])

    def f(x):
        return np.sum(np.tanh(w * x))
    g = adsrc.grad(f, backend="numba")
    x = np.array([0.4, 0.1])
    np.testing.assert_allclose(g(x), _fd(f, x), rtol=1e-6, atol=1e-8)
    w = np.array([3.0, 0.5])       # noqa: F841  (f reads the new value)
    np.testing.assert_allclose(g(x), _fd(f, x), rtol=1e-6, atol=1e-8)
    assert "cell_w.cell_contents" in g.source()


# -- matrix products by loops (products.py) and the in-place sums of weights' cotangents -------------

def sin_of_product(a, b):
    return np.sum(np.sin(a @ b))


PRODUCT_SHAPES = [((3, 4), (4,)), ((4,), (4, 3)), ((5,), (5,)), ((3, 4), (4, 2)), ((70, 70), (70, 70)),
                  ((1, 4), (4, 1))]


PRODUCT_CASES = [(sa, sb, dtype) for dtype in (np.float64, np.float32) for sa, sb in PRODUCT_SHAPES]


@pytest.mark.parametrize("sa, sb, dtype", PRODUCT_CASES,
                         ids=[f"{a}@{b}-{d.__name__}" for a, b, d in PRODUCT_CASES])
def test_products_agree_with_numpy_and_finite_differences(sa, sb, dtype):
    r = np.random.default_rng(6)
    a, b = r.normal(size=sa).astype(dtype), r.normal(size=sb).astype(dtype)
    g = adsrc.grad(sin_of_product, argnums=(0, 1), backend="numba")
    got, expected = g(a, b), adsrc.grad(sin_of_product, argnums=(0, 1))(a, b)
    rtol = 1e-9 if dtype == np.float64 else 1e-4
    for x, e in zip(got, expected):
        assert x.dtype == e.dtype and x.shape == e.shape and not np.any(np.isnan(x))
        # float32 sums of 70 products cancel to values far below their terms: atol from the largest
        np.testing.assert_allclose(x, e, rtol=rtol, atol=rtol * 1e-2 * max(1.0, float(np.abs(e).max())))
    if dtype == np.float64 and a.size * b.size < 1000:
        np.testing.assert_allclose(got[0], _fd(lambda u: sin_of_product(u, b), a), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(got[1], _fd(lambda v: sin_of_product(a, v), b), rtol=1e-6, atol=1e-8)


def test_a_product_of_mismatched_shapes_raises_as_numpy_does():
    g = adsrc.grad(sin_of_product, backend="numba")
    for a, b in [(np.ones((3, 4)), np.ones(5)), (np.ones(3), np.ones((4, 2))), (np.ones(3), np.ones(4)),
                 (np.ones((2, 3)), np.ones((4, 2)))]:
        with pytest.raises(ValueError):
            g(a, b)


def row_rnn(W, xs):
    h = np.zeros(W.shape[0])
    for x in xs:
        h = np.tanh(h @ W + x)          # a row vector times a matrix: W's cotangent is outer(h, g)
    return np.sum(h ** 2)


def test_weights_cotangents_summed_in_place_over_a_loop():
    r = np.random.default_rng(7)
    W, xs = r.normal(size=(4, 4)) * 0.5, r.normal(size=(7, 4))
    g = adsrc.grad(row_rnn, backend="numba")
    assert "dW = add_matmul_dy(dW, " in g.source()
    np.testing.assert_allclose(g(W, xs), _fd(lambda w: row_rnn(w, xs), W), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g(W, xs), adsrc.grad(row_rnn)(W, xs), rtol=RTOL, atol=ATOL)
    src = adsrc.grad(rnn, backend="numba").source()
    code = [ln for ln in src.splitlines() if not ln.lstrip().startswith("#")]
    assert any("add_matmul_dx(" in ln for ln in code) and any("mat_product(" in ln for ln in code)
    assert not any(" @ " in ln for ln in code)


def test_a_tape_keeps_only_the_shapes_of_arrays_read_for_their_shapes():
    src = adsrc.grad(rnn, argnums=(0, 1), backend="numba")
    W, U, xs, h0 = np.eye(3) * 0.5, np.ones((3, 2)), np.ones((4, 2)), np.zeros(3)
    src(W, U, xs, h0)
    assert "only_shape(" in src.source()      # a view of one element, broadcast: no buffer on the tape


# -- rules' helpers with numba versions: outer, cumsum, prod (with a zero), sort -----------------------

def outer_sin(x, y):
    return np.sum(np.sin(np.outer(x, y)))


def cumsum_squares(x):
    return np.sum(np.cumsum(x) ** 2)


def doubled_prod(x):
    return np.prod(x) * 2.0


def weighted_sort(x):
    return np.sum(np.sort(x) * np.arange(x.size))


def doubled_norm(x):
    return np.linalg.norm(x) * 2.0      # a rule written for real values only: real_only(...) checks them


HELPER_CASES = [(doubled_norm, (np.array([0.3, -1.2, 0.5]),), "real_only"),
                (doubled_norm, (np.array([[0.3, -1.2], [0.5, 2.0]]),), "norm_vjp"),
                (outer_sin, (np.array([0.3, -1.2, 0.5]), np.array([0.7, 0.1])), "outer_dx"),
                (cumsum_squares, (np.array([0.3, -1.2, 0.5, 2.0]),), "cumsum_vjp"),
                (cumsum_squares, (np.array([[0.3, -1.2], [0.5, 2.0]]),), "cumsum_vjp"),
                (doubled_prod, (np.array([0.3, -1.2, 0.5, 2.0]),), "prod_vjp"),
                (doubled_prod, (np.array([0.3, 0.0, 0.5, 2.0]),), "prod_vjp"),
                (weighted_sort, (np.array([0.3, -1.2, 0.5, 2.0]),), "sort_vjp")]


@pytest.mark.parametrize("fn, args, helper", HELPER_CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_rule_helpers_with_numba_versions(fn, args, helper):
    g = adsrc.grad(fn, backend="numba")
    got = g(*args)
    assert f"{helper}(" in g.source()
    np.testing.assert_allclose(got, adsrc.grad(fn)(*args), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(got, _fd(lambda a: fn(a, *args[1:]), args[0]), rtol=1e-6, atol=1e-8)


def np_matmul_loss(W, x):
    return np.sum(np.tanh(np.matmul(W, x)))


def test_np_matmul_is_computed_as_the_at_operator():
    r = np.random.default_rng(8)
    W, x = r.normal(size=(3, 4)), r.normal(size=4)
    g = adsrc.grad(np_matmul_loss, backend="numba")
    np.testing.assert_allclose(g(W, x), _fd(lambda w: np_matmul_loss(w, x), W), rtol=1e-6, atol=1e-8)
    assert "mat_product(W, x)" in g.source()


SETTINGS = {"scale": 2.0}


def reads_a_dict(x):
    return np.sum(x * SETTINGS["scale"])


def test_a_global_numba_cannot_take_is_refused_naming_the_line_that_reads_it():
    with pytest.raises(BackendError) as info:
        adsrc.grad(reads_a_dict, backend="numba")(np.ones(2))
    text = str(info.value)
    assert 'SETTINGS["scale"]' in text and "`SETTINGS`" in text and "dict" in text and "backend='numpy'" in text


def matrices_in_a_loop(A, B, n):
    s = 0.0
    for k in range(n):
        s = s + np.sum(np.sin(A @ B) * k)
    return s


def test_matrix_products_cotangents_summed_over_a_loop():
    r = np.random.default_rng(9)
    A, B = r.normal(size=(3, 4)), r.normal(size=(4, 2))
    g = adsrc.grad(matrices_in_a_loop, argnums=(0, 1), backend="numba")
    gA, gB = g(A, B, 4)
    assert "dA = add_matmul_dx(dA, " in g.source() and "dB = add_matmul_dy(dB, " in g.source()
    np.testing.assert_allclose(gA, _fd(lambda a: matrices_in_a_loop(a, B, 4), A), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gB, _fd(lambda b: matrices_in_a_loop(A, b, 4), B), rtol=1e-6, atol=1e-8)
