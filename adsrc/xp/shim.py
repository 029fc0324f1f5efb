"""NumPy's names over one array-API namespace: the `np` of the backward pass for array-API arrays.

The runtime helpers and rule templates are NumPy code (`np.sum(g, axis=a,
keepdims=True)`, `np.swapaxes(y, -1, -2)`). For arrays that implement only
the array API, dispatch.py runs the same code with `np` bound to a
`NumpyOver(xp)`, which implements each NumPy function the helpers call with
the namespace `xp` of the argument. A call without any array of that library
among its arguments (np.prod of a list of ints, np.ndim of a float) is
NumPy's own. A NumPy function adsrc has not mapped raises an error naming it.
"""

import math

import numpy as np

from . import is_xp_array

# NumPy name -> array-API name, for functions that mean the same
RENAMED = {
    "absolute": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
    "arctan": "atan", "arctan2": "atan2", "arctanh": "atanh", "power": "pow", "true_divide": "divide",
    "conjugate": "conj", "mod": "remainder", "concatenate": "concat", "invert": "bitwise_invert",
}
# names NumPy and the array API share, with the same meaning for the arguments the helpers pass
SAME = frozenset("""
abs acos acosh asin asinh atan atan2 atanh add subtract multiply divide negative positive exp expm1 log log1p
log2 log10 sqrt square sin cos tan sinh cosh tanh sign floor ceil trunc round maximum minimum logaddexp hypot
copysign isnan isinf isfinite equal not_equal less less_equal greater greater_equal logical_and logical_or
logical_not logical_xor where matmul tensordot flip roll stack squeeze broadcast_to max min mean prod
argmax argmin argsort sort cumulative_sum cumulative_prod take take_along_axis tril triu zeros_like ones_like
empty_like full_like real imag conj reciprocal all any
""".split())


def _has_xp(args, kwargs):
    for a in args:
        if is_xp_array(a) or type(a) in (tuple, list) and any(is_xp_array(b) for b in a):
            return True
    return any(is_xp_array(v) for v in kwargs.values())


class UnmappedNumpy(NotImplementedError):
    """The backward pass needs a NumPy function adsrc has not mapped to the array API."""


