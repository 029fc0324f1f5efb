"""autograd's `tracer` module (`trace`, `Node`, `Box`, `primitive`) has no counterpart in adsrc: importing this
module says so, and what to use instead, at the importing line."""

raise ImportError("adsrc has no tracer: autograd's tracer records each operation as the program runs, on "
                  "boxed values; adsrc reads your function's source and writes its derivative as new source "
                  "instead. To see what adsrc computes, print the generated code (`g = adsrc.grad(f); g(x); "
                  "print(g.source())`); to trace the operations a program runs, use Python's own tools "
                  "(sys.settrace, a debugger).", name=__name__)
