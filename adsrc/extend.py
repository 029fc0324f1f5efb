"""autograd's `extend` names, for programs written for autograd: `primitive`, `defvjp` (which takes
autograd's vjp makers, `maker(ans, *args) -> (lambda g: ...)`, as well as adsrc's own form) and `defjvp`
(autograd's form, `jvp(g, ans, *args)`)."""

from .custom import defvjp, primitive
from .custom_jvp import defjvp

__all__ = ["primitive", "defvjp", "defjvp"]
