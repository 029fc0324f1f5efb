"""NumPy's ufuncs and functions on batches (batching.py): each example computed as NumPy would.

`FUNCTIONS` maps a NumPy function to its batched form; a function missing
from it raises BatchingUnsupported. Every form keeps the batch axis first and
translates the per-example arguments (axes, shapes, subscripts) to the
batch's data. Products take one batched operand: a pullback is linear in its
cotangent, and a product of two batches is refused rather than guessed.
"""

import numbers
import string

import numpy as np

from .batching import (Batched, axes_of, axis_of, batch_size, check_plain, is_batched, lifted, ndim_of,
                       shifted_index, stacked, unsupported)

FUNCTIONS = {}
_nd = np.ndarray
_NO_VALUE = getattr(np, "_NoValue", object())


def implements(*fns):
    def register(impl):
        for fn in fns:
            FUNCTIONS[fn] = impl
        return impl
    return register


def _wrap(out):
    return tuple(Batched(o) for o in out) if isinstance(out, tuple) else Batched(out)


def _no_extras(what, **kwargs):
    for k, v in kwargs.items():
        if v is not None and v is not _NO_VALUE:
            unsupported(f"{what} with {k}=")


# -- ufuncs ---------------------------------------------------------------------------------

def ufunc_call(ufunc, method, inputs, kwargs):
    if method == "at":
        return _ufunc_at(ufunc, *inputs, **kwargs)
    if method != "__call__":
        unsupported(f"np.{ufunc.__name__}.{method} on a batch")
    if ufunc is np.matmul:
        return _matmul_call(inputs, kwargs)
    if ufunc.signature is not None:
        unsupported(f"the generalized ufunc np.{ufunc.__name__} on a batch")
    out = kwargs.pop("out", None) if kwargs else None
    for k in kwargs:
        if k not in ("dtype", "casting"):
            unsupported(f"np.{ufunc.__name__} with {k}=")
    outs = () if out is None else out if isinstance(out, tuple) else (out,)
    n, nd = None, 0
    for x in inputs + outs:
        t = type(x)
        if t is float or t is int:
            continue
        if t is Batched:
            b, d = x.data.shape[0], x.data.ndim - 1
            if n is not None and b != n:
                unsupported(f"np.{ufunc.__name__} on batches of sizes {n} and {b}")
            n = b
        elif outs and any(x is o for o in outs):
            unsupported(f"np.{ufunc.__name__} of a batch written into an array that is not one")
        elif t is _nd:
            d = x.ndim
        else:
            d = np.ndim(check_plain(x, "an operation on a batch"))
        nd = d if d > nd else nd
    args = [lifted(x, nd) for x in inputs]
    if outs:                # in place (x += g): into the batch's own data
        ufunc(*args, out=tuple(o.data for o in outs), **kwargs)
        return outs[0] if len(outs) == 1 else outs
    return _wrap(ufunc(*args, **kwargs))


def _ufunc_at(ufunc, a, indices, b=None):
    if not is_batched(a):
        unsupported(f"np.{ufunc.__name__}.at into an array that is not a batch")
    if ufunc.nin != 2:
        unsupported(f"np.{ufunc.__name__}.at")
    key = shifted_index(indices, a.ndim)
    target = np.empty((0,) + a.shape)[key].ndim - 1     # the dimensions of a[indices], without copying a
    if is_batched(b) and b.data.shape[0] != a.data.shape[0]:
        unsupported("np.ufunc.at with batches of two sizes")
    ufunc.at(a.data, key, lifted(b, target))


def _matmul_call(inputs, kwargs):
    if kwargs:
        unsupported(f"np.matmul with {sorted(kwargs)}")
    return matmul(*inputs)


