"""Derivatives through scipy.integrate.odeint (helpers for scipy_integrate.py; scipy_ivp.py reuses the
sweeps for solve_ivp): reverse mode by the adjoint method, forward mode by the sensitivity equations
(`sensitivity`), both solved by the user's solver at the user's tolerances, with adsrc.vjp / adsrc.jvp
of the user's function when the code runs.

The forward call Y = odeint(f, y0, t, args) returns Y[i] = y(t_i), the solution of
dy/ds = f(y, s, *args) with y(t_0) = y0 (Y[0] is y0 itself). Given the cotangent G of Y, let a(s) be
dL/dy(s): the cotangent flowing back into the state at time s. Between output times it obeys the
adjoint equation, and the parameters p (the float leaves of args) collect along the way:

    da/ds = -a^T df/dy,        dL/dp = sum over intervals of  int_{t_{i-1}}^{t_i} a^T df/dp ds,

with a jump a += G[i] at each output time t_i. We integrate the augmented state z = [y, a, p_bar]
backward from t_i to t_{i-1} with odeint itself:

    dy/ds = f(y, s),   da/ds = -a^T df/dy,   dp_bar/ds = -a^T df/dp,

starting from y = Y[i] (the forward solution, so errors do not pile up across intervals), a = the
adjoint so far, p_bar = 0; p_bar at t_{i-1} is the interval's integral above. Both vector-Jacobian
products come from one adsrc.vjp of the user's f at (y, s, *args), pulled back with -a.

Output times: Y[i] = y(t_i) moves with t_i at speed f, so t_bar_i = G[i] . f(Y[i], t_i) for i >= 1.
Moving the start time t_0 by d moves the whole solution by -Phi(s, t_0) f(y0, t_0) d (Phi the flow's
Jacobian), so t_bar_0 = -a(t_0) . f(y0, t_0), with a(t_0) the adjoint before G[0] is added; Y[0] = y0
does not depend on t_0. y0_bar = a(t_0) + G[0].
"""

import copy
import dataclasses
import threading

import numpy as np
import scipy.integrate as si

from .. import pytree_nodes
from ..runtime import helper, is_zero

_nd = np.ndarray


# -- the float leaves of args (a pytree) ----------------------------------------------------------------------

def _is_float_leaf(v):
    if type(v) is float or isinstance(v, np.floating):
        return True
    return isinstance(v, _nd) and v.dtype.kind == "f"


def _children(x):
    """(kind, keys, children) of a container, or None for a leaf."""
    if isinstance(x, (tuple, list)):
        return "seq", list(range(len(x))), list(x)
    if isinstance(x, dict):
        return "dict", list(x), list(x.values())
    node = pytree_nodes.node_of(x)
    if node is not None:
        children, aux = pytree_nodes.flatten(node, x)
        return ("node", node, aux), list(range(len(children))), list(children)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        names = [f.name for f in dataclasses.fields(x)]
        return "dataclass", names, [getattr(x, n) for n in names]
    return None


def _follow(g, path):
    """The part of g (a gradient with the primal's structure) at path; None where g is zero."""
    for kind, key in path:
        if g is None or is_zero(g):
            return None
        if kind == "seq":
            g = g[key]
        elif kind == "dict":
            g = g.get(key)
        elif kind == "dataclass":
            g = g.get(key) if isinstance(g, dict) else getattr(g, key)
        else:
            g = pytree_nodes.flatten(kind[1], g)[0][key]
    return g


