"""adsrc's numba helpers are compiled once per machine: numba caches them on disk (helper_cache.py), so a later
process compiles only the gradient's own kernel; ADSRC_HELPER_CACHE=0 turns it off, and the directory is named
by adsrc's source, so nothing compiled from another version of adsrc is loaded."""

import os
import subprocess
import sys

import pytest

pytest.importorskip("numba")

HERE = os.path.dirname(os.path.abspath(__file__))

PROGRAM = """
import sys
sys.path[:0] = [{root!r}]
import numpy as np
from numba.core import event
import adsrc

def rnn(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h ** 2)

recorder = event.RecordingListener()
event.register("numba:compile", recorder)
rng = np.random.default_rng(0)
g = adsrc.grad(rnn, backend="numba")(rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(4, 3)))
event.unregister("numba:compile", recorder)
print(sum(1 for _, e in recorder.buffer if e.is_start), float(np.sum(g)))
"""


def _run(directory, script):
    env = dict(os.environ, ADSRC_HELPER_CACHE=directory)
    env.pop("ADSRC_CACHE_DIR", None)
    script.write_text(PROGRAM.format(root=os.path.dirname(HERE)))      # (adsrc reads the function's source)
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, check=True)
    compiled, total = out.stdout.split()
    return int(compiled), float(total)


def test_a_later_process_loads_the_helpers_instead_of_compiling_them(tmp_path):
    cache, script = tmp_path / "cache", tmp_path / "program.py"
    first, g1 = _run(str(cache), script)
    helpers = [d for d in os.listdir(cache) if d.startswith("helpers-")]
    assert len(helpers) == 1 and os.listdir(cache / helpers[0]), "the helpers were not cached"
    second, g2 = _run(str(cache), script)
    assert second < first / 2, (first, second)       # the kernel and numba's own functions only
    assert g1 == g2
    off, g3 = _run("0", script)
    assert off >= first - 2 and g3 == g1
