"""Helpers of the derivative rules of linear algebra (stacks of matrices on the last two axes).

Each takes the output cotangent `g` and the primal values it needs, and returns the argument's cotangent
(registered for generated code by @helper; rules/helpers.py gathers them)."""

import math

import numpy as np

from ..arrays import as_array, as_float
from ..runtime import helper, full, is_zero
from .helpers_reductions import _conj, _re, expand_to, sum_like


# -- linear algebra (stacks of matrices on the last two axes) ------------------------------------

def _T(x):
    return np.swapaxes(x, -1, -2)


def _sym(x):
    return 0.5 * (x + _T(x))


def _from_triangle(s_bar, lower):
    """Cotangent of A for a function that reads only one triangle of A as a symmetric matrix S.

    s_bar is the (symmetric) cotangent of S: each off-diagonal entry of the triangle read stands
    for two entries of S.
    """
    if lower:
        return np.tril(2.0 * s_bar) - _diag_embed(np.diagonal(s_bar, 0, -2, -1))
    return np.triu(2.0 * s_bar) - _diag_embed(np.diagonal(s_bar, 0, -2, -1))


def _diag_embed(d):
    n = np.shape(d)[-1]
    return d[..., :, None] * np.eye(n)


@helper
def inv_vjp(g, ans):
    """d(A^-1) = -A^-1 dA A^-1."""
    return -np.matmul(np.matmul(_T(ans), g), _T(ans))


@helper
def solve_vjp(g, a, b, ans, k):
    """x = A^-1 b: db = A^-T g, dA = -db x^T (b a vector when x has one axis fewer than A)."""
    a = as_array(a)
    vector = np.ndim(ans) == a.ndim - 1
    if vector:
        db = np.linalg.solve(_T(a), as_array(g)[..., None])[..., 0]
        if k == 1:
            return sum_like(db, b)
        return sum_like(-db[..., :, None] * as_array(ans)[..., None, :], a)
    db = np.linalg.solve(_T(a), g)
    if k == 1:
        return sum_like(db, b)
    return sum_like(-np.matmul(db, _T(ans)), a)


@helper
def det_vjp(g, a, ans):
    """d det A = tr(adj(A) dA), with adj(A) = det A A^-1 when A is invertible."""
    if np.any(ans == 0):        # singular (no try: this helper is itself differentiated for higher order)
        return as_array(g)[..., None, None] * _cofactors(as_array(a))
    return (as_array(g) * ans)[..., None, None] * _T(np.linalg.inv(a))


def _cofactors(a):
    """The cofactor matrix adj(A)^T, also for singular A: from A = U S V^T, det(U V^T) U adj(S) V^T."""
    u, s, vt = np.linalg.svd(a)
    n = s.shape[-1]
    others = np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(n)], axis=-1)
    sign = np.linalg.det(u) * np.linalg.det(vt)
    return sign[..., None, None] * _conj(np.matmul(u * others[..., None, :], vt))


@helper
def slogdet_vjp(g, a):
    """d log det A = tr(A^-1 dA); log|det A| is its real part and, for complex A, sign = exp(i Im log det A).
    So A_bar = (Re g_logdet + i Im(g_sign sign)) A^-T (for real A the sign is locally constant)."""
    c = _re(as_array(g[1]))
    if np.iscomplexobj(a):
        sign = np.linalg.slogdet(a)[0]
        c = c + 1j * np.imag(as_array(g[0]) * sign)
    return c[..., None, None] * _T(np.linalg.inv(a))


def _H(x):
    return np.conjugate(_T(x))


def _gap(w):
    """F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it."""
    eye = np.eye(np.shape(w)[-1], dtype=bool)
    return np.where(eye, 0.0, 1.0 / np.where(eye, 1.0, w[..., None, :] - w[..., :, None]))


def _fold_hermitian(s_bar, lower):
    """Cotangent of A for a function reading one triangle of A as the Hermitian (real: symmetric) matrix S whose
    cotangent is s_bar: an entry of the triangle stands for itself and for the conjugate across the diagonal,
    and the diagonal's imaginary part is not read."""
    m = s_bar + _H(s_bar)
    return (np.tril(m) if lower else np.triu(m)) - 0.5 * _diag_embed(np.diagonal(m, 0, -2, -1))


