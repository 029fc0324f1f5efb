"""Derivative rules for scipy.linalg (loaded once the program has imported scipy.linalg).

Real matrices only (the rules refuse complex arguments). Factorizations that read one triangle
of their argument (cholesky, cho_factor, eigh, solve with assume_a='pos'/'sym') give that triangle
the whole cotangent, as in linalg_rules.py. cho_factor and lu_factor return tuples whose first item
holds the factors; cho_solve and lu_solve take such a tuple, whose cotangent is a tuple too.
"""

import numpy as np
import scipy.linalg as sl

from ..runtime import helper, is_zero
from . import NOT_STATIC, general, nondiff, scipy_source
from .helpers_linalg import _T, _from_triangle, _sym, cholesky_vjp, eigh_vjp, eigvalsh_vjp
from .helpers_reductions import sum_like
from .linalg_rules import svd_variant


def _vec(b):
    return np.ndim(b) == 1


def _outer(u, v):
    """u v^T for vectors, u v^T for matrices (columns)."""
    return np.tensordot(u, v, axes=0) if np.ndim(u) == 1 else np.matmul(u, _T(v))


@helper
def solve_triangular_vjp(g, a, b, ans, trans, lower, unit_diagonal, k):
    """x = op(T)^-1 b with T a's triangle (unit diagonal if asked) and op(T) = T or T^T:
    b_bar = op(T)^-T g, and T_bar = -b_bar x^T (op = identity) or -x b_bar^T (op = transpose),
    restricted to the triangle T is read from (its diagonal too unless it is taken as 1)."""
    transposed = trans in (1, 2, "T", "C")
    b_bar = sl.solve_triangular(a, g, trans=0 if transposed else 1, lower=lower, unit_diagonal=unit_diagonal)
    if k == 1:
        return b_bar
    t_bar = -_outer(ans, b_bar) if transposed else -_outer(b_bar, ans)
    t_bar = np.tril(t_bar) if lower else np.triu(t_bar)
    if unit_diagonal:
        t_bar = t_bar - np.diag(np.diagonal(t_bar))
    return t_bar


@helper
def cho_factor_vjp(g, ans):
    """(c, lower) = cho_factor(a): the factor is c's lower (or upper) triangle; the rest of c is
    unspecified data with no cotangent."""
    c, lower = ans
    gc = g[0]
    if is_zero(gc):
        return np.zeros(np.shape(c))
    factor = np.tril(c) if lower else np.triu(c)
    gf = np.tril(gc) if lower else np.triu(gc)
    return cholesky_vjp(gf, factor, not lower)


@helper
def cho_solve_vjp(g, c_and_lower, b, ans, k):
    """x = A^-1 b with A = L L^T (or U^T U): b_bar = A^-1 g, A_bar = -b_bar x^T, and through
    dA = dL L^T + L dL^T: L_bar = (A_bar + A_bar^T) L on L's triangle (U_bar = U (A_bar + A_bar^T))."""
    c, lower = c_and_lower
    b_bar = sl.cho_solve((c, lower), g)
    if k == 1:
        return b_bar
    a_bar = -_outer(b_bar, ans)
    s = a_bar + _T(a_bar)
    if lower:
        c_bar = np.tril(np.matmul(s, np.tril(c)))
    else:
        c_bar = np.triu(np.matmul(np.triu(c), s))
    return (c_bar, 0.0)


def _lu_parts(lu, piv):
    """(L, U, perm) of an m x n lu_factor: L m x k unit lower, U k x n upper (k = min(m, n)), A[perm] = L U."""
    m, n = lu.shape
    k = min(m, n)
    L = np.tril(lu, -1)[:, :k] + np.eye(m, k)
    U = np.triu(lu)[:k]
    perm = np.arange(m)
    for i, p in enumerate(piv):           # LAPACK: row i was interchanged with row piv[i]
        perm[i], perm[p] = perm[p], perm[i]
    return L, U, perm


def _lu_square_vjp(L, U, L_bar, U_bar):
    """A_bar of A = L U (square): L^-T (tril(L^T L_bar, -1) + triu(U_bar U^T)) U^-T."""
    f_bar = np.tril(L.T @ np.tril(L_bar, -1), -1) + np.triu(np.triu(U_bar) @ U.T)
    y = sl.solve_triangular(U, f_bar.T, lower=False).T             # F_bar U^-T
    return sl.solve_triangular(L, y, lower=True, unit_diagonal=True, trans=1)     # L^-T F_bar U^-T


