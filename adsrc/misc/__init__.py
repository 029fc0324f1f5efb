"""autograd's `misc` names, for programs written for autograd: `flatten` (a pytree as one vector and
back, differentiable: see adsrc/flatten.py), `optimizers` (sgd, rmsprop, adam over pytrees),
`fixed_points.fixed_point` (differentiated implicitly) and `const_graph`."""

import functools

from .flatten import flatten      # the function (its module stays importable: adsrc.misc.flatten)

__all__ = ["flatten", "const_graph"]


def const_graph(fun, *args, **kwargs):
    """autograd's const_graph(fun, *args, **kwargs): fun with those arguments fixed, for calls that pass the
    rest. autograd records fun's graph once and replays it; adsrc has no graph to keep (it compiles the
    function's source, and caches the compiled derivatives itself), so this calls fun each time, with the
    same values as a result."""
    wrapped = functools.partial(fun, *args, **kwargs)
    functools.update_wrapper(wrapped, fun)
    return wrapped
