"""What the numba helpers share: kinds of numba types, and broadcasting to a shape and summing back from it,
as plain loops for vectors and matrices (numba compiles those much faster than NumPy-style broadcasting)."""

import numpy as np
from numba import types
from .helper_cache import overload, register_jitable


_NUMBERS = (types.Float, types.Integer, types.Boolean)


def _number(t):
    return isinstance(t, _NUMBERS)


def _array(t, ndim=None):
    return isinstance(t, types.Array) and (ndim is None or t.ndim == ndim)


def _sum_to(g, like):
    """g (an array broadcast from like's shape) summed back to like's shape (numba versions below)."""


@register_jitable
def _sum_to_any(g, like):
    out = np.zeros(like.shape, dtype=g.dtype)
    flat = out.ravel()               # out is new and contiguous: a view
    lead = g.ndim - like.ndim
    strides = np.zeros(g.ndim, dtype=np.int64)
    step = 1
    for i in range(like.ndim - 1, -1, -1):
        if like.shape[i] != 1:
            strides[i + lead] = step
        step *= like.shape[i]
    for idx in np.ndindex(g.shape):
        k = 0
        for i in range(lead, g.ndim):
            k += idx[i] * strides[i]
        flat[k] += g[idx]
    return out


@overload(_sum_to)
def _sum_to_impl(g, like):
    """Plain loops for vectors and matrices (quick for numba to compile); np.ndindex for other ranks."""
    if g.ndim == 1 and like.ndim == 1:
        def vector(g, like):
            out = np.zeros(like.shape, dtype=g.dtype)
            for i in range(g.shape[0]):
                out[i if like.shape[0] != 1 else 0] += g[i]
            return out
        return vector
    if g.ndim == 2 and like.ndim in (1, 2):
        def matrix(g, like):
            out = np.zeros(like.shape, dtype=g.dtype)
            flat = out.ravel()
            n0 = like.shape[0] if like.ndim == 2 else 1
            n1 = like.shape[like.ndim - 1]
            for i in range(g.shape[0]):
                for j in range(g.shape[1]):
                    flat[(i if n0 != 1 else 0) * n1 + (j if n1 != 1 else 0)] += g[i, j]
            return out
        return matrix
    return lambda g, like: _sum_to_any(g, like)


def _broadcast(g, like):
    """A new array of like's shape holding g broadcast to it (numba versions below)."""


@overload(_broadcast)
def _broadcast_impl(g, like):
    """Loops for vectors and matrices: NumPy-style broadcasting (`np.zeros(shape) + g`) takes numba about half
    a second to compile per signature."""
    if _number(g):
        return lambda g, like: np.full(like.shape, g)
    if _array(g, 1) and _array(like, 1):
        def vector(g, like):
            out = np.empty(like.shape, dtype=g.dtype)
            for i in range(out.shape[0]):
                out[i] = g[i if g.shape[0] != 1 else 0]
            return out
        return vector
    if _array(g, 2) and _array(like, 2):
        def matrix(g, like):
            out = np.empty(like.shape, dtype=g.dtype)
            for i in range(out.shape[0]):
                for j in range(out.shape[1]):
                    out[i, j] = g[i if g.shape[0] != 1 else 0, j if g.shape[1] != 1 else 0]
            return out
        return matrix
    if _array(g):
        return lambda g, like: np.zeros(like.shape, dtype=g.dtype) + g
    return None
