"""More of autograd's differential operators, for programs written for autograd, built on adsrc's:

    deriv(f, argnum=0)(*args)                  -> J 1: the forward derivative along ones (f' for f of a number)
    holomorphic_grad(f, argnum=0)(*args)       -> f'(z) for f holomorphic in the complex argument z
    make_hvp(f, argnum=0)(*args)               -> (hvp, gradient): hvp(v) is H v, H the Hessian of f there
    make_ggnvp(f, g=..., f_argnum=0)(*args)(v) -> J^T H_g J v: the generalized Gauss-Newton product of g(f(x))
"""

import warnings

import numpy as np

from .api import grad
from .autograd_names import hessian_vector_product, make_jvp, make_vjp
from .frontend.source import define
from .pullback import vjp

__all__ = ["deriv", "holomorphic_grad", "make_hvp", "make_ggnvp"]


def _ones_like(x):
    return 1.0 if np.ndim(x) == 0 and not isinstance(x, np.ndarray) else np.ones(np.shape(x), np.result_type(x, float))


def deriv(fun, argnum=0):
    """autograd's deriv: the jvp of fun along ones in argument argnum (fun's derivative, for a function of a
    number; each output's derivative by its own input, for one applied elementwise)."""
    def at(*args, **kwargs):
        if kwargs:
            raise TypeError("deriv: pass the arguments by position")
        return make_jvp(fun, argnum)(*args)(_ones_like(args[argnum]))[1]
    return at


def _real_part(fun):
    """`real_of_<name>(*args, **kwargs) = np.real(fun(*args, **kwargs))`, from registered source (so that adsrc
    transforms it like the user's code)."""
    name = "real_of_" + (getattr(fun, "__name__", "") if str(getattr(fun, "__name__", "")).isidentifier() else "fun")
    source = f"def {name}(*args, **kwargs):\n    return np.real(fun(*args, **kwargs))\n"
    return define(source, name, {"__name__": "adsrc_holomorphic", "np": np, "fun": fun}, "holomorphic_grad")


def holomorphic_grad(fun, argnum=0):
    """autograd's holomorphic_grad: the gradient of Re f, which for f holomorphic in a complex z is f'(z)
    (adsrc's, JAX's and autograd's convention: dL/dx - i dL/dy of a real L). A real argument is accepted, with
    autograd's warning."""
    real = grad(_real_part(fun), argnums=argnum)

    def at(*args, **kwargs):
        if not np.iscomplexobj(args[argnum]):
            warnings.warn("Input to holomorphic_grad is not complex", stacklevel=2)
        return real(*args, **kwargs)
    return at


def make_hvp(fun, argnum=0):
    """autograd's make_hvp: at args, (hvp, gradient) with hvp(v) the Hessian of fun times v."""
    return make_vjp(grad(fun, argnums=argnum), argnum)


def _half_squared_norm(y):
    return 0.5 * np.sum(y ** 2, axis=-1)


def make_ggnvp(f, g=_half_squared_norm, f_argnum=0):
    """autograd's make_ggnvp: for the loss g(f(x)), v -> J^T H J v with J the Jacobian of f at x (argument
    f_argnum) and H the Hessian of g at f(x)."""
    def at(*args):
        f_x, pullback = vjp(f, *args)
        g_hvp = hessian_vector_product(g)
        jvp_f = make_jvp(f, f_argnum)(*args)

        def ggnvp(v):
            return pullback(g_hvp(f_x, jvp_f(v)[1]))[f_argnum]
        return ggnvp
    return at
