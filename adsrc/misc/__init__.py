"""autograd's `misc` names, for programs written for autograd: `flatten` (a pytree as one vector and
back, differentiable: see adsrc/flatten.py), `optimizers` (sgd, rmsprop, adam over pytrees) and
`fixed_points.fixed_point` (differentiated implicitly)."""

from .flatten import flatten      # the function (its module stays importable: adsrc.misc.flatten)

__all__ = ["flatten"]
