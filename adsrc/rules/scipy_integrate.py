"""Derivative rules for scipy.integrate (loaded once the program has imported scipy.integrate):

* trapezoid: the same computation as np.trapezoid, with the same rule (trapezoid_vjp in helpers_series.py);
* quad: its limits by the integrand there, args by integrating the integrand's vector-Jacobian product
  (scipy_quad.py);
* odeint: the adjoint method in reverse mode, the sensitivity equations in forward mode, both
  solved with odeint at the user's tolerances, differentiating the user's function with adsrc.vjp
  and adsrc.jvp when the code runs (scipy_ode.py).
"""

import scipy.integrate as si

from . import NOT_STATIC, general

general(si.trapezoid, "scipy.integrate.trapezoid", "y, x=None, dx=1.0, axis=-1",
        y="trapezoid_vjp(g, y, x, dx, axis, 0)", x="trapezoid_vjp(g, y, x, dx, axis, 1)",
        dx="trapezoid_vjp(g, y, x, dx, axis, 2)")


# -- odeint, by the adjoint method (scipy_ode.py) -------------------------------------------------------------

from . import scipy_ode  # noqa: E402,F401  (registers odeint_vjp)

_ODEINT_SIG = ("func, y0, t, args=(), Dfun=None, col_deriv=0, full_output=0, ml=None, mu=None, rtol=None, "
               "atol=None, tcrit=None, h0=0.0, hmax=0.0, hmin=0.0, ixpr=0, mxstep=0, mxhnil=0, mxordn=12, "
               "mxords=5, printmessg=0, tfirst=False")


def _odeint(part):
    """The template for one argument, refusing full_output=True: checked only for calls that are
    differentiated (a call on constants may use any option)."""
    def template(full_output=0, **_):
        if full_output is NOT_STATIC or full_output:
            raise TypeError("adsrc differentiates scipy.integrate.odeint only with full_output=False (the "
                            "default, written as a literal): call it without full_output inside the "
                            "differentiated function")
        return (f"odeint_vjp({part!r}, g, func, y0, t, args, ans, rtol, atol, tcrit, mxstep, hmax, hmin, "
                "tfirst)")
    return template


_rule = general(si.odeint, "scipy.integrate.odeint", _ODEINT_SIG, real_only=True,
                y0=_odeint("y0"), t=_odeint("t"), args=_odeint("args"),
                # a func that depends on differentiated values (a closure, a functools.partial) is refused:
                # the template makes it active, so adsrc names a nested def when transforming; others fail
                # when the code runs
                func="odeint_func_cot(func)")
_rule.jvp_joint = ("odeint_jvp(func, y0, t, args, ans, t_func, t_y0, t_t, t_args, rtol, atol, tcrit, mxstep, hmax, "
                   "hmin, tfirst)")     # forward mode: the sensitivity equations (scipy_ode.py)


# -- solve_ivp with t_eval, by the adjoint method (scipy_ivp.py) ----------------------------------------------------

from . import scipy_ivp  # noqa: E402,F401  (registers solve_ivp_vjp)

_SOLVE_IVP_SIG = ("fun, t_span, y0, method='RK45', t_eval=None, dense_output=False, events=None, vectorized=False, "
                  "args=None, *, rtol=0.001, atol=1e-06, max_step=None, first_step=None, min_step=0.0, jac=None, "
                  "jac_sparsity=None, lband=None, uband=None")


def _solve_ivp(part):
    """The template for one argument, refusing the options the rule does not cover (only for calls that
    are differentiated)."""
    def template(t_eval=None, dense_output=False, events=None, vectorized=False, **_):
        if t_eval is None:
            raise TypeError("adsrc differentiates scipy.integrate.solve_ivp only with `t_eval` given (the times "
                            "whose solution you use): without it the output times are the solver's own steps")
        for name, value, default in (("dense_output", dense_output, False), ("events", events, None),
                                     ("vectorized", vectorized, False)):
            if value is NOT_STATIC or value != default:
                raise TypeError(f"adsrc differentiates scipy.integrate.solve_ivp only with {name}={default} (the "
                                "default): leave it out inside the differentiated function")
        return (f"solve_ivp_vjp({part!r}, g, fun, t_span, y0, method, t_eval, args, ans, rtol, atol, "
                "max_step)")
    return template


_rule = general(si.solve_ivp, "scipy.integrate.solve_ivp", _SOLVE_IVP_SIG, container=True, real_only=True,
                y0=_solve_ivp("y0"), t_span=_solve_ivp("t_span"), t_eval=_solve_ivp("t_eval"),
                args=_solve_ivp("args"), fun="solve_ivp_fun_cot(fun)")
_rule.jvp_joint = ("solve_ivp_jvp(fun, t_span, y0, method, t_eval, args, ans, t_fun, t_t_span, t_y0, t_t_eval, t_args, "
                   "rtol, atol, max_step)")     # forward mode: the sensitivity equations (scipy_ivp.py)


# -- quad: the integral's derivatives in its limits and, by quad_vec, in args (scipy_quad.py) --------------------

from . import scipy_quad  # noqa: E402,F401  (registers quad_vjp)

_QUAD_SIG = ("func, a, b, args=(), full_output=0, epsabs=1.49e-08, epsrel=1.49e-08, limit=50, points=None, "
             "weight=None, wvar=None, wopts=None, maxp1=50, limlst=50, complex_func=False")
_QUAD_OPTIONS = "epsabs, epsrel, limit, points, weight, full_output"

_rule = general(si.quad, "scipy.integrate.quad", _QUAD_SIG, tuple_output=True, real_only=True,
                a=f"quad_vjp('a', g, func, a, b, args, {_QUAD_OPTIONS})",
                b=f"quad_vjp('b', g, func, a, b, args, {_QUAD_OPTIONS})",
                args=f"quad_vjp('args', g, func, a, b, args, {_QUAD_OPTIONS})",
                func="quad_func_cot(func)")
_rule.jvp_joint = f"quad_jvp(func, a, b, args, t_func, t_a, t_b, t_args, {_QUAD_OPTIONS})"
