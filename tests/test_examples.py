"""Every example script runs and prints what it did."""

import pathlib
import subprocess
import sys

import pytest

EXAMPLES = sorted((pathlib.Path(__file__).parent.parent / "examples").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(path):
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip(), "an example should print what it did"


def test_quickstart_prints_gradient_and_source():
    out = subprocess.run([sys.executable, str(EXAMPLES[0].parent / "quickstart.py")], capture_output=True,
                         text=True, check=True).stdout
    assert "gradient at w=0" in out and "def loss_grad(w, X, y):" in out
