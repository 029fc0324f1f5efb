"""examples/hierarchical_scipy.py runs: a hierarchical model's log-posterior written with scipy.stats,
its gradient checked against finite differences, its mode found with scipy.optimize, then sampled."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

pytest.importorskip("scipy")      # an optional dependency (the `scipy` and `test` extras)

EXAMPLE = pathlib.Path(__file__).parent.parent / "examples" / "hierarchical_scipy.py"


def test_hierarchical_scipy_example():
    env = dict(os.environ, PYTHONPATH=str(EXAMPLE.parent.parent))
    out = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=600, env=env)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "agrees with finite differences" in text
    evals = re.search(r"(\d+) with adsrc's gradient, (\d+) with finite differences", text)
    assert evals and int(evals.group(1)) < int(evals.group(2))
    means = re.search(r"posterior means mu = ([-\d.]+), tau = ([-\d.]+)", text)
    assert means and -5.0 < float(means.group(1)) < 15.0 and 0.0 < float(means.group(2)) < 20.0
