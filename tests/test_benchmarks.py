"""The benchmark script runs and checks its gradients (timings are reported, never asserted)."""

import json
import pathlib
import subprocess
import sys

RUN = pathlib.Path(__file__).parent.parent / "benchmarks" / "run.py"


def test_benchmark_script_runs_and_writes_json(tmp_path):
    out = tmp_path / "results.json"
    proc = subprocess.run([sys.executable, str(RUN), "--only", "n=10", "--samples", "3", "--json", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["results"][0]["workload"] == "sum(exp(x)), n=10"
    assert {"numpy (by hand)", "adsrc"} <= set(data["results"][0]["times"])
    assert "| sum(exp(x)), n=10 |" in proc.stdout


def test_benchmark_prints_one_table_with_a_row_per_workload():
    proc = subprocess.run([sys.executable, str(RUN), "--only", "sum(exp(x)), n=1", "--samples", "3"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert sum(line.startswith("| workload |") for line in lines) == 1
    rows = [line for line in lines if line.startswith("| sum(exp(x))")]
    assert len(rows) == 3 and len(set(rows)) == 3          # n=10, n=1,000 and n=1,000,000, each once


def test_call_overhead_benchmark_runs():
    script = RUN.parent / "call_overhead.py"
    proc = subprocess.run([sys.executable, str(script), "--samples", "3"], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = {line.split(" | ")[0]: line for line in proc.stdout.splitlines() if line.startswith("| ")}
    assert rows["| x * x, a float"].endswith("| float |")          # a float's gradient is a float
    assert rows["| sum(exp(x)), n=10"].endswith("| ndarray |")


def test_transform_time_benchmark_runs_quickly_and_writes_json(tmp_path):
    out = tmp_path / "transform.json"
    script = RUN.parent / "transform_time.py"
    proc = subprocess.run([sys.executable, str(script), "--quick", "--repeats", "1", "--json", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(out.read_text())
    families = {r["family"] for r in rows}
    assert any(f.startswith("nested loops") for f in families)
    assert any(f.startswith("straight-line") for f in families)
    assert all(r["seconds"] > 0 and r["per_statement"] > 0 for r in rows)
    assert "| README logistic loss, first gradient |" in proc.stdout


HIGHER = RUN.parent / "higher_order.py"


def test_higher_order_benchmark_runs_and_writes_json(tmp_path):
    out = tmp_path / "higher.json"
    proc = subprocess.run([sys.executable, str(HIGHER), "--samples", "3", "--hessian-size", "5", "--repeats", "1",
                           "--json", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert {"adsrc.jvp", "primal (the loss)", "numpy (by hand)"} <= set(data["jvp"]["times"])
    assert {"adsrc.hvp", "adsrc.grad"} <= set(data["hvp"]["times"])
    assert "adsrc.hessian" in data["hessian"]["first_call"]
    assert all(t > 0 for part in ("jvp", "hvp", "hessian") for t in data[part]["times"].values())
    assert "adsrc.jvp / primal = " in proc.stdout and "adsrc.hvp / adsrc.grad = " in proc.stdout
    assert "| adsrc.hessian |" in proc.stdout


def test_higher_order_benchmark_runs_without_autograd_and_jax():
    blocked = ("import runpy, sys\n"
               "sys.modules['jax'] = sys.modules['autograd'] = sys.modules['torch'] = None   # as if not installed\n"
               f"sys.argv = [{str(HIGHER)!r}, '--samples', '3', '--hessian-size', '4', '--repeats', '1']\n"
               f"runpy.run_path({str(HIGHER)!r}, run_name='__main__')\n")
    proc = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "not installed: autograd, jax" in proc.stdout
    tables = proc.stdout.split("(their rows are left out)", 1)[1]
    assert "| adsrc.hessian |" in tables and "autograd" not in tables and "jax" not in tables
