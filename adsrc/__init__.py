"""adsrc: source-transforming automatic differentiation for Python and NumPy.

    @adsrc.grad
    def loss(w, X, y):
        return np.mean((X @ w - y) ** 2)

    dw = loss(w, X, y)
    print(loss.source())        # the generated gradient code

The public API is what `__all__` lists (and what `dir(adsrc)` shows). The
modules that implement it (adsrc.api, adsrc.transform, ...) are internal:
importable for debugging, but not part of the API and not listed.
"""

from .api import Gradient, grad, value_and_grad
from .autograd_names import (grad_and_aux, hessian_tensor_product, hessian_vector_product, make_jvp, make_vjp,
                             tensor_jacobian_product, vector_jacobian_product)
from .autograd_more import deriv, holomorphic_grad, make_ggnvp, make_hvp
from .cache import CacheInfo
from .checkpoint import checkpoint, remat
from .checks import GradientMismatch, check_grads
from .custom import custom_vjp, defvjp
from .custom_jvp import custom_jvp, defjvp
from .errors import TransformError
from .flatten import ravel_pytree
from .forward_api import jvp, linearize
from .jacobians import elementwise_grad, hessian, hvp, jacfwd, jacobian, jacrev
from . import extend, misc  # autograd's extend.primitive/defvjp, misc.flatten and misc.optimizers
from .primitives import cond, fori_loop, scan, stop_gradient, while_loop, within_grad
from .pullback import vjp
from .pytree_nodes import register_dataclass, register_pytree_node, register_pytree_node_class
from . import tree_util
from . import dynamic_calls  # noqa: F401  (helpers generated code calls for function values found at run time)
from .vmap import vmap

__version__ = "0.1.0"

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "linearize", "jacfwd", "jacrev", "jacobian", "hessian", "hvp", "elementwise_grad",
           "Gradient", "TransformError", "CacheInfo",
           "check_grads", "GradientMismatch", "custom_vjp", "defvjp", "custom_jvp", "defjvp",
           "checkpoint", "remat", "vmap", "tree_util", "cond", "scan", "while_loop", "fori_loop", "stop_gradient", "within_grad",
           "register_pytree_node", "register_pytree_node_class", "register_dataclass", "ravel_pytree", "misc", "extend",
           # autograd's names (autograd_names.py)
           "make_vjp", "make_jvp", "vector_jacobian_product", "tensor_jacobian_product", "hessian_vector_product",
           "hessian_tensor_product", "grad_and_aux", "deriv", "holomorphic_grad", "make_hvp", "make_ggnvp"]


def __dir__():
    """The public API only: the internal modules stay importable but out of sight."""
    return sorted(__all__ + ["__version__"])
