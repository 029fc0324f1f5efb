"""adsrc: source-transforming automatic differentiation for Python and NumPy.

    @adsrc.grad
    def loss(w, X, y):
        return np.mean((X @ w - y) ** 2)

    dw = loss(w, X, y)
    print(loss.source())        # the generated gradient code
"""

from .api import Gradient, grad, value_and_grad, vjp
from .cache import CacheInfo
from .checks import check_grads
from .custom import custom_vjp, defvjp
from .errors import TransformError
from .primitives import cond, fori_loop, scan, stop_gradient, while_loop, within_grad

__version__ = "0.1.0"

__all__ = ["grad", "value_and_grad", "vjp", "Gradient", "TransformError", "CacheInfo", "check_grads",
           "custom_vjp", "defvjp",
           "cond", "scan", "while_loop", "fori_loop", "stop_gradient", "within_grad"]
