"""A batch of arrays that NumPy code treats as one array: what jacrev pulls back in one call.

`Batched(data)` holds an ndarray of shape `(B,) + shape` and stands for B
arrays of shape `shape` at once. It reports the per-example view (`.shape`,
`.ndim`, `.size`, `len()`), and implements NumPy's operations on each example
through the duck-array protocols (`__array_ufunc__`, `__array_function__`),
so a pullback written for one cotangent runs on B of them. Operands that are
not batched (residuals, constants) are the same for every example: they line
up with the trailing axes of each example, as broadcasting does.

What a per-example program would see is mirrored closely: a scalar read
(`g[0]` of a vector) is a copy, a slice a view (`.base` tells which), a
read-only broadcast stays read-only. Anything the class does not implement,
and anything whose per-example result would be a Python value that differs
between examples (`float(g)`, `bool(g > 0)`, `g.item()`, `np.asarray(g)`),
raises `BatchingUnsupported`, never a guess: jacrev then pulls back one row
at a time (jacobians.py). NumPy functions are in batched_functions.py.
"""

import numbers

import numpy as np

_nd = np.ndarray
_PLAIN = (_nd, np.generic, bool, int, float, complex)     # operands that are the same for every example


class BatchingUnsupported(Exception):
    """An operation on a batch that batching does not implement: the caller goes one example at a time.

    Not a TypeError or ValueError, so that no helper's `except TypeError`
    takes it for a different kind of value.
    """


def unsupported(what):
    raise BatchingUnsupported(what)


def is_batched(x):
    return type(x) is Batched


def size_of(batch):
    return batch.data.shape[0]


def check_plain(x, what):
    """x if it is a value NumPy handles the same way in every example, else BatchingUnsupported."""
    if isinstance(x, _PLAIN) or x is None:
        return x
    if isinstance(x, (list, tuple)) and not any(is_batched(v) for v in x):
        return x
    unsupported(f"{what} with an operand of type {type(x).__name__}")


def ndim_of(x):
    return x.ndim if type(x) is Batched else np.ndim(x)


def batch_size(xs, what):
    """The common batch size of the batched values among xs (BatchingUnsupported if they differ)."""
    n = None
    for x in xs:
        if type(x) is Batched:
            b = x.data.shape[0]
            if n is None:
                n = b
            elif b != n:
                unsupported(f"{what} on batches of sizes {n} and {b}")
    return n


def lifted(x, nd):
    """The data of an operand, lined up for an operation whose examples have nd dimensions.

    A batched value gets axes after the batch axis (its example broadcasts
    like an array of its own shape); other values are left to broadcast
    against the trailing axes.
    """
    if type(x) is Batched:
        d = x.data
        k = nd - (d.ndim - 1)
        return d.reshape(d.shape[:1] + (1,) * k + d.shape[1:]) if k > 0 else d
    return check_plain(x, "an operation on a batch")


def stacked(x, n):
    """x as batch data of size n: a batch's own data, or x repeated (a read-only view)."""
    if type(x) is Batched:
        return x.data
    x = check_plain(x, "combining with a batch")
    return np.broadcast_to(x, (n,) + np.shape(x))


def axis_of(axis, nd):
    """A per-example axis (negative allowed) as an axis of the batch data."""
    if not isinstance(axis, (numbers.Integral, np.integer)):
        unsupported(f"axis {axis!r}")
    if not -nd <= axis < nd:
        unsupported(f"axis {axis} out of range for {nd} dimensions")
    return int(axis) % nd + 1


def axes_of(axis, nd):
    """A per-example axis, tuple of axes or None (all) as a tuple of batch-data axes."""
    if axis is None:
        return tuple(range(1, nd + 1))
    if isinstance(axis, (tuple, list, range, _nd)):
        return tuple(axis_of(a, nd) for a in axis)
    return (axis_of(axis, nd),)


# -- indexing ----------------------------------------------------------------------------------

def shifted_index(idx, nd):
    """The index of the batch data that reads `idx` of every example (the batch axis first)."""
    parts = idx if type(idx) is tuple else (idx,)
    advanced = []
    for k, p in enumerate(parts):
        if type(p) is Batched:
            unsupported("indexing by a batched index")
        if p is None or p is Ellipsis or isinstance(p, slice):
            continue
        if isinstance(p, (numbers.Integral, np.integer)) and not isinstance(p, (bool, np.bool_)):
            advanced.append((k, False))
        elif isinstance(p, (_nd, list)) or isinstance(p, (bool, np.bool_)):
            advanced.append((k, True))
        else:
            unsupported(f"an index of type {type(p).__name__}")
    if any(is_arr for _, is_arr in advanced):
        positions = [k for k, _ in advanced]
        if positions != list(range(positions[0], positions[0] + len(positions))):
            # NumPy moves the indexed dimensions first when array indices are apart: not lined up here
            unsupported("array indices separated by slices")
    return (slice(None),) + parts


def _scalar_read(idx, result_nd):
    """Whether NumPy returns a scalar (a copy) for this index: a 0-d result without an Ellipsis."""
    if result_nd != 0:
        return False
    parts = idx if type(idx) is tuple else (idx,)
    return not any(p is Ellipsis for p in parts)


