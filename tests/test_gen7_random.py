"""Random programs from progen_gen7.py, differentiated by adsrc and checked against central differences.

Each seed's program is written to a file (adsrc reads source) and imported. Inputs are drawn until
three are found where f is finite and central differences at two step sizes (and forward against
backward one-sided differences) agree, so that no kink or jump lies within a step. One gradient
object serves all of them; its results must match the differences (rtol/atol below), hold no NaN,
and leave the inputs unchanged when f does; for some seeds value_and_grad's value must be f's, and
adsrc.jvp's tangent must match the directional difference. A refusal (TransformError) fails too.

ADSRC_GEN7_PROGRAMS sets the number of seeds (default 40); ADSRC_GEN7_START the first.
As a script: `python tests/test_gen7_random.py SEED...` prints each program and its outcome.
"""

import importlib.util
import os
import random
import sys
import warnings

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE]

import adsrc  # noqa: E402
from progen_gen7 import gen_program  # noqa: E402

RTOL, ATOL = 1e-4, 1e-6
COUNT = int(os.environ.get("ADSRC_GEN7_PROGRAMS", "40"))
START = int(os.environ.get("ADSRC_GEN7_START", "0"))


def load(seed, src, folder):
    path = os.path.join(folder, f"gen7_p{seed}.py")
    with open(path, "w") as fh:
        fh.write(src)
    spec = importlib.util.spec_from_file_location(f"gen7_p{seed}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.f


def make_input(kind, rng):
    if kind[0] == "i":
        return int(rng.integers(1, 4))
    if kind[0] == "s":
        return float(rng.normal())
    return rng.normal(size=kind[1:])


def copies(xs):
    return [np.array(x) if isinstance(x, np.ndarray) else x for x in xs]


def call(f, xs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return float(f(*copies(xs)))


def close(a, b, rtol=RTOL, atol=ATOL):
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape:
        return False
    scale = max(1.0, float(np.max(np.abs(b))) if b.size else 1.0)
    return bool(np.all(np.abs(a - b) <= atol * scale + rtol * np.abs(b)))


def one_sided_agree(fa, f0, fb, h, g):
    return abs((fa - f0) - (f0 - fb)) <= 1e-3 * h * (1 + abs(g)) + 1e-9 * (1 + abs(f0))


def central(f, xs, i, h):
    """central differences of f in argument i, NaN where a jump or kink lies inside the step"""
    x = xs[i]
    f0 = call(f, xs)
    cells = [()] if not isinstance(x, np.ndarray) else list(np.ndindex(x.shape))
    out = np.zeros(np.shape(x))
    for idx in cells:
        up, down = copies(xs), copies(xs)
        if idx == ():
            up[i], down[i] = x + h, x - h
        else:
            up[i][idx] += h
            down[i][idx] -= h
        fa, fb = call(f, up), call(f, down)
        g = (fa - fb) / (2 * h)
        out[idx] = g if one_sided_agree(fa, f0, fb, h, g) else np.nan
    return out if isinstance(x, np.ndarray) else float(out)


def good_inputs(f, spec, wrt, seed, want=3):
    found = []
    for t in range(10):
        rng = np.random.default_rng(seed * 100 + t)
        xs = [make_input(k, rng) for _, k in spec]
        try:
            v = call(f, xs)
            with warnings.catch_warnings(), np.errstate(over="raise", divide="ignore", invalid="ignore"):
                warnings.simplefilter("ignore")
                f(*copies(xs))        # an overflow inside f: its gradient may be inf * 0 (NaN), as in any AD
        except Exception:
            continue
        if not np.isfinite(v) or abs(v) > 1e8:
            continue
        fds = []
        for i in wrt:
            g1, g2 = central(f, xs, i, 1e-6), central(f, xs, i, 1e-5)
            if not (np.all(np.isfinite(g1)) and close(g1, g2)):
                break
            fds.append(g1)
        else:
            found.append((xs, v, fds))
        if len(found) == want:
            break
    return found


def check(seed, folder):
    """None when adsrc agrees, else a description of what failed"""
    src, spec, _ = gen_program(seed)
    f = load(seed, src, folder)
    r = random.Random(seed * 7 + 1)
    floats = [j for j, (_, k) in enumerate(spec) if k[0] != "i"]
    wrt = sorted(r.sample(floats, r.randrange(1, len(floats) + 1)))
    argnums = wrt[0] if len(wrt) == 1 and r.random() < 0.5 else tuple(wrt)
    found = good_inputs(f, spec, wrt, seed)
    if not found:
        return None             # f fails or is not smooth at every input drawn
    gfun = adsrc.grad(f, argnums=argnums)
    for xs, v, fds in found:
        before = copies(xs)
        after_f = copies(xs)
        f(*after_f)
        f_mutates = any(isinstance(p, np.ndarray) and not np.array_equal(p, q) for p, q in zip(after_f, before))
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            g = gfun(*xs)
        if not f_mutates and any(not np.array_equal(p, q) for p, q in zip(xs, before)):
            return "an input was changed"
        gs = [g] if isinstance(argnums, int) else list(g)
        for i, gi, fi in zip(wrt, gs, fds):
            if np.any(np.isnan(np.asarray(gi, float))) or not close(gi, fi):
                return f"gradient of argument {i} at {before}: adsrc {gi}, central differences {fi}"
    xs, v, fds = found[0]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if r.random() < 0.5:
            val, _ = adsrc.value_and_grad(f, argnums=argnums)(*copies(xs))
            if not close(val, v, 1e-9, 1e-12):
                return f"value_and_grad's value {val}, f's {v}"
        if r.random() < 0.4 and len(floats) == len(spec):
            ts = [make_input(k, np.random.default_rng(seed)) for _, k in spec]
            out, dout = adsrc.jvp(f, tuple(copies(xs)), tuple(ts))
            h = 1e-6
            fd = (call(f, [x + h * t for x, t in zip(xs, ts)]) - call(f, [x - h * t for x, t in zip(xs, ts)])) / (2 * h)
            if not close(out, v, 1e-9, 1e-12) or not close(dout, fd):
                return f"jvp ({out}, {dout}), f {v} and directional difference {fd}"
    return None


@pytest.mark.parametrize("seed", range(START, START + COUNT))
def test_gen7_program(seed, tmp_path):
    problem = check(seed, str(tmp_path))
    assert problem is None, f"seed {seed}: {problem}\n{gen_program(seed)[0]}"


if __name__ == "__main__":
    import tempfile
    folder = tempfile.mkdtemp()
    for arg in sys.argv[1:]:
        print(gen_program(int(arg))[0])
        print("->", check(int(arg), folder) or "ok")
