"""Gradient-descent loops over pytrees of arrays, with autograd's names and signatures:

    params = adam(grad_fn, params0, callback=None, num_iters=100, step_size=0.001)

`grad_fn(params, i)` returns the gradient at step i (an `adsrc.grad` of `objective(params, i)`, say);
`callback(params, i, gradient)` is called before each step. The parameters are updated as one flat
vector (adsrc.ravel_pytree) and handed back in their own structure.
"""

import functools

import numpy as np

from ..flatten import ravel_pytree

__all__ = ["sgd", "rmsprop", "adam"]


def _over_pytrees(update):
    """The optimizer of pytrees that runs `update` (an optimizer of flat vectors) on them raveled."""
    @functools.wraps(update)
    def optimizer(grad, x0, callback=None, *args, **kwargs):
        flat, unravel = ravel_pytree(x0)

        def flat_grad(x, i):
            return ravel_pytree(grad(unravel(x), i))[0]
        flat_callback = None if callback is None else (lambda x, i, g: callback(unravel(x), i, unravel(g)))
        return unravel(update(flat_grad, flat, flat_callback, *args, **kwargs))
    return optimizer


@_over_pytrees
def sgd(grad, x, callback=None, num_iters=200, step_size=0.1, mass=0.9):
    """Gradient descent with momentum `mass`."""
    velocity = np.zeros_like(x)
    for i in range(num_iters):
        g = grad(x, i)
        if callback is not None:
            callback(x, i, g)
        velocity = mass * velocity - (1.0 - mass) * g
        x = x + step_size * velocity
    return x


@_over_pytrees
def rmsprop(grad, x, callback=None, num_iters=100, step_size=0.1, gamma=0.9, eps=10 ** -8):
    """Steps scaled by a running root mean square of the gradients."""
    mean_square = np.ones_like(x)
    for i in range(num_iters):
        g = grad(x, i)
        if callback is not None:
            callback(x, i, g)
        mean_square = gamma * mean_square + (1.0 - gamma) * g ** 2
        x = x - step_size * g / (np.sqrt(mean_square) + eps)
    return x


@_over_pytrees
def adam(grad, x, callback=None, num_iters=100, step_size=0.001, b1=0.9, b2=0.999, eps=10 ** -8):
    """Adam (Kingma and Ba): steps from bias-corrected running means of the gradient and its square."""
    first, second = np.zeros_like(x), np.zeros_like(x)
    for i in range(num_iters):
        g = grad(x, i)
        if callback is not None:
            callback(x, i, g)
        first = b1 * first + (1.0 - b1) * g
        second = b2 * second + (1.0 - b2) * g ** 2
        corrected_first = first / (1.0 - b1 ** (i + 1))
        corrected_second = second / (1.0 - b2 ** (i + 1))
        x = x - step_size * corrected_first / (np.sqrt(corrected_second) + eps)
    return x
