"""autograd's differential operators, for programs written for autograd, built on adsrc's:

    make_vjp(f, argnum=0)(*args)               -> (vjp, ans): vjp(g) is g's cotangent for args[argnum]
    make_jvp(f, argnum=0)(*args)(v)            -> (ans, J v)
    vector_jacobian_product(f, argnum=0)(*args, v)    = make_vjp(...)(*args)[0](v) (v of the output's shape), or
                                               np.tensordot(v, J, np.ndim(v)) for v of its leading axes
    hessian_vector_product(f, argnum=0)(*args, v)     = H v, for scalar f (no Hessian formed)
    grad_and_aux(f, argnum=0)(*args)           -> (gradient, aux), for f returning (value, aux)

(`tensor_jacobian_product` and `hessian_tensor_product` are the same functions under autograd's other
names; `elementwise_grad` is in jacobians.py.)
"""

import numpy as np

from .api import grad
from .forward_api import jvp
from .pullback import vjp

__all__ = ["make_vjp", "make_jvp", "vector_jacobian_product", "tensor_jacobian_product",
           "hessian_vector_product", "hessian_tensor_product", "grad_and_aux"]


def make_vjp(fun, argnum=0):
    def at(*args):
        ans, pullback = vjp(fun, *args)
        return (lambda g: pullback(g)[argnum]), ans
    return at


def make_jvp(fun, argnum=0):
    def at(*args):
        def apply(v):
            tangents = tuple(v if i == argnum else None for i in range(len(args)))
            return jvp(fun, args, tangents)
        return apply
    return at


def vector_jacobian_product(fun, argnum=0):
    def product(*args):
        *args, v = args
        pullback, ans = make_vjp(fun, argnum)(*args)
        out_shape = np.shape(ans)
        if np.shape(v) != out_shape and np.ndim(v) < len(out_shape) and out_shape[:np.ndim(v)] == np.shape(v):
            # autograd's tensor form: v contracts the output's leading axes, np.tensordot(v, J, np.ndim(v))
            from .jacobians import jacobian
            return np.tensordot(v, jacobian(fun, argnums=argnum)(*args), axes=np.ndim(v))
        return pullback(v)
    return product


def hessian_vector_product(fun, argnum=0):
    gradient = grad(fun, argnums=argnum)

    def product(*args):
        *args, v = args
        tangents = tuple(v if i == argnum else None for i in range(len(args)))
        return jvp(gradient, tuple(args), tangents)[1]
    return product


def grad_and_aux(fun, argnum=0):
    return grad(fun, argnums=argnum, has_aux=True)


tensor_jacobian_product = vector_jacobian_product
hessian_tensor_product = hessian_vector_product
