"""Gradients over Dask arrays (issue 18 items 1 and 2): lazy, of Dask's type, equal to NumPy's.

Every rule case of tests/rule_cases.py with an array argument whose function
Dask runs lazily and correctly (its value equals NumPy's, and building it
computes nothing) is differentiated with its float arrays turned into Dask
arrays, with one of several chunkings. The gradient must be built without
computing anything (a Dask callback counts computations), be Dask arrays (a
float argument gets a 0-d Dask array), and equal NumPy's gradient to 1e-12
once computed. A few rules are known to compute part of their gradient or
to refuse lazy arrays: they are listed with the reason, and checked to do
exactly that.
"""

import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="Dask is an optional extra: pip install adsrc[dask]")
import dask  # noqa: E402
from dask.callbacks import Callback  # noqa: E402

import adsrc  # noqa: E402
from adsrc.arrays import NeedsValues  # noqa: E402
from adsrc.checks import check_grads  # noqa: E402

from rule_cases import CASES  # noqa: E402
from test_rules import _objective  # noqa: E402

CHUNKINGS = (1, 2, 3)        # a chunk of at most this many elements along every axis (3: often one chunk)

# the gradient is right, but Dask computes part of it while it is built
COMPUTES = {
    "einsum1[ii->i]": "einsum with a repeated index writes into a view of the diagonal",
    "einsum1[ii]": "einsum with a repeated index writes into a view of the diagonal",
    "einsum1[iij->ij]": "einsum with a repeated index writes into a view of the diagonal",
    "svd_full_matrices_leading_vectors[wide]": "svd's rule tests whether the extra columns' cotangent is zero",
    "pad_mean": "np.pad's mean mode adjoint scatters into a NumPy buffer",
    "pad_mean_stat_length[stat_length]": "np.pad's mean mode adjoint scatters into a NumPy buffer",
    "pad_mean_1d[1d]": "np.pad's mean mode adjoint scatters into a NumPy buffer",
}
# adsrc refuses: the rule needs the values (arrays.need_values)
NEEDS_VALUES = {
    "where_indices": "x[np.where(x > 0)] indexes by positions computed from the data",
    "reduce_op[median,axis=0]": "np.median sorts", "reduce_op[median,axis=1]": "np.median sorts",
    "reduce_op[median,axis=-1,keepdims]": "np.median sorts", "reduce_op[median,axis=(0,2)]": "np.median sorts",
    "quantiles": "np.quantile sorts", "percentile_axes_keepdims": "np.percentile sorts",
    "unique": "np.unique",
}
# Dask itself fails on the gradient's operations
DASK_FAILS = {
    "compress_extract": "np.extract's result has chunks of unknown size, which Dask cannot multiply",
    "atleast": "Dask's reshape takes no order=",
    "pad_constant[constant]": "Dask's pad of a NumPy cotangent", "pad_value[value]": "Dask's pad of a NumPy cotangent",
    "pad_mode[edge]": "Dask's pad of a NumPy cotangent", "pad_mode[reflect]": "Dask's pad of a NumPy cotangent",
    "pad_mode[symmetric]": "Dask's pad of a NumPy cotangent", "pad_mode[wrap]": "Dask's pad of a NumPy cotangent",
}


class Computations(Callback):
    """Counts the graphs Dask's local schedulers compute."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def _start(self, dsk):
        self.count += 1


def to_dask(a, chunk):
    if type(a) is np.ndarray and a.dtype.kind == "f":
        return da.from_array(a, chunks=tuple(min(chunk, max(s, 1)) for s in a.shape))
    return a


def _lazy_outputs(case, f, dargs):
    """The case's outputs and objective over Dask arrays, if Dask builds them lazily (else None)."""
    counter = Computations()
    with warnings.catch_warnings():
        warnings.simplefilter("error")         # Dask warns when it falls back to NumPy (computing)
        try:
            with counter:
                out, objective = case.fn(*dargs), f(*dargs)
        except Exception:
            return None
    outs = list(out) if case.tuple_output else [out]
    if counter.count or not all(isinstance(o, da.Array) for o in outs + [objective]):
        return None
    return outs


