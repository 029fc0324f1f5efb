"""Derivative rules for np.linalg, one line per function.

Matrices may come in stacks (the last two axes). The helpers (`inv_vjp`,
`cholesky_vjp`, ...) are in `helpers_linalg.py`, each with its derivation. Functions
that read only one triangle of a symmetric input (cholesky, eigh, eigvalsh)
give that triangle the whole cotangent: the other triangle does not change
their result. Functions available only in newer NumPy versions are registered
when present.
"""

import inspect

import numpy as np

from . import NOT_STATIC, general, nondiff

la = np.linalg


def _has_param(fn, name):
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _norm_scalar(axis=None, keepdims=False, **_):
    return axis is None and keepdims is False


# -- inverses and solves -----------------------------------------------------------------------
general(la.inv, "np.linalg.inv", "a", a="inv_vjp(g, ans)")
general(la.solve, "np.linalg.solve", "a, b", a="solve_vjp(g, a, b, ans, 0)", b="solve_vjp(g, a, b, ans, 1)")
general(la.pinv, "np.linalg.pinv", "a, rcond=None, *, rtol=None", real_only=True, a="pinv_vjp(g, a, ans)")   # constant rank
general(la.matrix_power, "np.linalg.matrix_power", "a, n", a="matrix_power_vjp(g, a, n)")

# -- determinants ----------------------------------------------------------------------------------
general(la.det, "np.linalg.det", "a", a="det_vjp(g, a, ans)")
general(la.slogdet, "np.linalg.slogdet", "a", tuple_output=True, a="slogdet_vjp(g, a)")   # (sign, log|det|)

# -- factorizations (g is a tuple with one cotangent per factor) -------------------------------------
if _has_param(la.cholesky, "upper"):       # NumPy >= 2.0
    general(la.cholesky, "np.linalg.cholesky", "a, /, *, upper=False",
            a="cholesky_vjp(g, ans, upper)")
else:
    general(la.cholesky, "np.linalg.cholesky", "a", a="cholesky_vjp(g, ans, False)")
general(la.eigh, "np.linalg.eigh", "a, UPLO='L'", tuple_output=True, a="eigh_vjp(g, ans, UPLO)")  # distinct eigenvalues
general(la.eigvalsh, "np.linalg.eigvalsh", "a, UPLO='L'", a="eigvalsh_vjp(g, a, UPLO)")
general(la.qr, "np.linalg.qr", "a", tuple_output=True, real_only=True, a="qr_any_vjp(g, ans)")      # 'reduced' mode only


def svd_variant(module):
    """The variants of `module`.svd (np.linalg, scipy.linalg): with compute_uv=False it returns the singular
    values alone, an array, not a tuple."""
    def variant(compute_uv=True, **_):
        if compute_uv is NOT_STATIC:
            raise TypeError(f"{module}.svd's `compute_uv` must be a constant (True or False) for adsrc "
                            f"(for the singular values alone, {module}.svdvals(a) needs no flag)")
        if compute_uv:
            return {}
        return {"tuple_output": False, "container": False, "vjps": {"a": "svd_values_vjp(g, a)"}}
    return variant


general(la.svd, "np.linalg.svd", "a, full_matrices=True, compute_uv=True", tuple_output=True,
        variants=svd_variant("np.linalg"), a="svd_vjp(g, a, ans, full_matrices)")       # distinct nonzero singular values
if hasattr(la, "svdvals"):
    general(la.svdvals, "np.linalg.svdvals", "x, /", x="svdvals_vjp(g, x)")

# -- norms ------------------------------------------------------------------------------------------
general(la.norm, "np.linalg.norm", "x, ord=None, axis=None, keepdims=False", scalar_out=_norm_scalar,
        x="norm_vjp(g, x, ans, ord, axis, keepdims)")
if hasattr(la, "vector_norm"):
    general(la.vector_norm, "np.linalg.vector_norm", "x, /, *, axis=None, keepdims=False, ord=2",
            scalar_out=_norm_scalar, x="vector_norm_vjp(g, x, ans, ord, axis, keepdims)")
    general(la.matrix_norm, "np.linalg.matrix_norm", "x, /, *, keepdims=False, ord='fro'",
            x="matrix_norm_vjp(g, x, ans, ord, keepdims)")

# -- products ---------------------------------------------------------------------------------------
general(la.multi_dot, "np.linalg.multi_dot", "arrays", arrays="multi_dot_vjp(g, arrays)")
if hasattr(la, "vecdot"):       # the array-API spellings of NumPy >= 2.0 (last axes by default)
    general(la.matmul, "np.linalg.matmul", "x1, x2, /", x1="matmul_dx(g, x1, x2)", x2="matmul_dy(g, x1, x2)")
    general(la.outer, "np.linalg.outer", "x1, x2, /", x1="outer_dx(g, x1, x2)", x2="outer_dy(g, x1, x2)")
    general(la.tensordot, "np.linalg.tensordot", "x1, x2, /, *, axes=2", x1="tensordot_dx(g, x1, x2, axes)",
            x2="tensordot_dy(g, x1, x2, axes)")
    general(la.vecdot, "np.linalg.vecdot", "x1, x2, /, *, axis=-1", x1="vecdot_vjp(g, x1, x2, axis, 0)",
            x2="vecdot_vjp(g, x1, x2, axis, 1)")
    general(la.cross, "np.linalg.cross", "x1, x2, /, *, axis=-1", x1="cross_vjp(g, x1, x2, axis, axis, axis, None, 0)",
            x2="cross_vjp(g, x1, x2, axis, axis, axis, None, 1)")
    general(la.trace, "np.linalg.trace", "x, /, *, offset=0, dtype=None", x="trace_vjp(g, x, offset, -2, -1)")
    general(la.diagonal, "np.linalg.diagonal", "x, /, *, offset=0", x="diagonal_vjp(g, x, offset, -2, -1)")
    general(la.matrix_transpose, "np.linalg.matrix_transpose", "x, /", x="np.swapaxes(g, -1, -2)")

# -- never differentiated (integer results) ----------------------------------------------------------
nondiff(la.matrix_rank, "np.linalg.matrix_rank")