class Batched:
    """B arrays of one shape, held as one array of shape (B,) + shape (see the module docstring)."""

    __slots__ = ("data",)
    __hash__ = None
    __array_priority__ = 100

    def __init__(self, data):
        self.data = data

    # -- what an example looks like
    @property
    def shape(self):
        return self.data.shape[1:]

    @property
    def ndim(self):
        return self.data.ndim - 1

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def size(self):
        return int(np.prod(self.data.shape[1:], dtype=np.int64))

    @property
    def itemsize(self):
        return self.data.itemsize

    @property
    def base(self):
        """Not None when the data is a view of other data (so writes show elsewhere), as for ndarrays."""
        return self.data.base

    @property
    def T(self):
        return np.transpose(self)

    @property
    def real(self):
        return np.real(self)

    @property
    def imag(self):
        return np.imag(self)

    def __len__(self):
        if self.data.ndim < 2:
            unsupported("len() of a batched scalar")
        return self.data.shape[1]

    def __iter__(self):
        if self.data.ndim < 2:
            unsupported("iterating over a batched scalar")
        for i in range(self.data.shape[1]):
            yield self[i]

    def __repr__(self):
        return f"Batched({self.data.shape[0]} x {self.shape}, {self.dtype})"

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)      # protocol probes (__dataclass_fields__, _fields ...)
        unsupported(f"the attribute .{name} of a batch")

    # -- values that would differ between examples
    def __bool__(self):
        unsupported("the truth value of a batch")

    def __float__(self):
        unsupported("float() of a batch")

    def __int__(self):
        unsupported("int() of a batch")

    def __complex__(self):
        unsupported("complex() of a batch")

    def __index__(self):
        unsupported("a batch as an index")

    def __array__(self, *args, **kwargs):
        unsupported("converting a batch to one NumPy array (np.asarray)")

    def item(self, *args):
        unsupported("item() of a batch")

    def tolist(self):
        unsupported("tolist() of a batch")

    # -- indexing
    def __getitem__(self, idx):
        out = self.data[shifted_index(idx, self.ndim)]
        if _scalar_read(idx, out.ndim - 1):
            out = out.copy()        # NumPy returns a scalar here, not a view
        return Batched(out)

    def __setitem__(self, idx, value):
        key = shifted_index(idx, self.ndim)
        if type(value) is Batched:
            if value.data.shape[0] != self.data.shape[0]:
                unsupported("assigning a batch of another size")
            target = self.data[key].ndim - 1
            value = lifted(value, target)
        else:
            value = check_plain(value, "assigning into a batch")
        self.data[key] = value

    # -- methods
    def copy(self, order="C"):
        return Batched(self.data.copy())

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        return Batched(self.data.astype(dtype, casting=casting, copy=copy))

    def reshape(self, *shape, order="C"):
        shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], (numbers.Integral, np.integer)) \
            else shape
        return np.reshape(self, shape, order=order)

    def ravel(self, order="C"):
        return np.ravel(self, order=order)

    def flatten(self, order="C"):
        return Batched(np.ravel(self, order=order).data.copy())

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return np.transpose(self, axes if axes else None)

    def swapaxes(self, a, b):
        return np.swapaxes(self, a, b)

    def squeeze(self, axis=None):
        return np.squeeze(self, axis)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return np.sum(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return np.mean(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None, out=None):
        return np.cumsum(self, axis=axis, dtype=dtype, out=out)

    def dot(self, other):
        return np.dot(self, other)

    def conj(self):
        return np.conjugate(self)

    conjugate = conj

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return np.diagonal(self, offset, axis1, axis2)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        return np.trace(self, offset, axis1, axis2, dtype, out)

    # -- the protocols
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _functions.ufunc_call(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        impl = _functions.FUNCTIONS.get(func)
        if impl is None:
            unsupported(f"np.{getattr(func, '__name__', func)} on a batch")
        return impl(*args, **kwargs)


def _binary(ufunc, reflected=False):
    # straight to the batched form (NumPy's own dispatch to __array_ufunc__ costs as much as the operation)
    if reflected:
        def op(self, other):
            return _functions.ufunc_call(ufunc, "__call__", (other, self), {})
    else:
        def op(self, other):
            return _functions.ufunc_call(ufunc, "__call__", (self, other), {})
    return op


def _inplace(ufunc):
    def op(self, other):
        return _functions.ufunc_call(ufunc, "__call__", (self, other), {"out": (self,)})
    return op


for _name, _uf in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("truediv", np.true_divide),
                   ("floordiv", np.floor_divide), ("mod", np.remainder), ("pow", np.power),
                   ("matmul", np.matmul), ("and", np.bitwise_and), ("or", np.bitwise_or),
                   ("xor", np.bitwise_xor)):
    setattr(Batched, f"__{_name}__", _binary(_uf))
    setattr(Batched, f"__r{_name}__", _binary(_uf, reflected=True))
    setattr(Batched, f"__i{_name}__", _inplace(_uf))
for _name, _uf in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal),
                   ("eq", np.equal), ("ne", np.not_equal)):
    setattr(Batched, f"__{_name}__", _binary(_uf))
Batched.__neg__ = lambda self: np.negative(self)
Batched.__pos__ = lambda self: np.positive(self)
Batched.__abs__ = lambda self: np.absolute(self)
Batched.__invert__ = lambda self: np.invert(self)


from . import batched_functions as _functions  # noqa: E402  (NumPy's functions on batches use the above)
