"""`from adsrc.misc.flatten import flatten`, as autograd's `autograd.misc.flatten` (see adsrc/flatten.py)."""

from ..flatten import flatten

__all__ = ["flatten"]
