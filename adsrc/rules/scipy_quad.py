"""Derivatives through scipy.integrate.quad (helpers for scipy_integrate.py).

    (I, err) = quad(f, a, b, args)        I = int_a^b f(t, *args) dt

    dI/db = f(b, *args),    dI/da = -f(a, *args),    dI/dargs = int_a^b df/dargs (t, *args) dt

The last is an integral too: the cotangent of args is int_a^b (g df/dargs) dt, a vector-valued integral that
scipy.integrate.quad_vec computes at the user's tolerances, the integrand being one adsrc.vjp of the user's f
at each t (forward mode: one adsrc.jvp). The error estimate `err` is a constant: its cotangent is dropped.
A function that captures differentiated values (a closure) is made to take them through `args` when the code is
transformed (lowering/closure_args.py); a function that still depends on them is refused.
"""

import numpy as np
import scipy.integrate as si

from ..runtime import helper, is_zero
from .scipy_ode import Layout, args_cotangent


def _value_cot(g):
    """The cotangent of the integral (g is that of the pair (I, err), or zero)."""
    if g is None or is_zero(g):
        return 0.0
    first = g[0] if isinstance(g, (tuple, list)) else g
    return 0.0 if first is None or is_zero(first) else float(np.real(first))


def _at(func, t, args):
    return float(np.real(func(t, *args)))


def _check_options(weight, full_output):
    if weight is not None or full_output:
        raise TypeError("adsrc differentiates scipy.integrate.quad without `weight` and with full_output=0 (the "
                        "defaults): multiply your integrand by the weight instead")


@helper
def quad_vjp(part, g, func, a, b, args, epsabs, epsrel, limit, points, weight, full_output):
    """The cotangent of quad's argument `part` ('a', 'b' or 'args')."""
    _check_options(weight, full_output)
    gv = _value_cot(g)
    args_t = args if isinstance(args, tuple) else (args,)
    if part == "b":
        return gv * _at(func, b, args_t) if gv else 0.0
    if part == "a":
        return -gv * _at(func, a, args_t) if gv else 0.0
    layout = Layout(args_t)
    wrapped = not isinstance(args, tuple)
    if not gv or layout.size == 0:
        return args_cotangent(layout, np.zeros(layout.size), args, wrapped)
    from ..pullback import vjp

    def integrand(t):
        out, pull = vjp(func, float(t), *args_t)
        return layout.flatten(tuple(pull(gv * np.ones_like(out) if np.ndim(out) else gv)[1:]))
    p_bar, _ = si.quad_vec(integrand, a, b, epsabs=epsabs, epsrel=epsrel, limit=max(int(limit), 200),
                           points=points)
    return args_cotangent(layout, np.asarray(p_bar, dtype=float), args, wrapped)


@helper
def quad_func_cot(func):
    """The function passed to quad depends on a differentiated value adsrc could not pass through args: refuse
    (its gradient would be lost)."""
    raise TypeError(f"adsrc cannot differentiate scipy.integrate.quad with respect to values its function "
                    f"`{getattr(func, '__qualname__', type(func).__name__)}` captures (a functools.partial, an "
                    "object's attributes, or a closure adsrc could not rewrite): pass them through quad's "
                    "`args=(...)` and take them as parameters after t")


@helper
def quad_jvp(func, a, b, args, t_func, t_a, t_b, t_args, epsabs, epsrel, limit, points, weight, full_output):
    """The tangent of (I, err) = quad(...): (dI, 0.0)."""
    _check_options(weight, full_output)
    if t_func is not None and not is_zero(t_func):
        quad_func_cot(func)
    args_t = args if isinstance(args, tuple) else (args,)
    out = 0.0
    if t_b is not None and not is_zero(t_b):
        out += float(np.real(t_b)) * _at(func, b, args_t)
    if t_a is not None and not is_zero(t_a):
        out -= float(np.real(t_a)) * _at(func, a, args_t)
    if t_args is not None and not is_zero(t_args):
        from ..forward_api import jvp
        tangents = tuple(t_args) if isinstance(args, tuple) else (t_args,)

        def integrand(t):
            _, dot = jvp(func, (float(t),) + args_t, (None,) + tangents)
            return 0.0 if dot is None or is_zero(dot) else float(np.real(dot))
        value, _ = si.quad(integrand, a, b, epsabs=epsabs, epsrel=epsrel, limit=limit, points=points)
        out += value
    return (out, 0.0)


# read by adsrc when asked to differentiate these again (a Hessian through quad): the error names the rule
quad_vjp._adsrc_derivative = "the derivative of scipy.integrate.quad (adsrc's reverse-mode rule)"
quad_jvp._adsrc_derivative = "the derivative of scipy.integrate.quad (adsrc's forward-mode rule)"
