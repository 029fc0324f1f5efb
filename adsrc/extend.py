"""autograd's `extend` names, for programs written for autograd: `primitive`, `defvjp` (which takes
autograd's vjp makers, `maker(ans, *args) -> (lambda g: ...)`, as well as adsrc's own form) and `defjvp`
(autograd's form, `jvp(g, ans, *args)`).

autograd's tracing machinery (`Box`, `VSpace`, `vspace`, `notrace_primitive`, ...) has no counterpart:
importing one of those names raises an ImportError saying what to use instead (_NO_COUNTERPART)."""

from .custom import defvjp, primitive
from .custom_jvp import defjvp

__all__ = ["primitive", "defvjp", "defjvp"]

_TRACER = ("adsrc reads your function's source and writes its derivative as new source: no values are boxed "
           "while the program runs, so there is nothing to subclass or register.")
_PYTREE = ("To differentiate with respect to objects of a class of your own, register it as a pytree "
           "(`adsrc.register_pytree_node` or `@adsrc.register_dataclass`): its array fields are then "
           "differentiated like a tuple's items.")
# autograd.extend's names without a counterpart in adsrc -> what to do instead
_NO_COUNTERPART = {
    "Box": _TRACER + " " + _PYTREE,
    "VSpace": _TRACER + " " + _PYTREE,
    "vspace": _TRACER + " " + _PYTREE,
    "SparseObject": _TRACER + " " + _PYTREE,
    "notrace_primitive": _TRACER + " A function whose output is not differentiated needs no marking; "
                                   "wrap a value in `adsrc.stop_gradient(...)` to cut its derivative.",
    "register_notrace": _TRACER + " Wrap a value in `adsrc.stop_gradient(...)` to cut its derivative.",
    "defvjp_argnum": "Give the rule with `adsrc.extend.defvjp(fun, vjp_maker_0, vjp_maker_1, ...)`, one "
                     "maker per argument (None for an argument without one).",
    "defvjp_argnums": "Give the rule with `adsrc.extend.defvjp(fun, vjp_maker_0, vjp_maker_1, ...)`, one "
                      "maker per argument (None for an argument without one).",
    "defjvp_argnum": "Give the rule with `adsrc.extend.defjvp(fun, jvp_0, jvp_1, ...)`, one per argument.",
    "defjvp_argnums": "Give the rule with `adsrc.extend.defjvp(fun, jvp_0, jvp_1, ...)`, one per argument.",
    "def_linear": "Give the rule with `adsrc.extend.defvjp` (a linear function's vjp applies it to g).",
}


def __getattr__(name):
    if name in _NO_COUNTERPART:
        raise ImportError(f"adsrc.extend has no `{name}` (autograd's extend has): {_NO_COUNTERPART[name]}",
                          name=__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