class Layout:
    """Where each float leaf of a primal pytree sits in a flat vector."""

    def __init__(self, tree):
        self.tree = tree
        self.shapes = []
        self.paths = []       # per float leaf: the (kind, key) steps leading to it
        self._walk(tree, ())
        self.sizes = [int(np.prod(s)) for s in self.shapes]
        self.size = sum(self.sizes)

    def _walk(self, x, path):
        c = _children(x)
        if c is None:
            if _is_float_leaf(x):
                self.shapes.append(np.shape(x))
                self.paths.append(path)
            return
        kind, keys, children = c
        for key, child in zip(keys, children):
            self._walk(child, path + ((kind, key),))

    def flatten(self, g):
        """The float leaves of g (a gradient shaped like the tree; None or 0.0 for zero), as one vector."""
        out = np.zeros(self.size)
        start = 0
        for path, shape, size in zip(self.paths, self.shapes, self.sizes):
            leaf = _follow(g, path)
            if leaf is not None and not is_zero(leaf):
                leaf = np.asarray(leaf)
                if leaf.dtype.kind == "c":
                    leaf = leaf.real
                out[start:start + size] = (leaf if leaf.shape == shape else np.broadcast_to(leaf, shape)).ravel()
            start += size
        return out

    def unflatten(self, v):
        """The gradient (the tree's structure, 0.0 at leaves that are not floats) from a flat vector."""
        parts = iter(np.split(v, np.cumsum(self.sizes)[:-1]) if self.sizes else ())
        return self._build(self.tree, parts)

    def _build(self, x, parts):
        c = _children(x)
        if c is None:
            if not _is_float_leaf(x):
                return 0.0
            p = next(parts).reshape(np.shape(x))
            return float(p) if not isinstance(x, _nd) else p
        kind, keys, children = c
        built = [self._build(child, parts) for child in children]
        if kind == "seq":
            if hasattr(x, "_fields"):
                return type(x)(*built)
            return list(built) if isinstance(x, list) else tuple(built)
        if kind == "dict":
            return dict(zip(keys, built))
        if kind == "dataclass":
            return dataclasses.replace(x, **dict(zip(keys, built)))
        return pytree_nodes.unflatten(kind[1], kind[2], built)


# -- the user's function and its vector-Jacobian products ---------------------------------------------------------

def _cot_like(a, out):
    """The vector a (odeint's flat state) as a cotangent with the structure of f's output."""
    if isinstance(out, (list, tuple)):
        parts, k = [], 0
        for o in out:
            size = int(np.size(o)) if not isinstance(o, (list, tuple)) else int(np.size(np.asarray(o, float)))
            parts.append(_cot_like(a[k:k + size], o))
            k += size
        return type(out)(parts) if isinstance(out, list) else tuple(parts)
    if isinstance(out, _nd):
        return a.reshape(out.shape).astype(out.dtype if out.dtype.kind in "fc" else float)
    return a.reshape(()).item() if type(out) is float else a.reshape(np.shape(out))[()]


class RHS:
    """f(y, s, *args) (or f(s, y, *args) with tfirst) and its pullbacks, through adsrc.vjp."""

    def __init__(self, func, args, tfirst):
        from ..pullback import vjp
        self.vjp = vjp
        self.func, self.args, self.tfirst = func, args, bool(tfirst)
        self.layout = Layout(args)

    def value(self, y, s):
        y = np.array(y, dtype=float)      # a copy: y may be a row of odeint's output
        out = self.func(s, y, *self.args) if self.tfirst else self.func(y, s, *self.args)
        return np.ravel(np.asarray(out, dtype=float))

    def with_pullback(self, y, s):
        """(f, pull) with pull(w) = (w^T df/dy, w^T df/dargs as a flat vector)."""
        primals = (float(s), y) if self.tfirst else (y, float(s))
        out, pb = self.vjp(self.func, *primals, *self.args)
        iy = 1 if self.tfirst else 0

        def pull(w):
            grads = pb(_cot_like(w, out))
            gy = grads[iy]
            gy = np.zeros(y.shape) if gy is None else np.real(np.asarray(gy, dtype=float)).reshape(y.shape)
            return gy, self.layout.flatten(tuple(grads[2:]))
        return np.ravel(np.asarray(out, dtype=float)), pull

    def with_tangent(self, y, s, u, args_dot):
        """(f, df/dy u + df/dargs args_dot) at (y, s): one adsrc.jvp of f (the time has no tangent)."""
        from ..forward_api import jvp
        primals = (float(s), y) if self.tfirst else (y, float(s))
        tangents = (None, u) if self.tfirst else (u, None)
        out, out_dot = jvp(self.func, primals + self.args, tangents + args_dot)
        out_dot = np.zeros(np.size(np.asarray(out, float))) if out_dot is None or is_zero(out_dot) else \
            np.ravel(np.asarray(out_dot, dtype=float))
        return np.ravel(np.asarray(out, dtype=float)), out_dot