@helper
def lu_factor_vjp(g, ans):
    """(lu, piv) = lu_factor(A), A[perm] = L U (L unit lower, U upper, packed in lu). With
    F = L^-1 dA[perm] U^-1: dL = L tril(F, -1), dU = triu(F) U, so
    A_bar[perm] = L^-T (tril(L^T L_bar, -1) + triu(U_bar U^T)) U^-T. A wide A = [A1 A2] (m < n) is
    A1 = L U1 and U2 = L^-1 A2: A2_bar = L^-T U2_bar, and L_bar gains -A2_bar U2^T. A tall one [A1; A2] is
    A1 = L1 U and L2 = A2 U^-1: A2_bar = L2_bar U^-T, and U_bar gains -L2^T A2_bar."""
    lu, piv = ans
    glu = g[0]
    if is_zero(glu):
        return np.zeros(np.shape(lu))
    L, U, perm = _lu_parts(lu, piv)
    m, n = lu.shape
    k = min(m, n)
    L_bar, U_bar = np.tril(glu, -1)[:, :k], np.triu(glu)[:k]
    if m < n:
        a2_bar = sl.solve_triangular(L, U_bar[:, k:], lower=True, unit_diagonal=True, trans=1)
        a1_bar = _lu_square_vjp(L, U[:, :k], L_bar - a2_bar @ U[:, k:].T, U_bar[:, :k])
        a_bar = np.hstack([a1_bar, a2_bar])
    elif m > n:
        a2_bar = sl.solve_triangular(U, L_bar[k:].T, lower=False).T
        a1_bar = _lu_square_vjp(L[:k], U, L_bar[:k], U_bar - L[k:].T @ a2_bar)
        a_bar = np.vstack([a1_bar, a2_bar])
    else:
        a_bar = _lu_square_vjp(L, U, L_bar, U_bar)
    out = np.empty_like(a_bar)
    out[perm] = a_bar
    return out


@helper
def lu_solve_vjp(g, lu_and_piv, b, ans, trans, k):
    """x = A^-1 b (or A^-T b for trans=1) with A[perm] = L U: b_bar = A^-T g (A^-1 g), A_bar = -b_bar x^T
    (-x b_bar^T), and through dA[perm] = dL U + L dU: lu_bar = tril(A_bar[perm] U^T, -1) + triu(L^T A_bar[perm])."""
    lu, piv = lu_and_piv
    transposed = trans in (1, 2, "T", "C")
    b_bar = sl.lu_solve((lu, piv), g, trans=0 if transposed else 1)
    if k == 1:
        return b_bar
    a_bar = -_outer(ans, b_bar) if transposed else -_outer(b_bar, ans)
    L, U, perm = _lu_parts(lu, piv)
    p_bar = a_bar[perm]
    return (np.tril(p_bar @ U.T, -1) + np.triu(L.T @ p_bar), 0.0)


_SYMMETRIC = ("sym", "symmetric", "pos", "positive definite", "her", "hermitian")
_GENERAL = (None, "gen", "general")


def _solve_check(assume_a=None, transposed=False, **_):
    if assume_a is NOT_STATIC or assume_a not in _GENERAL + _SYMMETRIC:
        raise TypeError(f"adsrc differentiates scipy.linalg.solve with assume_a in {_GENERAL + _SYMMETRIC} "
                        "(a constant)")
    if transposed is NOT_STATIC:
        raise TypeError("scipy.linalg.solve's `transposed` must be a constant for adsrc")


@helper
def scipy_solve_vjp(g, a, b, ans, assume_a, lower, transposed, k):
    """x = A^-1 b (A^-T b if transposed): b_bar = A^-T g (A^-1 g), A_bar = -b_bar x^T (-x b_bar^T);
    with assume_a symmetric, A is read from one triangle (the upper one unless lower=True)."""
    a = np.asarray(a)
    sym = assume_a in _SYMMETRIC
    if sym:
        full = np.tril(a) + np.tril(a, -1).T if lower else np.triu(a) + np.triu(a, 1).T
    else:
        full = a
    b_bar = np.linalg.solve(full if transposed or sym else full.T, g)
    if k == 1:
        return b_bar
    a_bar = -_outer(ans, b_bar) if transposed else -_outer(b_bar, ans)
    return _from_triangle(_sym(a_bar), lower=bool(lower)) if sym else a_bar


