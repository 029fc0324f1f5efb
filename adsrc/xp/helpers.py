"""Array-API versions of the few helpers whose NumPy code the shim cannot serve as it is.

Arrays of the array API have no `.astype`/`.copy` methods, and do not mix
booleans into float arithmetic; the helpers here are used, by name, in
place of runtime's or the rules' ones when the arguments are such arrays
(dispatch.py). Each keeps the meaning of the helper it stands for.
"""

from ..rules.helpers import expand_to
from . import is_xp_array, namespace_of


def _duck_output(g, x, borrowed):
    """runtime_accumulate._duck_output: the gradient for x, an array of x's type, shape and dtype."""
    xp = namespace_of(x)
    if not is_xp_array(g) or tuple(g.shape) != tuple(x.shape):
        g = xp.zeros_like(x) + g
        borrowed = False
    if g.dtype != x.dtype:
        g = xp.astype(g, x.dtype)
        borrowed = False
    return xp.asarray(g, copy=True) if borrowed or g is x else g


def extremum_vjp(g, x, ans, axis, keepdims):
    """helpers.extremum_vjp: the cotangent goes to the extremal elements, shared equally among ties."""
    from .dispatch import rebound_function
    xp = namespace_of(x)
    expand = rebound_function(xp, expand_to)
    g = expand(g, x, axis, keepdims)
    ans = expand(ans, x, axis, keepdims)
    mask = xp.astype(x == ans, x.dtype)
    count = xp.sum(mask, axis=axis, keepdims=True) if axis is not None or x.ndim else 1.0
    return g * mask / count


# helper name -> (module it replaces a function of, array-API version)
REPLACED = {"_duck_output": ("adsrc.runtime_accumulate", _duck_output),
            "extremum_vjp": ("adsrc.rules.helpers_reductions", extremum_vjp)}
