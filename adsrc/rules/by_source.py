"""NumPy functions without a written rule, written here in plain NumPy that adsrc differentiates like the user's
own code (in every mode and to any order): a call of `np.cov(x)` in a differentiated function is a call of `cov`
below. Each follows NumPy's documented meaning for the arguments it takes; an argument it does not take is
refused by name (`_unsupported`) rather than ignored.

The functions that build, place and apply (np.insert, np.block, np.choose, np.put's parts, np.piecewise's,
np.vectorize'd calls, ufunc methods) are in by_source_arrays.py, more in by_source_more.py.

IMPLEMENTATIONS maps the NumPy callable (and Python's, from python_source.py) to its implementation;
`implementation(obj)` also finds those for values (a `np.vectorize` object, a ufunc's `outer`/`reduce`/
`accumulate`).
"""

import numpy as np

from ..errors import TransformError
from . import by_source_more, by_source_series, nondiff, scipy_source
from .by_source_arrays import (VECTORIZED, add_reduceat, along_axis_index, apply_along_axis, block, choose,  # noqa: F401
                               polyadd, polyder, polyint, polysub,
                               ediff1d, insert, insert_positions, piecewise_conditions, piecewise_part,
                               piecewise_start, piecewise_value, put_index, put_values, ufunc_accumulate,
                               ufunc_outer, ufunc_reduce, vectorized_1, vectorized_2, vectorized_3,
                               VECTORIZED_SIGNATURE, vectorized_signature_1, vectorized_signature_2)
from .by_source_more import percentile_method, quantile_method  # noqa: F401
from .by_source_hist import histogram2d
from .python_source import (PYTHON_IMPLEMENTATIONS, max_by, max_of, min_by, min_of, next_item,  # noqa: F401
                            next_item_or, next_split, next_split_or)


def frexp_exponent(x):
    return np.frexp(x)[1]


def unwrap_shift(p, discont, axis, period):
    return np.unwrap(p, discont=discont, axis=axis, period=period) - p


def histogram_bins(a, edges):
    """The bin of each of a's values among edges (the last bin closed, as np.histogram counts), -1 outside."""
    index = np.searchsorted(edges, a, side="right") - 1
    index = np.where(a == edges[-1], len(edges) - 2, index)
    return np.where((a < edges[0]) | (a > edges[-1]), -1, index)


nondiff(frexp_exponent, "frexp_exponent")     # constants: no derivative flows through them
nondiff(unwrap_shift, "unwrap_shift")
nondiff(histogram_bins, "histogram_bins")


def _unsupported(name, what):
    raise TransformError(f"adsrc differentiates `{name}` without {what}. Write the computation out in NumPy.")


# -- statistics -----------------------------------------------------------------------------------------------

