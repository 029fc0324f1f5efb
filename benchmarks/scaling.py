"""How adsrc scales: gradient time and memory against loop length T, transformation time against nesting depth.

    python benchmarks/scaling.py                       # tables
    python benchmarks/scaling.py --plot scaling.png    # and a figure (needs matplotlib: pip install "adsrc[plots]")

* RNN of workloads.py (H=16, D=8) for T = 10^2 .. 10^5 steps: the median time
  of a gradient call and its peak memory above the inputs (tracemalloc), adsrc
  beside the hand-written gradient, in this one process;
* transformation time of transform_time.py's nested loops with branches, by
  nesting depth (a fresh start each time; the gradient's source, compiled).
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]      # this checkout's adsrc, not another one installed

import memory  # noqa: E402
import timing  # noqa: E402
import transform_time  # noqa: E402
import workloads  # noqa: E402

import adsrc  # noqa: E402

LENGTHS = (100, 1000, 10000, 100000)
DEPTHS = (2, 4, 6, 8, 10, 12, 14, 16)


def over_length(lengths, samples):
    grad = adsrc.grad(workloads.rnn_loss, argnums=(0, 1, 2))
    rows = []
    for T in lengths:
        args = workloads.rnn_inputs(hidden=16, inputs=8, steps=T)
        fns = {"adsrc": lambda: grad(*args), "hand": lambda: workloads.rnn_by_hand(*args)}
        times = timing.compare(fns, samples=samples, target=0.01)
        row = {"T": T}
        for name, fn in fns.items():
            row[name + " seconds"] = times[name]
            row[name + " peak bytes"] = memory.peak_bytes(fn)
        rows.append(row)
        print(f"T={T:>7}: adsrc {times['adsrc'] * 1e3:9.2f} ms {row['adsrc peak bytes'] / 2**20:8.2f} MiB   "
              f"hand {times['hand'] * 1e3:9.2f} ms {row['hand peak bytes'] / 2**20:8.2f} MiB", flush=True)
    return rows


def over_depth(depths, repeats):
    rows = []
    x = transform_time.np.linspace(-1.0, 1.0, 3)
    for d in depths:
        fun = transform_time.make_function(transform_time.nested_source(d), "nested")
        seconds, _ = transform_time.transform_seconds(fun, (x, 2), repeats)
        rows.append({"depth": d, "seconds": seconds})
        print(f"depth {d:>2}: {seconds:.3f} s", flush=True)
    return rows


def plot(lengths, depths, path):
    plt = timing.pyplot()
    if plt is None:
        return
    fig, (ax_t, ax_m, ax_d) = plt.subplots(1, 3, figsize=(15, 4.2))
    T = [r["T"] for r in lengths]
    for name, style in (("adsrc", "o-"), ("hand", "s--")):
        ax_t.loglog(T, [r[name + " seconds"] for r in lengths], style, label=name)
        ax_m.loglog(T, [r[name + " peak bytes"] / 2**20 for r in lengths], style, label=name)
    ax_t.set(xlabel="loop length T", ylabel="seconds per gradient", title="RNN (H=16): time")
    ax_m.set(xlabel="loop length T", ylabel="peak MiB above inputs", title="RNN (H=16): memory")
    ax_d.semilogy([r["depth"] for r in depths], [r["seconds"] for r in depths], "o-")
    ax_d.set(xlabel="nesting depth", ylabel="seconds", title="transformation: nested loops with branches")
    for ax in (ax_t, ax_m):
        ax.legend()
    for ax in (ax_t, ax_m, ax_d):
        ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plot", help="write the figure to this PNG file")
    ap.add_argument("--json")
    ap.add_argument("--samples", type=int, default=7)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="short loops and shallow nesting only")
    args = ap.parse_args(argv)
    lengths = over_length(LENGTHS[:2] if args.quick else LENGTHS, args.samples)
    depths = over_depth(DEPTHS[:3] if args.quick else DEPTHS, args.repeats)
    if args.plot:
        plot(lengths, depths, args.plot)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"lengths": lengths, "depths": depths}, f, indent=2)


if __name__ == "__main__":
    main()
