"""Helpers for the rules of `numpy_more.py`: np.r_/np.c_, einsum's sublist form, np.cross with
2-vectors, np.pad(mode="mean"), np.gradient, np.partition and np.linalg.lstsq/eig/qr (wide).

Each takes the output cotangent `g` and the primal values it needs and
returns one argument's cotangent, with its derivation in the docstring.
"""

import numpy as np

from ..arrays import as_array, is_lazy, need_values
from ..runtime import helper, is_zero, item_cot
from .helpers_linalg import _T, pinv_vjp, qr_vjp, svdvals_vjp
from .helpers_products import einsum_vjp
from .helpers_reductions import sum_like
from .helpers_shapes import cast_cot, pad_vjp


def _real(g):
    return np.real(g) if np.iscomplexobj(g) else g


@helper
def cast_pieces(pieces, dtype):
    """cast_cot for a list of cotangents (of the arrays joined into a result of this dtype)."""
    if dtype is None:
        return pieces
    if np.dtype(dtype).kind not in "fc":
        return 0.0
    return [cast_cot(p, dtype) for p in pieces]


# -- np.r_ and np.c_ -----------------------------------------------------------------------------------

def index_concat_tags(which, items, k):
    """np.r_/np.c_ of items with item k's elements numbered 1, 2, ... and 0 wherever anything else went."""
    concat = getattr(np, which)
    tagged = []
    for j, item in enumerate(items):
        if j == k:
            n = int(np.size(item))
            tagged.append(1j * np.arange(1, n + 1, dtype=float).reshape(np.shape(item)))
        elif isinstance(item, (str, slice)):
            tagged.append(item)
        else:
            tagged.append(np.zeros(np.shape(item)))
    return np.rint(np.imag(concat[tuple(tagged)])).astype(np.int64)


@helper
def index_concat_vjp(g, which, items, k):
    """Cotangent of item k of np.r_[items] (which='r_') or np.c_[items] (which='c_').

    Both only copy their items' elements (or make constants from slices and
    strings). Item k is replaced by the imaginary tags 1j * (1, 2, ...) and the
    other numeric items by zeros: the imaginary part of the result says where
    each element of item k went, whatever the directives, and nothing else can
    make an imaginary part.
    """
    tags = index_concat_tags(which, items, k)
    g = np.broadcast_to(g, tags.shape)
    keep = tags > 0
    n = int(np.size(items[k]))
    src = tags[keep] - 1
    parts = g[keep]
    out = np.zeros(n, dtype=np.result_type(parts.dtype, float))
    np.add.at(out, src, parts)
    return out.reshape(np.shape(items[k])) if np.ndim(items[k]) else out[0]


# -- einsum in either form ----------------------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _sublist_text(sub):
    return "".join("..." if s is Ellipsis else _LETTERS[s] for s in sub)


