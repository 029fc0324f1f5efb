"""Helpers of the derivative rules of products: matmul, dot, tensordot, inner, outer, kron, einsum.

Each takes the output cotangent `g` and the primal values it needs, and returns the argument's cotangent
(registered for generated code by @helper; rules/helpers.py gathers them)."""

import numpy as np

from ..arrays import as_array
from ..facade import size as array_size
from ..runtime import helper
from .helpers_reductions import _axes_tuple, _conj, _zeros, sum_like


# -- matrix products ----------------------------------------------------------------------

def _ndim(v):
    return v.ndim if type(v) is np.ndarray else np.ndim(v)


@helper
def matmul_dx(g, x, y):
    """Cotangent of x in x @ y."""
    xn, yn = _ndim(x), _ndim(y)
    if yn == 1:
        if xn == 1:
            return g * y
        return as_array(g)[..., None] * y
    if xn == 2 and yn == 2:
        return np.matmul(g, y.T if type(y) is np.ndarray else np.transpose(y))
    g = as_array(g)
    if xn == 1:
        return sum_leading(np.matmul(g[..., None, :], np.swapaxes(y, -1, -2))[..., 0, :], np.shape(x))
    return sum_leading(np.matmul(g, np.swapaxes(y, -1, -2)), np.shape(x))


@helper
def matmul_dy(g, x, y):
    """Cotangent of y in x @ y."""
    xn, yn = _ndim(x), _ndim(y)
    if xn == 2 and yn <= 2:
        if hasattr(x, "tocsr"):         # a scipy.sparse matrix (data): its own product
            return x.T @ as_array(g)
        return np.matmul(x.T if type(x) is np.ndarray else np.transpose(x), g)
    if xn == 1:
        if yn == 1:
            return g * x
        if yn == 2:
            return as_array(x)[:, None] * g
        return sum_leading(np.matmul(as_array(x)[:, None], np.expand_dims(g, -2)), np.shape(y))
    g = as_array(g)
    if yn == 1:
        return sum_leading(np.matmul(np.swapaxes(x, -1, -2), g[..., None])[..., 0], np.shape(y))
    return sum_leading(np.matmul(np.swapaxes(x, -1, -2), g), np.shape(y))


@helper
def sum_leading(a, shape):
    """Sum a over the leading (batch) axes it has beyond `shape`, and over broadcast batch axes."""
    shape = tuple(shape)
    if a.shape == shape:
        return a
    lead = a.ndim - len(shape)
    if lead > 0:
        a = a.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, (s, t) in enumerate(zip(a.shape, shape)) if t == 1 and s != 1)
    if axes:
        a = a.sum(axis=axes, keepdims=True)
    return a


@helper
def dot_dx(g, x, y):
    if type(x) is np.ndarray and type(y) is np.ndarray and 0 < x.ndim <= 2 and y.ndim <= 2 and y.ndim > 0:
        if y.ndim == 2:
            return np.matmul(g, y.T)                            # g @ y^T (x a vector or a matrix)
        return g * y if x.ndim == 1 else as_array(g)[:, None] * y     # vector . vector, matrix . vector
    x, y = as_array(x), as_array(y)
    if x.ndim == 0 or y.ndim == 0:
        return np.sum(g * y) if x.ndim == 0 else g * y
    if y.ndim == 1:
        return np.expand_dims(g, -1) * y
    # dot sums x's last axis against y's second-to-last: out = x.shape[:-1] + y.shape[:-2] + y.shape[-1:]
    g_axes = list(range(x.ndim - 1, x.ndim - 1 + y.ndim - 1))
    y_axes = list(range(y.ndim - 2)) + [y.ndim - 1]
    return np.tensordot(g, y, axes=(g_axes, y_axes))