def _same(values, expected):
    return all(np.shape(v) == np.shape(e) and np.allclose(v, e, rtol=1e-12, atol=1e-12, equal_nan=True)
               for v, e in zip(values, expected))


def _variants():
    params = []
    for i, c in enumerate(CASES):
        if any(type(a) is np.ndarray and a.dtype.kind == "f" for a in c.args):
            params.append(pytest.param(c, CHUNKINGS[i % len(CHUNKINGS)], id=c.id))
    return params


CHECKED = []
SHARD_AS_ONE = True     # CI runs this file in one shard: the last test counts what the cases here checked


@pytest.fixture(scope="module", autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.mark.parametrize("case, chunk", _variants())
def test_dask_gradient_equals_numpy(case, chunk):
    k = 0 if case.tuple_output else None
    f = _objective(case.fn, len(case.args), k, 1.0)
    argnums = tuple(range(len(case.args)))
    dargs = [to_dask(a, chunk) for a in case.args]
    outs = _lazy_outputs(case, f, dargs)
    expected_outs = list(case.fn(*case.args)) if case.tuple_output else [case.fn(*case.args)]
    if outs is None:
        assert case.id not in COMPUTES and case.id not in NEEDS_VALUES and case.id not in DASK_FAILS
        return          # Dask does not run this function lazily: nothing to compare
    grad = adsrc.grad(f, argnums=argnums)
    if case.id in NEEDS_VALUES:
        with pytest.raises(NeedsValues, match="dask.array.core.Array"):
            grad(*dargs)
        return
    if case.id in DASK_FAILS:
        with pytest.raises(Exception):
            dask.compute(*grad(*dargs))
        return
    counter = Computations()
    with counter:
        got = grad(*dargs)
    if case.id in COMPUTES:
        assert counter.count > 0, f"{case.id} no longer computes: move it out of COMPUTES"
    else:
        assert counter.count == 0, "building the gradient computed a Dask graph"
    lazy = [g for g in got if isinstance(g, da.Array)]
    try:
        values = dask.compute(*outs, *lazy, optimize_graph=False)     # one computation for the case
    except Exception:
        try:
            dask.compute(*outs)
        except Exception:
            return          # Dask fails to compute the function itself (its np.select with a 2-d default)
        raise
    if not _same(values[:len(outs)], expected_outs):
        # every output, not only the objective: Dask's cholesky returns the upper factor (same sum)
        assert case.id not in COMPUTES and case.id not in NEEDS_VALUES and case.id not in DASK_FAILS
        return          # Dask computes something else than NumPy: nothing to compare
    computed = iter(values[len(outs):])
    expected = grad(*case.args)
    for g, a, e in zip(got, dargs, expected):
        if isinstance(a, float) and isinstance(g, float):
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)   # a float's gradient from constants
            continue
        assert isinstance(g, da.Array), f"a gradient of type {type(g).__name__}"     # a float's: 0-d, lazy
        assert g.shape == np.shape(e) and g.dtype == np.asarray(e).dtype
        np.testing.assert_allclose(next(computed), e, rtol=1e-12, atol=1e-12)
    CHECKED.append(case.id)


def test_enough_cases_checked_under_dask():
    """Most rule cases are Dask's to check (counted by the parametrized test, which pytest runs first
    in file order; run alone, this test runs those checks itself)."""
    if not CHECKED:
        for p in _variants():
            test_dask_gradient_equals_numpy(*p.values)
    assert len(set(CHECKED)) >= 370, len(set(CHECKED))


# -- laziness, chunkings, finite differences, errors -------------------------------------------------

def logistic(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-y * z))) + 0.01 * np.sum(w * w)


def _data(n=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=d) * 0.3, rng.normal(size=(n, d)), rng.choice([-1.0, 1.0], size=n)


