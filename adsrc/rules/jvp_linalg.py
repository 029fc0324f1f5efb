"""Helpers of the forward templates in jvp_more.py for np.linalg and scipy.linalg (and SciPy's
softmax family and multivariate densities).

Each takes `g`, one argument's tangent, and primal values, and returns the output's tangent; the
derivations are the ones the reverse helpers (helpers.py, numpy_more_helpers.py, scipy_linalg.py)
transpose. Matrices may come in stacks (the last two axes) where the reverse rule allows it.
Functions that read one triangle of a symmetric argument see the tangent of that triangle only.
"""

import numpy as np

from ..runtime import helper
from .helpers_linalg import _H as _h, _gap      # the conjugate transpose; F_ij = 1 / (w_j - w_i) off the diagonal
from .helpers_linalg import det_vjp
from .helpers_reductions import expand_to
from .jvp_helpers import TangentTuple, _shape_like

def _t(x):
    return np.swapaxes(x, -1, -2)


def _mm(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = np.matmul(out, x)
    return out


def _sym_from(t, lower):
    """The symmetric matrix a function reading t's lower (upper) triangle sees."""
    tri = np.tril(t) if lower else np.triu(t)
    return tri + _t(np.tril(t, -1) if lower else np.triu(t, 1))


def _herm_from(t, lower):
    """The Hermitian (real: symmetric) matrix a function reading t's lower (upper) triangle sees; the diagonal's
    imaginary part is not read."""
    tri = np.tril(t, -1) if lower else np.triu(t, 1)
    return tri + _h(tri) + _diag(np.real(np.diagonal(t, 0, -2, -1)))


def _diag(d):
    return d[..., :, None] * np.eye(np.shape(d)[-1])


# -- solves and determinants -------------------------------------------------------------------------------------------

@helper
def solve_jvp(g, a, b, ans, k):
    """x = A^-1 b: dx = A^-1 (db - dA x); b is a (stack of) vector(s) when x has one axis fewer than A
    (as solve_vjp reads it)."""
    a = np.asarray(a)
    vector = np.ndim(ans) == a.ndim - 1
    if k == 1:
        rhs = g
    else:
        rhs = -(np.matmul(g, np.asarray(ans)[..., None])[..., 0] if vector else np.matmul(g, ans))
    if vector:
        rhs = np.broadcast_to(rhs, np.shape(ans))
        return np.linalg.solve(a, rhs[..., None])[..., 0]
    return np.linalg.solve(a, np.broadcast_to(rhs, np.shape(ans)))


@helper
def det_any_jvp(g, a, ans):
    """d det A = sum(adj(A)^T o dA), adj(A) from det_vjp (A^-1 det A, or cofactors when A is singular)."""
    return np.sum(det_vjp(np.ones(np.shape(ans)), a, ans) * g, axis=(-2, -1))


# -- factorizations --------------------------------------------------------------------------------------------------

@helper
def cholesky_jvp(g, ans, upper):
    """A = L L^H from one triangle of A (U = L^H when upper): dL = L Phi(L^-1 dS L^-H), Phi taking the lower
    triangle and half the (real) diagonal."""
    L = _h(ans) if upper else np.asarray(ans)
    S = _herm_from(np.asarray(g), lower=not upper)
    Linv = np.linalg.inv(L)
    X = _mm(Linv, S, _h(Linv))
    dL = np.matmul(L, np.tril(X, -1) + 0.5 * _diag(np.real(np.diagonal(X, 0, -2, -1))))
    return _h(dL) if upper else dL


@helper
def eigh_jvp(g, ans, UPLO):
    """A V = V diag(w), A Hermitian (distinct eigenvalues): with C = V^H dS V, dw = Re diag(C), dV = V (F o C)."""
    w, v = ans
    C = _mm(_h(v), _herm_from(np.asarray(g), lower=UPLO in ("L", "l")), v)
    return (np.real(np.diagonal(C, 0, -2, -1)).copy(), np.matmul(v, _gap(w) * C))


@helper
def eigvalsh_jvp(g, a, UPLO):
    """dw_i = Re(v_i^H dS v_i)."""
    _, v = np.linalg.eigh(a, UPLO=UPLO)
    S = _herm_from(np.asarray(g), lower=UPLO in ("L", "l"))
    return np.real(np.sum(np.conjugate(v) * np.matmul(S, v), axis=-2))


@helper
def eig_jvp(g, ans):
    """A = V diag(w) V^-1, unit-norm eigenvectors (distinct eigenvalues): with C = V^-1 dA V, dw = diag(C)
    and dV = V (F o C) - V diag(Re diag(V^H V (F o C))) (the derivation eig_vjp transposes)."""
    w, v = ans
    C = _mm(np.linalg.inv(v), g, v)
    dv = np.matmul(v, _gap(w) * C)
    r = np.real(np.diagonal(_mm(np.conjugate(_t(v)), dv), 0, -2, -1))
    return (np.diagonal(C, 0, -2, -1).copy(), dv - v * r[..., None, :])


@helper
def eigvals_jvp(g, a):
    w, v = np.linalg.eig(a)
    return np.diagonal(_mm(np.linalg.inv(v), g, v), 0, -2, -1).copy()


def _qr_square(q, r, dA):
    """A = QR (m >= n): B = Q^T dA R^-1, Omega = the antisymmetric part from B's strict lower triangle,
    dR = (B - Omega) R, dQ = dA R^-1 - Q (B - Omega)."""
    rinv = np.linalg.inv(r)
    B = _mm(_t(q), dA, rinv)
    low = np.tril(B, -1)
    upper = B - low + _t(low)
    return np.matmul(dA, rinv) - np.matmul(q, upper), np.matmul(upper, r)


@helper
def qr_jvp(g, ans):
    """np.linalg.qr ('reduced'); a wide A = [X | Y] has Q R_1 = X (square) and R_2 = Q^T Y."""
    q, r = ans
    m, n = np.shape(q)[-2], np.shape(r)[-1]
    dA = np.asarray(g)
    if m >= n:
        return _qr_square(q, r, dA)
    dq, dr1 = _qr_square(q, r[..., :, :m], dA[..., :, :m])
    dr2 = np.matmul(_t(dq), np.asarray(_mm(q, r[..., :, m:]))) + np.matmul(_t(q), dA[..., :, m:])
    return dq, np.concatenate([dr1, dr2], axis=-1)


def _svd_parts(a, dA):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return u, s, vh, _mm(_t(u), dA, _t(vh))


@helper
def svd_jvp(g, a, ans, full_matrices):
    """A = U S V^H (distinct nonzero singular values), P = U^H dA V, F = _gap(s^2): ds = Re diag(P),
    dU = U (F o (P S + S P^H) + i Im diag(P) / s) + (I - U U^H) dA V S^-1, and dV likewise with A^H (the
    singular vectors' phases put in U, as svd_vjp transposes). The columns full_matrices=True adds to complete a
    basis are not unique: their tangent is NaN."""
    u, s, vh = ans
    dA = np.asarray(g)
    m, n = np.shape(dA)[-2:]
    k = min(m, n)
    uk, vk = u[..., :, :k], _h(vh[..., :k, :])
    dP = _mm(_h(uk), dA, vk)
    ds = np.real(np.diagonal(dP, 0, -2, -1)).copy()
    F = _gap(s * s)
    S = _diag(s)
    inner_u = F * (np.matmul(dP, S) + np.matmul(S, _h(dP)))
    if np.iscomplexobj(dP):
        inner_u = inner_u + 1j * _diag(np.imag(np.diagonal(dP, 0, -2, -1)) / s)
    du = np.matmul(uk, inner_u)
    dv = np.matmul(vk, F * (np.matmul(S, dP) + np.matmul(_h(dP), S)))
    if m > k:
        du = du + _mm(dA, vk) / s[..., None, :] - _mm(uk, _h(uk), dA, vk) / s[..., None, :]
    if n > k:
        dv = dv + _mm(_h(dA), uk) / s[..., None, :] - _mm(vk, _h(vk), _h(dA), uk) / s[..., None, :]
    if full_matrices:
        du = np.concatenate([du, np.full(np.shape(u)[:-1] + (np.shape(u)[-1] - k,), np.nan)], axis=-1)
        dv = np.concatenate([dv, np.full(np.shape(vh)[:-1] + (np.shape(vh)[-2] - k,), np.nan)], axis=-1)
    return du, ds, _h(dv)


@helper
def svdvals_jvp(g, a):
    """ds_i = Re(u_i^H dA v_i)."""
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    return np.real(np.sum(np.conjugate(u) * np.matmul(g, _h(vh)), axis=-2))


@helper
def pinv_jvp(g, a, ans):
    """For A of constant rank: dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P."""
    a, P, dA = np.asarray(a), np.asarray(ans), np.asarray(g)
    m, n = a.shape[-2:]
    return (-_mm(P, dA, P) + _mm(P, _t(P), _t(dA), np.eye(m) - np.matmul(a, P))
            + _mm(np.eye(n) - np.matmul(P, a), _t(dA), _t(P), P))


@helper
def matrix_power_jvp(g, a, n):
    """d(B^m) = sum_k B^k dB B^(m-1-k), B = A (n > 0) or A^-1 (n < 0, dB = -B dA B)."""
    a = np.asarray(a)
    if n == 0:
        return np.zeros(a.shape)
    base = np.linalg.inv(a) if n < 0 else a
    db = -_mm(base, g, base) if n < 0 else np.asarray(g)
    m = abs(n)
    powers = [np.broadcast_to(np.eye(a.shape[-1]), a.shape)]
    for _ in range(m - 1):
        powers.append(np.matmul(powers[-1], base))
    return sum(_mm(powers[k], db, powers[m - 1 - k]) for k in range(m))


@helper
def slogdet_jvp(g, a, ans):
    """c = tr(A^-1 dA): d log|det A| = Re c and, for complex A, d sign = i Im(c) sign."""
    c = np.trace(np.linalg.solve(a, g), axis1=-2, axis2=-1)
    sign = ans[0]
    dsign = sign * 1j * np.imag(c) if np.iscomplexobj(sign) else np.zeros(np.shape(sign))
    return (dsign, np.real(c))


@helper
def lstsq_jvp(g, a, b, ans, k):
    """x = pinv(A) b; residuals |b_j - A x_j|^2 (at a minimum over x): dr_j = 2 r_j^T (db_j - dA x_j);
    rank has no tangent; the singular values as np.linalg.svdvals."""
    a = np.asarray(a, dtype=float)
    x, residuals, rank, sv = ans
    P = np.linalg.pinv(a)
    if k == 1:
        dx, dlin, dsv = np.matmul(P, g), g, np.zeros(np.shape(sv))
    else:
        dx, dlin, dsv = np.matmul(pinv_jvp(g, a, P), b), -np.matmul(g, x), svdvals_jvp(g, a)
    if np.size(residuals):
        r = np.asarray(b) - np.matmul(a, x)
        dres = 2.0 * np.sum(r * dlin, axis=0)
    else:
        dres = np.zeros(np.shape(residuals))
    return TangentTuple((dx, np.reshape(dres, np.shape(residuals)), np.zeros(np.shape(rank)), dsv))


# -- scipy.linalg ------------------------------------------------------------------------------------------------------

@helper
def cho_factor_jvp(g, ans):
    """(c, lower) = cho_factor(a): the factor's triangle of c moves as the Cholesky factor; the other
    triangle of c holds a's own entries (SciPy leaves them), so it moves with a's."""
    c, lower = ans
    tri = np.tril if lower else np.triu
    dL = cholesky_jvp(g, tri(c), not lower)
    other = np.asarray(g) - tri(np.asarray(g))
    return (dL + other, 0.0)


def _cho_matrix(c_and_lower, dc):
    """A = L L^T (or U^T U) from cho_factor's output, and dA from the tangent of c."""
    c, lower = c_and_lower
    if lower:
        L, dL = np.tril(c), np.tril(dc)
    else:
        L, dL = _t(np.triu(c)), _t(np.triu(dc))
    return np.matmul(dL, _t(L)) + np.matmul(L, _t(dL))


@helper
def cho_solve_jvp(g, c_and_lower, b, ans, k):
    """x = A^-1 b: dx = A^-1 (db - dA x)."""
    import scipy.linalg as sl
    if k == 1:
        return sl.cho_solve(c_and_lower, g)
    dA = _cho_matrix(c_and_lower, np.asarray(g[0]))
    return sl.cho_solve(c_and_lower, -np.matmul(dA, ans))


def _lu_parts(lu, piv):
    from .scipy_linalg import _lu_parts as parts
    return parts(lu, piv)


@helper
def lu_factor_jvp(g, ans):
    """A[perm] = L U: with F = L^-1 dA[perm] U^-1, dL = L tril(F, -1) and dU = triu(F) U (packed in lu)."""
    lu, piv = ans
    L, U, perm = _lu_parts(lu, piv)
    m, n = lu.shape
    k = min(m, n)
    dA = np.asarray(g)[perm]
    L1, U1 = L[:k], U[:, :k]
    F = _mm(np.linalg.inv(L1), dA[:k, :k], np.linalg.inv(U1))
    dL, dU = np.matmul(L1, np.tril(F, -1)), np.matmul(np.triu(F), U1)
    if m < n:       # U2 = L^-1 A2: dU2 = L^-1 (dA2 - dL U2)
        dU = np.hstack([dU, np.linalg.solve(L1, dA[:, k:] - np.matmul(dL, U[:, k:]))])
    elif m > n:     # L2 = A2 U^-1: dL2 = (dA2 - L2 dU) U^-1
        dL = np.vstack([dL, np.matmul(dA[k:] - np.matmul(L[k:], dU), np.linalg.inv(U1))])
    if m <= n:              # (packed as lu is: dL's strict lower part, dU's upper part)
        packed = np.tril(np.hstack([dL, np.zeros((m, n - k))]), -1) + dU
    else:
        packed = dL + np.vstack([dU, np.zeros((m - k, n))])
    return (packed, np.zeros(np.shape(piv)))


@helper
def lu_solve_jvp(g, lu_and_piv, b, ans, trans, k):
    """x = A^-1 b (A^-T b for trans=1), A[perm] = L U: dx = A^-1 (db - dA x) (transposed likewise)."""
    import scipy.linalg as sl
    transposed = trans in (1, 2, "T", "C")
    if k == 1:
        return sl.lu_solve(lu_and_piv, g, trans=trans)
    lu, piv = lu_and_piv
    L, U, perm = _lu_parts(lu, piv)
    dlu = np.asarray(g[0])
    dP = np.matmul(np.tril(dlu, -1), U) + np.matmul(L, np.triu(dlu))
    dA = np.empty_like(dP)
    dA[perm] = dP
    return sl.lu_solve(lu_and_piv, -np.matmul(_t(dA) if transposed else dA, ans), trans=trans)


@helper
def solve_triangular_jvp(g, a, b, ans, trans, lower, unit_diagonal, k):
    """x = op(T)^-1 b: dx = op(T)^-1 (db - op(dT) x), dT the tangent of the triangle read (its diagonal
    too unless taken as 1)."""
    import scipy.linalg as sl
    if k == 1:
        rhs = g
    else:
        dT = np.tril(g) if lower else np.triu(g)
        if unit_diagonal:
            dT = dT - np.diag(np.diagonal(dT))
        rhs = -np.matmul(_t(dT) if trans in (1, 2, "T", "C") else dT, ans)
    return sl.solve_triangular(a, rhs, trans=trans, lower=lower, unit_diagonal=unit_diagonal)


@helper
def scipy_solve_jvp(g, a, b, ans, assume_a, lower, transposed, k):
    """x = M^-1 b, M = A (A^T if transposed; from one triangle when assume_a is symmetric):
    dx = M^-1 (db - dM x)."""
    from .scipy_linalg import _SYMMETRIC
    a = np.asarray(a)
    sym = assume_a in _SYMMETRIC
    full = _sym_from(a, bool(lower)) if sym else a
    M = full.T if transposed and not sym else full
    if k == 1:
        return np.linalg.solve(M, g)
    dA = _sym_from(np.asarray(g), bool(lower)) if sym else np.asarray(g)
    dM = dA.T if transposed and not sym else dA
    return np.linalg.solve(M, -np.matmul(dM, ans))


@helper
def expm_jvp(g, a):
    """The Frechet derivative of the matrix exponential at A in the direction dA."""
    import scipy.linalg as sl
    a = np.asarray(a)
    g = np.broadcast_to(g, a.shape)
    if a.ndim == 2:
        return sl.expm_frechet(a, g, compute_expm=False)
    return np.stack([expm_jvp(g[i], a[i]) for i in range(a.shape[0])])


@helper
def sqrtm_jvp(g, ans):
    """X = sqrtm(A): X dX + dX X = dA (Sylvester)."""
    import scipy.linalg as sl
    x = np.asarray(ans)
    return sl.solve_sylvester(x, x, np.broadcast_to(g, x.shape))


@helper
def solve_sylvester_jvp(g, a, b, ans, k):
    """X = solve_sylvester(A, B, Q): A dX + dX B = dQ - dA X - X dB (a stack: one by one)."""
    import scipy.linalg as sl
    a, b, x = np.asarray(a), np.asarray(b), np.asarray(ans)
    g = np.broadcast_to(g, (a if k == 0 else b if k == 1 else x).shape)
    if a.ndim > 2:
        return np.stack([solve_sylvester_jvp(g[i], a[i], b[i], x[i], k) for i in range(a.shape[0])])
    rhs = g if k == 2 else -(g @ x) if k == 0 else -(x @ g)
    return sl.solve_sylvester(a, b, rhs)


@helper
def solve_banded_jvp(g, l_and_u, ab, ans, k):
    """x = A^-1 b, A in banded storage: dx = A^-1 (db - dA x), dA the banded tangent read as a matrix."""
    import scipy.linalg as sl
    from .scipy_linalg import _band_diagonals
    if k == 2:
        return sl.solve_banded(l_and_u, ab, g)
    n = np.shape(ab)[1]
    dA = np.zeros((n, n), dtype=np.result_type(g, float))
    g = np.broadcast_to(g, np.shape(ab))
    for row, cols, rows in _band_diagonals(l_and_u, n):
        dA[rows, cols] = g[row, cols]
    return sl.solve_banded(l_and_u, ab, -(dA @ np.asarray(ans)))


# -- scipy.special and scipy.stats -----------------------------------------------------------------------------------

@helper
def logsumexp_jvp(g, a, b, ans, axis, keepdims, k):
    """lse = log|sum(b e^a)| over axis, s its sign: d lse = s sum(e^(a - lse) (b da + db))."""
    lse, sign = (ans if isinstance(ans, tuple) else (ans, 1.0))
    a = np.asarray(a, dtype=float)
    bb = 1.0 if b is None else np.asarray(b, dtype=float)
    shape = np.broadcast_shapes(np.shape(a), np.shape(bb))
    e = np.exp(a - expand_to(lse, np.broadcast_to(a, shape), _axis(axis), keepdims))
    e = np.broadcast_to(e, shape)
    part = e * (bb * g if k == 0 else g)
    d = np.sum(part, axis=_axis(axis), keepdims=bool(keepdims)) * sign
    d = _shape_like(np.reshape(d, np.shape(lse)), lse)
    return TangentTuple((d, np.zeros(np.shape(sign)))) if isinstance(ans, tuple) else d


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


@helper
def softmax_jvp(g, ans, axis):
    """d softmax = s (dx - sum(s dx))."""
    return ans * (g - np.sum(ans * g, axis=_axis(axis), keepdims=True))


@helper
def log_softmax_jvp(g, ans, axis):
    """d log_softmax = dx - sum(softmax dx)."""
    return g - np.sum(np.exp(ans) * g, axis=_axis(axis), keepdims=True)


@helper
def dirichlet_jvp(g, x, alpha, ans, method, k):
    """The directional derivative along x (columns on its first axis, each giving one output) or alpha,
    from dirichlet_vjp's partial derivatives."""
    from .stats_helpers import dirichlet_vjp
    import scipy.special as sp
    if k == 0:
        d = dirichlet_vjp(np.ones(np.shape(ans)), x, alpha, ans, method, 0)
        return _shape_like(np.sum(d * g, axis=0), ans)
    x = np.asarray(x, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    full = np.concatenate([x, (1.0 - np.sum(x, axis=0))[None]], axis=0) if x.shape[0] == alpha.shape[0] - 1 else x
    shp = alpha.shape + (1,) * (full.ndim - 1)
    d = np.log(full) + sp.digamma(np.sum(alpha)) - sp.digamma(alpha.reshape(shp))
    out = np.sum(d * np.reshape(g, shp), axis=0)
    return _shape_like(out * (ans if method == "pdf" else 1.0), ans)


@helper
def mvn_jvp(g, x, mean, cov, ans, method, k):
    """logpdf = -(d log 2pi + log det S + r^T S^-1 r) / 2 per row r = x - mean: d/dx = -S^-1 r,
    d/dmean = S^-1 r, dS contributes (u^T dS u - tr(S^-1 dS)) / 2 with u = S^-1 r (S from a scalar, a
    diagonal vector or the lower triangle of a matrix, as SciPy reads it)."""
    from .stats_helpers import mvn_vjp
    if k == 0:
        d = mvn_vjp(np.ones(np.shape(ans)), x, mean, cov, ans, method, 0)
        return _shape_like(np.sum(d * g, axis=-1), ans)
    x = np.asarray(x, dtype=float)
    dim = x.shape[-1] if x.ndim else 1
    xm = x.reshape(-1, dim)
    m = np.zeros(dim) if mean is None else np.broadcast_to(np.asarray(mean, dtype=float), (dim,))
    c = np.asarray(cov, dtype=float)

    def matrix(v):
        v = np.asarray(v, dtype=float)
        s = v * np.eye(dim) if v.ndim == 0 else (np.diag(v) if v.ndim == 1 else v)
        return _sym_from(s, lower=True)
    Sinv = np.linalg.inv(matrix(c))
    u = (xm - m) @ Sinv
    if k == 1:
        d = u @ np.broadcast_to(g, (dim,))
    else:
        dS = matrix(g)
        d = 0.5 * (np.sum((u @ dS) * u, axis=-1) - np.trace(Sinv @ dS))
    d = np.reshape(d, np.shape(ans))
    return _shape_like(d * (ans if method == "pdf" else 1.0), ans)

