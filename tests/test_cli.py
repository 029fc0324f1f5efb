"""python -m adsrc show / rules."""

import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).parent


def run(*args):
    return subprocess.run([sys.executable, "-m", "adsrc", *args], capture_output=True, text=True)


def test_show_prints_the_gradient_source():
    out = run("show", f"{HERE / 'golden_functions.py'}:piecewise")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("def piecewise_grad(x):")
    assert "# line" in out.stdout


def test_show_argnums_and_lowered_stage():
    out = run("show", f"{HERE / 'golden_functions.py'}:rnn", "--argnums", "0,1")
    assert out.returncode == 0, out.stderr
    assert "return grad_output(dWx, Wx), grad_output(dWh, Wh)" in out.stdout
    lowered = run("show", f"{HERE / 'golden_functions.py'}:rnn", "--stage", "lowered")
    assert "scan(" in lowered.stdout and "def loop_body" in lowered.stdout


def test_show_reports_bad_targets():
    out = run("show", f"{HERE / 'golden_functions.py'}:missing")
    assert out.returncode != 0 and "no function 'missing'" in out.stderr
    out = run("show", "nonexistent.py:f")
    assert out.returncode != 0 and "no such file" in out.stderr


def test_show_reports_transform_errors():
    out = run("show", f"{HERE / 'bad_functions.py'}:uses_try")
    assert out.returncode == 1
    assert "`try`" in out.stderr and "bad_functions.py" in out.stderr


def test_rules_lists_rules():
    out = run("rules")
    assert out.returncode == 0
    assert "np.exp" in out.stdout and "differentiable rules" in out.stdout
