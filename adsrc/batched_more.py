"""More of NumPy's functions on batches (batched_functions.py): triangles, scatters, padding, FFTs, solve."""

import numpy as np

from .batched_functions import FUNCTIONS, _no_extras, implements
from .batching import Batched, axes_of, axis_of, check_plain, is_batched, unsupported


def _triangle(fn):
    def tri(m, k=0):
        if m.ndim < 2:
            unsupported(f"np.{fn.__name__} of a batched vector")
        return Batched(fn(m.data, k))
    return tri


FUNCTIONS[np.triu] = _triangle(np.triu)
FUNCTIONS[np.tril] = _triangle(np.tril)


@implements(np.bincount)
def _bincount(x, weights=None, minlength=0):
    if is_batched(x) or not is_batched(weights) or weights.ndim != 1:
        unsupported("np.bincount of batched positions")
    x = np.asarray(x)
    n = max(int(x.max()) + 1 if x.size else 0, minlength)
    out = np.zeros((weights.data.shape[0], n), dtype=np.result_type(weights.dtype, np.float64))
    np.add.at(out, (slice(None), x), weights.data)
    return Batched(out)


@implements(np.pad)
def _pad(array, pad_width, mode="constant", **kwargs):
    if mode != "constant" or any(k != "constant_values" for k in kwargs) or \
            np.any(np.asarray(kwargs.get("constant_values", 0)) != 0):
        unsupported(f"np.pad with mode {mode!r} on a batch")
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.intp), (array.ndim, 2))
    return Batched(np.pad(array.data, ((0, 0),) + tuple(map(tuple, widths.tolist()))))


@implements(np.take_along_axis)
def _take_along_axis(arr, indices, axis=-1):
    if is_batched(indices) or axis is None:
        unsupported("np.take_along_axis with batched indices or axis=None")
    return Batched(np.take_along_axis(arr.data, np.asarray(indices)[None], axis=axis_of(axis, arr.ndim)))


def _fft_1(fn):
    def transform(a, n=None, axis=-1, norm=None, out=None):
        _no_extras(f"np.fft.{fn.__name__}", out=out)
        return Batched(fn(a.data, n, axis_of(axis, a.ndim), norm))
    return transform


def _fft_n(fn):
    def transform(a, s=None, axes=None, norm=None, out=None):
        _no_extras(f"np.fft.{fn.__name__}", out=out)
        if axes is None and s is not None:
            axes = range(a.ndim - len(s), a.ndim)
        return Batched(fn(a.data, s, axes_of(axes, a.ndim), norm))
    return transform


def _shift(fn):
    def shift(x, axes=None):
        return Batched(fn(x.data, axes_of(axes, x.ndim)))
    return shift


for _f in (np.fft.fft, np.fft.ifft, np.fft.rfft, np.fft.irfft, np.fft.hfft, np.fft.ihfft):
    FUNCTIONS[_f] = _fft_1(_f)
for _f in (np.fft.fftn, np.fft.ifftn, np.fft.rfftn, np.fft.irfftn, np.fft.fft2, np.fft.ifft2, np.fft.rfft2,
           np.fft.irfft2):
    FUNCTIONS[_f] = _fft_n(_f)
FUNCTIONS[np.fft.fftshift] = _shift(np.fft.fftshift)
FUNCTIONS[np.fft.ifftshift] = _shift(np.fft.ifftshift)


@implements(np.linalg.solve)
def _solve(a, b):
    """solve(a, b) for a batch b and a matrix (or stack) a that is not batched."""
    if is_batched(a) or not is_batched(b):
        unsupported("np.linalg.solve with a batched matrix")
    a = check_plain(a, "np.linalg.solve")
    if b.ndim == 1:
        if np.ndim(a) != 2:
            unsupported("np.linalg.solve of a batched vector against a stack")
        return Batched(np.linalg.solve(a, b.data.T).T)
    return Batched(np.linalg.solve(a, b.data))
