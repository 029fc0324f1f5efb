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


SCRIPT = '''
import numpy as np
import adsrc

print("TOP-LEVEL CODE RAN")


def plain(x, y):
    return np.sum(x * y)


@adsrc.grad(argnums=1)
def second(x, y):
    return np.sum(np.sin(x) * y)


@adsrc.grad(static_argnames="mode")
def activation(x, mode="tanh"):
    if mode == "tanh":
        return np.sum(np.tanh(x))
    return np.sum(np.sin(x))


@adsrc.grad(static_argnums=1)
def needs_n(x, n):
    if n > 2:
        return np.sum(np.exp(x))
    return np.sum(np.log1p(x))


def with_aux(x):
    return np.sum(x * x), x.shape


class Model:
    def __init__(self):
        self.w = np.ones(3)

    def __call__(self, x):
        return np.sum(np.cosh(self.w * x))


model = Model()

if __name__ == "__main__":
    print("MAIN BLOCK RAN")
'''


def script(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(SCRIPT)
    return path


def test_show_help_says_the_file_is_imported_and_its_main_block_is_not_run():
    out = run("show", "--help")
    text = " ".join(out.stdout.split())
    assert "FILE.py is imported as a module" in text and "its top-level code runs" in text
    assert 'its `if __name__ == "__main__":` block does not run' in text
    assert "--has-aux" in text


def test_show_runs_top_level_code_to_stderr_and_not_the_main_block(tmp_path):
    out = run("show", f"{script(tmp_path)}:plain")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("def plain_grad(x, y):")
    assert "TOP-LEVEL CODE RAN" in out.stderr and "TOP-LEVEL CODE RAN" not in out.stdout
    assert "MAIN BLOCK RAN" not in out.stdout + out.stderr


def test_show_has_aux(tmp_path):
    out = run("show", f"{script(tmp_path)}:with_aux", "--has-aux")
    assert out.returncode == 0, out.stderr
    assert "def with_aux_grad(x):" in out.stdout
    # the gradient (2 * x, returned as it is when it is an array of x's dtype) and the aux value
    assert "else grad_output(dx, x), x_shape" in out.stdout
    without = run("show", f"{script(tmp_path)}:with_aux")
    assert "check_scalar(" in without.stdout and not without.stdout.rstrip().endswith("x_shape")


def test_show_uses_a_gradient_objects_argnums_and_statics(tmp_path):
    out = run("show", f"{script(tmp_path)}:second")
    assert out.returncode == 0, out.stderr
    assert "return grad_output(dy, y)" in out.stdout
    out = run("show", f"{script(tmp_path)}:activation")       # the static default, mode="tanh"
    assert out.returncode == 0, out.stderr
    assert "np.tanh" in out.stdout and "np.sin" not in out.stdout
    assert "mode='tanh' (its default" in out.stderr
    out = run("show", f"{script(tmp_path)}:activation", "--static", "mode='sin'")
    assert out.returncode == 0, out.stderr
    assert "np.cos" in out.stdout and "np.tanh" not in out.stdout
    out = run("show", f"{script(tmp_path)}:second", "--argnums", "0")   # options given override the object's
    assert "return grad_output(dx, x)" in out.stdout


def test_show_refuses_a_static_argument_without_a_value(tmp_path):
    out = run("show", f"{script(tmp_path)}:needs_n")
    assert out.returncode == 1 and out.stdout == ""
    assert "`n` is a static argument of `needs_n` without a default" in out.stderr
    assert "--static n=VALUE" in out.stderr
    out = run("show", f"{script(tmp_path)}:needs_n", "--static", "n=3")
    assert out.returncode == 0, out.stderr
    assert "np.exp" in out.stdout and "log1p" not in out.stdout


def test_show_a_callable_object(tmp_path):
    out = run("show", f"{script(tmp_path)}:model")
    assert out.returncode == 0, out.stderr
    assert "sinh" in out.stdout
