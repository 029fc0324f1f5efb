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


def specialization(samples):
    """Cost of a cache hit (over calling the generated function directly) and of a new specialization."""
    import statistics
    import time

    import adsrc
    x = np.random.default_rng(4).uniform(-1, 1, 10)
    rows = []
    for label, g, args in (("no static args", adsrc.grad(workloads.sum_exp), (x,)),
                           ("static k, by position", adsrc.grad(workloads.scaled_sum, static_argnums=1), (x, 3)),
                           ("static k, by keyword", adsrc.grad(workloads.scaled_sum, static_argnames="k"), None)):
        if args is None:
            call = lambda: g(x, k=3)           # noqa: E731
            g(x, k=3)
            unit = next(iter(g._cache._data.values()))
            direct = lambda: unit.fn(x, k=3)    # noqa: E731
        else:
            g(*args)
            unit = next(iter(g._cache._data.values()))
            call = lambda: g(*args)              # noqa: E731
            direct = lambda: unit.fn(*args)      # noqa: E731
        t = timing.compare({"cached": call, "direct": direct}, samples=samples)
        rows.append({"case": label, "hit_overhead": t["cached"] - t["direct"], "direct": t["direct"]})
        print(f"cache hit, {label:<24} overhead over the generated function: "
              f"{(t['cached'] - t['direct']) * 1e6:.2f} us (generated function alone {timing.fmt_time(t['direct'])})",
              flush=True)
    g = adsrc.grad(workloads.poly, static_argnums=1, cache_size=None)
    times = []
    for n in range(20, 40):
        t0 = time.perf_counter()
        g(x, n)
        times.append(time.perf_counter() - t0)
    transform = statistics.median(times)
    print(f"new specialization (transform + compile + first run of poly): {timing.fmt_time(transform)}", flush=True)
    return {"cache_hits": rows, "new_specialization": transform}


def machine():
    return {"python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine(),
            "processor": platform.processor() or platform.machine(), "cpus": os.cpu_count()}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--json", help="write the results as JSON to this file")
    p.add_argument("--only", help="run only workloads whose name contains this text")
    p.add_argument("--samples", type=int, default=15)
    p.add_argument("--skip-specialization", action="store_true")
    args = p.parse_args(argv)
    selected = workloads.all_workloads()
    if args.only:
        selected = [w for w in selected if args.only in w.name]
    print(f"# {machine()}")
    rows = run(selected, args.samples)
    spec = None if args.skip_specialization or args.only else specialization(args.samples)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": machine(), "results": rows, "specialization": spec}, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
