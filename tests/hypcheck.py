"""Inputs for and checks of the programs progen_hyp.py draws (test_hypothesis_programs.py runs them).

`prepare` draws three inputs, sets the program's thresholds so that branches, masks and loop exits differ
between the first and the last (proginst.calibrate), and keeps the program only if it is a fair test at all
three (proginst.validate: it runs, returns a finite scalar, never writes into its inputs, and stays away
from every threshold and kink that proginst instruments). `judge` then differentiates it with adsrc:
grad and value_and_grad at each input (one object each, called three times), checked against central
differences of the plain function at two step sizes (a coordinate where the two disagree, a kink or a jump
nearby, is not compared), the value against the plain call, NaN and inf as failures, the inputs checked
unchanged; then, as the program asks, adsrc.jvp along a random tangent against directional differences,
or adsrc.hessian in the first argument against differences of the gradient.
"""

import copy
import random
import sys
import traceback

import numpy as np

import adsrc
from progcheck import _get, load, _shifted as _moved     # (an input with one entry moved by delta)
from proginst import Timeout, calibrate, leaves, same, time_limit, validate

RTOL, ATOL = 2e-4, 2e-5      # adsrc against differences that agree with each other
AGREE = (1e-4, 1e-6)         # differences at steps h and 10 h agree within this (rtol, atol)
# first-line fragments of refusals the README documents that the grammar can provoke
DOCUMENTED = ("adsrc cannot follow how", "that a container holds a view of")


class Outcome:
    """kind: pass, wrong (a value or derivative), nan, changed (an input), crash, refused, documented
    (a refusal the README lists), unreliable (differences disagree everywhere); api: which call."""

    def __init__(self, kind, api="", line="", detail=""):
        self.kind, self.api, self.line, self.detail = kind, api, line, detail

    @property
    def failed(self):
        return self.kind in ("wrong", "nan", "changed", "crash", "refused")

    def signature(self):
        """What stays the same while shrinking: api, kind, and an error's type and place in adsrc."""
        if self.kind in ("crash", "refused"):
            return self.api, self.kind, self.line.split(":")[0], self.detail.rsplit("@", 1)[-1]
        return self.api, self.kind

    def __repr__(self):
        return f"Outcome({self.kind!r}, {self.api!r}, {self.line!r})"


class Case:
    def __init__(self, src, names, inputs, checks):
        self.src, self.names, self.inputs, self.checks = src, names, inputs, checks

    def show(self):
        def fmt(v):
            if isinstance(v, np.ndarray):
                return f"np.array({v.tolist()!r})"
            if isinstance(v, dict):
                return "{" + ", ".join(f"{k!r}: {fmt(x)}" for k, x in v.items()) + "}"
            return repr(v)
        ins = "\n".join(f"# input {k}: " + ", ".join(f"{p}={fmt(v)}" for p, v in zip(self.names, a))
                        for k, a in enumerate(self.inputs))
        return f"{self.src}{ins}\n# checks: {self.checks}\n"


def draw_inputs(codes, n, m, seed):
    rng = np.random.default_rng(seed)
    shapes = {"N": (n,), "M": (m,), "X": (n, m)}

    def one(code, scale):
        if code == "S":
            return round(float(rng.uniform(-scale, scale)), 3)
        if code == "D":
            return {"w": np.round(rng.uniform(-scale, scale, m), 3), "b": round(float(rng.uniform(-scale, scale)), 3)}
        return np.round(rng.uniform(-scale, scale, shapes[code]), 3)
    return [tuple(one(c, scale) for c in codes) for scale in (1.0, 1.5, 0.7)]


def prepare(program):
    """A Case for a drawn program, or the reason it is not a fair test."""
    src, names, codes, n, m, seed, checks = program
    inputs = draw_inputs(codes, n, m, seed)
    try:
        with time_limit(5):
            final = calibrate(src, inputs, random.Random(seed))
    except Exception as e:          # noqa: BLE001 -- the program fails in plain Python: not a test
        return None, f"{type(e).__name__}: {e}"
    if final is None:
        return None, "thresholds did not settle"
    why, _ = validate(final, inputs)
    return (Case(final, names, inputs, checks), None) if why is None else (None, why)


