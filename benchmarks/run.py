"""Benchmarks: adsrc against hand-written NumPy gradients and, when installed, autograd, JAX and PyTorch.

    python benchmarks/run.py                 # everything (seconds with NumPy alone, about a minute with peers)
    python benchmarks/run.py --only RNN      # workloads whose name contains RNN
    python benchmarks/run.py --json results.json --plot ratios.png
    python benchmarks/run.py --only "transformation time"    # transform_time.py's table alone
    python benchmarks/run.py --only "higher order"           # higher_order.py's tables alone

Every implementation runs in this one process, and each gradient is checked
against the hand-written NumPy gradient before it is timed. Times are
medians of interleaved samples; ratios are to the hand-written gradient.
A full run ends with the cost of a cache hit and of a call (call_overhead.py), transformation
times (transform_time.py), and forward mode and second derivatives (higher_order.py).
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]      # this checkout's adsrc, not another one installed

import alternatives as alt  # noqa: E402
import call_overhead  # noqa: E402
import higher_order  # noqa: E402
import timing  # noqa: E402
import transform_time  # noqa: E402
import workloads as wl  # noqa: E402
from adsrc import transform  # noqa: E402

TRANSFORM_TIME = "transformation time"
HIGHER_ORDER = "higher order"
ORDER = [wl.HAND, wl.ADSRC, alt.AUTOGRAD, alt.JAX, alt.JAX_JIT, alt.TORCH]


def _flat(g):
    g = alt.to_numpy(g)
    if isinstance(g, dict):
        return [x for k in sorted(g) for x in _flat(g[k])]
    if isinstance(g, (tuple, list)):
        return [x for v in g for x in _flat(v)]
    return [np.asarray(g, dtype=float)]


def _agree(a, b):
    a, b = _flat(a), _flat(b)
    return len(a) == len(b) and all(x.shape == y.shape and np.allclose(x, y, rtol=1e-6, atol=1e-9)
                                    for x, y in zip(a, b))


def check(name, impls):
    """Every implementation's gradient equals the hand-written one (for each input, if alternating)."""
    hand = impls[wl.HAND]
    for impl, fn in impls.items():
        pairs = zip(fn.both.values(), hand.both.values()) if hasattr(fn, "both") else [(fn, hand)]
        for f, h in pairs:
            if not _agree(f(), h()):
                raise SystemExit(f"{name}: {impl} disagrees with the hand-written gradient")


def steady(w, samples):
    impls = w.impls()
    check(w.name, impls)
    times = timing.compare(impls, samples=samples)
    firsts = {}
    for impl, (build, call) in w.first_calls().items():
        if impl in impls:
            firsts[impl] = first_call(build, call)
    return times, firsts


def first_call(build, call, repeats=3):
    """Median seconds from a fresh gradient to its first result (transform/compile + run)."""
    out = []
    for _ in range(repeats):
        transform.clear_caches()
        t0 = time.perf_counter()
        call(build())
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def sweep(w, repeats=3):
    """Total seconds to compute the gradient once for each loop length, from a fresh start."""
    x = w.args[0]
    lengths = list(wl.LENGTHS)
    runners = {wl.HAND: lambda: (lambda n: wl.varying_loop_by_hand(x, n)),
               wl.ADSRC: lambda: (lambda g: (lambda n: g(x, n)))(wl.adsrc.grad(wl.varying_loop))}
    if alt.autograd is not None:
        import autograd.numpy as anp
        runners[alt.AUTOGRAD] = lambda: (lambda g: (lambda n: g(x, n)))(
            alt.autograd.grad(alt.rebind(wl.varying_loop, anp)))
    if alt.jax is not None:
        jx = alt.jnp.asarray(x)
        jf = alt.rebind(wl.varying_loop, alt.jnp)
        runners[alt.JAX] = lambda: (lambda g: (lambda n: alt.jax.block_until_ready(g(jx, n))))(alt.jax.grad(jf))
        runners[alt.JAX_JIT] = lambda: (lambda g: (lambda n: alt.jax.block_until_ready(g(jx, n))))(
            alt.jax.jit(alt.jax.grad(jf), static_argnums=1))
    if alt.torch is not None:
        runners[alt.TORCH] = lambda: (lambda g: (lambda n: g(x, n)))(
            lambda xx, n: alt.torch_impl(wl.varying_loop_torch, (xx, n), 0)())
    for name, make in runners.items():
        run = make()
        for n in (1, 7, 50):
            if not _agree(run(n), wl.varying_loop_by_hand(x, n)):
                raise SystemExit(f"{w.name}: {name} disagrees with the hand-written gradient at n={n}")
    totals = {}
    for name, make in runners.items():
        results = []
        for _ in range(repeats):
            transform.clear_caches()
            t0 = time.perf_counter()
            run = make()
            for n in lengths:
                run(n)
            results.append(time.perf_counter() - t0)
        totals[name] = statistics.median(results)
    return totals


