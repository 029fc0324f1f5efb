"""Memory of a gradient: bytes kept per loop step, and the peak of a straight-line gradient.

    python benchmarks/memory.py [--steps 50000] [--json memory.json]

Measured with tracemalloc (NumPy reports its buffers to it), side by side with
a hand-written gradient of the same function, in this one process:

* per step: (peak at 2T steps - peak at T steps) / T, the memory a loop keeps
  for its backward pass per iteration (the tape);
* peak: the highest memory during one gradient call above what was allocated
  before it (the inputs are not counted).

Workloads: the RNN of workloads.py (H=16, D=8), a scalar while loop, and the
two-layer MLP of workloads.py at batch 4096.
"""

import argparse
import gc
import json
import os
import sys
import tracemalloc

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]      # this checkout's adsrc, not another one installed

import workloads  # noqa: E402

import adsrc  # noqa: E402


def scalar_while(x, n):
    s = x
    i = 0
    while i < n:
        s = np.sin(s) * x
        i = i + 1
    return s


def scalar_while_by_hand(x, n):
    ss = []
    s = x
    i = 0
    while i < n:                      # forward: keep each step's input
        ss.append(s)
        s = np.sin(s) * x
        i = i + 1
    dx, ds = 0.0, 1.0
    for s in reversed(ss):            # backward
        sin = np.sin(s)
        dx += ds * sin
        ds = ds * x * np.cos(s)
    return dx + ds


def peak_bytes(fn):
    """Peak bytes allocated during fn() above what was allocated when it started."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - base


def per_step(make_call, steps):
    """Bytes per loop step: the growth of the peak from `steps` to 2 * `steps` steps."""
    small, large = peak_bytes(make_call(steps)), peak_bytes(make_call(2 * steps))
    return (large - small) / steps


def rnn_calls(steps):
    grad = adsrc.grad(workloads.rnn_loss, argnums=(0, 1, 2))

    def make(which):
        def call(t):
            args = workloads.rnn_inputs(hidden=16, inputs=8, steps=t)
            fn = grad if which == "adsrc" else workloads.rnn_by_hand
            return lambda: fn(*args)
        return call
    grad(*workloads.rnn_inputs(hidden=16, inputs=8, steps=3))
    return {"adsrc": per_step(make("adsrc"), steps), "hand": per_step(make("hand"), steps)}


def while_calls(steps):
    grad = adsrc.grad(scalar_while)
    grad(0.5, 3)

    def make(fn):
        return lambda t: (lambda: fn(0.5, t))
    return {"adsrc": per_step(make(grad), steps), "hand": per_step(make(scalar_while_by_hand), steps)}


def mlp_peaks(batch=4096):
    params, X, labels = workloads.mlp_inputs(batch=batch)
    grad = adsrc.grad(workloads.mlp_loss)
    grad(params, X, labels)
    return {"adsrc": peak_bytes(lambda: grad(params, X, labels)),
            "hand": peak_bytes(lambda: workloads.mlp_by_hand(params, X, labels))}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=50000)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    results = {
        "rnn H=16 D=8, bytes per step": rnn_calls(args.steps),
        "scalar while loop, bytes per step": while_calls(args.steps),
        "mlp batch 4096, peak bytes": mlp_peaks(),
    }
    print(f"{'measure':36} {'adsrc':>12} {'by hand':>12} {'ratio':>7}")
    for name, r in results.items():
        print(f"{name:36} {r['adsrc']:12,.0f} {r['hand']:12,.0f} {r['adsrc'] / r['hand']:7.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