@helper
def cholesky_vjp(g, ans, upper):
    """A = L L^H, reading one triangle of A (U = L^H when upper). With X = L^-1 dS L^-H, dL = L Phi(X), where
    Phi takes the lower triangle and halves the diagonal. Transposed with the gradient G = conj(L_bar):
    S_bar = conj(L^-H herm(Phi(L^H G)) L^-1), herm(P) = (P + P^H) / 2."""
    L = _H(ans) if upper else ans
    gl = np.conjugate(_H(g) if upper else as_array(g))
    P = np.matmul(_H(L), gl)
    P = np.tril(P) - 0.5 * _diag_embed(np.diagonal(P, 0, -2, -1))
    Linv = np.linalg.inv(L)
    z = np.matmul(np.matmul(_H(Linv), 0.5 * (P + _H(P))), Linv)
    return np.conjugate(_fold_hermitian(z, lower=not upper))


@helper
def eigh_vjp(g, ans, UPLO):
    """A V = V diag(w), A Hermitian: with C = V^H dS V, dw = Re diag(C) and dV = V (F o C) (distinct eigenvalues;
    F from _gap). Transposed under the pairing Re sum(cot * tangent): S_bar = conj(V) (diag(w_bar) +
    F o (V^T V_bar)) V^T. For complex A, a loss must not depend on the phase of each eigenvector."""
    w, v = ans
    w_bar, v_bar = g
    inner = _diag_embed(np.real(as_array(w_bar)))
    if v_bar is not None and np.any(v_bar):     # eigenvectors used: needs distinct eigenvalues
        inner = inner + _gap(w) * np.matmul(_T(v), v_bar)
    s_bar = np.matmul(np.matmul(np.conjugate(v), inner), _T(v))
    return _fold_hermitian(s_bar, lower=UPLO in ("L", "l"))


@helper
def eigvalsh_vjp(g, a, UPLO):
    w, v = np.linalg.eigh(a, UPLO=UPLO)
    return eigh_vjp((g, None), (w, v), UPLO)


@helper
def pinv_vjp(g, a, ans):
    """For A of constant rank, dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P."""
    a, P, G = as_array(a), as_array(ans), as_array(g)
    m, n = a.shape[-2:]
    Q = np.eye(m) - np.matmul(a, P)
    R = np.eye(n) - np.matmul(P, a)
    return (-np.matmul(np.matmul(_T(P), G), _T(P))
            + np.matmul(np.matmul(Q, _T(G)), np.matmul(P, _T(P)))
            + np.matmul(np.matmul(_T(P), P), np.matmul(_T(G), R)))


@helper
def qr_vjp(g, ans):
    """A = QR (reduced, m >= n): with C = Q^T dA R^-1, Q^T dQ is the antisymmetric part built from C's
    strict lower triangle and dR = (C - Q^T dQ) R; so A_bar = (Q_bar + Q N) R^-T with M = R_bar R^T - Q^T Q_bar
    and N its upper triangle mirrored."""
    q, r = ans
    q_bar, r_bar = g
    n = np.shape(r)[-1]
    if np.shape(r)[-2] != n:
        raise NotImplementedError("adsrc differentiates np.linalg.qr only for matrices with at least as many "
                                  "rows as columns in 'reduced' mode")
    M = np.matmul(r_bar, _T(r)) - np.matmul(_T(q), q_bar)
    N = np.triu(M) + _T(np.triu(M, 1))
    return np.matmul(q_bar + np.matmul(q, N), _T(np.linalg.inv(r)))


