"""Reverse mode through scipy.integrate.solve_ivp with t_eval, by the adjoint method (scipy_ode.py has the
derivation; helpers for scipy_integrate.py).

sol = solve_ivp(fun, (t0, t1), y0, t_eval=ts, args=args) holds sol.y[:, i] = y(ts[i]) for the solution of
dy/ds = fun(s, y, *args), y(t0) = y0, and sol.t = ts. The cotangent of sol arrives as a dict of the
cotangents of the attributes the program read ('y', 't'). The adjoint sweep runs from the last output
time back to t0 with solve_ivp itself (the user's method, rtol, atol and max_step), so

    y0_bar = a(t0),   t_span_bar = (-a(t0) . f(y0, t0), 0),   t_eval_bar[i] = G[i] . f(Y[i], ts[i]) + g_t[i],

and args_bar is the integral of a^T df/dargs. The end time t1 only says where to stop: the outputs at
t_eval do not depend on it.
"""

import numpy as np
import scipy.integrate as si

from ..runtime import helper, is_zero
from ..tangents import zeros_tangent
from .scipy_ode import (RHS, _is_zero_tangent, _tolerance, adjoint, args_cotangent, flat_tangent, odeint_func_cot,
                        sensitivity, shared_adjoint)


def _part(g, key):
    if is_zero(g) or not isinstance(g, dict):
        return None
    c = g.get(key)
    return None if c is None or is_zero(c) else c


def solve_ivp_adjoint(g, fun, t_span, y0, method, t_eval, args, ans, rtol, atol, max_step):
    """{'y0', 't_span', 't_eval', 'args'}: the cotangents of solve_ivp's arguments given g, its result's."""
    if not ans.success:
        raise FloatingPointError(f"adsrc: scipy.integrate.solve_ivp failed ({ans.message}), so its result has no "
                                 "gradient")
    Y = np.asarray(ans.y, dtype=float).T
    N, n = Y.shape
    ts = np.asarray(ans.t, dtype=float)
    gy = _part(g, "y")
    G = np.zeros((N, n)) if gy is None else np.real(np.broadcast_to(np.asarray(gy), (n, N))).T.astype(float)
    args_t = tuple(args) if args is not None else ()
    rhs = RHS(fun, args_t, True)
    m = rhs.layout.size
    options = dict(method=method, rtol=_tolerance(rtol, n, n + m), atol=_tolerance(atol, n, n + m),
                   max_step=np.inf if max_step is None else max_step)

    def solve(augmented, z, s0, s1):
        sol = si.solve_ivp(lambda s, v: augmented(v, s), (s0, s1), z, **options)
        if not sol.success:
            raise FloatingPointError(f"adsrc: the backward (adjoint) solve of scipy.integrate.solve_ivp from "
                                     f"t={s0} to t={s1} failed: {sol.message}")
        return sol.y[:, -1]
    t0 = float(np.asarray(t_span[0], dtype=float))
    y0_bar, p_bar, ts_bar, t0_bar = adjoint(rhs, Y, ts, G, y0, t0, solve)
    gt = _part(g, "t")
    if gt is not None:
        ts_bar = ts_bar + np.real(np.broadcast_to(np.asarray(gt), ts.shape))
    span_bar = [t0_bar, 0.0]
    span_bar = np.array(span_bar) if isinstance(t_span, np.ndarray) else type(t_span)(span_bar) \
        if isinstance(t_span, (tuple, list)) else np.array(span_bar)
    return {"y0": y0_bar.reshape(np.shape(y0)), "t_span": span_bar,
            "t_eval": ts_bar.reshape(np.shape(t_eval)),
            "args": args_cotangent(rhs.layout, p_bar, args, False) if args is not None else 0.0}


@helper
def solve_ivp_vjp(part, g, fun, t_span, y0, method, t_eval, args, ans, rtol, atol, max_step):
    """The cotangent of solve_ivp's argument `part` ('y0', 't_span', 't_eval' or 'args')."""
    if is_zero(g):
        return 0.0
    return shared_adjoint(part, g, (fun, t_span, y0, method, t_eval, args, ans, rtol, atol, max_step),
                          solve_ivp_adjoint)


@helper
def solve_ivp_fun_cot(fun):
    odeint_func_cot(fun)


@helper
def solve_ivp_jvp(fun, t_span, y0, method, t_eval, args, ans, t_fun, t_t_span, t_y0, t_t_eval, t_args, rtol,
                  atol, max_step):
    """The tangent of sol = solve_ivp(...) (an object like sol: tangents of sol.y and sol.t, zero elsewhere),
    from the sensitivity equations solved by solve_ivp with the user's method and tolerances."""
    if not _is_zero_tangent(t_fun):
        odeint_func_cot(fun)
    if t_eval is None or not ans.success or getattr(ans, "sol", None) is not None or \
            getattr(ans, "t_events", None) is not None:
        raise TypeError("adsrc differentiates scipy.integrate.solve_ivp only with `t_eval` given, without "
                        "dense_output or events, and for a solve that succeeded")
    Y = np.asarray(ans.y, dtype=float).T
    N, n = Y.shape
    ts = np.asarray(ans.t, dtype=float)
    rhs = RHS(fun, tuple(args) if args is not None else (), True)
    t0 = float(np.asarray(t_span[0], dtype=float))
    t0_dot = 0.0 if is_zero(t_t_span) else float(np.real(t_t_span[0]))
    options = dict(method=method, rtol=_tolerance(rtol, n, n), atol=_tolerance(atol, n, n),
                   max_step=np.inf if max_step is None else max_step)

    def integrate(augmented, z0):
        sol = si.solve_ivp(lambda s, v: augmented(v, s), (t0, float(np.asarray(t_span[1], dtype=float))), z0,
                           t_eval=ts, **options)
        if not sol.success:
            raise FloatingPointError(f"adsrc: the forward sensitivity solve of scipy.integrate.solve_ivp failed: "
                                     f"{sol.message}")
        return sol.y.T
    ts_dot = flat_tangent(t_t_eval, t_eval, N)
    args_tangent = (tuple(t_args) if isinstance(t_args, (tuple, list)) else t_args) if args is not None else ()
    y_dot = sensitivity(rhs, Y, ts, y0, t0, flat_tangent(t_y0, y0, n), t0_dot, ts_dot, args_tangent, integrate)
    out = type(ans)({k: zeros_tangent(v) for k, v in ans.items()})
    out["y"] = y_dot.T
    out["t"] = ts_dot.reshape(ts.shape)
    return out


solve_ivp_vjp._adsrc_derivative = "the adjoint solve of scipy.integrate.solve_ivp (adsrc's reverse-mode rule)"
solve_ivp_jvp._adsrc_derivative = "the sensitivity solve of scipy.integrate.solve_ivp (adsrc's forward-mode rule)"