def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    x = np.atleast_2d(np.asarray(m, dtype=np.result_type(m, np.float64) if dtype is None else dtype))
    if not rowvar and x.shape[0] != 1:
        x = x.T
    if y is not None:
        yy = np.atleast_2d(np.asarray(y))
        if not rowvar and yy.shape[0] != 1:
            yy = yy.T
        x = np.concatenate((x, yy), axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    n = x.shape[1]
    if fweights is None and aweights is None:
        centred = x - np.mean(x, axis=1, keepdims=True)
        return np.squeeze(centred @ np.conj(centred).T / (n - ddof))
    w = np.ones(n)                  # NumPy's weighted form: frequency and (differentiable) observation weights
    if fweights is not None:
        w = w * np.asarray(fweights, dtype=float)
    if aweights is not None:
        w = w * aweights
    v1 = np.sum(w)
    fact = v1 - ddof if aweights is None else v1 - ddof * np.sum(w * aweights) / v1
    centred = x - np.sum(x * w, axis=1, keepdims=True) / v1
    return np.squeeze((centred * w) @ np.conj(centred).T / fact)


def corrcoef(x, y=None, rowvar=True, dtype=None):
    c = cov(x, y, rowvar, dtype=dtype)
    if np.ndim(c) == 0:
        return c / c
    d = np.sqrt(np.real(np.diag(c)))
    out = c / d[:, None] / d[None, :]
    return np.clip(out, -1.0, 1.0)


def _nan_reduced(name, a, axis, keepdims, reduce_one):
    """reduce_one (a 1-D reduction) of the values of a that are not NaN, along axis (all of a for None)."""
    a = np.asarray(a)
    if axis is None:
        flat = np.ravel(a)
        out = reduce_one(flat[~np.isnan(flat)])
        return np.reshape(out, (1,) * a.ndim) if keepdims else out
    if not isinstance(axis, int):
        _unsupported(name, "a tuple of axes")
    out = apply_along_axis(lambda r: reduce_one(r[~np.isnan(r)]), axis, a)
    return np.expand_dims(out, axis) if keepdims else out


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    if out is not None:
        _unsupported("np.nanmedian", "out=")
    return _nan_reduced("np.nanmedian", a, axis, keepdims, np.median)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    _linear_only("np.nanpercentile", out, method)
    return _nan_reduced("np.nanpercentile", a, axis, keepdims, lambda r: np.percentile(r, q))


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    _linear_only("np.nanquantile", out, method)
    return _nan_reduced("np.nanquantile", a, axis, keepdims, lambda r: np.quantile(r, q))


def _linear_only(name, out, method):
    if out is not None or method != "linear":
        _unsupported(name, "out= or a method but 'linear'")


def histogram(a, bins=10, range=None, density=None, weights=None):
    """Counts (or summed weights) per bin; the edges move with a's smallest and largest values when they
    come from them."""
    a = np.ravel(a)
    if isinstance(bins, str):
        _unsupported("np.histogram", "bins given by name")
    if np.ndim(bins) == 1:
        edges = np.asarray(bins)
    else:
        if range is not None:
            lo, hi = range[0] + 0.0, range[1] + 0.0
        elif a.size:
            lo, hi = np.min(a) + 0.0, np.max(a) + 0.0
        else:
            lo, hi = 0.0, 1.0
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = np.linspace(lo, hi, bins + 1)
    index = histogram_bins(a, edges)
    inside = index >= 0
    n = len(edges) - 1
    if weights is None:
        counts = np.bincount(index[inside], minlength=n)
    else:
        counts = np.bincount(index[inside], weights=np.ravel(weights)[inside], minlength=n)
    if density:
        return counts / np.sum(counts) / np.diff(edges), edges
    return counts, edges


def ndenumerate(a):
    """The (index, value) pairs np.ndenumerate yields, as a list."""
    a = np.asarray(a)
    return [(i, a[i]) for i in np.ndindex(a.shape)]


# -- polynomials ----------------------------------------------------------------------------------------------

def vander(x, N=None, increasing=False):
    x = np.asarray(x)
    n = x.shape[0] if N is None else N
    powers = np.arange(n) if increasing else np.arange(n - 1, -1, -1)
    return x[:, None] ** powers


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    if full or cov:
        _unsupported("np.polyfit", "full=True or cov=")
    x = np.asarray(x) + 0.0
    y = np.asarray(y) + 0.0
    lhs = vander(x, deg + 1)
    rhs = y
    if w is not None:
        lhs = lhs * np.asarray(w)[:, None]
        rhs = rhs * (np.asarray(w) if y.ndim == 1 else np.asarray(w)[:, None])
    if rcond is None:
        rcond = x.shape[0] * np.finfo(x.dtype).eps
    scale = np.sqrt(np.sum(lhs * lhs, axis=0))
    coefficients = np.linalg.lstsq(lhs / scale, rhs, rcond=rcond)[0]
    return (coefficients.T / scale).T


# -- building arrays ------------------------------------------------------------------------------------------

def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    if axis != 0 or dtype is not None:
        _unsupported("np.geomspace", "axis= or dtype=")
    sign = np.sign(start)
    lo, hi = np.log10(np.abs(start)), np.log10(np.abs(stop))
    out = sign * 10.0 ** np.linspace(lo, hi, num, endpoint=endpoint)
    if num > 0:
        out = np.concatenate([np.reshape(start + 0.0, (1,)), out[1:]])
    if num > 1 and endpoint:
        out = np.concatenate([out[:-1], np.reshape(stop + 0.0, (1,))])
    return out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    if axis != 0 or dtype is not None:
        _unsupported("np.logspace", "axis= or dtype=")
    return base ** np.linspace(start, stop, num, endpoint=endpoint)


# -- numbers --------------------------------------------------------------------------------------------------

def _cast_to(dtype):
    def cast(x=0):
        return np.asarray(x).astype(dtype)[()]
    cast.__name__ = cast.__qualname__ = np.dtype(dtype).name
    return cast


def astype(x, dtype, copy=True, device=None):
    return np.asarray(x).astype(dtype)


def frexp(x):
    exponent = frexp_exponent(x)
    return x * 2.0 ** (-exponent), exponent


def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    """p plus the multiples of period NumPy adds, which do not change with p (almost everywhere)."""
    return p + unwrap_shift(p, discont, axis, period)


def cond(x, p=None):
    if p is None or p == 2:
        s = np.linalg.svd(x, compute_uv=False)
        return s[..., 0] / s[..., -1]
    if p == -2:
        s = np.linalg.svd(x, compute_uv=False)
        return s[..., -1] / s[..., 0]
    return np.linalg.norm(x, p, axis=(-2, -1)) * np.linalg.norm(np.linalg.inv(x), p, axis=(-2, -1))


# -- forms of NumPy functions their rules do not take -----------------------------------------------------

def sum_where(a, axis=None, dtype=None, out=None, keepdims=False, initial=0, where=True):
    if out is not None or dtype is not None:
        _unsupported("np.sum", "out= or dtype=")
    return np.sum(np.where(where, a, 0), axis=axis, keepdims=keepdims) + initial


def mean_where(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    if out is not None or dtype is not None:
        _unsupported("np.mean", "out= or dtype=")
    mask = np.broadcast_to(where, np.shape(a))
    return np.sum(np.where(mask, a, 0), axis=axis, keepdims=keepdims) / np.sum(mask, axis=axis, keepdims=keepdims)


def unique_parts(flat):
    """np.unique's first positions, inverse and counts of flat's values (constants)."""
    return np.unique(flat, return_index=True, return_inverse=True, return_counts=True)[1:]


nondiff(unique_parts, "unique_parts")


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True):
    """np.unique's values (ar's elements at their first positions) and, as asked, positions, inverse, counts."""
    if axis is not None:
        _unsupported("np.unique", "axis=")
    flat = np.ravel(ar)
    first, inverse, counts = unique_parts(flat)
    out = [flat[first]]
    if return_index:
        out.append(first)
    if return_inverse:
        out.append(inverse)
    if return_counts:
        out.append(counts)
    return tuple(out) if len(out) > 1 else out[0]


# NumPy function -> {keyword its rule does not take: the plain-NumPy form that takes it}
def _edge(v, a, axis):
    """prepend/append of np.diff: a number is broadcast to a's shape with that axis of length 1."""
    v = np.asarray(v)
    if np.ndim(v) > 0:
        return v
    shape = list(np.shape(a))
    shape[axis] = 1
    return np.broadcast_to(v, tuple(shape))


def diff_with(a, n=1, axis=-1, prepend=None, append=None):
    parts = [a] if prepend is None else [_edge(prepend, a, axis), a]
    if append is not None:
        parts.append(_edge(append, a, axis))
    return np.diff(np.concatenate(parts, axis=axis), n=n, axis=axis)


def polymul(a1, a2):
    return np.convolve(np.atleast_1d(a1), np.atleast_1d(a2))


def polyval_ascending(x, c, tensor=True):
    """numpy.polynomial.polynomial.polyval: Horner's rule over the coefficients, lowest degree first."""
    c = np.asarray(c)
    if tensor and c.ndim > 1 and np.ndim(x) > 0:
        c = c.reshape(c.shape + (1,) * np.ndim(x))
    out = c[-1] + np.zeros_like(x * 1.0)
    for i in range(len(c) - 2, -1, -1):
        out = c[i] + out * x
    return out


ARGUMENT_FORMS = {
    np.sum: {"where": sum_where, "initial": sum_where}, np.mean: {"where": mean_where},
    np.diff: {"prepend": diff_with, "append": diff_with},
    np.unique: {"return_index": unique, "return_inverse": unique, "return_counts": unique},
}


IMPLEMENTATIONS = {
    np.cov: cov, np.corrcoef: corrcoef, np.nanmedian: nanmedian, np.nanpercentile: nanpercentile,
    np.nanquantile: nanquantile, np.vander: vander, np.polyfit: polyfit, np.geomspace: geomspace,
    np.logspace: logspace, np.insert: insert, np.ediff1d: ediff1d, np.block: block, np.choose: choose,
    np.apply_along_axis: apply_along_axis, np.frexp: frexp, np.unwrap: unwrap,
    np.linalg.cond: cond, np.histogram: histogram, np.histogram2d: histogram2d,
    np.ndenumerate: ndenumerate, np.polymul: polymul,
    np.polyder: polyder, np.polyint: polyint, np.polyadd: polyadd, np.polysub: polysub,
    np.polynomial.polynomial.polyval: polyval_ascending,
    np.float64: _cast_to(np.float64), np.float32: _cast_to(np.float32), np.float16: _cast_to(np.float16),
    np.longdouble: _cast_to(np.longdouble), np.complex128: _cast_to(np.complex128),
    np.complex64: _cast_to(np.complex64),
}
if hasattr(np, "astype"):
    IMPLEMENTATIONS[np.astype] = astype
IMPLEMENTATIONS.update(PYTHON_IMPLEMENTATIONS)
IMPLEMENTATIONS.update(by_source_more.IMPLEMENTATIONS)
IMPLEMENTATIONS.update(by_source_series.IMPLEMENTATIONS)
ARGUMENT_FORMS.update(by_source_more.ARGUMENT_FORMS)
ufunc_where1, ufunc_where2 = by_source_more.ufunc_where1, by_source_more.ufunc_where2
prod_with, var_with, std_with = by_source_more.prod_with, by_source_more.var_with, by_source_more.std_with
max_with, min_with = by_source_more.max_with, by_source_more.min_with

_UFUNC_METHODS = {"outer": ufunc_outer, "reduce": ufunc_reduce, "accumulate": ufunc_accumulate}
IMPLEMENTATIONS[np.add.reduceat] = add_reduceat


def implementation(obj):
    """(the plain-NumPy function to call instead of obj, the attribute of the called expression it takes before
    the call's arguments: "" for none, "pyfunc" for a vectorize object's function, "self" for a ufunc method's
    ufunc), or None."""
    if isinstance(obj, np.vectorize):
        if obj.signature is not None or obj.excluded:
            _unsupported("np.vectorize", "signature= or excluded=")
        return VECTORIZED, "pyfunc"
    owner = getattr(obj, "__self__", None)
    if isinstance(owner, np.ufunc) and owner.nin == 2 and getattr(obj, "__name__", None) in _UFUNC_METHODS:
        return _UFUNC_METHODS[obj.__name__], "self"
    try:
        found = IMPLEMENTATIONS.get(obj) or scipy_source.implementation(obj)
    except TypeError:
        return None
    return (found, "") if found is not None else None
