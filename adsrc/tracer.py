"""autograd's `tracer` module: `primitive` (adsrc.extend's) and `getval` (a value as it is: adsrc never boxes values)
work; the tracing machinery (`trace`, `Node`, `Box`, `new_box`, ...) has no counterpart in adsrc, and importing it
says so, and what to use instead, at the importing line."""

from .custom import primitive

__all__ = ["primitive", "getval"]

_NO_TRACER = ("adsrc has no tracer: autograd's tracer records each operation as the program runs, on boxed values; "
              "adsrc reads your function's source and writes its derivative as new source instead. To see what "
              "adsrc computes, print the generated code (`g = adsrc.grad(f); g(x); print(g.source())`); to trace "
              "the operations a program runs, use Python's own tools (sys.settrace, a debugger).")


def getval(x):
    """autograd's unboxing: adsrc's values are never boxed, so x itself."""
    return x


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise ImportError(f"adsrc.tracer has no `{name}`. " + _NO_TRACER, name=__name__)
