"""Helpers of the derivative rules of sorting and selection, grids, differences, convolution,
integration, interpolation and polynomials.

Each takes the output cotangent `g` and the primal values it needs, and returns the argument's cotangent
(registered for generated code by @helper; rules/helpers.py gathers them)."""

import numpy as np

from ..arrays import as_array, is_lazy, need_values
from ..facade import size as array_size
from ..runtime import helper
from .helpers_reductions import _conj, _re, _zeros, sum_like


@helper
def sort_vjp(g, x, axis):
    """np.sort permutes: element j of the output is element perm[j] of the input."""
    if is_lazy(x):
        need_values('np.sort', x)     # it sorts the values
    x = as_array(x)
    if axis is None:
        perm = np.argsort(x, axis=None, kind="stable")
        out = _zeros(x.size, g)
        out[perm] = np.ravel(g)
        return np.reshape(out, x.shape)
    perm = np.argsort(x, axis=axis, kind="stable")
    out = _zeros(x.shape, g)
    np.put_along_axis(out, perm, g, axis=axis)
    return out


def _select_masks(condlist, shape):
    """For np.select: masks[i] is where choice i is taken (the first true condition), and the default mask."""
    taken = np.zeros(shape, dtype=bool)
    masks = []
    for c in condlist:
        m = np.broadcast_to(c, shape) & ~taken
        masks.append(m)
        taken = taken | m
    return masks, ~taken


@helper
def select_vjp(g, condlist, choicelist):
    masks, _ = _select_masks(condlist, np.shape(g))
    return [sum_like(np.where(m, g, 0.0), c) for m, c in zip(masks, choicelist)]


@helper
def select_default_vjp(g, condlist, default):
    _, rest = _select_masks(condlist, np.shape(g))
    return sum_like(np.where(rest, g, 0.0), default)


@helper
def meshgrid_vjp(g, xs, k, indexing):
    """Output k of np.meshgrid is input k (raveled) laid along one axis: sum g[k] over the other axes."""
    n = sum(x is not None for x in xs)
    ax = k
    if indexing == "xy" and n >= 2 and k < 2:
        ax = 1 - k
    gk = as_array(g[k])
    other = tuple(i for i in range(gk.ndim) if i != ax)
    return np.reshape(np.sum(gk, axis=other), np.shape(xs[k]))


@helper
def linspace_vjp(g, start, stop, num, endpoint, axis, k):
    """linspace = start + t (stop - start) with t = i / (num - 1) (or i / num without the endpoint)."""
    div = (num - 1) if endpoint else num
    t = np.arange(num) / div if div > 0 else np.zeros(num)
    w = t if k == 1 else 1.0 - t
    r = np.tensordot(w, np.moveaxis(as_array(g), axis, 0), axes=(0, 0))
    return sum_like(r, stop if k == 1 else start)


@helper
def arange_vjp(g, start, stop, step, k):
    """arange(start, stop, step)[i] = start + i step; arange(stop) does not depend on stop's value."""
    if k == 0:
        return 0.0 * np.sum(g) if stop is None else np.sum(g)
    return np.sum(g * np.arange(array_size(g)))


@helper
def unique_vjp(g, x):
    """np.unique(x) (values only): each output value is shared equally by the inputs equal to it."""
    if is_lazy(x):
        need_values('np.unique', x)     # it sorts the values
    _, inv, counts = np.unique(x, return_inverse=True, return_counts=True)
    return np.reshape((as_array(g) / counts)[np.ravel(inv)], np.shape(x))


@helper
def diff_vjp(g, x, n, axis):
    """np.diff: y_i = x_{i+1} - x_i, so dx_j = g_{j-1} - g_j (zero outside); applied n times."""
    g = as_array(g)
    ax = axis % g.ndim
    for _ in range(n):
        lo = [(0, 0)] * g.ndim
        hi = [(0, 0)] * g.ndim
        lo[ax] = (1, 0)
        hi[ax] = (0, 1)
        g = np.pad(g, lo) - np.pad(g, hi)
    return g


def _conv_full_cot(g, a, v, mode, start):
    """g (the cotangent of a slice of the full convolution) placed into a zero full-length cotangent."""
    full_len = len(a) + len(v) - 1
    gf = _zeros(full_len, g)
    gf[start:start + len(g)] = g
    return gf


