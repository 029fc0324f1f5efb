"""Derivative rules for scipy.integrate (loaded once the program has imported scipy.integrate):

* trapezoid: the same computation as np.trapezoid, with the same rule (trapezoid_vjp in helpers.py);
* odeint: the adjoint method in reverse mode, the sensitivity equations in forward mode, both
  solved with odeint at the user's tolerances, differentiating the user's function with adsrc.vjp
  and adsrc.jvp when the code runs (scipy_ode.py).
"""

import scipy.integrate as si

from . import general

general(si.trapezoid, "scipy.integrate.trapezoid", "y, x=None, dx=1.0, axis=-1",
        y="trapezoid_vjp(g, y, x, dx, axis, 0)", x="trapezoid_vjp(g, y, x, dx, axis, 1)",
        dx="trapezoid_vjp(g, y, x, dx, axis, 2)")


# -- odeint, by the adjoint method (scipy_ode.py) -------------------------------------------------------------

from . import scipy_ode  # noqa: E402,F401  (registers odeint_vjp)

_ODEINT_SIG = ("func, y0, t, args=(), Dfun=None, col_deriv=0, full_output=0, ml=None, mu=None, rtol=None, "
               "atol=None, tcrit=None, h0=0.0, hmax=0.0, hmin=0.0, ixpr=0, mxstep=0, mxhnil=0, mxordn=12, "
               "mxords=5, printmessg=0, tfirst=False")


def _odeint(part):
    return (f"odeint_vjp({part!r}, g, func, y0, t, args, ans, rtol, atol, tcrit, mxstep, hmax, hmin, "
            "tfirst)")


def _odeint_check(full_output=0, **_):
    if full_output is not False and full_output != 0:
        raise TypeError("adsrc differentiates scipy.integrate.odeint only with full_output=False (the "
                        "default, written as a literal): call it without full_output inside the "
                        "differentiated function")


_rule = general(si.odeint, "scipy.integrate.odeint", _ODEINT_SIG, check=_odeint_check, real_only=True,
                y0=_odeint("y0"), t=_odeint("t"), args=_odeint("args"),
                # a func that depends on differentiated values (a closure, a functools.partial) is refused:
                # the template makes it active, so adsrc names a nested def when transforming; others fail
                # when the code runs
                func="odeint_func_cot(func)")
_rule.jvp_joint = ("odeint_jvp(func, y0, t, args, ans, t_func, t_y0, t_t, t_args, rtol, atol, tcrit, mxstep, hmax, "
                   "hmin, tfirst)")     # forward mode: the sensitivity equations (scipy_ode.py)
