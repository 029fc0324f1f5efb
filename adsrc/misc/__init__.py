"""autograd's `misc` names, for programs written for autograd: `flatten` (a pytree as one vector and
back, differentiable: see adsrc/flatten.py) and `optimizers` (sgd, rmsprop, adam over pytrees)."""

from ..flatten import flatten

__all__ = ["flatten"]
