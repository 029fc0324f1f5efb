"""Jacobians of Jacobians: `jacfwd(jacrev(f))`, autograd's `jacobian(jacobian(f))`, and the Hessian of a
function whose output is an array (autograd's and JAX's `hessian` of a constraint vector).

A Jacobian function runs Python loops over rows or columns that adsrc does not transform. Its own
Jacobian is built instead from what adsrc differentiates to any order: for each element i of f's
output, the second derivatives of f_i are the Jacobian (forward mode) of the gradient of

    dot_with_f(u, *args) = sum(f(*args) * u)      with u the i-th basis array

(one transformation serves every i: u is an argument, not a constant). The result has JAX's layout,
out.shape + inner.shape + outer.shape, for one argnum each and an array output.
"""

import numbers
import weakref

import numpy as np

from .frontend.source import define
from .transform import CLEAR_HOOKS

_DOTS = weakref.WeakKeyDictionary()      # fun -> {inner argnum: adsrc.grad(dot_with_fun, inner)}
CLEAR_HOOKS.append(lambda: _DOTS.clear())
# the functions jacfwd/jacrev made -> (f, argnums, has_aux): by identity, so that a function that
# functools.wraps one (copying its attributes) is not taken for it
_MADE = weakref.WeakKeyDictionary()


def mark(jacobian_fun, fun, argnums, has_aux):
    """Record what a function jacfwd/jacrev made is the Jacobian of."""
    _MADE[jacobian_fun] = (fun, argnums, has_aux)
    return jacobian_fun


def jacobian_of(fun):
    """(f, argnums) if fun is a Jacobian function adsrc made (without aux), else None."""
    try:
        made = _MADE.get(fun)
    except TypeError:          # not weakly referable
        return None
    if made is None or made[2]:
        return None
    return made[0], made[1]


def second_derivatives(fun, inner, outer):
    """A function of fun's arguments: d/d(args[outer]) of the Jacobian of fun with respect to args[inner]."""
    for name, n in (("inner", inner), ("outer", outer)):
        if not isinstance(n, numbers.Integral):
            raise NotImplementedError(f"a Jacobian of a Jacobian takes one argnum for each ({name}: {n!r}); "
                                      "differentiate with respect to one argument at a time")

    def jacobian_of_jacobian(*args):
        from .jacobians import jacfwd
        out = fun(*args)
        if not isinstance(out, (np.ndarray, float, np.floating)):
            raise TypeError(f"a Jacobian of a Jacobian needs a function returning an array; "
                            f"`{getattr(fun, '__name__', fun)}` returned a {type(out).__name__}")
        shape = np.shape(out)
        g = _gradient_of_dot(fun, inner)
        of_gradient = jacfwd(g, argnums=outer + 1)
        rows = []
        for k in range(int(np.prod(shape, dtype=int))):
            u = np.zeros(shape)
            u.flat[k] = 1.0
            rows.append(np.asarray(of_gradient(u, *args)))
        x_shapes = np.shape(args[inner]) + np.shape(args[outer])
        if not rows:
            return np.zeros(shape + x_shapes)
        return np.stack(rows).reshape(shape + x_shapes)
    return jacobian_of_jacobian


def _gradient_of_dot(fun, inner):
    from .api import grad
    try:
        table = _DOTS.setdefault(fun, {})
    except TypeError:                       # not weakly referable
        table = {}
    g = table.get(inner)
    if g is None:
        g = table[inner] = grad(_dot_with(fun), argnums=inner + 1)
    return g


def _dot_with(fun):
    """`dot_with_<name>(u, *args) = np.sum(fun(*args) * u)`, from registered source in a namespace of its own,
    so that adsrc transforms it like the user's code."""
    raw = getattr(fun, "__name__", "")
    name = "dot_with_" + (raw if str(raw).isidentifier() else "fun")
    source = f"def {name}(u, *args):\n    return np.sum(np.asarray(fun(*args)) * u)\n"
    return define(source, name, {"__name__": "adsrc_nested_jacobians", "np": np, "fun": fun}, "jacobian")
