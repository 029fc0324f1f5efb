"""`from adsrc.builtins import tuple, list, dict, isinstance, type`, for programs written for autograd, whose
`autograd.builtins` has containers its tracer can follow. adsrc reads the source instead, so Python's own
containers are followed as they are: these are Python's builtins under autograd's names."""

import builtins as _builtins

tuple = _builtins.tuple
list = _builtins.list
dict = _builtins.dict
isinstance = _builtins.isinstance
type = _builtins.type

__all__ = ["tuple", "list", "dict", "isinstance", "type"]
