"""Run the benchmarks: python benchmarks/run.py [--quick] [--json FILE] [--only NAME]

Every workload runs in this one process; each implementation's gradient is
checked against the hand-written NumPy gradient before it is timed. Reports
median time per gradient and the ratio to the hand-written gradient.
"""

import argparse
import json
import os
import platform
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import timing  # noqa: E402
import workloads  # noqa: E402


def _flat(g):
    if isinstance(g, dict):
        return [x for k in sorted(g) for x in _flat(g[k])]
    if isinstance(g, (tuple, list)):
        return [x for v in g for x in _flat(v)]
    return [np.asarray(g, dtype=float)]


def check(w):
    ref = _flat(w.impls[workloads.HAND]())
    for name, fn in w.impls.items():
        got = _flat(fn())
        if len(got) != len(ref) or not all(np.allclose(a, b, rtol=1e-6, atol=1e-9) for a, b in zip(got, ref)):
            raise SystemExit(f"{w.name}: {name} disagrees with the hand-written gradient")


def run(selected, samples):
    rows = []
    for w in selected:
        check(w)
        times = timing.compare(w.impls, samples=samples)
        first = timing.first_call(w.make_adsrc, w.args) if w.make_adsrc else None
        hand = times[workloads.HAND]
        rows.append({"workload": w.name, "times": times,
                     "ratios": {k: v / hand for k, v in times.items()}, "first_call": first, "note": w.note})
        print(format_row(rows[-1]), flush=True)
    return rows


def format_row(r):
    parts = [f"{r['workload']:<38}"]
    for name, t in r["times"].items():
        ratio = r["ratios"][name]
        parts.append(f"{name}: {timing.fmt_time(t)}" + ("" if name == workloads.HAND else f" ({ratio:.2f}x)"))
    if r["first_call"] is not None:
        parts.append(f"first call: {timing.fmt_time(r['first_call'])}")
    return " | ".join(parts)


def machine():
    return {"python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine(),
            "processor": platform.processor() or platform.machine(), "cpus": os.cpu_count()}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--json", help="write the results as JSON to this file")
    p.add_argument("--only", help="run only workloads whose name contains this text")
    p.add_argument("--samples", type=int, default=15)
    args = p.parse_args(argv)
    selected = workloads.all_workloads()
    if args.only:
        selected = [w for w in selected if args.only in w.name]
    print(f"# {machine()}")
    rows = run(selected, args.samples)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": machine(), "results": rows}, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