def specialization(samples):
    """Cost of a cache hit (over calling the generated function directly) and of a new specialization."""
    import adsrc
    x = np.random.default_rng(4).uniform(-1, 1, 10)
    rows = []
    cases = (("no static args", adsrc.grad(wl.sum_exp), (x,), {}),
             ("static k, by position", adsrc.grad(wl.scaled_sum, static_argnums=1), (x, 3), {}),
             ("static k, by keyword", adsrc.grad(wl.scaled_sum, static_argnames="k"), (x,), {"k": 3}))
    for label, g, args, kwargs in cases:
        g(*args, **kwargs)
        fn = next(iter(g._cache._data.values()))[0]    # the generated function (then its guards)
        t = timing.compare({"cached": lambda: g(*args, **kwargs), "direct": lambda: fn(*args, **kwargs)},
                           samples=samples)
        rows.append({"case": label, "hit_overhead": t["cached"] - t["direct"], "direct": t["direct"]})
    g = adsrc.grad(wl.poly, static_argnums=1, cache_size=None)
    times = []
    for n in range(20, 40):
        t0 = time.perf_counter()
        g(x, n)
        times.append(time.perf_counter() - t0)
    return {"cache_hits": rows, "new_specialization": statistics.median(times)}


def machine():
    info = {"python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine(),
            "cpus": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    from importlib import metadata
    for name, mod in (("autograd", alt.autograd), ("jax", alt.jax), ("torch", alt.torch)):
        try:
            info[name] = metadata.version(name) if mod is not None else "not installed"
        except metadata.PackageNotFoundError:
            info[name] = "installed"
    return info


def table_head(columns):
    """The head of the Markdown table of times and ratios (table_row gives its rows)."""
    head = "| workload | " + " | ".join(columns) + " | adsrc first call |"
    return head + "\n|" + " --- |" * (len(columns) + 2)


def table_row(r, columns):
    cells = []
    for c in columns:
        t = r["times"].get(c)
        if t is None:
            cells.append("-")
        elif c == wl.HAND:
            cells.append(timing.fmt_time(t))
        else:
            cells.append(f"{timing.fmt_time(t)} ({t / r['times'][wl.HAND]:.2f}x)")
    first = r.get("first_call", {}).get(wl.ADSRC)
    cells.append(timing.fmt_time(first) if first else "-")
    return f"| {r['workload']} | " + " | ".join(cells) + " |"


def plot(results, columns, path):
    plt = timing.pyplot()
    if plt is None:
        return
    names = [r["workload"] for r in results]
    others = [c for c in columns if c != wl.HAND]
    fig, ax = plt.subplots(figsize=(10, 0.5 * len(names) * len(others) / 3 + 2))
    height = 0.8 / len(others)
    for k, c in enumerate(others):
        ratios = [r["times"][c] / r["times"][wl.HAND] if c in r["times"] else 0 for r in results]
        ax.barh([i + k * height for i in range(len(names))], ratios, height=height, label=c)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yticks([i + 0.4 - height / 2 for i in range(len(names))])
    ax.set_yticklabels(names, fontsize=8)
    ax.set_xlabel("time / hand-written NumPy gradient (log scale)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", help="run only workloads whose name contains this text")
    p.add_argument("--samples", type=int, default=11)
    p.add_argument("--json", help="write results as JSON to this file")
    p.add_argument("--plot", help="write a bar chart of the ratios to this PNG file (needs matplotlib)")
    p.add_argument("--quick", action="store_true", help="transformation times of small functions only")
    args = p.parse_args(argv)
    started = time.perf_counter()
    print(f"# {machine()}", flush=True)
    selected = [w for w in wl.all_workloads() if not args.only or args.only in w.name]
    installed = alt.installed()
    columns = [c for c in ORDER if installed.get(c, True)]     # numpy and adsrc, and the peers installed
    print("\n" + table_head(columns), flush=True)               # one table, a row as each workload finishes
    results = []
    for w in selected:
        times, firsts = steady(w, args.samples)
        results.append({"workload": w.name, "times": times, "first_call": firsts})
        print(table_row(results[-1], columns), flush=True)
    sw = wl.sweep_workload()
    if not args.only or args.only in sw.name:
        totals = sweep(sw)
        results.append({"workload": sw.name, "times": totals, "first_call": {}})
        print(table_row(results[-1], columns), flush=True)
    spec = None
    if not args.only:
        spec = specialization(args.samples)
        print()
        for row in spec["cache_hits"]:
            print(f"cache hit ({row['case']}): {row['hit_overhead'] * 1e6:.2f} us over calling the generated "
                  f"function directly")
        print(f"new specialization (transform + compile + first run): {timing.fmt_time(spec['new_specialization'])}")
        spec["call_overhead"] = call_overhead.measure(max(args.samples, 21))
        print("\n" + call_overhead.report(spec["call_overhead"]))
    transformation = None
    if not args.only or args.only in TRANSFORM_TIME:
        print(f"\n{TRANSFORM_TIME} (transform_time.py: fresh start to generated source, medians)\n", flush=True)
        transformation = transform_time.report(quick=args.quick)
    second = None
    if not args.only or args.only in HIGHER_ORDER:
        print(f"\n{HIGHER_ORDER} (higher_order.py: jvp, Hessian-vector products, Hessians)\n", flush=True)
        second = higher_order.run(args.samples)
    print(f"\nfinished in {time.perf_counter() - started:.0f} s")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": machine(), "results": results, "specialization": spec,
                       "transformation": transformation, "higher_order": second}, fh, indent=2)
    if args.plot:
        plot(results, columns, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
