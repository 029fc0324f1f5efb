"""scipy.linalg functions with NumPy counterparts, written over those (which have rules) and differentiated
like the user's code (scipy_source.py's table): qr, norm, pinv, lstsq, polar, and the continuous and discrete
Lyapunov equations (solved as one linear system of n^2 unknowns, for the small systems of control code).
Each keeps SciPy's meaning for the arguments it takes and refuses, by name, the ones it does not."""

import numpy as np

from ..errors import TransformError
from .by_source_more import _unsupported


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    if pivoting:
        _unsupported("scipy.linalg.qr", "pivoting=True")
    if mode not in ("full", "economic", "r"):
        _unsupported("scipy.linalg.qr", f"mode={mode!r}")
    m, n = np.shape(a)[-2:]
    if mode == "full" and m > n:
        raise TransformError("adsrc cannot differentiate scipy.linalg.qr in mode='full' (the default) of a matrix with "
                             "more rows than columns: the last columns of Q are not determined by the matrix (JAX "
                             "refuses them too). Pass mode='economic' (the same R without its zero rows, and the "
                             "first columns of Q), or mode='r' if only R is used.")
    q, r = np.linalg.qr(a)
    if mode == "r":
        return (np.concatenate((r, np.zeros((m - n, n), dtype=r.dtype)), axis=0) if m > n else r,)
    return q, r


def norm(a, ord=None, axis=None, keepdims=False, check_finite=True):
    return np.linalg.norm(a, ord=ord, axis=axis, keepdims=keepdims)


def pinv(a, *, atol=None, rtol=None, return_rank=False, check_finite=True):
    if atol is not None or return_rank:
        _unsupported("scipy.linalg.pinv", "atol= or return_rank=True")
    if rtol is None:
        return np.linalg.pinv(a)
    return np.linalg.pinv(a, rtol=rtol)


def lstsq(a, b, cond=None, overwrite_a=False, overwrite_b=False, check_finite=True, lapack_driver=None):
    return np.linalg.lstsq(a, b, rcond=cond)


def polar(a, side="right"):
    """a = U P (side 'right', P = V S V^H) or P U ('left', P = W S W^H), from a = W S V^H."""
    w, s, vh = np.linalg.svd(a, full_matrices=False)
    u = w @ vh
    if side == "right":
        return u, (np.conjugate(vh).T * s) @ vh
    return u, (w * s) @ np.conjugate(w).T


def solve_continuous_lyapunov(a, q):
    """A X + X A^H = Q: (A (x) I + I (x) conj(A)) vec(X) = vec(Q), row by row."""
    n = np.shape(a)[0]
    eye = np.eye(n)
    system = np.kron(a, eye) + np.kron(eye, np.conjugate(a))
    return np.linalg.solve(system, np.reshape(q, (n * n,))).reshape(n, n)


def solve_discrete_lyapunov(a, q, method=None):
    """X - A X A^H = Q: (I - A (x) conj(A)) vec(X) = vec(Q), row by row."""
    n = np.shape(a)[0]
    system = np.eye(n * n) - np.kron(a, np.conjugate(a))
    return np.linalg.solve(system, np.reshape(q, (n * n,))).reshape(n, n)


FUNCTIONS = {"qr": qr, "norm": norm, "pinv": pinv, "lstsq": lstsq, "polar": polar,
             "solve_continuous_lyapunov": solve_continuous_lyapunov,
             "solve_discrete_lyapunov": solve_discrete_lyapunov}
