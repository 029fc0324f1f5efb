"""scipy.linalg.logm, expm_frechet and schur (loaded with scipy_linalg.py).

logm and expm_frechet go through Frechet derivatives, taken from the block-triangular identity

    f([[A, E], [0, A]]) = [[f(A), L_f(A, E)], [0, f(A)]]

for the primary matrix function f (log, exp); the adjoint of L_f(A, .) is L_f(A^T, .), so logm's cotangent is
L_log(A^T, G). expm_frechet(A, E) is itself the blocks of exp(M), M = [[A, E], [0, A]]: its rule is exp's at M
(cotangent L_exp(M^T, [[G_expm, G_L], [0, 0]])), summed back to A's two blocks and E's. Both are holomorphic:
complex-ready (plain transposes).

schur(a) (real output): a = Z T Z^T with Z orthogonal and, when every eigenvalue is real and distinct, T upper
triangular. With C = Z^T dA Z and Omega = Z^T dZ (skew), dT = C - Omega T + T Omega, and dT's strictly lower part
is zero: the strictly lower part L of Omega solves L_ij (T_jj - T_ii) + sum_(k<j) L_ik T_kj - sum_(k>i) T_ik L_kj =
C_ij, by substitution (columns left to right, rows bottom up). The reverse rule transposes each step. T with
2 x 2 blocks (complex eigenvalues, which LAPACK normalizes) and output='complex' (whose Schur vectors' phases no
equation fixes) are refused. The signs of Z's columns are LAPACK's: they stay put under small changes of a
generic matrix, but flip where the Hessenberg reduction's reflections switch (a matrix already Hessenberg, with
zeros below its subdiagonal), and T's off-diagonal entries flip with them: there, only sign-independent uses of
T and Z have a derivative.
"""

import numpy as np
import scipy.linalg as sl

from ..runtime import helper, is_zero
from . import NOT_STATIC, general

SCHUR_BLOCKS = ("adsrc differentiates scipy.linalg.schur only where every eigenvalue is real and distinct (T "
                "triangular): this T has 2 x 2 blocks for complex eigenvalues, whose normalization has no "
                "derivative adsrc writes. Differentiate np.linalg.eigvals or scipy.linalg.eig instead, or call "
                "schur on values that are not differentiated.")


def _frechet(f, a, e):
    """L_f(A, E) by the block identity, E scaled to A's size first (L is linear in E)."""
    a, e = np.asarray(a), np.asarray(e)
    if a.ndim > 2:
        return np.stack([_frechet(f, a[i], e[i]) for i in range(a.shape[0])])
    n = a.shape[-1]
    size = np.linalg.norm(e)
    if size == 0.0:
        return np.zeros(np.broadcast_shapes(a.shape, e.shape), dtype=np.result_type(a, e))
    scale = max(np.linalg.norm(a), 1.0) / size
    m = np.block([[a, scale * e], [np.zeros_like(a), a]])
    return f(m)[:n, n:] / scale


@helper
def logm_vjp(g, a):
    return _frechet(sl.logm, np.swapaxes(np.asarray(a), -1, -2), np.broadcast_to(g, np.shape(a)))


@helper
def logm_jvp(g, a):
    return _frechet(sl.logm, a, np.broadcast_to(g, np.shape(a)))


def _logm_check(disp=None, **_):
    if disp is not None and disp is not True:
        raise TypeError("adsrc differentiates scipy.linalg.logm(A) without `disp=False` (whose error estimate "
                        "has no derivative): call it as logm(A)")


@helper
def expm_frechet_vjp(g, a, e, compute_expm, k):
    """Cotangent of A (k = 0) or E (k = 1) of expm_frechet(A, E): exp's rule at M = [[A, E], [0, A]]."""
    from .scipy_linalg import expm_vjp         # (which loads this module)
    a = np.asarray(a)
    n = a.shape[-1]
    if compute_expm:
        g_x, g_l = g
    else:
        g_x, g_l = 0.0, g
    zero = np.zeros(a.shape, dtype=np.result_type(a, e, float))
    top = [zero if is_zero(c) else np.broadcast_to(c, a.shape) for c in (g_x, g_l)]
    m = np.block([[a, np.asarray(e)], [np.zeros_like(a), a]])
    m_bar = expm_vjp(np.block([top, [zero, zero]]), m)
    if k == 1:
        return m_bar[:n, n:]
    return m_bar[:n, :n] + m_bar[n:, n:]