def matmul(a, b):
    if is_batched(a) and is_batched(b):
        unsupported("np.matmul of two batches")
    da, db = ndim_of(a), ndim_of(b)
    if da == 0 or db == 0:
        unsupported("np.matmul of a scalar")
    if is_batched(a):
        b = check_plain(b, "np.matmul")
        if da == 2 and db <= 2 and a.data.flags.c_contiguous:     # one product for the whole batch
            d = a.data
            return Batched(np.matmul(d.reshape(-1, d.shape[2]), b).reshape(d.shape[:2] + np.shape(b)[1:]))
        x = a.data if da > 1 else a.data[:, None, :]
        extra = max(db, 2) - max(da, 2)
        if extra > 0:
            x = x.reshape(x.shape[:1] + (1,) * extra + x.shape[1:])
        r = np.matmul(x, b)
        if da == 1:
            r = r[..., 0, :] if db > 1 else r[..., 0]
        return Batched(r)
    a = check_plain(a, "np.matmul")
    if db == 1 and da == 2:                 # a @ g for each g: one product (g rows times a's transpose)
        return Batched(np.matmul(b.data, np.transpose(a)))
    y = b.data if db > 1 else b.data[..., None]
    extra = max(da, 2) - max(db, 2)
    if extra > 0:
        y = y.reshape(y.shape[:1] + (1,) * extra + y.shape[1:])
    r = np.matmul(a if da > 1 else np.reshape(a, (1,) + np.shape(a)), y)
    if db == 1:
        r = r[..., 0]
    if da == 1:
        r = r[..., 0] if db == 1 else r[..., 0, :]
    return Batched(r)


# -- what examples look like -----------------------------------------------------------------

@implements(np.shape)
def _shape(a):
    return a.shape


@implements(np.ndim)
def _ndim(a):
    return a.ndim


@implements(np.size)
def _size(a, axis=None):
    return a.size if axis is None else a.shape[axis]


@implements(np.result_type)
def _result_type(*arrays_and_dtypes):
    return np.result_type(*[x.dtype if is_batched(x) else x if isinstance(x, (type, np.dtype, str))
                            else check_plain(x, "np.result_type") for x in arrays_and_dtypes])


@implements(np.iscomplexobj)
def _iscomplexobj(x):
    return x.dtype.kind == "c"


@implements(np.isrealobj)
def _isrealobj(x):
    return x.dtype.kind != "c"


@implements(np.real)
def _real(val):
    return Batched(np.real(val.data))


@implements(np.imag)
def _imag(val):
    return Batched(np.imag(val.data))


@implements(np.copy)
def _copy(a, order="K", subok=False):
    return Batched(a.data.copy())


@implements(np.may_share_memory, np.shares_memory)
def _shares(a, b, max_work=None):
    return np.may_share_memory(a.data if is_batched(a) else a, b.data if is_batched(b) else b)


def _like(fill):
    def like(a, dtype=None, order="K", subok=True, shape=None, **kwargs):
        _no_extras("np.zeros_like", shape=shape, **{k: v for k, v in kwargs.items() if k != "device"})
        return Batched(np.full(a.data.shape, fill, dtype=dtype or a.dtype))
    return like


FUNCTIONS[np.zeros_like] = FUNCTIONS[np.empty_like] = _like(0)
FUNCTIONS[np.ones_like] = _like(1)


@implements(np.full_like)
def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, **kwargs):
    _no_extras("np.full_like", shape=shape)
    if is_batched(fill_value):
        unsupported("np.full_like with a batched fill value")
    return Batched(np.full(a.data.shape, fill_value, dtype=dtype or a.dtype))


@implements(np.copyto)
def _copyto(dst, src, casting="same_kind", where=True):
    if not is_batched(dst) or where is not True:
        unsupported("np.copyto into an array that is not a batch")
    np.copyto(dst.data, lifted(src, dst.ndim), casting=casting)


# -- reductions and scans ----------------------------------------------------------------------

