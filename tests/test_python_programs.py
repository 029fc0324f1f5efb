"""Random programs written the way users write Python: lists, dicts and objects changed in place and through
other names, closures, generators, comprehensions, try/except, while loops stopping on data (progen_python.py).

Each program `f(x, v, M)` (a float, a vector, a matrix) runs at three inputs. adsrc's gradient with respect to
all three, from `grad` and from `value_and_grad`, must match central differences, its value the plain call's,
and the inputs must come back unchanged. A coordinate where differences with two step sizes disagree (a kink
or a branch flipping nearby) is not compared. A program adsrc refuses (`adsrc.TransformError`) is a skip
that names the refusal; anything else adsrc raises is a failure.

ADSRC_PYTHON_PROGRAMS sets how many programs (default 150).
"""

import copy
import importlib.util
import os
import sys
import warnings

import numpy as np
import pytest

import adsrc
from progen_python import Gen

COUNT = int(os.environ.get("ADSRC_PYTHON_PROGRAMS", 150))
# seeds known to give a wrong result, kept as strict expected failures until fixed (none now: seed 91, an array in
# a dict changed through the dict while another name held it, is fixed and in tests/cases_changes.py)
KNOWN_WRONG = set()
SEEDS = [pytest.param(s, marks=pytest.mark.xfail(strict=True, reason="known wrong")) if s in KNOWN_WRONG else s
         for s in range(COUNT)]
RTOL, ATOL = 2e-4, 1e-6


def _load(source, path):
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, str(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def _inputs(seed):
    rng = np.random.default_rng(seed + 7919)
    return [(float(rng.uniform(-1.2, 1.2)), rng.uniform(-1, 1, 3), rng.uniform(-1, 1, (3, 3))) for _ in range(3)]


def _unchanged(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and np.array_equal(a, b)
    return a == b


def _difference(f, args, i, idx, h):
    def at(step):
        moved = [copy.deepcopy(a) for a in args]
        if isinstance(moved[i], np.ndarray):
            moved[i][idx] += step
        else:
            moved[i] = moved[i] + step
        return float(f(*moved))
    return (at(h) - at(-h)) / (2 * h)


@pytest.mark.parametrize("seed", SEEDS)
def test_python_program_matches_finite_differences(seed, tmp_path):
    source = Gen(seed).program()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = _load(source, tmp_path / f"pyprog_{seed}.py").f
        inputs = _inputs(seed)
        try:
            values = [float(f(*copy.deepcopy(args))) for args in inputs]
        except Exception as e:          # the generator wrote a program Python itself rejects here
            pytest.skip(f"not a valid program at these inputs: {type(e).__name__}: {e}")
        if not all(np.isfinite(values)):
            pytest.skip("not finite at these inputs")
        grad = adsrc.grad(f, argnums=(0, 1, 2))
        value_and_grad = adsrc.value_and_grad(f, argnums=(0, 1, 2))
        compared = 0
        for args, value in zip(inputs, values):
            mine, theirs = copy.deepcopy(args), copy.deepcopy(args)
            try:
                g = grad(*mine)
                v, g2 = value_and_grad(*theirs)
            except adsrc.TransformError as e:
                pytest.skip(f"refused: {str(e).splitlines()[0]}")
            assert all(_unchanged(a, b) for a, b in zip(mine + theirs, args + args)), "an input was changed"
            assert v == pytest.approx(value, rel=1e-9, abs=1e-9), f"value {v} for the plain call's {value}"
            for i in range(3):
                x = np.asarray(args[i], dtype=float)
                for got in (g[i], g2[i]):
                    got = np.asarray(got, dtype=float)
                    assert got.shape == x.shape and np.all(np.isfinite(got)), f"argument {i}: {got}"
                for idx in np.ndindex(x.shape):
                    near = _difference(f, args, i, idx, 1e-6)
                    far = _difference(f, args, i, idx, 1e-5)
                    if not np.isfinite(near) or abs(near - far) > 1e-5 + 1e-4 * abs(near):
                        continue        # a kink or a jump nearby: differences are not a reference here
                    compared += 1
                    for got in (g[i], g2[i]):
                        assert abs(float(np.asarray(got)[idx]) - near) <= ATOL + RTOL * abs(near), \
                            f"d f / d argument {i}{list(idx)} at {args}: adsrc {np.asarray(got)[idx]}, " \
                            f"differences {near}\n{source}"
        if compared == 0:
            pytest.skip("no coordinate where differences are reliable")
