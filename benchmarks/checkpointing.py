"""Memory and time of checkpointed loops: the RNN of workloads.py (rnn_loss, H=16, 8 inputs) at long T.

    python benchmarks/checkpointing.py                   # T = 10^5 and 10^6
    python benchmarks/checkpointing.py --steps 1000 --samples 3

For each T, the gradient with respect to (Wx, Wh, Wy) with and without `checkpoint_loops="sqrt"`:

* extra peak: the most memory the gradient call holds at once beyond what existed before it
  (tracemalloc, which sees NumPy's buffers too). The inputs are not counted: xs alone is
  T * 8 * 8 bytes (64 MB at T = 10^6), allocated before the call;
* time: the median of a few calls (without tracemalloc), and its ratio to the plain gradient.
  The plain gradient at T = 10^6 needs about 1.4 GB; skip it with --no-plain-above.
"""

import argparse
import gc
import os
import statistics
import sys
import time
import tracemalloc

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]      # this checkout's adsrc

import adsrc  # noqa: E402
from workloads import rnn_inputs, rnn_loss  # noqa: E402


def extra_peak(fn):
    """(result, bytes): the peak memory fn() allocates beyond what was allocated before it."""
    gc.collect()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        out = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return out, peak - before


def median_time(fn, samples):
    times = []
    for _ in range(samples):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(steps, samples, plain=True):
    args = rnn_inputs(hidden=16, inputs=8, steps=steps)
    rows = {}
    grads = {}
    for name, policy in (("plain tape", None), ('checkpoint_loops="sqrt"', "sqrt")):
        if policy is None and not plain:
            continue
        g = adsrc.grad(rnn_loss, argnums=(0, 1, 2), checkpoint_loops=policy)
        g(*rnn_inputs(hidden=16, inputs=8, steps=3))          # transform once, outside the measurements
        grads[name], peak = extra_peak(lambda: g(*args))
        rows[name] = (peak, median_time(lambda: g(*args), samples))
    if len(grads) == 2:
        a, b = grads.values()
        assert all(np.allclose(x, y, rtol=1e-9, atol=1e-12) for x, y in zip(a, b)), "gradients differ"
    return rows, args[3].nbytes


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, nargs="*", default=[10 ** 5, 10 ** 6])
    p.add_argument("--samples", type=int, default=3)
    p.add_argument("--no-plain-above", type=int, default=None, help="skip the plain gradient above this T")
    opts = p.parse_args(argv)
    print("| T | gradient | extra peak | per step | time (median) | time / plain |")
    print("|---|---|---|---|---|---|")
    for steps in opts.steps:
        plain = opts.no_plain_above is None or steps <= opts.no_plain_above
        rows, xs_bytes = measure(steps, opts.samples, plain)
        base = rows.get("plain tape", (None, None))[1]
        for name, (peak, t) in rows.items():
            ratio = f"{t / base:.2f}" if base else "-"
            print(f"| {steps:,} | {name} | {peak / 1e6:.1f} MB | {peak / max(steps, 1):,.0f} B | {t:.2f} s | {ratio} |")
        print(f"| {steps:,} | (inputs: xs) | {xs_bytes / 1e6:.1f} MB | | | |")


if __name__ == "__main__":
    main()