@helper
def expm_vjp(g, a):
    """The adjoint of the Frechet derivative of exp at A is its Frechet derivative at A^T:
    A_bar = L_exp(A^T, G)."""
    a = np.asarray(a)
    g = np.broadcast_to(g, a.shape)
    if a.ndim == 2:
        return sl.expm_frechet(a.T, g, compute_expm=False)
    return np.stack([expm_vjp(g[i], a[i]) for i in range(a.shape[0])])


@helper
def sqrtm_vjp(g, ans):
    """X = sqrtm(A): dX X + X dX = dA, so A_bar solves X^T A_bar + A_bar X^T = G (Sylvester)."""
    xt = np.asarray(ans).T
    return sl.solve_sylvester(xt, xt, np.broadcast_to(g, xt.shape))


@helper
def solve_sylvester_vjp(g, a, b, ans, k):
    """X = solve_sylvester(A, B, Q): A X + X B = Q. With L solving A^T L + L B^T = G: Q_bar = L,
    A_bar = -L X^T and B_bar = -X^T L (a stack of problems: one by one). Plain transposes: X is holomorphic
    in A, B and Q, so complex values take JAX's convention with the same formulas."""
    a = np.asarray(a)
    g = np.broadcast_to(g, np.shape(ans))
    if a.ndim > 2:
        return np.stack([solve_sylvester_vjp(g[i], a[i], np.asarray(b)[i], ans[i], k) for i in range(a.shape[0])])
    lam = sl.solve_sylvester(a.T, np.asarray(b).T, g)
    if k == 2:
        return lam
    return -lam @ np.asarray(ans).T if k == 0 else -np.asarray(ans).T @ lam


def _band_diagonals(l_and_u, n):
    """(row of the banded storage, columns j, rows i) of each diagonal of an n x n matrix with (l, u) bands:
    ab[u + i - j, j] = A[i, j]."""
    lower, upper = (int(v) for v in l_and_u)
    for offset in range(-lower, upper + 1):          # offset = j - i
        cols = np.arange(max(offset, 0), min(n, n + offset))
        yield upper - offset, cols, cols - offset


@helper
def solve_banded_vjp(g, l_and_u, ab, b, ans, k):
    """x = A^-1 b with A held in LAPACK's banded storage ab: b_bar = A^-T g, and A_bar = -b_bar x^T,
    read back into the banded storage (the unused corners of ab get 0)."""
    ab = np.asarray(ab)
    n = ab.shape[1]
    dense = np.zeros((n, n), dtype=np.result_type(ab, float))
    for row, cols, rows in _band_diagonals(l_and_u, n):
        dense[rows, cols] = ab[row, cols]
    b_bar = np.linalg.solve(dense.T, np.broadcast_to(g, np.shape(ans)))
    if k == 2:
        return b_bar
    a_bar = -_outer(b_bar, np.asarray(ans))
    out = np.zeros_like(dense, shape=ab.shape)
    for row, cols, rows in _band_diagonals(l_and_u, n):
        out[row, cols] = a_bar[rows, cols]
    return out


def _eigh_variant(eigvals_only=False, **_):
    if eigvals_only is NOT_STATIC:
        raise TypeError("scipy.linalg.eigh's `eigvals_only` must be a constant (True or False) for adsrc")
    if eigvals_only:
        return {"tuple_output": False, "container": False,
                "vjps": {"a": "eigvalsh_vjp(g, a, 'L' if lower else 'U')"}}
    return {}


def _no_b(b=None, **_):
    if b is not None:
        raise TypeError("adsrc differentiates scipy.linalg.eigh/eigvalsh only for standard problems (b=None)")


general(sl.solve_triangular, "scipy.linalg.solve_triangular", "a, b, trans=0, lower=False, unit_diagonal=False",
        real_only=True,
        a="solve_triangular_vjp(g, a, b, ans, trans, lower, unit_diagonal, 0)",
        b="solve_triangular_vjp(g, a, b, ans, trans, lower, unit_diagonal, 1)")
general(sl.cho_factor, "scipy.linalg.cho_factor", "a, lower=False", tuple_output=True, real_only=True,
        a="cho_factor_vjp(g, ans)")
general(sl.cho_solve, "scipy.linalg.cho_solve", "c_and_lower, b", real_only=True,
        c_and_lower="cho_solve_vjp(g, c_and_lower, b, ans, 0)", b="cho_solve_vjp(g, c_and_lower, b, ans, 1)")
general(sl.cholesky, "scipy.linalg.cholesky", "a, lower=False", real_only=True,
        a="cholesky_vjp(g, ans, not lower)")
