"""More NumPy functions written in plain NumPy that adsrc differentiates like the user's code (see by_source.py):
quantiles by any of NumPy's methods, `np.linalg.tensorsolve`, `sliding_window_view`, the n-dimensional real
FFTs, and `cmath`'s functions.
"""

import cmath

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view as _sliding_window_view

from . import nondiff
from ..errors import TransformError


def _unsupported(name, what):
    raise TransformError(f"adsrc differentiates `{name}` without {what}. Write the computation out in NumPy.")


# -- quantiles --------------------------------------------------------------------------------------------------

def quantile_positions(n, q, method):
    """Where, among n sorted values, NumPy's quantile q by `method` lies: a position between two neighbours
    (an integer for the methods that pick one value). Every method weighs two neighbouring sorted values by
    weights that depend on n and q only, so NumPy's own answer for the values 0, 1, ..., n-1 is that position."""
    return np.quantile(np.arange(n, dtype=float), q, method=method)


nondiff(quantile_positions, "quantile_positions")


def quantile_method(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    """np.quantile with `method=`: the two sorted neighbours of each quantile's position, weighed."""
    if out is not None or not (axis is None or isinstance(axis, int)):
        _unsupported("np.quantile", "out= or a tuple of axes")
    a = np.asarray(a)
    values = np.sort(np.ravel(a)) if axis is None else np.sort(a, axis=axis)
    ax = 0 if axis is None else axis % a.ndim
    n = values.shape[ax]
    pos = quantile_positions(n, q, method)
    lo = np.floor(pos).astype(np.intp)
    hi = np.minimum(lo + 1, n - 1)
    k = np.ndim(pos)
    low = np.moveaxis(np.take(values, lo, axis=ax), list(range(ax, ax + k)), list(range(k)))
    high = np.moveaxis(np.take(values, hi, axis=ax), list(range(ax, ax + k)), list(range(k)))
    weight = np.reshape(pos - lo, np.shape(pos) + (1,) * (np.ndim(low) - k))
    out = low + (high - low) * weight
    if keepdims:
        kept = list(range(k, k + a.ndim)) if axis is None else [k + ax]
        out = np.expand_dims(out, kept) if axis is not None else np.reshape(out, np.shape(pos) + (1,) * a.ndim)
    return out


def percentile_method(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    return quantile_method(a, np.asarray(q) / 100.0, axis, out, overwrite_input, method, keepdims)


# -- linear algebra and windows ---------------------------------------------------------------------------------

def tensorsolve(a, b, axes=None):
    """x with np.tensordot(a, x, x.ndim) == b: a solve of a's matrix form (NumPy's own reshaping)."""
    a = np.asarray(a)
    b = np.asarray(b)
    if axes is not None:
        order = [k for k in range(a.ndim) if k not in [ax % a.ndim for ax in axes]] + [ax % a.ndim for ax in axes]
        a = np.transpose(a, order)
    shape = a.shape[b.ndim:]
    size = int(np.prod(shape))
    return np.reshape(np.linalg.solve(np.reshape(a, (-1, size)), np.ravel(b)), shape)


def window_starts(length, width):
    """The index array of every window of `width` along an axis of `length`: row i is i, i + 1, ..."""
    if width < 0 or width > length:
        raise ValueError("window shape cannot be larger than input array shape")
    return np.arange(length - width + 1)[:, None] + np.arange(width)[None, :]


nondiff(window_starts, "window_starts")


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """The windows NumPy's view shows, as a new array (adsrc's arrays are not changed in place through it)."""
    if writeable:
        _unsupported("sliding_window_view", "writeable=True")
    x = np.asarray(x)
    widths = tuple(window_shape) if np.iterable(window_shape) else (window_shape,)
    axes = tuple(range(x.ndim)) if axis is None else tuple(axis) if np.iterable(axis) else (axis,)
    if len(widths) != len(axes):
        raise ValueError("Must provide matching length window_shape and axis")
    out = x
    for ax, width in zip(axes, widths):
        ax = ax % x.ndim
        out = np.moveaxis(np.take(out, window_starts(out.shape[ax], width), axis=ax), ax + 1, -1)
    return out


# -- n-dimensional real FFTs: rfft on the last axis, fft on the others (and the inverse, in reverse) -------------

def fft_shape_axes(a, s, axes, inverse_real):
    """The lengths and axes of np.fft.rfftn / irfftn (NumPy's rules: s and axes default to every axis or the
    last len(s); an inverse's last length defaults to 2 (m - 1) for m entries on its axis)."""
    shape = np.shape(a)
    if axes is None:
        axes = list(range(-len(s), 0)) if s is not None else list(range(-len(shape), 0))
    axes = [int(ax) for ax in axes]
    lengths = [None] * len(axes) if s is None else list(s)
    if len(lengths) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    last = len(axes) - 1
    return [(shape[ax] if not (inverse_real and k == last) else (shape[ax] - 1) * 2) if n is None else int(n)
            for k, (n, ax) in enumerate(zip(lengths, axes))], axes


nondiff(fft_shape_axes, "fft_shape_axes")


def rfftn(a, s=None, axes=None, norm=None, out=None):
    if out is not None:
        _unsupported("np.fft.rfftn", "out=")
    lengths, axes = fft_shape_axes(a, s, axes, False)
    a = np.fft.rfft(a, n=lengths[-1], axis=axes[-1], norm=norm)
    for k in range(len(axes) - 1):
        a = np.fft.fft(a, n=lengths[k], axis=axes[k], norm=norm)
    return a


def irfftn(a, s=None, axes=None, norm=None, out=None):
    if out is not None:
        _unsupported("np.fft.irfftn", "out=")
    lengths, axes = fft_shape_axes(a, s, axes, True)
    for k in range(len(axes) - 1):
        a = np.fft.ifft(a, n=lengths[k], axis=axes[k], norm=norm)
    return np.fft.irfft(a, n=lengths[-1], axis=axes[-1], norm=norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return rfftn(a, s, axes, norm, out)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return irfftn(a, s, axes, norm, out)


# -- cmath: NumPy's complex functions on one number --------------------------------------------------------------

def _complex_of(ufunc):
    def one(z):
        return ufunc(np.complex128(z))          # an np.complex128, which is a Python complex
    one.__name__ = f"cmath_{ufunc.__name__}"
    return one


_CMATH = {name: _complex_of(getattr(np, ufunc)) for name, ufunc in {
    "exp": "exp", "log10": "log10", "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan",
    "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "asin": "arcsin", "acos": "arccos", "atan": "arctan",
    "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh"}.items()}


def cmath_log(z, base=None):
    value = np.log(np.complex128(z))
    return value if base is None else value / np.log(np.complex128(base))


def cmath_phase(z):
    return float(np.angle(np.complex128(z)))


def cmath_polar(z):
    return abs(z), cmath_phase(z)


def cmath_rect(r, phi):
    return np.complex128(r * np.cos(phi) + 1j * (r * np.sin(phi)))


def row_stack(tup, *, dtype=None, casting="same_kind"):
    """np.row_stack, NumPy's deprecated name of np.vstack."""
    return np.vstack(tup, dtype=dtype, casting=casting)


# -- reductions with keywords their rules do not take ------------------------------------------------------------

def prod_with(a, axis=None, dtype=None, out=None, keepdims=False, initial=1, where=True):
    if out is not None or dtype is not None:
        _unsupported("np.prod", "out= or dtype=")
    return np.prod(np.where(where, a, 1), axis=axis, keepdims=keepdims) * initial


def max_with(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    if out is not None or initial is None:
        _unsupported("np.max", "out=, or with where= but no initial=")
    return np.maximum(np.max(np.where(where, a, initial), axis=axis, keepdims=keepdims), initial)


def min_with(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    if out is not None or initial is None:
        _unsupported("np.min", "out=, or with where= but no initial=")
    return np.minimum(np.min(np.where(where, a, initial), axis=axis, keepdims=keepdims), initial)


def var_with(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None):
    """np.var with NumPy 2's `where=`, `mean=` (given with the reduced axes kept) and `correction=` (ddof)."""
    if out is not None or dtype is not None:
        _unsupported("np.var", "out= or dtype=")
    if correction is not None:
        ddof = correction
    mask = np.broadcast_to(where, np.shape(a))
    if mean is None:
        mean = np.sum(np.where(mask, a, 0), axis=axis, keepdims=True) / np.sum(mask, axis=axis, keepdims=True)
    d = np.where(mask, a - mean, 0)
    return np.sum(d * d, axis=axis, keepdims=keepdims) / (np.sum(mask, axis=axis, keepdims=keepdims) - ddof)


def std_with(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None):
    return np.sqrt(var_with(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean, correction=correction))


ARGUMENT_FORMS = {np.quantile: {"method": quantile_method}, np.percentile: {"method": percentile_method},
                  np.prod: {"where": prod_with, "initial": prod_with},
                  np.max: {"where": max_with}, np.amax: {"where": max_with},
                  np.min: {"where": min_with}, np.amin: {"where": min_with},
                  np.var: {k: var_with for k in ("where", "mean", "correction")},
                  np.std: {k: std_with for k in ("where", "mean", "correction")}}

IMPLEMENTATIONS = {
    np.linalg.tensorsolve: tensorsolve, _sliding_window_view: sliding_window_view, cmath.log: cmath_log,
    cmath.phase: cmath_phase, cmath.polar: cmath_polar, cmath.rect: cmath_rect, np.fft.rfftn: rfftn,
    np.fft.irfftn: irfftn, np.fft.rfft2: rfft2, np.fft.irfft2: irfft2,
}
IMPLEMENTATIONS.update({getattr(cmath, name): fn for name, fn in _CMATH.items()})
if hasattr(np, "row_stack"):
    IMPLEMENTATIONS[np.row_stack] = row_stack


# -- a ufunc with where= -------------------------------------------------------------------------------------------
# fn's values where the condition holds and `fill`'s elsewhere (what `out=` held, or zeros: NumPy leaves those
# entries of a new array uninitialized). fn sees a harmless 1.0 where the condition fails, so its derivative
# there is finite and the zero cotangent keeps it zero (`np.divide(a, b, out=..., where=b != 0)` has no NaN).

def ufunc_where1(fn, x, fill=0.0, where=True):
    return np.where(where, fn(np.where(where, x, 1.0)), fill)


def ufunc_where2(fn, x, y, fill=0.0, where=True):
    return np.where(where, fn(np.where(where, x, 1.0), np.where(where, y, 1.0)), fill)
