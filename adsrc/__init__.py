"""adsrc: source-transforming automatic differentiation for Python and NumPy.

    @adsrc.grad
    def loss(w, X, y):
        return np.mean((X @ w - y) ** 2)

    dw = loss(w, X, y)
    print(loss.source())        # the generated gradient code
"""

from .api import Gradient, grad, value_and_grad
from .cache import CacheInfo
from .errors import TransformError
from .primitives import cond, fori_loop, scan, while_loop

__version__ = "0.1.0"

__all__ = ["grad", "value_and_grad", "Gradient", "TransformError", "CacheInfo",
           "cond", "scan", "while_loop", "fori_loop"]
