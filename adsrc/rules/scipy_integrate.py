"""Derivative rule for scipy.integrate.trapezoid (loaded once the program has imported scipy.integrate):
the same computation as np.trapezoid, with the same rule (trapezoid_vjp in helpers.py)."""

import scipy.integrate as si

from . import general

general(si.trapezoid, "scipy.integrate.trapezoid", "y, x=None, dx=1.0, axis=-1",
        y="trapezoid_vjp(g, y, x, dx, axis, 0)", x="trapezoid_vjp(g, y, x, dx, axis, 1)",
        dx="trapezoid_vjp(g, y, x, dx, axis, 2)")
