"""Matrix products for numba kernels, as plain loops.

numba's `@` and `np.dot` call BLAS through wrappers that take it about a
second to compile, and cost more than the arithmetic on the small matrices of
a loop's step. The kernels call `matmul` (as `mat_product`) for `a @ b` instead
(products_rewrite.py), and the rules' helpers use the loops below. A product of two matrices larger than
`BLAS_ABOVE` multiplications still goes to BLAS, which is faster there. Other
dtypes than floats go to numba's `@` as before.
"""

import numpy as np
from numba import types
from .helper_cache import overload, register_jitable
from numba.np.numpy_support import as_dtype

from .shapes import _array

BLAS_ABOVE = 64 ** 3
LOOPS = {"reassoc", "contract"}        # let LLVM reorder a sum of products (as BLAS does): it vectorizes


def matmul(a, b):
    """a @ b (the Python function numba's version below stands for)."""
    return a @ b


@register_jitable(fastmath=LOOPS)
def matvec(a, x, dtype):
    out = np.empty(a.shape[0], dtype)
    if a.shape[1] != x.shape[0]:
        raise ValueError("matmul: the matrix's columns and the vector's length differ")
    for i in range(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j] * x[j]
        out[i] = s
    return out


@register_jitable(fastmath=LOOPS)
def vecmat(x, a, dtype):
    """x @ a, that is a.T @ x."""
    out = np.zeros(a.shape[1], dtype)
    if a.shape[0] != x.shape[0]:
        raise ValueError("matmul: the vector's length and the matrix's rows differ")
    for i in range(a.shape[0]):
        xi = x[i]
        for j in range(a.shape[1]):
            out[j] += xi * a[i, j]
    return out


@register_jitable(fastmath=LOOPS)
def vecvec(x, y, dtype):
    if x.shape[0] != y.shape[0]:
        raise ValueError("matmul: the vectors' lengths differ")
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * y[i]
    return dtype(s)


@register_jitable(fastmath=LOOPS)
def outer(x, y, dtype):
    out = np.empty((x.shape[0], y.shape[0]), dtype)
    for i in range(x.shape[0]):
        xi = x[i]
        for j in range(y.shape[0]):
            out[i, j] = xi * y[j]
    return out


@register_jitable(fastmath=LOOPS)
def matmat_loops(a, b, dtype):
    out = np.zeros((a.shape[0], b.shape[1]), dtype)
    for i in range(a.shape[0]):
        for k in range(a.shape[1]):
            aik = a[i, k]
            for j in range(b.shape[1]):
                out[i, j] += aik * b[k, j]
    return out


@register_jitable
def matmat(a, b, dtype):
    if a.shape[1] != b.shape[0]:
        raise ValueError("matmul: the first matrix's columns and the second's rows differ")
    if a.shape[0] * a.shape[1] * b.shape[1] > BLAS_ABOVE:
        return np.dot(a.astype(dtype), b.astype(dtype))
    return matmat_loops(a, b, dtype)


def floats(*arrays):
    """Arrays of float dtypes (float32, float64) of rank 1 or 2: what the loops compute."""
    return all(_array(a) and isinstance(a.dtype, types.Float) and a.ndim in (1, 2) for a in arrays)


def result(*arrays):
    """The NumPy scalar type of a product of arrays of these numba types (np.float32, np.float64)."""
    return np.result_type(*(as_dtype(a.dtype) for a in arrays)).type


@overload(matmul)
def matmul_impl(a, b):
    if not floats(a, b):
        return lambda a, b: a @ b
    dtype = result(a, b)
    kind = (a.ndim, b.ndim)
    return {(2, 1): lambda a, b: matvec(a, b, dtype), (1, 2): lambda a, b: vecmat(a, b, dtype),
            (1, 1): lambda a, b: vecvec(a, b, dtype), (2, 2): lambda a, b: matmat(a, b, dtype)}[kind]