def _agree(a, b):
    return abs(a - b) <= AGREE[1] + AGREE[0] * abs(a)


def _close(ad, fd):
    return abs(ad - fd) <= ATOL + RTOL * abs(fd)


def _central(f, h):
    """Central differences of the scalar function f(t) at 0, at steps h and 10 h."""
    return [(float(f(k * h)) - float(f(-k * h))) / (2 * k * h) for k in (1, 10)]


def _compare_grad(f, args, got, names, api):
    if not isinstance(got, tuple) or len(got) != len(args):
        return Outcome("wrong", api, f"the gradient is {type(got).__name__}, not a tuple of {len(args)}")
    compared = 0
    for i, gi in enumerate(got):
        for path, leaf in leaves(args[i]):
            where = names[i] + "".join(f"[{p!r}]" for p in path)
            try:
                g = np.asarray(_get(gi, path), dtype=float)
            except (KeyError, IndexError, TypeError, ValueError) as e:
                return Outcome("wrong", api, f"no float entry for {where} in the gradient ({type(e).__name__})")
            x = np.asarray(leaf, dtype=float)
            if g.shape != x.shape:
                return Outcome("wrong", api, f"the gradient for {where} has shape {g.shape}, not {x.shape}")
            if not np.all(np.isfinite(g)):
                return Outcome("nan", api, f"the gradient for {where} is not finite: {g.tolist()}")
            for idx in np.ndindex(x.shape):
                h = 1e-6 * max(1.0, abs(float(x[idx])))
                fd, fd10 = _central(lambda t: f(*_moved(args, i, path, idx, t)), h)
                if not _agree(fd, fd10):
                    continue
                compared += 1
                if not _close(float(g[idx]), fd):
                    return Outcome("wrong", api, f"d f / d {where}{list(idx) if idx else ''}: adsrc {float(g[idx])!r}, "
                                                 f"differences {fd!r} (and {fd10!r} with 10 h)")
    return None if compared else Outcome("unreliable", api, "differences disagree at every coordinate")


def _error(api, e):
    frames = [fr for fr in traceback.extract_tb(e.__traceback__) if "/adsrc/" in fr.filename]
    where = f"{frames[-1].filename.rsplit('/adsrc/', 1)[-1]}:{frames[-1].name}" if frames else "generated"
    first = (str(e).strip().splitlines() or [""])[0]
    detail = "".join(traceback.format_exception(type(e), e, e.__traceback__)[-8:]) + "@" + where
    if isinstance(e, adsrc.TransformError):
        kind = "documented" if any(d in first for d in DOCUMENTED) else "refused"
        return Outcome(kind, api, f"TransformError: {first}"[:240], str(e) + "@" + where)
    return Outcome("crash", api, f"{type(e).__name__}: {first}"[:240], detail)


def _calls(api, fn, args, names):
    """fn(*copies of args), or the Outcome of its error or of a changed input."""
    mine = copy.deepcopy(args)
    try:
        out = fn(*mine)
    except Exception as e:      # noqa: BLE001 -- every error is an outcome
        return None, _error(api, e)
    if not same(mine, args):
        changed = [names[i] for i in range(len(args)) if not same(mine[i], args[i])]
        return None, Outcome("changed", api, f"calling {api} changed {', '.join(changed)}")
    return out, None


def judge(case, timeout=60):
    module = None
    try:
        with time_limit(timeout):
            module = load(case.src)
            return _judge(module.f, case)
    except Timeout as e:
        return Outcome("crash", "timeout", f"Timeout: {e}")
    finally:
        if module is not None:
            sys.modules.pop(module.__name__, None)