class NumpyOver:
    """`np` for the helpers, over the array-API namespace xp."""

    def __init__(self, xp):
        self.xp = xp
        self.__name__ = f"numpy over {getattr(xp, '__name__', xp)}"

    def __getattr__(self, name):
        orig = getattr(np, name)
        if not callable(orig) or isinstance(orig, type):
            return orig             # np.pi, np.newaxis, np.ndarray, np.float64: as they are
        xp = self.xp
        target = RENAMED.get(name, name if name in SAME else None)
        fn = getattr(xp, target, None) if target is not None else None

        def call(*args, **kwargs):
            if not _has_xp(args, kwargs):
                return orig(*args, **kwargs)
            if fn is None:
                raise UnmappedNumpy(
                    f"adsrc's backward pass for arrays of {getattr(xp, '__name__', xp)} needs np.{name}, which adsrc "
                    f"does not map to the array API. Differentiate a function that avoids the NumPy operation "
                    f"whose rule uses it, or convert the arguments to NumPy arrays (np.asarray) first.")
            return fn(*args, **{k: self._dtype(v) if k == "dtype" else v for k, v in kwargs.items()})

        call.__name__ = name
        self.__dict__[name] = call
        return call

    # -- dtypes and shapes ----------------------------------------------------------------------------
    def _dtype(self, d):
        """A NumPy dtype (or type) as the namespace's dtype."""
        if d is None or not isinstance(d, (type, np.dtype, str)):
            return d
        if d is float:
            return self.xp.float64
        return getattr(self.xp, np.dtype(d).name)

    def shape(self, a):
        return tuple(a.shape) if is_xp_array(a) else np.shape(a)

    def ndim(self, a):
        return a.ndim if is_xp_array(a) else np.ndim(a)

    def size(self, a, axis=None):
        if not is_xp_array(a):
            return np.size(a, axis)
        return math.prod(a.shape) if axis is None else a.shape[axis]

    def result_type(self, *args):
        arrays_or_dtypes = [a for a in args if not isinstance(a, (int, float, complex, np.generic))
                            and not isinstance(a, (np.dtype, type))]
        if not arrays_or_dtypes:
            return np.result_type(*args)
        return self.xp.result_type(*arrays_or_dtypes)

    def iscomplexobj(self, x):
        if is_xp_array(x):
            return bool(self.xp.isdtype(x.dtype, "complex floating"))
        return np.iscomplexobj(x)

    # -- creation ------------------------------------------------------------------------------------
    def zeros(self, shape, dtype=float):
        return self.xp.zeros(shape, dtype=self._dtype(dtype))

    def ones(self, shape, dtype=float):
        return self.xp.ones(shape, dtype=self._dtype(dtype))

    def empty(self, shape, dtype=float):
        return self.xp.empty(shape, dtype=self._dtype(dtype))

    def zeros_like(self, a, dtype=None):
        if not is_xp_array(a):
            return np.zeros_like(a, dtype=dtype)
        return self.xp.zeros_like(a, dtype=self._dtype(dtype))

    def asarray(self, a, dtype=None):
        if is_xp_array(a):
            return a if dtype is None else self.xp.astype(a, self._dtype(dtype))
        return np.asarray(a, dtype=dtype)

    # -- manipulation --------------------------------------------------------------------------------
    def dtype(self, d):
        """NumPy's dtype of the same name for a namespace's dtype (helpers read its `.kind`)."""
        try:
            return np.dtype(d)
        except TypeError:
            return np.dtype(str(d).rsplit(".", 1)[-1])

    def cumsum(self, a, axis=None):
        if axis is None:
            a, axis = self.xp.reshape(a, (-1,)), 0
        return self.xp.cumulative_sum(a, axis=axis)

    def flip(self, a, axis=None):
        return self.xp.flip(a, axis=axis)

    def reshape(self, a, shape, order="C"):
        if order != "C":
            raise UnmappedNumpy(f"np.reshape(order={order!r}) has no array-API counterpart")
        return self.xp.reshape(a, tuple(shape) if isinstance(shape, (list, tuple)) else (shape,))

    def sum(self, a, axis=None, dtype=None, keepdims=False):
        if not is_xp_array(a):
            return np.sum(a, axis=axis, dtype=dtype, keepdims=keepdims)
        if a.dtype == self.xp.bool:
            a = self.xp.astype(a, self.xp.int64)      # NumPy counts booleans
        return self.xp.sum(a, axis=axis, dtype=self._dtype(dtype), keepdims=keepdims)

    def transpose(self, a, axes=None):
        if axes is None:
            axes = tuple(range(a.ndim - 1, -1, -1))
        return self.xp.permute_dims(a, tuple(axes))

    def swapaxes(self, a, i, j):
        axes = list(range(a.ndim))
        axes[i], axes[j] = axes[j], axes[i]
        return self.xp.permute_dims(a, tuple(axes))

    def moveaxis(self, a, source, destination):
        return self.xp.moveaxis(a, source, destination)

    def expand_dims(self, a, axis):
        if isinstance(axis, (tuple, list)):
            for ax in sorted(x % (a.ndim + len(axis)) for x in axis):
                a = self.xp.expand_dims(a, axis=ax)
            return a
        return self.xp.expand_dims(a, axis=axis)

    def concatenate(self, arrays, axis=0):
        return self.xp.concat(list(arrays), axis=axis)

    def split(self, a, indices, axis=0):
        """NumPy's split at the given indices (the array API has none): slices along axis."""
        if isinstance(indices, int):
            n = a.shape[axis] // indices
            indices = [n * i for i in range(1, indices)]
        bounds = [0, *indices, a.shape[axis]]
        index = [slice(None)] * a.ndim
        out = []
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            index[axis] = slice(lo, hi)
            out.append(a[tuple(index)])
        return out

    def where(self, condition, x, y):
        xp = self.xp
        like = x if is_xp_array(x) else y if is_xp_array(y) else None
        if like is None:
            return xp.where(condition, xp.asarray(x), xp.asarray(y))
        dtype = like.dtype
        x = x if is_xp_array(x) else xp.asarray(x, dtype=dtype)
        y = y if is_xp_array(y) else xp.asarray(y, dtype=dtype)
        return xp.where(condition, x, y)