@pytest.mark.parametrize("rows", [7, 20, 60])
def test_logistic_gradient_is_lazy_for_every_chunking(rows):
    w, X, y = _data()
    expected = adsrc.grad(logistic, argnums=(0, 1))(w, X, y)
    Xd = da.from_array(X, chunks=(rows, 2))
    yd = da.from_array(y, chunks=rows)
    wd = da.from_array(w, chunks=2)
    counter = Computations()
    with counter:
        dw, dX = adsrc.grad(logistic, argnums=(0, 1))(wd, Xd, yd)
    assert counter.count == 0
    assert isinstance(dw, da.Array) and isinstance(dX, da.Array)
    assert dX.chunks == Xd.chunks
    with counter:
        got = dask.compute(dw, dX)
    assert counter.count == 1          # one computation, when asked for
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)


def test_dask_gradient_matches_finite_differences():
    w, X, y = _data(n=20, d=3, seed=1)
    Xd = da.from_array(X, chunks=(6, 3))
    yd = da.from_array(y, chunks=6)
    g = adsrc.grad(logistic)(w, Xd, yd)          # NumPy w, Dask data: a Dask gradient
    assert isinstance(g, da.Array)
    check = check_grads(logistic, (w, X, y), rtol=1e-6, atol=1e-8, full=True)
    np.testing.assert_allclose(g.compute(), check, rtol=1e-12, atol=1e-12)


def test_float32_dask_gradient_keeps_its_dtype_and_type():
    w, X, y = _data()
    wd = da.from_array(w.astype(np.float32), chunks=2)
    Xd = da.from_array(X.astype(np.float32), chunks=(20, 4))
    dw = adsrc.grad(logistic)(wd, Xd, y.astype(np.float32))
    assert isinstance(dw, da.Array) and dw.dtype == np.float32
    expected = adsrc.grad(logistic)(w.astype(np.float32), X.astype(np.float32), y.astype(np.float32))
    np.testing.assert_allclose(dw.compute(), expected, rtol=1e-5)


def test_key_records_the_array_type():
    g = adsrc.grad(lambda x: np.sum(np.sin(x)))
    x = np.linspace(0.0, 1.0, 5)
    g(x)
    g(da.from_array(x, chunks=2))
    g(da.from_array(x, chunks=5))
    info = g.cache_info()
    assert info.misses == 2 and info.hits == 1     # one specialization per array type, not per chunking


def test_loops_and_branches_over_dask_arrays():
    def f(W, xs):
        h = np.zeros(W.shape[0])
        for t in range(xs.shape[0]):
            h = np.tanh(W @ xs[t] + h)
        return np.sum(h * h) if xs.shape[0] > 1 else np.sum(h)

    rng = np.random.default_rng(3)
    W, xs = rng.normal(size=(3, 2)) * 0.5, rng.normal(size=(4, 2))
    expected = adsrc.grad(f)(W, xs)
    counter = Computations()
    with counter:
        got = adsrc.grad(f)(da.from_array(W, chunks=(2, 1)), da.from_array(xs, chunks=(2, 2)))
    assert counter.count == 0 and isinstance(got, da.Array)
    np.testing.assert_allclose(got.compute(), expected, rtol=1e-12, atol=1e-12)


def test_boolean_mask_of_lazy_data_is_refused_naming_rule_and_type():
    def f(x):
        return np.sum(x[x > 0] ** 2)

    x = da.from_array(np.array([0.5, -0.2, 0.3]), chunks=2)
    with pytest.raises(NeedsValues) as info:
        adsrc.grad(f)(x)
    message = str(info.value)
    assert "dask.array.core.Array" in message and "indexing by an array" in message
    assert "np.where(mask, x, 0.0)" in message


def test_sort_of_lazy_data_is_refused_naming_rule_and_type():
    x = da.from_array(np.array([0.5, -0.2, 0.3]), chunks=2)
    with pytest.raises(NeedsValues, match=r"np\.sort .*dask\.array\.core\.Array"):
        adsrc.grad(lambda v: np.sum(np.sort(v) * np.arange(3.0)))(x)
