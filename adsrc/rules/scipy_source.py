"""SciPy functions without a written rule, in plain NumPy that adsrc differentiates like the user's code
(by_source.py calls them): the matrix builders of scipy.linalg and scipy.integrate.cumulative_trapezoid.
Each follows SciPy's documented meaning for the arguments it takes."""

import sys

import numpy as np

from ..errors import TransformError
from . import nondiff, scipy_linalg_source


def toeplitz_index(n, m):
    """T[i, j] = vals[n - 1 - i + j] with vals = (c reversed, r[1:])."""
    return (n - 1) - np.arange(n)[:, None] + np.arange(m)[None, :]


def circulant_index(n):
    return (np.arange(n)[:, None] - np.arange(n)[None, :]) % n


def hankel_index(n, m):
    return np.arange(n)[:, None] + np.arange(m)[None, :]


for _fn in (toeplitz_index, circulant_index, hankel_index):
    nondiff(_fn, _fn.__name__)


def toeplitz(c, r=None):
    c = np.ravel(c)
    r = np.conjugate(c) if r is None else np.ravel(r)
    vals = np.concatenate((c[::-1], r[1:]))
    return vals[toeplitz_index(len(c), len(r))]


def circulant(c):
    c = np.ravel(c)
    return c[circulant_index(len(c))]


def hankel(c, r=None):
    c = np.ravel(c)
    r = np.zeros_like(c) if r is None else np.ravel(r)
    vals = np.concatenate((c, r[1:]))
    return vals[hankel_index(len(c), len(r))]


def block_diag(*arrs):
    if not arrs:
        return np.empty((1, 0))
    blocks = [np.atleast_2d(a) for a in arrs]
    rows, cols, dtype = 0, 0, blocks[0].dtype
    for b in blocks:
        rows += b.shape[0]
        cols += b.shape[1]
        dtype = np.promote_types(dtype, b.dtype)
    out = np.zeros((rows, cols), dtype=dtype)
    r, c = 0, 0
    for b in blocks:
        out[r:r + b.shape[0], c:c + b.shape[1]] = b
        r += b.shape[0]
        c += b.shape[1]
    return out


def cumulative_trapezoid(y, x=None, dx=1.0, axis=-1, initial=None):
    y = np.moveaxis(np.asarray(y), axis, -1)
    step = dx if x is None else np.diff(np.moveaxis(np.asarray(x), axis, -1) if np.ndim(x) > 1 else x)
    out = np.cumsum(step * (y[..., 1:] + y[..., :-1]) / 2.0, axis=-1)
    if initial is not None:
        out = np.concatenate((np.full(out.shape[:-1] + (1,), initial, dtype=out.dtype), out), axis=-1)
    return np.moveaxis(out, -1, axis)


def entropy(pk, qk=None, base=None, axis=0, keepdims=False):
    """scipy.stats.entropy: -sum p log p of pk normalized along axis, or the relative entropy sum p log(p / q)
    with qk normalized too (scipy.special's entr and rel_entr: 0 log 0 = 0)."""
    import scipy.special as sp
    pk = np.asarray(pk) * 1.0
    pk = pk / np.sum(pk, axis=axis, keepdims=True)
    if qk is None:
        vec = sp.entr(pk)
    else:
        qk = np.asarray(qk) * 1.0
        qk = qk / np.sum(qk, axis=axis, keepdims=True)
        vec = sp.rel_entr(pk, qk)
    total = np.sum(vec, axis=axis, keepdims=keepdims)
    if base is not None:
        total = total / np.log(base)
    return total


def lfilter(b, a, x, axis=-1, zi=None):
    """scipy.signal.lfilter without initial conditions: a[0] y[n] = sum_k b[k] x[n - k] - sum_{k >= 1} a[k] y[n - k]
    along axis, a step at a time (differentiable in b, a and x)."""
    if zi is not None:
        raise TransformError("adsrc differentiates `scipy.signal.lfilter` without zi= (initial conditions). Write "
                             "the recursion out in NumPy.")
    b = np.atleast_1d(np.asarray(b) * 1.0)
    a = np.atleast_1d(np.asarray(a) * 1.0)
    b = b / a[0]
    a = a / a[0]
    xs = np.moveaxis(np.asarray(x) * 1.0, axis, 0)
    ys = []
    for t in range(xs.shape[0]):
        acc = b[0] * xs[t]
        for k in range(1, min(len(b), t + 1)):
            acc = acc + b[k] * xs[t - k]
        for k in range(1, min(len(a), t + 1)):
            acc = acc - a[k] * ys[t - k]
        ys.append(acc)
    return np.moveaxis(np.stack(ys), 0, axis)


def fftconvolve(in1, in2, mode="full", axes=None):
    """scipy.signal.fftconvolve is scipy.signal.convolve (which has a rule) computed another way."""
    if axes is not None:
        raise TransformError("adsrc differentiates `scipy.signal.fftconvolve` without axes=. Use "
                             "scipy.signal.convolve, or write the convolution out in NumPy.")
    import scipy.signal as signal
    return signal.convolve(in1, in2, mode=mode)


# scipy_linalg.py adds scipy.linalg.lu once the program has imported scipy.linalg
SCIPY_LINALG = {"toeplitz": toeplitz, "circulant": circulant, "hankel": hankel, "block_diag": block_diag,
                **scipy_linalg_source.FUNCTIONS}
_NAMES = {"scipy.linalg": SCIPY_LINALG,
          "scipy.integrate": {"cumulative_trapezoid": cumulative_trapezoid},
          "scipy.stats": {"entropy": entropy},
          "scipy.signal": {"lfilter": lfilter, "fftconvolve": fftconvolve}}


def implementation(obj):
    """The implementation above of a SciPy function, or None; a SciPy module is looked in only once the
    program has imported it (adsrc does not import SciPy itself)."""
    name = getattr(obj, "__name__", None)
    for module, table in _NAMES.items():
        mod = sys.modules.get(module)
        if name in table and mod is not None and getattr(mod, name, None) is obj:
            return table[name]
    return None