@helper
def einsum_any_vjp(g, args, k):
    """Cotangent of argument k of np.einsum(*args): the subscripts-string form
    einsum('ij,jk', a, b) or the sublist form einsum(a, [0, 1], b, [1, 2], [0, 2])."""
    if isinstance(args[0], str):
        return einsum_vjp(g, args[0], args[1:], k - 1)
    ops = list(args[0::2])
    subs = list(args[1::2])
    out = None
    if len(ops) > len(subs):          # an output sublist ends the arguments
        out = ops.pop()
    text = ",".join(_sublist_text(s) for s in subs)
    if out is not None:
        text += "->" + _sublist_text(out)
    if k % 2:
        raise TypeError("adsrc: an einsum sublist cannot be differentiated")
    return einsum_vjp(g, text, ops, k // 2)


# -- np.cross with 2- and 3-vectors -----------------------------------------------------------------------

def _as3(v):
    """A vector array (components on the last axis) with a zero third component added to 2-vectors."""
    if v.shape[-1] == 2:
        return np.concatenate([v, np.zeros(v.shape[:-1] + (1,), dtype=v.dtype)], axis=-1)
    return v


def _cross3(a, b):
    return np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                     a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


@helper
def cross_any_vjp(g, a, b, axisa, axisb, axisc, axis, k):
    """c = a x b, a 2-vector counting as a 3-vector with third component 0; two 2-vectors give only
    the third component of the product. <g, a x b> = <a, b x g> = <b, g x a>."""
    if axis is not None:
        axisa = axisb = axisc = axis
    am = np.moveaxis(as_array(a), axisa, -1)
    bm = np.moveaxis(as_array(b), axisb, -1)
    if am.shape[-1] not in (2, 3) or bm.shape[-1] not in (2, 3):
        raise ValueError("np.cross needs vectors of 2 or 3 components")
    a3, b3 = _as3(am), _as3(bm)
    shape = np.broadcast_shapes(a3.shape, b3.shape)
    if am.shape[-1] == 2 and bm.shape[-1] == 2:
        gz = np.broadcast_to(g, shape[:-1])
        g3 = np.stack([np.zeros_like(gz), np.zeros_like(gz), gz], axis=-1)
    else:
        g3 = np.moveaxis(np.broadcast_to(g, shape[:-1] + (3,)) if np.ndim(g) == 0 else as_array(g), axisc, -1)
    if k == 0:
        ct, mine = _cross3(b3, g3), am
    else:
        ct, mine = _cross3(g3, a3), bm
    ct = sum_like(ct[..., :mine.shape[-1]], mine)
    return np.moveaxis(ct, -1, axisa if k == 0 else axisb)


# -- np.pad(mode="mean") -------------------------------------------------------------------------------

def _pairs(value, ndim, default):
    """np.pad's per-axis (before, after) pairs from a number, a pair or one pair per axis."""
    if value is None:
        return [(default, default)] * ndim
    arr = np.broadcast_to(np.asarray(value, dtype=object), (ndim, 2))
    return [(None if b is None else int(b), None if e is None else int(e)) for b, e in arr]


@helper
def pad_mean_vjp(g, x, pad_width, stat_length):
    """np.pad(x, pad_width, mode="mean"): NumPy pads one axis after another on a canvas of the final
    shape; the pass for axis k covers all of axes < k, the original part of axes > k, and fills the two
    pads of axis k with the mean of the first / last stat_length original elements along axis k. Each
    pass is linear, so the cotangent runs through the passes' transposes in reverse order: a pad's
    cotangent is zeroed and its sum along axis k, divided by the window length, added to the window."""
    x = as_array(x)
    nd = x.ndim
    widths = _pairs(pad_width, nd, 0)
    lengths = _pairs(stat_length, nd, None)
    ct = np.array(np.broadcast_to(g, tuple(n + b + e for n, (b, e) in zip(x.shape, widths))),
                  dtype=np.result_type(as_array(g).dtype, float))
    original = tuple(slice(b, b + n) for n, (b, _) in zip(x.shape, widths))
    for k in reversed(range(nd)):
        roi = tuple(slice(None) for _ in range(k + 1)) + original[k + 1:]
        view = ct[roi]                                   # a view: updated in place
        before, after = widths[k]
        n = x.shape[k]
        lb, la = lengths[k]
        lb = n if lb is None else max(1, min(lb, n))
        la = n if la is None else max(1, min(la, n))

        def axis_slice(lo, hi):
            sl = [slice(None)] * view.ndim
            sl[k] = slice(lo, hi)
            return tuple(sl)
        for width, window, pad in ((before, axis_slice(before, before + lb), axis_slice(0, before)),
                                   (after, axis_slice(before + n - la, before + n),
                                    axis_slice(before + n, before + n + after))):
            if width == 0:
                continue
            total = np.sum(view[pad], axis=k, keepdims=True)
            view[pad] = 0.0
            view[window] += total / (window[k].stop - window[k].start)
    return ct[original]


# -- np.gradient -------------------------------------------------------------------------------------------

def _gradient_axes(f, axis):
    nd = np.ndim(f)
    if axis is None:
        return list(range(nd))
    if isinstance(axis, (tuple, list)):
        return [a % nd for a in axis]
    return [axis % nd]


@helper
def gradient_vjp(g, f, varargs, axis, edge_order):
    """np.gradient is linear in f, one axis at a time: along axis i it applies the matrix D_i whose
    column j is np.gradient of the unit vector e_j (with that axis's spacing), so f's cotangent is
    the sum over axes of D_i^T applied along axis i to that output's cotangent."""
    f = as_array(f)
    axes = _gradient_axes(f, axis)
    varargs = () if varargs is None else varargs
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1:
        spacing = [varargs[0]] * len(axes)
    else:
        spacing = list(varargs)
    single = len(axes) == 1
    if is_zero(g):
        return 0.0
    if single:
        cots = [g]
    elif isinstance(g, (list, tuple)):
        cots = list(g)
    else:
        stacked = np.broadcast_to(g, (len(axes),) + f.shape)
        cots = [stacked[i] for i in range(len(axes))]
    out = 0.0
    for ax, h, gi in zip(axes, spacing, cots):
        if is_zero(gi):
            continue
        n = f.shape[ax]
        D = np.gradient(np.eye(n), h, axis=0, edge_order=edge_order)
        gm = np.moveaxis(np.broadcast_to(gi, f.shape), ax, 0)
        ct = np.moveaxis(np.tensordot(D.T, gm, axes=1), 0, ax)
        out = out + ct
    return out


# -- np.partition ------------------------------------------------------------------------------------------

@helper
def partition_vjp(g, a, ans, axis):
    """np.partition only moves a's elements: matching the elements of a and of the result by rank
    (a stable sort of each) gives the permutation, which carries g back."""
    if is_lazy(a):
        need_values("np.partition", a)     # it sorts the values
    a = as_array(a)
    if axis is None:
        return np.reshape(partition_vjp(g, np.ravel(a), ans, -1), a.shape)
    g = np.broadcast_to(g, np.shape(ans))
    src = np.argsort(a, axis=axis, kind="stable")
    dst = np.argsort(ans, axis=axis, kind="stable")
    by_rank = np.take_along_axis(g, dst, axis=axis)
    out = np.zeros(a.shape, dtype=np.result_type(g.dtype, float))
    np.put_along_axis(out, src, by_rank, axis=axis)
    return out


# -- np.linalg: lstsq, eig, qr of wide matrices --------------------------------------------------------------

@helper
def lstsq_vjp(g, a, b, ans, k):
    """x = pinv(A) b (constant rank); the residuals r_j = |b_j - A x_j|^2 are at a minimum over x, so
    dr_j = 2 (b_j - A x_j)^T (db_j - dA x_j); the singular values as np.linalg.svdvals."""
    x_bar, res_bar, _, s_bar = (item_cot(g, i) for i in range(4))
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    x = ans[0]
    vec = b.ndim == 1
    B = b[:, None] if vec else b
    X = x[:, None] if vec else x
    P = np.linalg.pinv(a)
    a_bar = np.zeros(a.shape)
    b_bar = np.zeros(B.shape)
    if not is_zero(x_bar):
        xb = np.broadcast_to(x_bar, np.shape(x))
        XB = xb[:, None] if vec else xb
        b_bar = b_bar + np.matmul(_T(P), XB)
        a_bar = a_bar + pinv_vjp(np.matmul(XB, _T(B)), a, P)
    residuals = ans[1]
    if not is_zero(res_bar) and np.size(residuals):
        R = B - np.matmul(a, X)
        rb = np.broadcast_to(res_bar, np.shape(residuals))
        b_bar = b_bar + 2.0 * R * rb
        a_bar = a_bar - 2.0 * np.matmul(R * rb, _T(X))
    if not is_zero(s_bar):
        a_bar = a_bar + svdvals_vjp(np.broadcast_to(s_bar, np.shape(ans[3])), a)
    if k == 0:
        return a_bar
    return b_bar[:, 0] if vec else b_bar


def _gap_matrix(w):
    """F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it."""
    n = np.shape(w)[-1]
    eye = np.eye(n, dtype=bool)
    diff = w[..., None, :] - w[..., :, None]
    return np.where(eye, 0.0, 1.0 / np.where(eye, 1.0, diff))


@helper
def eig_vjp(g, ans):
    """A = V diag(w) V^-1 with unit-norm eigenvectors (distinct eigenvalues). With C = V^-1 dA V:
    dw = diag(C) and dV = V (F o C) - V diag(Re diag(V^H V (F o C))), F_ij = 1 / (w_j - w_i).
    Transposed under the pairing Re sum(a * b) (JAX's, for complex values):
    A_bar = V^-T (diag(w_bar) + F o (V^T V_bar - V^T conj(V) diag(r))) V^T, r = Re diag(V^T V_bar).
    The eigenvectors' phases are arbitrary: only functions of V that do not depend on them (|V|^2,
    projectors) have a gradient."""
    w, v = ans
    w_bar, v_bar = g
    inner = np.zeros(np.shape(v), dtype=complex)
    if not is_zero(w_bar):
        inner = inner + as_array(w_bar)[..., None, :] * np.eye(np.shape(w)[-1])
    if not is_zero(v_bar) and np.any(v_bar):
        vt_vbar = np.matmul(_T(v), v_bar)
        r = np.real(np.diagonal(vt_vbar, 0, -2, -1))
        inner = inner + _gap_matrix(w) * (vt_vbar - np.matmul(_T(v), np.conjugate(v)) * r[..., None, :])
    vinv_t = _T(np.linalg.inv(v))
    return np.matmul(np.matmul(vinv_t, inner), _T(v))


@helper
def eigvals_vjp(g, a):
    """dw = diag(V^-1 dA V): A_bar = V^-T diag(w_bar) V^T."""
    _, v = np.linalg.eig(a)
    return np.matmul(np.matmul(_T(np.linalg.inv(v)), as_array(g)[..., None, :] * np.eye(np.shape(v)[-1])),
                     _T(v))


@helper
def qr_any_vjp(g, ans):
    """QR of any shape. Wide A = [X | Y] (m < n): Q R_1 = X is a square QR and R_2 = Q^T Y, so
    dR_2 = dQ^T Y + Q^T dY: Y_bar = Q R_2_bar, and Q gets the extra cotangent Y R_2_bar^T before
    the square rule gives X_bar."""
    q, r = ans
    m, n = np.shape(q)[-2], np.shape(r)[-1]
    if m >= n:
        return qr_vjp(g, ans)
    q_bar, r_bar = (np.broadcast_to(c, np.shape(o)) for c, o in zip(g, ans))
    r1, r2 = r[..., :, :m], r[..., :, m:]
    r1_bar, r2_bar = r_bar[..., :, :m], r_bar[..., :, m:]
    y = np.matmul(q, r2)
    x_bar = qr_vjp((q_bar + np.matmul(y, _T(r2_bar)), r1_bar), (q, r1))
    y_bar = np.matmul(q, r2_bar)
    return np.concatenate([x_bar, y_bar], axis=-1)


@helper
def svd_values_vjp(g, a):
    """Cotangent of A from the singular values alone (np.linalg.svd(a, compute_uv=False))."""
    return svdvals_vjp(np.broadcast_to(g, np.shape(a)[:-2] + (min(np.shape(a)[-2:]),)), a)


_ = _real


@helper
def pad_any_vjp(g, x, pad_width, mode, stat_length):
    """np.pad: modes that copy elements (helpers.pad_vjp), and mode='mean'."""
    if mode == "mean":
        return pad_mean_vjp(g, x, pad_width, stat_length)
    return pad_vjp(g, x, pad_width, mode)