@helper
def dot_dy(g, x, y):
    if type(x) is np.ndarray and type(y) is np.ndarray and 0 < x.ndim <= 2 and y.ndim <= 2 and y.ndim > 0:
        if x.ndim == 2:
            return np.matmul(x.T, g)                            # x^T @ g (y a vector or a matrix)
        return g * x if y.ndim == 1 else x[:, None] * g         # vector . vector, vector . matrix
    x, y = as_array(x), as_array(y)
    if x.ndim == 0 or y.ndim == 0:
        return np.sum(g * x) if y.ndim == 0 else g * x
    lead = list(range(x.ndim - 1))
    res = np.tensordot(x, g, axes=(lead, lead))      # (k,) + y.shape[:-2] + y.shape[-1:]
    return np.moveaxis(res, 0, -2) if y.ndim > 1 else res


def tensordot_plan(axes, nx, ny, k):
    """(g's axes and the other operand's to contract, the transposition of the result) for the cotangent of
    operand k of np.tensordot: constants, from the ranks and the axes (numpy_rules.py makes it nondiff, so the
    helpers below are differentiated again through their products only)."""
    xa, ya = _tensordot_axes(axes, nx, ny)
    x_free = [i for i in range(nx) if i not in xa]
    y_free = [i for i in range(ny) if i not in ya]
    if k == 0:      # g (x_free..., y_free...) with y over y_free: x_free, then y's contracted axes in increasing order
        g_axes, other = list(range(len(x_free), len(x_free) + len(y_free))), y_free
        order = x_free + [xa[ya.index(a)] for a in sorted(ya)]
    else:           # x over x_free with g: x's contracted axes in increasing order, then y_free
        g_axes, other = list(range(len(x_free))), x_free
        order = [ya[xa.index(a)] for a in sorted(xa)] + y_free
    return g_axes, other, _axes_tuple(np.argsort(order))


@helper
def tensordot_dx(g, x, y, axes):
    x, y = as_array(x), as_array(y)
    g_axes, y_axes, perm = tensordot_plan(axes, x.ndim, y.ndim, 0)
    return np.transpose(np.tensordot(g, y, axes=(g_axes, y_axes)), perm)


@helper
def tensordot_dy(g, x, y, axes):
    x, y = as_array(x), as_array(y)
    g_axes, x_axes, perm = tensordot_plan(axes, x.ndim, y.ndim, 1)
    return np.transpose(np.tensordot(x, g, axes=(x_axes, g_axes)), perm)


def _tensordot_axes(axes, nx, ny):
    if isinstance(axes, (int, np.integer)):
        return list(range(nx - axes, nx)), list(range(axes))
    xa, ya = axes
    xa = [xa] if isinstance(xa, (int, np.integer)) else list(xa)
    ya = [ya] if isinstance(ya, (int, np.integer)) else list(ya)
    return [a % nx for a in xa], [a % ny for a in ya]


@helper
def outer_dx(g, x, y):
    return np.reshape(np.dot(np.reshape(g, (array_size(x), array_size(y))), np.ravel(y)), np.shape(x))


@helper
def outer_dy(g, x, y):
    return np.reshape(np.dot(np.ravel(x), np.reshape(g, (array_size(x), array_size(y)))), np.shape(y))


@helper
def inner_dx(g, x, y):
    x, y = as_array(x), as_array(y)
    if x.ndim == 0 or y.ndim == 0:
        return np.sum(g * y) if x.ndim == 0 else g * y
    # inner contracts the last axes: out = x_free + y_free
    nfx = x.ndim - 1
    g_axes = list(range(nfx, np.ndim(g)))
    y_axes = list(range(y.ndim - 1))
    return np.tensordot(g, y, axes=(g_axes, y_axes))


@helper
def inner_dy(g, x, y):
    x, y = as_array(x), as_array(y)
    if x.ndim == 0 or y.ndim == 0:
        return np.sum(g * x) if y.ndim == 0 else g * x
    nfx = x.ndim - 1
    res = np.tensordot(g, x, axes=(list(range(nfx)), list(range(nfx))))  # y_free..., k
    return res



