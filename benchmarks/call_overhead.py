"""What a call of a cached gradient costs beyond the gradient's own arithmetic.

    python benchmarks/call_overhead.py [--samples 31]

For small inputs (a float, ten numbers) the work is a few NumPy operations,
so what adsrc adds around them shows. Side by side, in this one process,
as medians of interleaved samples:

  hand      the hand-written gradient
  direct    the function adsrc generated, called directly (its own cost,
            including the conversion of the gradient it returns)
  adsrc     the gradient callable: specialization key, cache lookup, the
            guards that the names it resolved are unchanged, then `direct`
  dispatch  an object whose __call__ passes the call on to `direct`: the
            part of adsrc's wrapper that any Python wrapper costs

The wrapper's cost is adsrc - direct; the lookup and guards alone are
adsrc - dispatch.
"""

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]      # this checkout's adsrc, not another one installed

import timing  # noqa: E402

import adsrc  # noqa: E402


def square(x):
    return x * x


def square_by_hand(x):
    return 2.0 * x


def sum_exp(x):
    return np.sum(np.exp(x))


def sum_exp_by_hand(x):
    return np.exp(x)


def product(x, y):
    return x * y


def product_by_hand(x, y):
    return y, x


class Dispatch:
    """The least a Python wrapper with adsrc's call signature costs: it passes the call on."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, /, *args, **kwargs):
        return self.fn(*args, **kwargs) if kwargs else self.fn(*args)


def cases():
    """(label, function, hand-written gradient, arguments, argnums)."""
    x10 = np.random.default_rng(3).uniform(-1, 1, 10)
    return [("x * x, a float", square, square_by_hand, (3.0,), 0),
            ("sum(exp(x)), n=10", sum_exp, sum_exp_by_hand, (x10,), 0),
            ("x * y, two floats, argnums=(0, 1)", product, product_by_hand, (3.0, 4.0), (0, 1))]


def measure(samples=31):
    """One row per case: median seconds per call of hand, direct, adsrc and dispatch."""
    rows = []
    for label, fun, hand, args, argnums in cases():
        g = adsrc.grad(fun, argnums=argnums)
        if not np.allclose(np.asarray(g(*args), float), np.asarray(hand(*args), float)):
            raise SystemExit(f"{label}: adsrc disagrees with the hand-written gradient")
        fn = next(iter(g._cache._data.values()))[0]   # the generated function of this specialization
        wrapped = Dispatch(fn)
        t = timing.compare({"hand": lambda: hand(*args), "direct": lambda: fn(*args),
                            "adsrc": lambda: g(*args), "dispatch": lambda: wrapped(*args)}, samples=samples)
        rows.append({"case": label, **t, "result_type": type(g(*args)).__name__})
    return rows


def report(rows):
    """The rows as a Markdown table, in microseconds."""
    us = 1e6
    lines = ["| case | hand | adsrc (ratio) | direct | wrapper: adsrc - direct | lookup + guards: "
             "adsrc - dispatch | result |",
             "|" + " --- |" * 7]
    for r in rows:
        lines.append(f"| {r['case']} | {r['hand'] * us:.2f} us | {r['adsrc'] * us:.2f} us "
                     f"({r['adsrc'] / r['hand']:.1f}x) | {r['direct'] * us:.2f} us | "
                     f"{(r['adsrc'] - r['direct']) * us:.2f} us | {(r['adsrc'] - r['dispatch']) * us:.2f} us | "
                     f"{r['result_type']} |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--samples", type=int, default=31)
    args = p.parse_args(argv)
    print(report(measure(args.samples)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
