"""Checking a generated program against adsrc, and classifying the outcome.

One gradient object (`adsrc.grad(f, argnums=...)`) is made per program and
called at both inputs; each result is compared with central finite
differences of the plain function, coordinate by coordinate, and the caller's
inputs are compared with deep copies taken before the call.

Outcomes: PASS; MISMATCH (a coordinate disagrees beyond ATOL + RTOL * |fd|,
or the gradient is NaN/inf or has the wrong structure); CHANGED (the gradient
call changed an input); CRASH (any exception other than adsrc.TransformError,
including errors raised inside the generated code, and timeouts); REFUSED
(adsrc.TransformError). UNRELIABLE is the harness's own: finite differences
with steps h and 10 h disagree with each other, so there is nothing to judge
(validate() makes this practically impossible).
"""

import copy
import importlib.util
import itertools
import os
import re
import sys
import tempfile
import traceback

import numpy as np

import adsrc
from proginst import Timeout, leaves, same, time_limit

PASS, MISMATCH, CHANGED, CRASH, REFUSED, UNRELIABLE = "pass", "mismatch", "changed input", "crash", "refused", \
    "unreliable"
FAILURES = (MISMATCH, CHANGED, CRASH)
# first-line fragments of refusals the grammar provokes that the README documents ("Refused: ... a view of a
# changed array that adsrc cannot take again (a view stored in a list ...)"): still reported, not failures
EXPECTED_REFUSALS = ("adsrc cannot follow how", "that a container holds a view of")
RTOL, ATOL, EPS = 1e-5, 1e-6, 1e-6
TIMEOUT = int(os.environ.get("ADSRC_RANDOM_TIMEOUT", 120))


class Outcome:
    def __init__(self, kind, line="", detail="", which=None):
        self.kind, self.line, self.detail, self.which = kind, line, detail, which

    @property
    def signature(self):
        """What must stay the same while shrinking: the kind, and for errors their normalized first line."""
        if self.kind in (CRASH, REFUSED):
            line = re.sub(r"[^\s`'(]*\.py", "FILE", self.line)
            line = re.sub(r"`[^`]*`|'[^']*'", "`_`", line)
            return self.kind, re.sub(r"\b[a-z]+\d+\b|\d+", "#", line)
        return self.kind, ""

    def __repr__(self):
        return f"Outcome({self.kind}, {self.line!r})"


_DIR = None
_COUNT = itertools.count()


def load(src):
    """Import src as a module from a file (adsrc reads the source of what it differentiates)."""
    global _DIR
    if _DIR is None:
        _DIR = tempfile.mkdtemp(prefix="adsrc_random_")
    name = f"random_program_{os.getpid()}_{next(_COUNT)}"
    path = os.path.join(_DIR, name + ".py")
    with open(path, "w") as fh:
        fh.write(src)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _first(e):
    text = str(e).strip()
    return text.splitlines()[0] if text else ""


def _crash(e, which):
    frames = traceback.extract_tb(e.__traceback__)
    where = f" ({os.path.basename(frames[-1].filename)}:{frames[-1].lineno})" if frames else ""
    detail = "".join(traceback.format_exception(type(e), e, e.__traceback__)[-12:])
    return Outcome(CRASH, f"{type(e).__name__}: {_first(e)}"[:200] + where, detail, which)


def _refused(e, which):
    return Outcome(REFUSED, _first(e), str(e), which)


def _get(x, path):
    for p in path:
        x = x[p]
    return x


def _shifted(args, i, path, idx, delta):
    new = copy.deepcopy(list(args))
    holder, key = (new, i) if not path else (_get(new[i], path[:-1]), path[-1])
    old = holder[key]
    if isinstance(old, np.ndarray):
        old = old.copy()
        old[idx] += delta
        holder[key] = old
    else:
        holder[key] = old + delta
    return new


def _central(f, args, i, path, idx, h):
    hi = float(np.asarray(f(*_shifted(args, i, path, idx, h))))
    lo = float(np.asarray(f(*_shifted(args, i, path, idx, -h))))
    return (hi - lo) / (2 * h)


def _close(ad, fd):
    return abs(ad - fd) <= ATOL + RTOL * abs(fd)