# -- products ------------------------------------------------------------------------------------

_EINSUM_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _einsum_labels(subscripts, shapes):
    """Per-operand label lists and the output labels of an einsum, with '...' and broadcast expanded.

    Every label gets one size; a dimension of size 1 that broadcasts against a larger one gets a
    label of its own.
    """
    if not isinstance(subscripts, str):
        raise NotImplementedError("adsrc differentiates np.einsum only with a subscripts string")
    s = subscripts.replace(" ", "")
    ins, out = s.split("->") if "->" in s else (s, None)
    ins = ins.split(",")
    if len(ins) != len(shapes):
        raise ValueError(f"einsum: {len(ins)} operand subscripts for {len(shapes)} operands")
    fresh = iter(c for c in _EINSUM_LETTERS if c not in s)
    ell_nd = max((len(shape) - len(spec) + 3 for spec, shape in zip(ins, shapes) if "..." in spec), default=0)
    ell = [next(fresh) for _ in range(ell_nd)]
    labels = []
    for spec, shape in zip(ins, shapes):
        if "..." in spec:
            pre, post = spec.split("...")
            n = len(shape) - len(pre) - len(post)
            labels.append(list(pre) + ell[ell_nd - n:] + list(post))
        else:
            labels.append(list(spec))
    if out is None:
        counts = {}
        for spec in ins:
            for c in spec.replace("...", ""):
                counts[c] = counts.get(c, 0) + 1
        out_labels = ell + sorted(c for c, m in counts.items() if m == 1)
    elif "..." in out:
        pre, post = out.split("...")
        out_labels = list(pre) + ell + list(post)
    else:
        out_labels = list(out)
    size = {}
    for lab, shape in zip(labels, shapes):
        for c, d in zip(lab, shape):
            if d != 1 or c not in size:
                size[c] = d
    for lab, shape in zip(labels, shapes):
        for i, (c, d) in enumerate(zip(lab, shape)):
            if d == 1 and size[c] != 1:
                lab[i] = next(fresh)
                size[lab[i]] = 1
    return labels, out_labels, size


def einsum_of(subscripts, operands):
    """np.einsum(subscripts, *operands), for a list of operands of any length (its rule in numpy_rules.py: the
    helpers below are differentiated again through it, for higher order)."""
    return np.einsum(subscripts, *operands)


@helper
def einsum_operands_vjp(g, subscripts, operands):
    """The cotangents of einsum_of's operands, one per operand, in a list."""
    return [einsum_vjp(g, subscripts, operands, k) for k in range(len(operands))]


@helper
def einsum_vjp(g, subscripts, operands, k):
    """Cotangent of operand k of np.einsum: contract g with the other operands onto operand k's labels.

    Labels only operand k has (summed in the forward pass) are broadcast back; labels it repeats
    (a diagonal) receive the cotangent on that diagonal only.
    """
    ops = [as_array(o) for o in operands if o is not None]
    labels, out_labels, size = _einsum_labels(subscripts, [o.shape for o in ops])
    mine = labels[k]
    uniq = list(dict.fromkeys(mine))
    seen = set(out_labels)
    for j, lab in enumerate(labels):
        if j != k:
            seen.update(lab)
    avail = [c for c in uniq if c in seen]
    spec = ",".join(["".join(out_labels)] + ["".join(lab) for j, lab in enumerate(labels) if j != k])
    r = einsum_of(spec + "->" + "".join(avail), [g] + [o for j, o in enumerate(ops) if j != k])
    r = np.reshape(r, [size[c] if c in seen else 1 for c in uniq])
    r = np.broadcast_to(r, [size[c] for c in uniq])
    if len(uniq) == len(mine):
        return np.transpose(r, [uniq.index(c) for c in mine]) if uniq != mine else r
    # r goes on the diagonal: each of its elements to the one place whose repeated labels share its index
    grid = np.indices([size[c] for c in uniq])
    out = _zeros(ops[k].shape, r)
    out[tuple(grid[uniq.index(c)] for c in mine)] = r
    return out


