"""Derivative rules for np.fft (complex-ready).

The discrete Fourier transform is C-linear with a symmetric matrix, so under
JAX's convention (no conjugate for holomorphic maps) the cotangent of
y = fft(x) is fft(g) with the same normalization, and likewise for ifft and
the n-dimensional transforms. An input padded or cut to length n gets its
cotangent cut or padded back.

rfft keeps the first n//2 + 1 terms of the transform of a real signal: its
transpose zero-pads g to n terms, transforms, and keeps the real part. irfft
reads a half spectrum c as a Hermitian one: x_j = (1/n) (Re c_0 +
sum_{0<k<n/2} 2 Re(c_k e^{2 pi i jk/n}) [+ Re(c_{n/2}) (-1)^j]), whose
cotangent (d/dRe c - i d/dIm c) is conj(rfft(g)) / n with the terms 0 < k <
n/2 doubled.
"""

import numpy as np

from ..runtime import helper
from . import general, nondiff

fft = np.fft


def _fit(c, shape, axes):
    """c cut or zero-padded on `axes` to the input's shape along them."""
    for ax in axes:
        n, have = shape[ax], c.shape[ax]
        if have > n:
            c = np.take(c, np.arange(n), axis=ax)
        elif have < n:
            pad = [(0, 0)] * c.ndim
            pad[ax] = (0, n - have)
            c = np.pad(c, pad)
    return c


@helper
def fft_vjp(g, x, ans, axes, norm, inverse):
    """Cotangent of x in fft / ifft / fftn / ifftn / fft2 / ifft2 over `axes` (a list)."""
    g = np.broadcast_to(g, np.shape(ans))
    if inverse:             # (each called by name: adsrc differentiates this again for higher order)
        c = fft.ifftn(g, axes=axes, norm=norm)
    else:
        c = fft.fftn(g, axes=axes, norm=norm)
    return _fit(c, np.shape(x), axes)


@helper
def fft_axes(a, axes, s, default):
    """The axes a transform works on: `axes` given, or the last len(s), or its default ('last', 'two', 'all')."""
    nd = np.ndim(a)
    if axes is not None:
        return [ax % nd for ax in ([axes] if isinstance(axes, int) else axes)]
    if s is not None and not isinstance(s, int):
        return list(range(nd - len(s), nd))
    return {"last": [nd - 1], "two": [nd - 2, nd - 1], "all": list(range(nd))}[default]


@helper
def rfft_vjp(g, a, ans, n, axis, norm):
    """Cotangent of the real signal a in rfft(a, n, axis, norm)."""
    a_len = np.shape(a)[axis]
    n = a_len if n is None else n
    g = np.moveaxis(np.broadcast_to(g, np.shape(ans)), axis, -1)
    full = np.zeros(g.shape[:-1] + (n,), dtype=complex)
    full[..., :g.shape[-1]] = g
    c = np.real(fft.fft(full, axis=-1, norm=norm))
    c = _fit(c, c.shape[:-1] + (a_len,), [c.ndim - 1])
    return np.moveaxis(c, -1, axis)


_SCALE = {None: lambda n: 1.0 / n, "backward": lambda n: 1.0 / n, "ortho": lambda n: 1.0 / np.sqrt(n),
          "forward": lambda n: 1.0}


@helper
def irfft_vjp(g, a, ans, n, axis, norm):
    """Cotangent of the half spectrum a in irfft(a, n, axis, norm) (the real output's cotangent g)."""
    n_out = np.shape(ans)[axis]
    g = np.moveaxis(np.real(np.broadcast_to(g, np.shape(ans))), axis, -1)
    c = np.conjugate(fft.rfft(g, axis=-1)) * _SCALE[norm](n_out)
    weights = np.full(c.shape[-1], 2.0)
    weights[0] = 1.0
    if n_out % 2 == 0:
        weights[-1] = 1.0
    c = c * weights
    c = _fit(c, c.shape[:-1] + (np.shape(a)[axis],), [c.ndim - 1])
    return np.moveaxis(c, -1, axis)


@helper
def shift_vjp(g, x, axes, inverse):
    """fftshift is a roll: its transpose is ifftshift (and the other way round)."""
    g = np.broadcast_to(g, np.shape(x))
    return fft.fftshift(g, axes) if inverse else fft.ifftshift(g, axes)


for _fn, _inv in ((fft.fft, False), (fft.ifft, True)):
    general(_fn, "np.fft." + _fn.__name__, "a, n=None, axis=-1, norm=None",
            a=f"fft_vjp(g, a, ans, fft_axes(a, axis, None, 'last'), norm, {_inv})")
for _fn, _inv in ((fft.fft2, False), (fft.ifft2, True)):
    general(_fn, "np.fft." + _fn.__name__, "a, s=None, axes=(-2, -1), norm=None",
            a=f"fft_vjp(g, a, ans, fft_axes(a, axes, s, 'two'), norm, {_inv})")
for _fn, _inv in ((fft.fftn, False), (fft.ifftn, True)):
    general(_fn, "np.fft." + _fn.__name__, "a, s=None, axes=None, norm=None",
            a=f"fft_vjp(g, a, ans, fft_axes(a, axes, s, 'all'), norm, {_inv})")
general(fft.rfft, "np.fft.rfft", "a, n=None, axis=-1, norm=None", a="rfft_vjp(g, a, ans, n, axis, norm)")
general(fft.irfft, "np.fft.irfft", "a, n=None, axis=-1, norm=None", a="irfft_vjp(g, a, ans, n, axis, norm)")
general(fft.fftshift, "np.fft.fftshift", "x, axes=None", x="shift_vjp(g, x, axes, False)")
general(fft.ifftshift, "np.fft.ifftshift", "x, axes=None", x="shift_vjp(g, x, axes, True)")
for _fn in (fft.fftfreq, fft.rfftfreq):
    nondiff(_fn, "np.fft." + _fn.__name__)
