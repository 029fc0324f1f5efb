"""`from adsrc.misc.flatten import flatten, flatten_func`, as autograd's `autograd.misc.flatten` (see
adsrc/flatten.py)."""

from ..flatten import flatten, flatten_func

__all__ = ["flatten", "flatten_func"]