# -- the adjoint solve ---------------------------------------------------------------------------------------

def _tolerance(tol, n, m):
    """A tolerance for the augmented state [y (n), a and p_bar (m)]: a per-component tolerance given
    for y is kept for y and its smallest value used for the rest."""
    if tol is None or np.ndim(tol) == 0:
        return tol
    tol = np.ravel(np.asarray(tol, dtype=float))
    return np.concatenate([np.broadcast_to(tol, (n,)), np.full(m, tol.min())])


def _pieces(start, end, crit):
    """[start, end] cut at the critical times strictly inside it, in the order of integration."""
    lo, hi = min(start, end), max(start, end)
    inner = sorted({float(c) for c in crit if lo < c < hi}, reverse=bool(end < start))
    points = [start] + inner + [end]
    return list(zip(points[:-1], points[1:]))


def _solve(rhs, z0, s0, s1, options, stop_at_end):
    """The augmented state at s1 from z0 at s0 (with tcrit=[s1] when the user gave critical times: the
    solver then never steps past a critical time, as in the forward solve)."""
    extra = {"tcrit": np.array([s1])} if stop_at_end else {}
    z, info = si.odeint(rhs, z0, np.array([s0, s1]), full_output=True, **options, **extra)
    if info["message"] != "Integration successful.":
        raise FloatingPointError(f"adsrc: the backward (adjoint) solve of scipy.integrate.odeint from t={s0} "
                                 f"to t={s1} failed: {info['message']}")
    return z[-1]


def adjoint(rhs, Y, ts, G, y0, t0, solve):
    """The adjoint sweep shared by odeint and solve_ivp: outputs Y[i] = y(ts[i]) (ts monotonic, from
    the start time t0 on), cotangents G (same shape). solve(augmented, z, s0, s1) integrates the
    augmented state from s0 to s1 and returns it at s1.

    Returns (y0_bar, p_bar (flat), ts_bar, t0_bar), where ts_bar[i] = G[i] . f(Y[i], ts[i]) counts
    moving the output time alone, and t0_bar moving the start time alone (see the top of this module).
    """
    N, n = Y.shape
    m = rhs.layout.size
    a, p_bar, ts_bar = np.zeros(n), np.zeros(m), np.zeros(N)
    rows = np.flatnonzero(np.any(G != 0, axis=1))
    if rows.size == 0:
        return a, p_bar, ts_bar, 0.0
    for i in rows:
        ts_bar[i] = G[i] @ rhs.value(Y[i], ts[i])

    def augmented(z, s):
        fy, pull = rhs.with_pullback(z[:n], s)
        gy, gp = pull(-z[n:2 * n])
        return np.concatenate([fy, gy, gp])

    for i in range(int(rows[-1]), -1, -1):
        a = a + G[i]
        end = ts[i - 1] if i > 0 else t0
        if end != ts[i]:
            z = solve(augmented, np.concatenate([Y[i], a, np.zeros(m)]), ts[i], end)
            a = z[n:2 * n]
            p_bar = p_bar + z[2 * n:]
    t0_bar = -(a @ rhs.value(np.ravel(np.asarray(y0, dtype=float)), t0))
    return a, p_bar, ts_bar, t0_bar