def _judge(f, case):
    argnums = tuple(range(len(case.names)))
    names = case.names
    try:
        g = adsrc.grad(f, argnums=argnums)
        vg = adsrc.value_and_grad(f, argnums=argnums)
    except Exception as e:      # noqa: BLE001
        return _error("grad", e)
    unreliable = 0
    for args in case.inputs:
        value = float(f(*copy.deepcopy(args)))
        got, bad = _calls("grad", g, args, names)
        if bad:
            return bad
        bad = _compare_grad(f, args, got, names, "grad")
        if bad and bad.kind != "unreliable":
            return bad
        unreliable += bad is not None
        got, bad = _calls("value_and_grad", vg, args, names)
        if bad:
            return bad
        v, gv = got
        if not np.isfinite(float(v)) or abs(float(v) - value) > 1e-9 * max(1.0, abs(value)):
            return Outcome("wrong", "value_and_grad", f"value {v!r}, the plain call gives {value!r}")
        bad = _compare_grad(f, args, gv, names, "value_and_grad")
        if bad and bad.kind != "unreliable":
            return bad
    if "jvp" in case.checks:
        bad = _check_jvp(f, case)
        if bad:
            return bad
    if "hessian" in case.checks:
        bad = _check_hessian(f, g, case)
        if bad:
            return bad
    return Outcome("unreliable") if unreliable == len(case.inputs) else Outcome("pass")


def _tangent(x, rng):
    if isinstance(x, dict):
        return {k: _tangent(v, rng) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return np.round(rng.uniform(-1, 1, x.shape), 3)
    return round(float(rng.uniform(-1, 1)), 3)


def _along(x, t, h):
    if isinstance(x, dict):
        return {k: _along(x[k], t[k], h) for k in x}
    return x + h * t


def _check_jvp(f, case):
    rng = np.random.default_rng(len(case.src))
    for args in case.inputs:
        tangents = tuple(_tangent(a, rng) for a in args)
        value = float(f(*copy.deepcopy(args)))
        got, bad = _calls("jvp", lambda *a: adsrc.jvp(f, a, copy.deepcopy(tangents)), args, case.names)
        if bad:
            return bad
        out, dot = got
        if abs(float(out) - value) > 1e-9 * max(1.0, abs(value)):
            return Outcome("wrong", "jvp", f"primal output {out!r}, the plain call gives {value!r}")
        if not np.isfinite(float(dot)):
            return Outcome("nan", "jvp", f"the tangent output is {dot!r}")
        fd, fd10 = _central(lambda h: f(*[_along(a, t, h) for a, t in zip(copy.deepcopy(args), tangents)]), 1e-6)
        if _agree(fd, fd10) and not _close(float(dot), fd):
            return Outcome("wrong", "jvp", f"tangent output {float(dot)!r}, directional differences {fd!r}")
    return None


def _check_hessian(f, g, case):
    for args in case.inputs:
        x = args[0]
        if not isinstance(x, np.ndarray):
            return None
        got, bad = _calls("hessian", adsrc.hessian(f, argnums=0), args, case.names)
        if bad:
            return bad
        H = np.asarray(got, dtype=float)
        if H.shape != x.shape * 2:
            return Outcome("wrong", "hessian", f"shape {H.shape}, not {x.shape * 2}")
        if not np.all(np.isfinite(H)):
            return Outcome("nan", "hessian", f"not finite: {H.tolist()}")
        for j in np.ndindex(x.shape):
            def grad_at(t):
                return g(*_moved(args, 0, (), j, t))[0]
            cols = [(grad_at(k * 1e-5) - grad_at(-k * 1e-5)) / (2e-5 * k) for k in (1, 10)]
            for i in np.ndindex(x.shape):
                fd, fd10 = float(cols[0][i]), float(cols[1][i])
                if _agree(fd, fd10) and not _close(float(H[i + j]), fd):
                    return Outcome("wrong", "hessian", f"d2 f / d x{list(i)} d x{list(j)}: adsrc {float(H[i + j])!r}, "
                                                       f"differences of the gradient {fd!r}")
    return None