@helper
def expm_frechet_jvp(g_a, g_e, a, e, compute_expm):
    a = np.asarray(a)
    n = a.shape[-1]
    m = np.block([[a, np.asarray(e)], [np.zeros_like(a), a]])
    dm = np.block([[np.broadcast_to(g_a, a.shape), np.broadcast_to(g_e, a.shape)], [np.zeros(a.shape),
                                                                                      np.broadcast_to(g_a, a.shape)]])
    dx = sl.expm_frechet(m, dm, compute_expm=False)
    return (dx[:n, :n], dx[:n, n:]) if compute_expm else dx[:n, n:]


def _expm_frechet_variant(compute_expm=True, **_):
    if compute_expm is NOT_STATIC:
        raise TypeError("scipy.linalg.expm_frechet's `compute_expm` must be a constant (True or False) for adsrc")
    if compute_expm:
        return {}
    return {"tuple_output": False, "container": False}


# -- schur ---------------------------------------------------------------------------------------------------------

def _schur_parts(ans):
    t, z = (np.asarray(v) for v in ans)
    if np.ndim(t) != 2:
        raise ValueError("adsrc differentiates scipy.linalg.schur of one matrix (a 2-d array)")
    if np.any(np.tril(t, -1) != 0.0):
        raise ValueError(SCHUR_BLOCKS)
    return t, z


def _lower_solve(t, c):
    """The strictly lower L with strictly_lower(L T - T L) = strictly_lower(C)."""
    n = t.shape[0]
    low = np.zeros((n, n), dtype=np.result_type(t, c))
    d = np.diagonal(t)
    for j in range(n):
        for i in range(n - 1, j, -1):
            rest = low[i, :j] @ t[:j, j] - t[i, i + 1:] @ low[i + 1:, j]
            low[i, j] = (c[i, j] - rest) / (d[j] - d[i])
    return low


def _lower_solve_adjoint(t, b):
    """The strictly lower M with strictly_lower(M T^T - T^T M) = strictly_lower(B) (the adjoint system)."""
    n = t.shape[0]
    m = np.zeros((n, n), dtype=np.result_type(t, b))
    d = np.diagonal(t)
    for gap in range(1, n):
        for j in range(n - gap):
            i = j + gap
            rest = m[i, j + 1:i] @ t[j, j + 1:i] - t[j + 1:i, i] @ m[j + 1:i, j]
            m[i, j] = (b[i, j] - rest) / (d[j] - d[i])
    return m


@helper
def schur_jvp(g, ans):
    t, z = _schur_parts(ans)
    c = z.T @ np.broadcast_to(g, t.shape) @ z
    low = _lower_solve(t, np.tril(c, -1))
    omega = low - low.T
    return np.triu(c - omega @ t + t @ omega), z @ omega


@helper
def schur_vjp(g, ans):
    t, z = _schur_parts(ans)
    t_bar, z_bar = (np.zeros(t.shape) if is_zero(c) else np.broadcast_to(c, t.shape) for c in g)
    upper = np.triu(t_bar)
    omega_bar = z.T @ z_bar - upper @ t.T + t.T @ upper
    low_bar = np.tril(omega_bar - omega_bar.T, -1)
    c_bar = upper + _lower_solve_adjoint(t, low_bar)
    return z @ c_bar @ z.T


def _schur_check(output="real", sort=None, **_):
    if output is NOT_STATIC or output not in ("real", "r"):
        raise TypeError("adsrc differentiates scipy.linalg.schur with output='real' only: complex Schur vectors "
                        "have phases no equation fixes (LAPACK's choice), so their derivative is not defined. "
                        "Differentiate np.linalg.eigvals or scipy.linalg.eig instead.")
    if sort is not None:
        raise TypeError("adsrc differentiates scipy.linalg.schur without `sort=` (the reordering's count sdim "
                        "is an integer and its order changes in jumps)")


def install():
    general(sl.logm, "scipy.linalg.logm", "A, disp=None", check=_logm_check, A="logm_vjp(g, A)").jvps = {
        "A": "logm_jvp(g, A)"}
    rule = general(sl.expm_frechet, "scipy.linalg.expm_frechet",
                   "A, E, method=None, compute_expm=True, check_finite=True", tuple_output=True,
                   variants=_expm_frechet_variant, A="expm_frechet_vjp(g, A, E, compute_expm, 0)",
                   E="expm_frechet_vjp(g, A, E, compute_expm, 1)")
    rule.jvp_joint = "expm_frechet_jvp(t_A, t_E, A, E, compute_expm)"
    general(sl.schur, "scipy.linalg.schur", "a, output='real', lwork=None, overwrite_a=False, sort=None, "
            "check_finite=True", tuple_output=True, real_only=True, check=_schur_check,
            a="schur_vjp(g, ans)").jvps = {"a": "schur_jvp(g, ans)"}