@helper
def svd_vjp(g, a, ans, full_matrices):
    """A = U diag(s) V^H (reduced, k = min(m, n); distinct nonzero singular values when U or V is used). With
    P = U^H dA V and F = _gap(s^2): ds = Re diag(P); dU = U (F o (P S + S P^H) + i Im diag(P) / s)
    + (I - U U^H) dA V S^-1; dV = V (F o (S P + P^H S)) + (I - V V^H) dA^H U S^-1 (the phases put in U).
    Transposed with the gradients G_U = conj(U_bar), G_V = Vh_bar^T, J = U^H G_U and K = V^H G_V:
    G_P = diag(s_bar) + (F o (J - J^H)) S + S (F o (K - K^H)) + i Im diag(J) / s;
    A_bar = conj(U G_P V^H + (I - U U^H) G_U S^-1 V^H + U S^-1 G_V^H (I - V V^H)).
    For complex A, a loss must not depend on the phases of the singular vectors."""
    u, s, vh = ans
    u_bar, s_bar, vh_bar = g
    a = as_array(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    if full_matrices and (np.any(u_bar[..., :, k:]) or np.any(vh_bar[..., k:, :])):
        raise NotImplementedError("the singular vectors np.linalg.svd adds with full_matrices=True to complete "
                                  "a basis are not unique, so they have no derivative; use full_matrices=False")
    u, u_bar = u[..., :, :k], u_bar[..., :, :k]
    vh, vh_bar = vh[..., :k, :], vh_bar[..., :k, :]
    s_bar = np.real(as_array(s_bar))
    if not (np.any(u_bar) or np.any(vh_bar)):      # singular values only
        return np.conjugate(np.matmul(u * s_bar[..., None, :], vh))
    gu, gv = np.conjugate(u_bar), _T(vh_bar)
    J = np.matmul(_H(u), gu)
    K = np.matmul(vh, gv)
    F = _gap(s * s)
    S = _diag_embed(s)
    gp = np.matmul(F * (J - _H(J)), S) + _diag_embed(s_bar) + np.matmul(S, F * (K - _H(K)))
    if np.iscomplexobj(J):
        gp = gp + 1j * _diag_embed(np.imag(np.diagonal(J, 0, -2, -1)) / s)
    out = np.matmul(np.matmul(u, gp), vh)
    sinv = 1.0 / s
    if m > k:
        proj_u = np.eye(m) - np.matmul(u, _H(u))
        out = out + np.matmul(np.matmul(proj_u, gu) * sinv[..., None, :], vh)
    if n > k:
        proj_v = np.eye(n) - np.matmul(_H(vh), vh)
        out = out + np.matmul(u * sinv[..., None, :], np.matmul(_H(gv), proj_v))
    return np.conjugate(out)


@helper
def svdvals_vjp(g, a):
    """d s_i = Re(u_i^H dA v_i)."""
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    return np.conjugate(np.matmul(u * np.real(as_array(g))[..., None, :], vh))


@helper
def matrix_power_vjp(g, a, n):
    """A^n: sum over k of (A^T)^k G (A^T)^(n-1-k); through A^-1 for negative n."""
    a = as_array(a)
    if n == 0:
        return np.zeros(a.shape)
    base = np.linalg.inv(a) if n < 0 else a
    m = abs(n)
    powers = [np.broadcast_to(np.eye(a.shape[-1]), a.shape)]
    for _ in range(m - 1):
        powers.append(np.matmul(powers[-1], base))
    b_bar = sum(np.matmul(np.matmul(_T(powers[k]), g), _T(powers[m - 1 - k])) for k in range(m))
    if n < 0:
        return inv_vjp(b_bar, base)
    return b_bar


@helper
def multi_dot_vjp(g, arrays):
    """Cotangents of the matrices of a chained product (a 1-D first or last factor is a row or column)."""
    mats = [as_array(x) for x in arrays]
    if mats[0].ndim == 1:
        mats[0] = mats[0][None, :]
    if mats[-1].ndim == 1:
        mats[-1] = mats[-1][:, None]
    G = np.reshape(g, (mats[0].shape[0], mats[-1].shape[1]))
    n = len(mats)
    left = [np.eye(mats[0].shape[0])]
    for x in mats[:-1]:
        left.append(left[-1] @ x)
    right = [np.eye(mats[-1].shape[1])]
    for x in mats[:0:-1]:
        right.append(x @ right[-1])
    right = right[::-1]
    return [np.reshape(left[i].T @ G @ right[i].T, np.shape(arrays[i])) for i in range(n)]


def _csign(x):
    """d|x| / dx in adsrc's convention: sign(x) for real x, conj(x) / |x| for complex x (0 at 0)."""
    if not np.iscomplexobj(x):
        return np.sign(x)
    r = np.abs(x)
    return np.where(r == 0, 0.0, np.conjugate(x) / np.where(r == 0, 1.0, r))


def _vector_norm_vjp(g, x, ans, ord, axis, keepdims):
    """Cotangent of a vector p-norm over `axis` (an int, a tuple, or None for all axes); complex x too (the
    norm of |x|: each element's |.| contributes conj(x) / |x|). At x = 0 it is 0, as |x|'s is (_csign): a
    norm guarded by `np.where(n > 0, n, 0)` then has a finite gradient, not 0 * NaN."""
    x = x if np.iscomplexobj(x) else as_float(x)
    ge = expand_to(g, x, axis, keepdims)
    ae = expand_to(ans, x, axis, keepdims)
    ae = np.where(ae == 0, 1.0, ae)     # (every element of such a fiber is 0: its cotangent is 0)
    if ord is None or ord == 2:
        return np.broadcast_to(ge * np.conjugate(x) / ae, x.shape)
    if ord == 0:
        return np.zeros(x.shape)
    if ord == 1:
        return np.broadcast_to(ge * _csign(x), x.shape)
    if np.isinf(ord):       # max or min of |x|: shared among ties
        mask = np.abs(x) == ae
        count = np.sum(mask, axis=axis, keepdims=True)
        return ge * _csign(x) * mask / count
    return ge * _csign(x) * (np.abs(x) / ae) ** (ord - 1)


def _matrix_norm_vjp(g, x, ans, ord, axes, keepdims):
    x = x if np.iscomplexobj(x) else as_float(x)
    nd = x.ndim
    r, c = axes[0] % nd, axes[1] % nd
    xm = np.moveaxis(x, (r, c), (-2, -1))
    gm = np.moveaxis(as_array(expand_to(g, x, (r, c), keepdims)), (r, c), (-2, -1))
    am = np.moveaxis(as_array(expand_to(ans, x, (r, c), keepdims)), (r, c), (-2, -1))
    if ord is None or ord == "fro":
        out = gm * np.conjugate(xm) / am
    elif ord == "nuc":          # (the conjugates: complex x, whose singular values move by Re(u^H dx v))
        u, _, vh = np.linalg.svd(xm, full_matrices=False)
        out = gm * np.conjugate(np.matmul(u, vh))
    elif ord in (2, -2):        # the largest / smallest singular value
        u, _, vh = np.linalg.svd(xm, full_matrices=False)
        i = 0 if ord == 2 else -1
        out = gm * np.conjugate(u[..., :, i, None] * vh[..., None, i, :])
    elif ord in (1, -1, np.inf, -np.inf):   # max / min column (1) or row (inf) sum of |x|
        sums = np.sum(np.abs(xm), axis=-2 if ord in (1, -1) else -1, keepdims=True)
        mask = sums == am
        out = gm * _csign(xm) * mask / np.sum(mask, axis=(-2, -1), keepdims=True)
    else:
        raise NotImplementedError(f"adsrc cannot differentiate the matrix norm with ord={ord!r}")
    return np.moveaxis(np.broadcast_to(out, xm.shape), (-2, -1), (r, c))


@helper
def norm_vjp(g, x, ans, ord, axis, keepdims):
    """np.linalg.norm: a vector norm or, over two axes (or a 2-D x with an ord), a matrix norm."""
    nd = np.ndim(x)
    if isinstance(axis, (tuple, list)) and len(axis) == 2:
        return _matrix_norm_vjp(g, x, ans, ord, tuple(axis), keepdims)
    if axis is None and ord is not None and nd == 2:
        return _matrix_norm_vjp(g, x, ans, ord, (0, 1), keepdims)
    if isinstance(axis, (tuple, list)):
        axis = axis[0]
    return _vector_norm_vjp(g, x, ans, ord, axis, keepdims)


@helper
def vector_norm_vjp(g, x, ans, ord, axis, keepdims):
    if isinstance(axis, list):
        axis = tuple(axis)
    return _vector_norm_vjp(g, x, ans, ord, axis, keepdims)


@helper
def matrix_norm_vjp(g, x, ans, ord, keepdims):
    return _matrix_norm_vjp(g, x, ans, ord, (-2, -1), keepdims)


_ = (full, is_zero, math)