general(sl.lu_factor, "scipy.linalg.lu_factor", "a", tuple_output=True, real_only=True, a="lu_factor_vjp(g, ans)")
general(sl.lu_solve, "scipy.linalg.lu_solve", "lu_and_piv, b, trans=0", real_only=True,
        lu_and_piv="lu_solve_vjp(g, lu_and_piv, b, ans, trans, 0)", b="lu_solve_vjp(g, lu_and_piv, b, ans, trans, 1)")
general(sl.solve, "scipy.linalg.solve", "a, b, lower=False, *, assume_a=None, transposed=False", real_only=True,
        check=_solve_check, a="scipy_solve_vjp(g, a, b, ans, assume_a, lower, transposed, 0)",
        b="scipy_solve_vjp(g, a, b, ans, assume_a, lower, transposed, 1)")
general(sl.inv, "scipy.linalg.inv", "a", real_only=True, a="inv_vjp(g, ans)")
general(sl.det, "scipy.linalg.det", "a", real_only=True, a="det_vjp(g, a, ans)")
general(sl.expm, "scipy.linalg.expm", "A", A="expm_vjp(g, A)")       # holomorphic: complex-ready
general(sl.sqrtm, "scipy.linalg.sqrtm", "A", real_only=True, A="sqrtm_vjp(g, ans)")
general(sl.solve_sylvester, "scipy.linalg.solve_sylvester", "a, b, q",      # holomorphic: complex-ready
        a="solve_sylvester_vjp(g, a, b, ans, 0)", b="solve_sylvester_vjp(g, a, b, ans, 1)",
        q="solve_sylvester_vjp(g, a, b, ans, 2)")
general(sl.solve_banded, "scipy.linalg.solve_banded",
        "l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True", real_only=True,
        ab="solve_banded_vjp(g, l_and_u, ab, b, ans, 1)", b="solve_banded_vjp(g, l_and_u, ab, b, ans, 2)")
general(sl.eigh, "scipy.linalg.eigh", "a, b=None, *, lower=True, eigvals_only=False", tuple_output=True,
        real_only=True, variants=_eigh_variant, check=_no_b, a="eigh_vjp(g, ans, 'L' if lower else 'U')")
general(sl.eigvalsh, "scipy.linalg.eigvalsh", "a, b=None, *, lower=True", real_only=True, check=_no_b,
        a="eigvalsh_vjp(g, a, 'L' if lower else 'U')")

_ = (sum_like, eigh_vjp, eigvalsh_vjp)


# U, s, Vh as np.linalg.svd returns them (its rules: distinct nonzero singular values)
general(sl.svd, "scipy.linalg.svd", "a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True, "
        "lapack_driver='gesdd'", tuple_output=True, real_only=True, variants=svd_variant("scipy.linalg"),
        a="svd_vjp(g, a, ans, full_matrices)")
general(sl.svdvals, "scipy.linalg.svdvals", "a, overwrite_a=False, check_finite=True", real_only=True,
        a="svd_values_vjp(g, a)")


# -- scipy.linalg.lu, in plain NumPy over lu_factor (differentiated like the user's code: scipy_source.py) ---

def lu_rows(piv, m=None):
    """The row order r with A = (L U)[r], for (lu, piv) = lu_factor(A) of m rows (A[perm] = L U, r = perm's
    inverse)."""
    perm = np.arange(len(piv) if m is None else m)
    for i, p in enumerate(piv):           # LAPACK: row i was interchanged with row piv[i]
        perm[i], perm[p] = perm[p], perm[i]
    return np.argsort(perm)


def lu(a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    if np.ndim(a) != 2:
        raise NotImplementedError("adsrc differentiates scipy.linalg.lu of matrices (2-d arrays) only; for a "
                                  "stack of them, call it on each matrix")
    packed, piv = sl.lu_factor(a)
    m, n = np.shape(a)
    k = min(m, n)
    lower = np.tril(packed, -1)[:, :k] + np.eye(m, k)          # m x k, unit lower
    upper = np.triu(packed)[:k]                                  # k x n, upper
    rows = lu_rows(piv, m)
    if permute_l:
        return lower[rows], upper
    if p_indices:
        return rows, lower, upper
    return np.eye(m)[rows], lower, upper


nondiff(lu_rows, "lu_rows")
scipy_source.SCIPY_LINALG["lu"] = lu

from . import scipy_linalg_functions  # noqa: E402  (logm, expm_frechet, schur)
scipy_linalg_functions.install()
