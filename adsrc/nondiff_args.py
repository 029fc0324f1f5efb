"""`nondiff_argnums` of custom_vjp and custom_jvp, as in JAX.

The arguments at those positions (a function, a flag, a size) are not
differentiated. JAX's rules then take them apart from the others:

    fwd(x0, x1, x2) -> (out, res)          as the function itself (all arguments)
    bwd(x1, res, g) -> (c0, c2)            the nondiff arguments first; cotangents of the others only
    jvp(x1, (x0, x2), (t0, t2))            the nondiff arguments first; primals and tangents of the others

adsrc's own protocol passes every argument in its place. The functions below
adapt the user's rules to it, as Python source (so that adsrc can read them
when it differentiates them again, as it reads generated code):

    def f_fwd(x0, x1, x2):                 def f_bwd(res, g):
        out, res = fwd(x0, x1, x2)             (x1,), res = res
        return out, ((x1,), res)               c0, c2 = bwd(x1, res, g)
                                               return (c0, None, c2)

    def f_jvp(primals, tangents):
        x0, x1, x2 = primals
        t0, t1, t2 = tangents
        return jvp(x1, (x0, x2), (t0, t2))
"""

import operator

from .frontend.source import define


def checked(nondiff_argnums, nargs, fname):
    """The positions, sorted, checked against the function's positional parameters."""
    try:
        positions = tuple(sorted({operator.index(i) for i in nondiff_argnums}))
    except TypeError:
        raise TypeError(f"nondiff_argnums of `{fname}` must be a tuple of integers, not {nondiff_argnums!r}") \
            from None
    if any(not 0 <= i < nargs for i in positions):
        raise ValueError(f"nondiff_argnums {nondiff_argnums!r} of `{fname}`: it takes {nargs} positional "
                         f"argument{'s' if nargs != 1 else ''}")
    return positions


def _names(nargs, nondiff):
    xs = [f"x{i}" for i in range(nargs)]
    fixed = [xs[i] for i in nondiff]
    rest = [i for i in range(nargs) if i not in nondiff]
    return xs, fixed, rest


def tuple_source(items):
    return f"({', '.join(items)}{',' if len(items) == 1 else ''})"


def vjp_rules(name, nargs, nondiff, fwd, bwd):
    """(fwd, bwd) of adsrc's protocol from JAX's rules of a custom_vjp with nondiff_argnums."""
    xs, fixed, rest = _names(nargs, nondiff)
    cots = [f"c{i}" for i in rest]
    every = ", ".join(f"c{i}" if i in rest else "None" for i in range(nargs))
    made_fwd = (f"def {name}_fwd({', '.join(xs)}):\n"
                f"    out, res = fwd({', '.join(xs)})\n"
                f"    return out, ({tuple_source(fixed)}, res)\n")
    made_bwd = (f"def {name}_bwd(res, g):\n"
                f"    {tuple_source(fixed)}, res = res\n"
                f"    {tuple_source(cots)} = bwd({', '.join(fixed + ['res', 'g'])})\n"
                f"    return ({every},)\n")
    label = f"rules of the custom_vjp function {name} (nondiff_argnums)"
    return define(made_fwd, f"{name}_fwd", {"fwd": fwd}, label), define(made_bwd, f"{name}_bwd", {"bwd": bwd}, label)


def jvp_rule(name, nargs, nondiff, jvp):
    """The rule `rule(primals, tangents)` of adsrc's protocol from JAX's rule of a custom_jvp with
    nondiff_argnums."""
    xs, fixed, rest = _names(nargs, nondiff)
    ts = [f"t{i}" for i in range(nargs)]
    source = (f"def {name}_jvp(primals, tangents):\n"
              f"    {tuple_source(xs)} = primals\n"
              f"    {tuple_source(ts)} = tangents\n"
              f"    return jvp({', '.join(fixed)}, {tuple_source([xs[i] for i in rest])}, "
              f"{tuple_source([ts[i] for i in rest])})\n")
    return define(source, f"{name}_jvp", {"jvp": jvp}, f"rule of the custom_jvp function {name} (nondiff_argnums)")
