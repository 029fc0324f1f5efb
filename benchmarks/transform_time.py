"""Transformation time: how long adsrc takes to produce a gradient as the function grows.

    python benchmarks/transform_time.py              # nested loops of depth 4..16, 100..5,000 statements
    python benchmarks/transform_time.py --quick      # small sizes only (what the tests run)
    python benchmarks/transform_time.py --json transform.json

Three families of generated functions:

* nested loops with branches: `for i in range(k):` nested `depth` deep, each
  level with an `if` on a run-time value, the loop-carried array changed in it;
* straight-line code: `n` assignments, each using one to three earlier values;
* the README's first example (the logistic loss), whose first gradient is
  what a new user waits for.

Each time is the median, over fresh starts (every cache cleared), of the
seconds from `adsrc.grad(f)` to its generated, compiled source (transform
plus compile; the gradient is not run), and for the README example to its
first gradient (transform, compile and run). A size whose first sample exceeds
`--budget` seconds is measured once and the larger sizes of its family are
skipped.
"""

import argparse
import json
import linecache
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # this checkout's adsrc

import adsrc  # noqa: E402
from adsrc import transform  # noqa: E402

DEPTHS = (4, 6, 8, 10, 12, 14, 16)
STATEMENTS = (100, 1000, 5000)
QUICK_DEPTHS = (4, 6)
QUICK_STATEMENTS = (20, 100)


def nested_source(depth):
    """`depth` nested loops, each level branching on the loop-carried value."""
    lines = ["def nested(x, k):", "    s = x * 1.0"]
    pad = "    "
    for i in range(depth):
        lines.append(f"{pad}for i{i} in range(k):")
        pad += "    "
        lines.append(f"{pad}if np.sum(s) > {i * 0.1:.1f}:")
        lines.append(f"{pad}    s = np.sin(s) * 0.9")
    lines.append("    return np.sum(s)")
    return "\n".join(lines) + "\n"


def straight_source(n):
    """n assignments; each reads the previous value and, every other one, an older value too."""
    lines = ["def straight(x):", "    v0 = x * 1.0"]
    for i in range(1, n):
        kind = i % 3
        if kind == 0:
            lines.append(f"    v{i} = np.tanh(v{i - 1} * 0.9 + {i % 7} * 0.01)")
        elif kind == 1:
            lines.append(f"    v{i} = v{i - 1} * v{i // 2} * 0.5")
        else:
            lines.append(f"    v{i} = np.sin(v{i - 1}) + 0.1 * v{max(i - 2, 0)}")
    lines.append(f"    return np.sum(v{n - 1})")
    return "\n".join(lines) + "\n"


README_SOURCE = '''def loss(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-y * z))) + 0.01 * np.sum(w * w)
'''


def make_function(source, name):
    """The function `name` defined by source (registered with linecache so adsrc can read it back)."""
    filename = f"<transform_time {name} {len(source)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def transform_seconds(fun, args, repeats, budget=None, run=False):
    """Median seconds from a fresh start to the generated gradient of fun (and how many samples).

    run: to the gradient's first result, not only its source.
    """
    out = []
    for _ in range(repeats):
        transform.clear_caches()
        t0 = time.perf_counter()
        g = adsrc.grad(fun)
        g(*args) if run else g.source(*args)
        out.append(time.perf_counter() - t0)
        if budget is not None and out[-1] > budget:
            break
    return statistics.median(out), len(out)


def _family(label, sizes, source_of, name, args, statements_of, repeats, budget, run=False):
    rows = []
    for size in sizes:
        fun = make_function(source_of(size), name)
        seconds, samples = transform_seconds(fun, args, repeats, budget, run)
        count = statements_of(size)
        rows.append({"family": label, "size": size, "statements": count, "seconds": seconds,
                     "per_statement": seconds / count, "samples": samples})
        yield rows[-1]
        if budget is not None and seconds > budget:
            for rest in sizes[sizes.index(size) + 1:]:
                yield {"family": label, "size": rest, "statements": statements_of(rest), "seconds": None,
                       "per_statement": None, "samples": 0}
            return


def measure(quick=False, repeats=3, budget=60.0):
    """Rows of {family, size, statements, seconds, per_statement, samples}, one as each finishes."""
    depths = QUICK_DEPTHS if quick else DEPTHS
    sizes = QUICK_STATEMENTS if quick else STATEMENTS
    x = np.linspace(-1.0, 1.0, 3)
    yield from _family("nested loops with branches (depth)", depths, nested_source, "nested", (x, 2),
                       lambda d: 3 * d + 2, repeats, budget)
    yield from _family("straight-line code (statements)", sizes, straight_source, "straight", (x,),
                       lambda n: n + 1, repeats, budget)
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(100, 3)), rng.choice([-1.0, 1.0], size=100)
    yield from _family("README logistic loss, first gradient", (1,), lambda _: README_SOURCE, "loss",
                       (np.zeros(3), X, y), lambda _: 2, max(repeats, 5), budget, run=True)


def fmt(seconds):
    if seconds is None:
        return "skipped"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def table_head():
    return "| family | size | statements | transform time | per statement |\n| --- | --- | --- | --- | --- |"


def table_row(r):
    return (f"| {r['family']} | {r['size']} | {r['statements']} | {fmt(r['seconds'])} | "
            f"{fmt(r['per_statement'])} |")


def report(quick=False, repeats=3, budget=60.0, out=sys.stdout):
    """Print the table row by row; return the rows."""
    print(table_head(), file=out, flush=True)
    rows = []
    for r in measure(quick, repeats, budget):
        rows.append(r)
        print(table_row(r), file=out, flush=True)
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small sizes only")
    p.add_argument("--repeats", type=int, default=3, help="fresh starts per size (median)")
    p.add_argument("--budget", type=float, default=60.0,
                   help="seconds above which larger sizes of a family are skipped")
    p.add_argument("--json", help="write the rows as JSON to this file")
    args = p.parse_args(argv)
    rows = report(args.quick, args.repeats, args.budget)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
