"""The public API: grad and value_and_grad.

The callable they return is in gradient.py (fixed_gradients.py for bound methods, callable objects and
partials, varargs.py for functions taking *args); vjp is in pullback.py, jvp in forward_api.py.
"""

import functools

import numpy as np

from . import callables, runtime_scan, varargs
from .cache import DEFAULT_MAXSIZE
from .fixed_gradients import FixedGradient
from .gradient import Gradient


def _make(fun, with_value, **options):
    parts = callables.split(fun)
    if (parts.function is fun or not parts.fixed) and varargs.takes_varargs(parts.function):
        return varargs.VarargsGradient(lambda f: _make(f, with_value, **options), parts.function, options)
    if parts.function is not fun and parts.fixed:
        return FixedGradient(fun, parts, with_value=with_value, **options)
    return Gradient(parts.function, with_value=with_value, **options)


# -- public functions -----------------------------------------------------------------------------

def grad(fun=None, argnums=0, has_aux=False, *, static_argnums=None, static_argnames=None,
         cache_size=DEFAULT_MAXSIZE, checkpoint_loops=None, backend="numpy", argnum=None, holomorphic=False):
    """The gradient of a scalar function with respect to its argument(s) `argnums`.

    Usable as `@adsrc.grad`, `@adsrc.grad(argnums=1)` or `adsrc.grad(f, argnums=(0, 1))`.
    Static arguments (`static_argnums`/`static_argnames`, by position or name)
    select the compiled program: their values become constants in it, and each
    distinct value (and type) gets its own specialization, kept in an LRU cache
    of `cache_size` entries. With has_aux=True, f returns `(value, aux)` and
    the gradient callable returns `(gradient, aux)`.

    checkpoint_loops: None (default: a loop's backward pass reads a tape of every step), "sqrt"
    (a loop keeps its carried values every ceil(sqrt(T)) steps and the backward pass runs each
    stretch again: O(sqrt(T)) steps of memory for about twice the forward compute) or an
    integer k (kept every k steps). See adsrc.checkpoint for checkpointing one function.

    backend: "numpy" (default: the generated code runs as Python and NumPy) or "numba" (it is compiled
    with numba.njit, once per signature of dtypes and ranks; needs `pip install "adsrc[numba]"`). What
    the numba backend cannot compile is refused with an error naming the line, never run another way;
    with "auto", a function numba refuses runs with NumPy instead, logged at DEBUG on the `adsrc` logger.

    argnum: autograd's name for argnums. holomorphic=True (JAX's): f is complex and holomorphic in complex
    arguments, and the gradient is its complex derivative f'(z) (refused for arguments that are not complex).
    """
    from .jacobians import _argnums
    options = dict(argnums=_argnums(argnums, argnum), has_aux=has_aux, static_argnums=static_argnums,
                   static_argnames=static_argnames, cache_size=cache_size, checkpoint_loops=checkpoint_loops,
                   backend=backend)
    if fun is None:
        return functools.partial(grad, holomorphic=holomorphic, **options)
    return _holomorphic(_make(fun, False, **options), options["argnums"], holomorphic)


def value_and_grad(fun=None, argnums=0, has_aux=False, *, static_argnums=None, static_argnames=None,
                   cache_size=DEFAULT_MAXSIZE, checkpoint_loops=None, backend="numpy", argnum=None,
                   holomorphic=False):
    """Like grad, but the callable returns `(value, gradient)` (`((value, aux), gradient)` with has_aux)."""
    from .jacobians import _argnums
    options = dict(argnums=_argnums(argnums, argnum), has_aux=has_aux, static_argnums=static_argnums,
                   static_argnames=static_argnames, cache_size=cache_size, checkpoint_loops=checkpoint_loops,
                   backend=backend)
    if fun is None:
        return functools.partial(value_and_grad, holomorphic=holomorphic, **options)
    return _holomorphic(_make(fun, True, **options), options["argnums"], holomorphic)


def _holomorphic(gradient, argnums, holomorphic):
    return Holomorphic(gradient, argnums) if holomorphic else gradient


class Holomorphic:
    """A gradient made with holomorphic=True: checks, as JAX does, that its differentiated arguments are
    complex, then computes the gradient (adsrc's gradient of a complex function is its complex derivative)."""

    def __init__(self, gradient, argnums):
        self.gradient = gradient
        self.argnums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def __call__(self, *args, **kwargs):
        from .checks import _leaves
        for i in self.argnums:
            if i < len(args) and not all(np.iscomplexobj(v) for _, v in _leaves(args[i])):
                raise TypeError(f"holomorphic=True needs complex arguments to differentiate, but argument {i} "
                                "is not complex: pass complex values (`z.astype(complex)`), or drop holomorphic.")
        flag = runtime_scan._HOLOMORPHIC
        was = getattr(flag, "on", False)
        flag.on = True          # the output may be complex (check_scalar)
        try:
            return self.gradient(*args, **kwargs)
        finally:
            flag.on = was

    def __getattr__(self, name):
        return getattr(self.gradient, name)