def _reduction(fn):
    def reduce(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        _no_extras(f"np.{fn.__name__}", out=out, **kwargs)
        if not is_batched(a):
            unsupported(f"np.{fn.__name__} of a batched argument other than the array")
        return Batched(fn(a.data, axis=axes_of(axis, a.ndim), dtype=dtype, keepdims=keepdims))
    return reduce


FUNCTIONS[np.sum] = _reduction(np.sum)
FUNCTIONS[np.mean] = _reduction(np.mean)


@implements(np.cumsum)
def _cumsum(a, axis=None, dtype=None, out=None):
    _no_extras("np.cumsum", out=out)
    if axis is None:
        return Batched(np.cumsum(a.data.reshape(a.data.shape[0], -1), axis=1, dtype=dtype))
    return Batched(np.cumsum(a.data, axis=axis_of(axis, a.ndim), dtype=dtype))


@implements(np.flip)
def _flip(m, axis=None):
    return Batched(np.flip(m.data, axes_of(axis, m.ndim)))


@implements(np.roll)
def _roll(a, shift, axis=None):
    if axis is None:
        d = a.data
        return Batched(np.roll(d.reshape(d.shape[0], -1), shift, axis=1).reshape(d.shape))
    return Batched(np.roll(a.data, shift, axes_of(axis, a.ndim) if isinstance(axis, (tuple, list))
                           else axis_of(axis, a.ndim)))


@implements(np.diff)
def _diff(a, n=1, axis=-1, prepend=_NO_VALUE, append=_NO_VALUE):
    _no_extras("np.diff", prepend=prepend, append=append)
    return Batched(np.diff(a.data, n, axis=axis_of(axis, a.ndim)))


@implements(np.trace)
def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    _no_extras("np.trace", out=out)
    return Batched(np.trace(a.data, offset, axis_of(axis1, a.ndim), axis_of(axis2, a.ndim), dtype))


@implements(np.diagonal)
def _diagonal(a, offset=0, axis1=0, axis2=1):
    return Batched(np.diagonal(a.data, offset, axis_of(axis1, a.ndim), axis_of(axis2, a.ndim)))


# -- shapes ------------------------------------------------------------------------------------

@implements(np.reshape)
def _reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    shape = newshape if shape is None else shape
    if order != "C" or copy is not None:
        unsupported(f"np.reshape with order={order!r}, copy={copy!r}")
    shape = (shape,) if isinstance(shape, (numbers.Integral, np.integer)) else tuple(shape)
    d = a.data
    if -1 in shape and d.shape[0] == 0:
        unsupported("reshaping an empty batch with -1")
    return Batched(d.reshape(d.shape[:1] + shape))


@implements(np.ravel)
def _ravel(a, order="C"):
    if order not in ("C", "K", "A") or order != "C" and not a.data.flags.c_contiguous:
        unsupported(f"np.ravel with order={order!r}")
    return Batched(a.data.reshape(a.data.shape[0], -1))


@implements(np.transpose)
def _transpose(a, axes=None):
    nd = a.ndim
    order = range(nd - 1, -1, -1) if axes is None else [axis_of(x, nd) - 1 for x in axes]
    return Batched(np.transpose(a.data, (0,) + tuple(x + 1 for x in order)))


@implements(np.swapaxes)
def _swapaxes(a, axis1, axis2):
    return Batched(np.swapaxes(a.data, axis_of(axis1, a.ndim), axis_of(axis2, a.ndim)))


@implements(np.moveaxis)
def _moveaxis(a, source, destination):
    return Batched(np.moveaxis(a.data, axes_of(source, a.ndim), axes_of(destination, a.ndim)))


@implements(np.expand_dims)
def _expand_dims(a, axis):
    k = len(axis) if isinstance(axis, (tuple, list)) else 1
    return Batched(np.expand_dims(a.data, axes_of(axis, a.ndim + k)))


@implements(np.squeeze)
def _squeeze(a, axis=None):
    if axis is None:
        axes = tuple(i + 1 for i, s in enumerate(a.shape) if s == 1)
    else:
        axes = axes_of(axis, a.ndim)
    return Batched(np.squeeze(a.data, axes))


@implements(np.broadcast_to)
def _broadcast_to(array, shape, subok=False):
    shape = (shape,) if isinstance(shape, (numbers.Integral, np.integer)) else tuple(shape)
    if len(shape) < array.ndim:
        unsupported("np.broadcast_to a shape of fewer dimensions")
    d = lifted(array, len(shape))
    return Batched(np.broadcast_to(d, d.shape[:1] + shape))


@implements(np.atleast_1d, np.atleast_2d)
def _atleast(*arys):
    unsupported("np.atleast_1d/2d on a batch")


# -- joining and choosing -------------------------------------------------------------------

def _joined(fn, arrays, axis, extra, what):
    arrays = list(arrays)
    n = batch_size(arrays, what)
    nd = ndim_of(arrays[0])
    datas = [stacked(x, n) for x in arrays]
    if axis is None:
        return Batched(fn([d.reshape(n, -1) for d in datas], axis=1))
    return Batched(fn(datas, axis=axis_of(axis, nd + extra)))


@implements(np.concatenate)
def _concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    _no_extras("np.concatenate", out=out, dtype=dtype)
    return _joined(np.concatenate, arrays, axis, 0, "np.concatenate")


@implements(np.stack)
def _stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    _no_extras("np.stack", out=out, dtype=dtype)
    if axis is None:
        unsupported("np.stack with axis=None")
    return _joined(np.stack, arrays, axis, 1, "np.stack")


@implements(np.where)
def _where(condition, x=_NO_VALUE, y=_NO_VALUE):
    if x is _NO_VALUE or y is _NO_VALUE:
        unsupported("np.where with one argument on a batch")
    ops = (condition, x, y)
    nd = max(ndim_of(v) for v in ops)
    batch_size(ops, "np.where")
    return Batched(np.where(*[lifted(v, nd) for v in ops]))


@implements(np.take)
def _take(a, indices, axis=None, out=None, mode="raise"):
    _no_extras("np.take", out=out)
    if not is_batched(a) or is_batched(indices):
        unsupported("np.take with batched indices")
    if axis is None:
        return Batched(np.take(a.data.reshape(a.data.shape[0], -1), indices, axis=1, mode=mode))
    return Batched(np.take(a.data, indices, axis=axis_of(axis, a.ndim), mode=mode))


# -- products (one batched operand) ------------------------------------------------------------

def _axes_list(ax):
    return [ax] if isinstance(ax, (numbers.Integral, np.integer)) else list(ax)


@implements(np.tensordot)
def tensordot(a, b, axes=2):
    if is_batched(a) and is_batched(b):
        unsupported("np.tensordot of two batches")
    da, db = ndim_of(a), ndim_of(b)
    if isinstance(axes, (numbers.Integral, np.integer)):
        xa, ya = list(range(da - axes, da)), list(range(axes))
    else:
        xa, ya = _axes_list(axes[0]), _axes_list(axes[1])
    xa = [x % da for x in xa] if da else xa
    ya = [y % db for y in ya] if db else ya
    if is_batched(a):
        return Batched(np.tensordot(a.data, check_plain(b, "np.tensordot"), axes=([x + 1 for x in xa], ya)))
    r = np.tensordot(check_plain(a, "np.tensordot"), b.data, axes=(xa, [y + 1 for y in ya]))
    return Batched(np.moveaxis(r, da - len(xa), 0))


@implements(np.dot)
def _dot(a, b, out=None):
    _no_extras("np.dot", out=out)
    da, db = ndim_of(a), ndim_of(b)
    if da == 0 or db == 0:
        return np.multiply(a, b)
    return tensordot(a, b, axes=([da - 1], [max(db - 2, 0)]))


@implements(np.inner)
def _inner(a, b):
    da, db = ndim_of(a), ndim_of(b)
    if da == 0 or db == 0:
        return np.multiply(a, b)
    return tensordot(a, b, axes=([da - 1], [db - 1]))


@implements(np.outer)
def _outer(a, b, out=None):
    _no_extras("np.outer", out=out)
    return np.multiply(np.expand_dims(np.ravel(a), -1), np.ravel(b))


@implements(np.matmul)
def _matmul_fn(a, b, **kwargs):
    return _matmul_call((a, b), kwargs)


@implements(np.einsum)
def _einsum(*operands, out=None, optimize=False, **kwargs):
    _no_extras("np.einsum", out=out, **kwargs)
    subscripts, ops = operands[0], list(operands[1:])
    if not isinstance(subscripts, str):
        unsupported("np.einsum in its interleaved form")
    batched = [i for i, x in enumerate(ops) if is_batched(x)]
    if len(batched) != 1:
        unsupported("np.einsum of several batches")
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    terms = inputs.split(",")
    if not arrow:
        if any(c.isupper() for c in inputs):
            unsupported("np.einsum with implicit output and capital letters")
        letters = [c for c in inputs if c.isalpha()]
        output = ("..." if "..." in inputs else "") + "".join(sorted(c for c in set(letters)
                                                                      if letters.count(c) == 1))
    free = [c for c in string.ascii_letters if c not in spec]
    if not free or len(terms) != len(ops):
        unsupported("np.einsum subscripts")
    k = batched[0]
    terms[k] = free[0] + terms[k]
    ops[k] = ops[k].data
    for i, x in enumerate(ops):
        if i != k:
            check_plain(x, "np.einsum")
    return Batched(np.einsum(",".join(terms) + "->" + free[0] + output, *ops, optimize=optimize))


from . import batched_more  # noqa: E402  (more functions: triangles, FFTs, pad, solve ...)

_ = batched_more
