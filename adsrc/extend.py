"""autograd's `extend` names, for programs written for autograd: `primitive` and `defvjp` (which takes
autograd's vjp makers, `maker(ans, *args) -> (lambda g: ...)`, as well as adsrc's own form)."""

from .custom import defvjp, primitive

__all__ = ["primitive", "defvjp"]