def args_cotangent(layout, p_bar, args, wrapped):
    """The cotangent of the `args` argument (in generated code's form) from the flat p_bar (laid out by
    layout)."""
    out = layout.unflatten(p_bar)
    if wrapped:
        out = out[0]
    elif isinstance(args, list):
        out = list(out)
    return pytree_nodes.internal_cotangent(out, args)


def odeint_adjoint(g, func, y0, t, args, ans, rtol, atol, tcrit, mxstep, hmax, hmin, tfirst):
    """{'y0': ..., 't': ..., 'args': ...}: the cotangents of odeint's arguments given g, its output's."""
    Y = np.asarray(ans, dtype=float)
    n = Y.shape[1]
    G = np.real(np.broadcast_to(np.asarray(g), Y.shape)).astype(float)
    ts = np.asarray(t, dtype=float).ravel()
    args_t = args if isinstance(args, tuple) else (args,)
    rhs = RHS(func, args_t, tfirst)
    m = rhs.layout.size
    options = dict(rtol=_tolerance(rtol, n, n + m), atol=_tolerance(atol, n, n + m), mxstep=mxstep,
                   hmax=hmax, hmin=hmin)
    crit = np.ravel(np.asarray(tcrit, dtype=float)) if tcrit is not None else np.zeros(0)

    def solve(augmented, z, s0, s1):
        for c0, c1 in _pieces(s0, s1, crit):
            z = _solve(augmented, z, c0, c1, options, crit.size > 0)
        return z
    # Y[0] = y0 is an output at the start time t[0]: the sweep's last step has zero length
    y0_bar, p_bar, ts_bar, t0_bar = adjoint(rhs, Y, ts, G, y0, ts[0], solve)
    ts_bar[0] += t0_bar
    return {"y0": y0_bar.reshape(np.shape(y0)), "t": ts_bar.reshape(np.shape(t)),
            "args": args_cotangent(rhs.layout, p_bar, args, not isinstance(args, tuple))}


# One backward solve serves all the arguments of one call: the templates for y0, t and args each ask
# for their part of the same result, kept per thread, by the identity of the call's values (the output
# `ans` is a fresh object for every forward call) and the value of g (a buffer may be reused).
_last = threading.local()