def compare(f, args, argnums, got, names):
    """None if got matches finite differences of f at args, else the Outcome saying where not."""
    if not isinstance(got, tuple) or len(got) != len(argnums):
        return Outcome(MISMATCH, f"the gradient is {type(got).__name__}, not a tuple of {len(argnums)}")
    for i, gi in zip(argnums, got):
        for path, leaf in leaves(args[i]):
            where = names[i] + "".join(f"[{p!r}]" for p in path)
            try:
                g = np.asarray(_get(gi, path), dtype=float)
            except (KeyError, IndexError, TypeError, ValueError) as e:
                return Outcome(MISMATCH, f"the gradient has no float entry for {where} ({type(e).__name__})")
            x = np.asarray(leaf, dtype=float)
            if g.shape != x.shape:
                return Outcome(MISMATCH, f"the gradient for {where} has shape {g.shape}, not {x.shape}")
            if not np.all(np.isfinite(g)):
                return Outcome(MISMATCH, f"the gradient for {where} is not finite: {g}")
            for idx in np.ndindex(x.shape):
                h = EPS * max(1.0, abs(float(x[idx])))
                fd = _central(f, args, i, path, idx, h)
                ad = float(g[idx])
                if not _close(ad, fd):
                    fd10 = _central(f, args, i, path, idx, 10 * h)
                    label = f"{where}{list(idx) if idx else ''}"
                    if not _close(fd10, fd):
                        return Outcome(UNRELIABLE, f"finite differences along {label} depend on the step "
                                                   f"({fd!r} with h, {fd10!r} with 10 h)")
                    return Outcome(MISMATCH, f"d f / d {label}: adsrc {ad!r}, finite differences {fd!r} "
                                             f"(rtol={RTOL}, atol={ATOL})")
    return None


def check(src, inputs, params, grad=None, timeout=TIMEOUT):
    """Outcome of differentiating f of src with one gradient object, called at each of the inputs."""
    grad = grad or adsrc.grad
    argnums = tuple(range(len(params)))
    module = None
    try:
        with time_limit(timeout):
            module = load(src)
            return _check(module.f, grad, argnums, inputs, params)
    except Timeout as e:
        return _crash(e, None)
    finally:
        if module is not None:
            sys.modules.pop(module.__name__, None)


def _check(f, grad, argnums, inputs, params):
    try:
        g = grad(f, argnums=argnums)
    except adsrc.TransformError as e:
        return _refused(e, None)
    except Exception as e:          # noqa: BLE001 -- anything else is a crash
        return _crash(e, None)
    for which, args in enumerate(inputs):
        mine = copy.deepcopy(args)
        try:
            got = g(*mine)
        except adsrc.TransformError as e:
            return _refused(e, which)
        except Exception as e:      # noqa: BLE001
            return _crash(e, which)
        if not same(mine, args):
            changed = [params[i] for i in range(len(args)) if not same(mine[i], args[i])]
            return Outcome(CHANGED, f"calling the gradient changed {', '.join(changed)}", which=which)
        shared = _sharing(got, mine, params)
        if shared:
            return Outcome(CHANGED, f"the gradient shares memory with {shared} (changing it would change the "
                                    f"input)", which=which)
        bad = compare(f, args, argnums, got, params)
        if bad is not None:
            bad.which = which
            return bad
    return Outcome(PASS)




def _arrays(x):
    if isinstance(x, np.ndarray):
        yield x
    elif isinstance(x, (list, tuple)):
        for e in x:
            yield from _arrays(e)
    elif isinstance(x, dict):
        for e in x.values():
            yield from _arrays(e)


def _sharing(got, args, params):
    """The parameter whose arrays share memory with a gradient array, or None."""
    outs = list(_arrays(got))
    for name, a in zip(params, args):
        if any(np.shares_memory(o, i) for i in _arrays(a) for o in outs):
            return name
    return None


def expected_refusal(outcome):
    return outcome.kind == REFUSED and any(x in outcome.line for x in EXPECTED_REFUSALS)


def is_failure(outcome):
    return outcome.kind in FAILURES or outcome.kind == REFUSED and not expected_refusal(outcome)


def show_value(v):
    if isinstance(v, np.ndarray):
        return f"np.array({v.tolist()!r})"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {show_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(show_value(x) for x in v) + "]"
    return repr(v)


def show_inputs(params, inputs):
    return "\n".join(f"# input {k}: " + ", ".join(f"{p}={show_value(v)}" for p, v in zip(params, args))
                     for k, args in enumerate(inputs))