@helper
def convolve_vjp(g, a, v, mode, k):
    """Full convolution c_n = sum_i a_i v_{n-i}: da_i = sum_n g_n v_{n-i}, a correlation of g with v."""
    m, n = len(a), len(v)
    start = {"full": 0, "same": (min(m, n) - 1) // 2, "valid": min(m, n) - 1}[mode]
    gf = _conv_full_cot(g, a, v, mode, start)
    return np.correlate(gf, _conj(v), "valid") if k == 0 else np.correlate(gf, _conj(a), "valid")


@helper
def correlate_vjp(g, a, v, mode, k):
    """correlate(a, v) = sum_n a_{n+k} conj(v_n) is the full convolution of a with conj(v) reversed,
    sliced by mode: holomorphic in a, and v's cotangent is the conjugate of conj(v)'s."""
    if np.iscomplexobj(a) or np.iscomplexobj(v) or np.iscomplexobj(g):
        w = np.conjugate(v)
        if k == 0:
            return _correlate_plain_vjp(g, a, w, mode, 0)
        return np.conjugate(_correlate_plain_vjp(g, a, w, mode, 1))
    return _correlate_plain_vjp(g, a, v, mode, k)


def _correlate_plain_vjp(g, a, v, mode, k):
    """The cotangents of c_k = sum_n a_{n+k} v_n (no conjugate), sliced by mode."""
    m, n = len(a), len(v)
    p = min(m, n)
    start = {"full": 0, "same": (p - 1) // 2 if m >= n else p // 2, "valid": n - 1 if m >= n else m - 1}[mode]
    gf = _conv_full_cot(g, a, v, mode, start)
    vr = as_array(v)[::-1]
    if k == 0:
        return np.correlate(gf, _conj(vr), "valid")
    return np.correlate(gf, _conj(as_array(a)), "valid")[::-1]


@helper
def trapezoid_vjp(g, y, x, dx, axis, k):
    """trapezoid = sum_i d_i (y_i + y_{i+1}) / 2 along axis; k = 0: y, 1: x, 2: dx."""
    y = as_array(y)
    ax = axis % y.ndim
    n = y.shape[ax]
    g = np.expand_dims(as_array(g), ax)
    if x is None:
        d = np.full(n - 1, dx)
    else:
        d = np.diff(as_array(x), axis=axis if np.ndim(x) > 1 else 0)
    if np.ndim(d) == 1:
        shp = [1] * y.ndim
        shp[ax] = -1
        d = np.reshape(d, shp)
    if k == 0:
        lo = [(0, 0)] * y.ndim
        hi = [(0, 0)] * y.ndim
        lo[ax] = (1, 0)
        hi[ax] = (0, 1)
        w = (np.pad(d, lo) + np.pad(d, hi)) / 2.0   # y_i is in the intervals i - 1 and i
        return np.broadcast_to(g * w, y.shape)
    m = (np.take(y, np.arange(n - 1), axis=ax) + np.take(y, np.arange(1, n), axis=ax)) / 2.0
    if k == 2:
        return 0.0 if x is not None else np.sum(g * m)
    gm = g * m                                  # cotangent of each d_i
    lo = [(0, 0)] * y.ndim
    hi = [(0, 0)] * y.ndim
    lo[ax] = (1, 0)
    hi[ax] = (0, 1)
    dxs = np.pad(gm, lo) - np.pad(gm, hi)       # d_i = x_{i+1} - x_i
    if np.ndim(x) == 1:
        return np.sum(dxs, axis=tuple(i for i in range(y.ndim) if i != ax))
    return sum_like(dxs, x)


@helper
def interp_vjp(g, x, xp, fp, left, right, k):
    """np.interp (piecewise linear through (xp, fp)); k = 0: x, 1: xp, 2: fp, 3: left, 4: right."""
    x = np.asarray(x, dtype=float)
    xp = np.asarray(xp, dtype=float)
    fp = as_array(fp)                          # complex values interpolate too
    g = np.broadcast_to(as_array(g), x.shape)
    below = x < xp[0]
    above = x > xp[-1]
    inside = ~(below | above)
    j = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, len(xp) - 2)
    width = xp[j + 1] - xp[j]
    slope = (fp[j + 1] - fp[j]) / width
    t = (x - xp[j]) / width
    if k == 0:
        return _re(np.where(inside, g * slope, 0.0))       # x is real
    if k == 3:
        return np.sum(np.where(below, g, 0.0))
    if k == 4:
        return np.sum(np.where(above, g, 0.0))
    out = _zeros(len(xp), g)
    gi = np.where(inside, g, 0.0)
    if k == 2:
        np.add.at(out, j, gi * (1.0 - t))
        np.add.at(out, j + 1, gi * t)
        if left is None:
            out[0] += np.sum(np.where(below, g, 0.0))
        if right is None:
            out[-1] += np.sum(np.where(above, g, 0.0))
        return out
    out = _zeros(len(xp), gi * slope)
    np.add.at(out, j, gi * slope * (t - 1.0))
    np.add.at(out, j + 1, -gi * slope * t)
    return _re(out)                                      # xp is real


@helper
def polyval_vjp(g, p, x, k):
    """polyval(p, x) = sum_i p_i x^(n-1-i)."""
    p = as_array(p)
    if k == 1:
        return g * np.polyval(np.polyder(p), x) if len(p) > 1 else 0.0 * g
    powers = as_array(x)[..., None] ** np.arange(len(p) - 1, -1, -1)
    return np.tensordot(as_array(g), powers, axes=np.ndim(g))
