"""Functions written against the array API standard (`xp = array_namespace(x)`, `x.__array_namespace__()`).

Every gradient is compared with central finite differences, for each array library: array_api_strict
(only the standard: anything else fails), NumPy through array_api_compat, and PyTorch and CuPy through
array_api_compat when installed (skipped, with the reason, when not). Gradients come back in the
argument's array type.
"""

import numpy as np
import pytest

import adsrc
from adsrc.errors import TransformError
from adsrc.xp import names

import xp_cases

xps = pytest.importorskip("array_api_strict", reason="array-api-strict is not installed (pip install adsrc[test])")
array_api_compat = pytest.importorskip("array_api_compat", reason="array-api-compat is not installed")

RTOL, ATOL = 1e-6, 1e-8


def _torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed here: its tests need it")
    return torch


def _cupy():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed here: its tests need it (and a GPU)")
    return cupy


class Library:
    def __init__(self, name):
        self.name = name

    def array(self, a):
        a = np.asarray(a, dtype=np.float64)
        if self.name == "strict":
            return xps.asarray(a)
        if self.name == "numpy":
            return a
        if self.name == "torch":
            return _torch().asarray(a)
        return _cupy().asarray(a)

    def to_numpy(self, x):
        if self.name == "torch":
            return x.detach().cpu().numpy()
        if self.name == "cupy":
            return _cupy().asnumpy(x)
        return np.asarray(x)

    def array_type(self):
        return type(self.array(np.zeros(1)))


LIBRARIES = ["strict", "numpy", "torch", "cupy"]


@pytest.fixture(params=LIBRARIES)
def lib(request):
    lib = Library(request.param)
    lib.array_type()          # skips when the library is missing
    return lib


def numeric_grad(f, lib, args, argnum, eps=1e-6):
    """Central differences of f (called on lib's arrays) with respect to args[argnum] (NumPy arrays)."""
    x = np.array(args[argnum], dtype=np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        vals = []
        for step in (eps, -eps):
            xi = x.copy()
            xi[i] += step
            call = [lib.array(a) for a in args]
            call[argnum] = lib.array(xi)
            vals.append(float(lib.to_numpy(f(*call))))
        out[i] = (vals[0] - vals[1]) / (2 * eps)
    return out


def check(f, lib, args, argnums=0):
    """adsrc's gradient of f on lib's arrays against central differences; the gradient is of lib's type."""
    nums = (argnums,) if isinstance(argnums, int) else argnums
    grads = adsrc.grad(f, argnums=argnums)(*[lib.array(a) for a in args])
    grads = (grads,) if isinstance(argnums, int) else grads
    for k, g in zip(nums, grads):
        assert type(g) is lib.array_type(), f"gradient of type {type(g)} for {lib.name} arrays"
        got = lib.to_numpy(g)
        assert got.shape == np.shape(args[k])
        assert not np.isnan(got).any()
        want = numeric_grad(f, lib, args, k)
        assert not np.isnan(want).any()
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


rng = np.random.default_rng(7)


# -- realistic functions ------------------------------------------------------------------------

def logistic_loss(w, X, y):
    xp = array_namespace(w)
    z = X @ w
    return xp.mean(xp.log1p(xp.exp(-y * z))) + 0.01 * xp.sum(w * w)


def mlp(W1, b1, W2, X, y):
    xp = W1.__array_namespace__() if hasattr(W1, "__array_namespace__") else array_namespace(W1)
    h = xp.tanh(X @ W1 + b1)
    out = xp.matmul(h, W2)
    return xp.mean((out[:, 0] - y) ** 2)


def softmax_xent(W, X, onehot):
    xp = array_namespace(W)
    logits = X @ W
    m = xp.max(logits, axis=1, keepdims=True)
    shifted = logits - m
    logz = xp.log(xp.sum(xp.exp(shifted), axis=1, keepdims=True))
    return -xp.mean(xp.sum(onehot * (shifted - logz), axis=1))


def loop_branch(w, xs):
    xp = array_namespace(w)
    h = w * 0.5
    for t in range(xs.shape[0]):
        if xp.sum(h) > 0.0:
            h = xp.tanh(h * xs[t, :] + w)
        else:
            h = xp.sin(h) - 0.1 * w
    return xp.sum(h * h)


from array_api_compat import array_namespace  # noqa: E402  (the functions above read it as a global)


def test_logistic_loss(lib):
    X, y = rng.normal(size=(12, 3)), rng.choice([-1.0, 1.0], size=12)
    check(logistic_loss, lib, [rng.normal(size=3), X, y])


def test_mlp(lib):
    args = [rng.normal(size=(3, 5)), rng.normal(size=5), rng.normal(size=(5, 1)), rng.normal(size=(6, 3)),
            rng.normal(size=6)]
    check(mlp, lib, args, argnums=(0, 1, 2))


def test_softmax_cross_entropy(lib):
    labels = rng.integers(0, 4, size=7)
    check(softmax_xent, lib, [rng.normal(size=(3, 4)), rng.normal(size=(7, 3)), np.eye(4)[labels]])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_loop_with_branch(lib, seed):
    r = np.random.default_rng(seed)
    check(loop_branch, lib, [r.normal(size=4), r.normal(size=(5, 4))])


# -- each mapped namespace function --------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(names.DIFFERENTIABLE))
def test_mapped_function(lib, name):
    shape = (3, 4) if name in xp_cases.TWO_D else (5,)
    x = np.random.default_rng(abs(hash(name)) % 1000).uniform(-0.9, 0.9, size=shape)
    check(xp_cases.CASES[name], lib, [x])


def test_every_mapped_function_has_a_case():
    assert set(xp_cases.CASES) == set(names.DIFFERENTIABLE)


# -- the key, the source, refusals ---------------------------------------------------------------

def test_key_records_the_array_type():
    g = adsrc.grad(logistic_loss)
    X, y, w = rng.normal(size=(6, 3)), rng.choice([-1.0, 1.0], size=6), rng.normal(size=3)
    a = g(w, X, y)
    b = g(xps.asarray(w), xps.asarray(X), xps.asarray(y))
    assert type(a) is np.ndarray and type(b) is type(xps.asarray(w))
    np.testing.assert_allclose(np.asarray(b), a, rtol=1e-12)
    assert g.cache_info().currsize == 2
    assert "xp.exp(mul)" in g.source()          # the forward pass runs in the argument's library


def unmapped(x):
    xp = array_namespace(x)
    return xp.sum(xp.nextafter(x, 1.0))


def test_unmapped_function_is_refused_by_name():
    with pytest.raises(TransformError, match=r"xp\.nextafter.*not mapped"):
        adsrc.grad(unmapped)(xps.asarray(np.ones(3)))


def integer_input(x):
    xp = array_namespace(x)
    return xp.sum(x * x)


def test_integer_array_is_refused():
    with pytest.raises(TypeError, match="real floating"):
        adsrc.grad(integer_input)(xps.asarray(np.arange(3)))


def constants_inside(x):
    xp = array_namespace(x)
    i = xp.argmax(x)
    z = xp.zeros_like(x) + xp.ones(x.shape, dtype=xp.float64)
    mask = xp.isfinite(x)
    return xp.sum(xp.where(mask, x * z, 0.0)) + xp.sum(x * xp.where(xp.arange(x.shape[0]) == i, x, 0.0 * x))


def test_constant_functions(lib):
    check(constants_inside, lib, [rng.normal(size=5)])