@helper
def kron_vjp(g, a, b, k):
    """kron(a, b)[i * nb + j] = a[i] b[j] per axis: view g as (na_0, nb_0, na_1, nb_1, ...)."""
    a, b = as_array(a), as_array(b)
    d = max(a.ndim, b.ndim)
    ash = (1,) * (d - a.ndim) + a.shape
    bsh = (1,) * (d - b.ndim) + b.shape
    gr = np.reshape(g, [v for pair in zip(ash, bsh) for v in pair])
    la, lb = _EINSUM_LETTERS[:d], _EINSUM_LETTERS[26:26 + d]
    gl = "".join(x + y for x, y in zip(la, lb))
    if k == 0:
        return np.reshape(np.einsum(f"{gl},{lb}->{la}", gr, np.reshape(b, bsh)), a.shape)
    return np.reshape(np.einsum(f"{gl},{la}->{lb}", gr, np.reshape(a, ash)), b.shape)


@helper
def cross_vjp(g, a, b, axisa, axisb, axisc, axis, k):
    """c = a x b: <g, a x b> = <a, b x g> = <b, g x a> (3-vectors)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    am = np.moveaxis(as_array(a), axisa, -1)
    bm = np.moveaxis(as_array(b), axisb, -1)
    if am.shape[-1] != 3 or bm.shape[-1] != 3:
        raise NotImplementedError("adsrc differentiates np.cross only for 3-component vectors")
    gm = np.moveaxis(as_array(g), axisc, -1)
    if k == 0:
        return np.moveaxis(sum_like(np.cross(bm, gm), am), -1, axisa)
    return np.moveaxis(sum_like(np.cross(gm, am), bm), -1, axisb)


@helper
def vecdot_vjp(g, x1, x2, axis, k):
    """vecdot(x1, x2) = sum(conj(x1) * x2, axis) with broadcasting: holomorphic in x2, and x1's
    cotangent is the conjugate of what conj(x1)'s would be."""
    ge = np.expand_dims(as_array(g), axis)
    if k == 0:
        return sum_like(_conj(ge * x2), x1)
    return sum_like(ge * _conj(x1), x2)


@helper
def matvec_vjp(g, x1, x2, k):
    """matvec(A, v)_i = sum_j A_ij v_j (stacked, broadcasting)."""
    g = as_array(g)
    if k == 0:
        return sum_like(g[..., :, None] * as_array(x2)[..., None, :], x1)
    return sum_like(np.einsum("...ij,...i->...j", x1, g), x2)


@helper
def vecmat_vjp(g, x1, x2, k):
    """vecmat(v, A)_j = sum_i conj(v_i) A_ij (stacked, broadcasting)."""
    g = as_array(g)
    if k == 0:
        return sum_like(_conj(np.einsum("...ij,...j->...i", x2, g)), x1)
    return sum_like(_conj(as_array(x1))[..., :, None] * g[..., None, :], x2)


@helper
def divmod_vjp(g, x, y, ans, k):
    """divmod(x, y) = (floor(x / y), x - floor(x / y) y): only the remainder depends on x and y."""
    g1 = g[1]
    return sum_like(g1, x) if k == 0 else sum_like(-g1 * ans[0], y)


@helper
def random_vjp(g, ans, p, q, k, kind):
    """Pathwise derivatives of a draw, holding the underlying standard draw fixed.

    normal(loc=p, scale=q) = p + q z; uniform(low=p, high=q) = p + (q - p) u.
    """
    g = as_array(g)
    if kind == "normal":
        return sum_like(g, p) if k == 0 else sum_like(g * (ans - p) / q, q)
    u = (ans - p) / (as_array(q) - p)
    return sum_like(g * (1.0 - u), p) if k == 0 else sum_like(g * u, q)