def _same_value(a, b):
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() and \
            all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b) and \
            all(_same_value(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and np.array_equal(a, b)


def shared_adjoint(part, g, rest, compute):
    """Part `part` of compute(g, *rest), computed once for consecutive requests about the same call."""
    cached = getattr(_last, "entry", None)
    if cached is None or len(cached[0]) != len(rest) or any(x is not y for x, y in zip(cached[0], rest)) \
            or not _same_value(cached[1], g):
        cached = (rest, copy.deepcopy(g), compute(g, *rest))
        _last.entry = cached
    return copy.deepcopy(cached[2][part])      # never shared with another argument's cotangent


@helper
def odeint_vjp(part, g, func, y0, t, args, ans, rtol, atol, tcrit, mxstep, hmax, hmin, tfirst):
    """The cotangent of odeint's argument `part` ('y0', 't' or 'args')."""
    if is_zero(g):
        return 0.0
    return shared_adjoint(part, g, (func, y0, t, args, ans, rtol, atol, tcrit, mxstep, hmax, hmin, tfirst),
                          odeint_adjoint)


@helper
def odeint_func_cot(func):
    """The function passed to odeint depends on a differentiated value: refuse (its gradient would be lost)."""
    raise TypeError(f"adsrc cannot differentiate scipy.integrate.odeint with respect to values its function "
                    f"`{getattr(func, '__qualname__', type(func).__name__)}` captures (a closure, a "
                    "functools.partial or an object's attributes): pass them through odeint's `args=` and "
                    "take them as parameters after (y, t), so the adjoint method differentiates them")


# -- forward mode: the sensitivity equations ------------------------------------------------------------------

def _is_zero_tangent(t):
    if t is None or is_zero(t):
        return True
    if isinstance(t, (tuple, list)):
        return all(_is_zero_tangent(v) for v in t)
    if isinstance(t, dict):
        return all(_is_zero_tangent(v) for v in t.values())
    return False


def sensitivity(rhs, Y, ts, y0, t0, y0_dot, t0_dot, ts_dot, args_tangent, integrate):
    """The tangent of the outputs Y[i] = y(ts[i]) (forward mode, shared by odeint and solve_ivp).

    u(s) = dy(s) obeys du/ds = df/dy u + df/dargs args_dot from u(t0) = y0_dot - f(y0, t0) t0_dot
    (moving the start time, see the top of this module), and Y_dot[i] = u(ts[i]) + f(Y[i], ts[i]) ts_dot[i].
    integrate(augmented, z0) returns the state [y, u] at every ts, solved with the user's solver and
    tolerances from z0 at t0 (y again, so u is evaluated where the solver's y is)."""
    N, n = Y.shape
    p_dot = rhs.layout.flatten(args_tangent)
    args_dot = rhs.layout.unflatten(p_dot) if np.any(p_dot) else (None,) * len(rhs.args)
    y0 = np.ravel(np.asarray(y0, dtype=float))
    u0 = y0_dot - rhs.value(y0, t0) * t0_dot if t0_dot else y0_dot
    out = np.zeros((N, n))
    if np.any(u0) or np.any(p_dot):
        def augmented(z, s):
            fy, fdot = rhs.with_tangent(z[:n], s, z[n:], args_dot)
            return np.concatenate([fy, fdot])
        out = np.array(integrate(augmented, np.concatenate([y0, u0]))[:, n:])
    for i in range(N):
        if ts_dot[i]:
            out[i] += rhs.value(Y[i], ts[i]) * ts_dot[i]
    return out


def flat_tangent(t, like, size):
    """A tangent (0.0: none) as a float vector of `size` entries."""
    return np.zeros(size) if is_zero(t) else np.real(np.broadcast_to(np.asarray(t), np.shape(like))).ravel()


@helper
def odeint_jvp(func, y0, t, args, ans, t_func, t_y0, t_t, t_args, rtol, atol, tcrit, mxstep, hmax, hmin,
               tfirst):
    """The tangent of Y = odeint(func, y0, t, args) for tangents t_y0, t_t, t_args (0.0: none)."""
    if not _is_zero_tangent(t_func):
        odeint_func_cot(func)
    if not isinstance(ans, np.ndarray):
        raise TypeError("adsrc differentiates scipy.integrate.odeint only with full_output=False (the default): "
                        "call it without full_output inside the differentiated function")
    Y = np.asarray(ans, dtype=float)
    N, n = Y.shape
    ts = np.asarray(t, dtype=float).ravel()
    rhs = RHS(func, args if isinstance(args, tuple) else (args,), tfirst)
    ts_dot = flat_tangent(t_t, t, N)
    options = dict(rtol=_tolerance(rtol, n, n), atol=_tolerance(atol, n, n), tcrit=tcrit, mxstep=mxstep,
                   hmax=hmax, hmin=hmin)

    def integrate(augmented, z0):
        z, info = si.odeint(augmented, z0, ts, full_output=True, **options)
        if info["message"] != "Integration successful.":
            raise FloatingPointError("adsrc: the forward sensitivity solve of scipy.integrate.odeint failed: "
                                     f"{info['message']}")
        return z
    t_args = t_args if isinstance(args, tuple) or is_zero(t_args) else (t_args,)
    return sensitivity(rhs, Y, ts, y0, ts[0], flat_tangent(t_y0, y0, n), ts_dot[0], ts_dot, t_args, integrate)


# second derivatives through odeint are refused by name (frontend.higher_order_error)
odeint_vjp._adsrc_derivative = "the adjoint solve of scipy.integrate.odeint (adsrc's reverse-mode rule)"
odeint_jvp._adsrc_derivative = "the sensitivity solve of scipy.integrate.odeint (adsrc's forward-mode rule)"
