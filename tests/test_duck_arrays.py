"""Duck arrays through NumPy's protocols (issue 18 item 1), with a small array type of our own.

`Boxed` wraps a NumPy array and implements __array_ufunc__ and
__array_function__ by unwrapping, calling NumPy and wrapping again, as CuPy
or another eager library would. Gradients must come back as Boxed arrays of
the input's shape and dtype, agree with finite differences, and the
specialization key must record the type. Array types without the protocols
are refused with a message naming the type and what works.
"""

import numpy as np
import pytest

import adsrc
from adsrc.checks import check_grads


class Boxed(np.lib.mixins.NDArrayOperatorsMixin):
    """An eager array of another library (a NumPy array inside)."""

    def __init__(self, a):
        self.a = np.asarray(a)

    shape = property(lambda self: self.a.shape)
    dtype = property(lambda self: self.a.dtype)
    ndim = property(lambda self: self.a.ndim)
    size = property(lambda self: self.a.size)
    T = property(lambda self: Boxed(self.a.T))

    def __array__(self, dtype=None, copy=None):
        raise AssertionError("adsrc converted a duck array to NumPy")

    def __getitem__(self, idx):
        return Boxed(self.a[_unbox(idx)])

    def __setitem__(self, idx, v):
        self.a[_unbox(idx)] = _unbox(v)

    def __len__(self):
        return len(self.a)

    def copy(self):
        return Boxed(self.a.copy())

    def astype(self, dtype):
        return Boxed(self.a.astype(dtype))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _box(getattr(ufunc, method)(*_unbox(inputs), **_unbox(kwargs)))

    def __array_function__(self, func, types, args, kwargs):
        return _box(func(*_unbox(args), **_unbox(kwargs)))


def _unbox(v):
    if isinstance(v, Boxed):
        return v.a
    if isinstance(v, (list, tuple)):
        return type(v)(_unbox(e) for e in v)
    if isinstance(v, dict):
        return {k: _unbox(e) for k, e in v.items()}
    return v


def _box(v):
    if isinstance(v, np.ndarray):
        return Boxed(v)
    if isinstance(v, (list, tuple)):
        return type(v)(_box(e) for e in v)
    return v


def logistic(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-y * z))) + 0.01 * np.sum(w * w)


def mixed(x, W):
    h = np.tanh(W @ x[:, None] + x[None, :2].T)      # broadcasting, new axes, transposes
    s = 0.0
    for i in range(h.shape[0]):
        s = s + np.sum(h[i] ** 2) * np.max(x)
    return s + np.sum(np.concatenate([x, x[::-1]]) * np.arange(6.0))


def _fd(f, args, argnums):
    return check_grads(f, args, argnums=argnums, rtol=1e-6, atol=1e-8, full=True)


def test_gradients_are_of_the_duck_type_and_match_finite_differences():
    rng = np.random.default_rng(0)
    w, X, y = rng.normal(size=3) * 0.3, rng.normal(size=(8, 3)), rng.choice([-1.0, 1.0], size=8)
    dw, dX = adsrc.grad(logistic, argnums=(0, 1))(Boxed(w), Boxed(X), Boxed(y))
    assert type(dw) is Boxed and type(dX) is Boxed
    assert dw.shape == w.shape and dX.shape == X.shape and dw.dtype == w.dtype
    expected = _fd(logistic, (w, X, y), (0, 1))
    np.testing.assert_allclose(dw.a, expected[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dX.a, expected[1], rtol=1e-12, atol=1e-12)


def test_indexing_loops_and_concatenation_on_duck_arrays():
    rng = np.random.default_rng(1)
    x, W = rng.normal(size=3), rng.normal(size=(2, 3)) * 0.5
    dx, dW = adsrc.grad(mixed, argnums=(0, 1))(Boxed(x), Boxed(W))
    assert type(dx) is Boxed and type(dW) is Boxed
    expected = _fd(mixed, (x, W), (0, 1))
    np.testing.assert_allclose(dx.a, expected[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dW.a, expected[1], rtol=1e-12, atol=1e-12)


def test_repeated_integer_indices_accumulate_on_duck_arrays():
    def f(x):
        idx = np.array([0, 2, 2, 1, 2])
        return np.sum(x[idx] ** 2 * np.arange(1.0, 6.0))

    x = np.array([0.3, -0.7, 1.1])
    dx = adsrc.grad(f)(Boxed(x))
    assert type(dx) is Boxed
    np.testing.assert_allclose(dx.a, _fd(f, (x,), 0), rtol=1e-12, atol=1e-12)


def test_float32_duck_gradient_keeps_dtype():
    x = np.linspace(0.1, 1.0, 4).astype(np.float32)
    dx = adsrc.grad(lambda v: np.sum(np.sin(v) * v))(Boxed(x))
    assert type(dx) is Boxed and dx.dtype == np.float32


def test_specialization_key_records_the_array_type():
    g = adsrc.grad(lambda v: np.sum(v * v))
    x = np.arange(3.0)
    g(x)
    g(Boxed(x))
    g(Boxed(x + 1.0))
    info = g.cache_info()
    assert info.misses == 2 and info.hits == 1
    assert "Boxed" in repr(g._cache._data.keys())


def test_integer_duck_array_is_refused_like_an_integer_array():
    with pytest.raises(TypeError, match="x.astype\\(float\\)"):
        adsrc.grad(lambda v: np.sum(v * v))(Boxed(np.arange(3)))


class ApiOnly:
    """An array of the array API standard without NumPy's protocols (as array_api_strict's, torch's)."""

    shape = (3,)
    dtype = np.dtype(np.float64)

    def __array_namespace__(self, api_version=None):
        return None


def test_array_without_protocols_is_refused_naming_its_type_and_what_works():
    with pytest.raises(TypeError) as info:
        adsrc.grad(lambda v: np.sum(v))(ApiOnly())
    message = str(info.value)
    assert "test_duck_arrays.ApiOnly" in message
    assert "__array_function__ and __array_ufunc__" in message and "Dask, CuPy" in message
    assert "not supported yet" in message


def test_array_api_strict_arrays_are_accepted():
    # array-API arrays are differentiated since issue 18 item 3 (tests/test_array_api.py checks the gradients)
    xps = pytest.importorskip("array_api_strict", reason="array-api-strict is in the test extra")
    from adsrc import kinds
    assert kinds.arg_kind(xps.asarray([1.0, 2.0]), "f", "v") == ("duck", type(xps.asarray([1.0])))
