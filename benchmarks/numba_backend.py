"""backend="numba" side by side with the NumPy backend, hand-written NumPy and jax.jit (when installed).

    python benchmarks/numba_backend.py [--samples 15]

Warm times are medians of interleaved samples in this one process; every implementation's gradient is
checked against the hand-written one first. Compile times are the first call of a fresh gradient
(adsrc: transform, numba compile and run; jax.jit: trace, XLA compile and run), each adsrc one in a
process of its own (numba keeps what it compiled for the process): "new machine" compiles adsrc's
helpers too (ADSRC_HELPER_CACHE=0); "helpers cached" is a later process, which loads the helpers numba
compiled in an earlier one (adsrc caches them on disk, once per machine) and compiles the gradient's
own kernel; "kernel from disk" loads the kernel too (ADSRC_CACHE_DIR set, a new directory). The sweep calls a loop
of lengths 1..50 once each, compile included: numba compiles once for every length, jax.jit once per
length (JAX needs a static trip count to differentiate a loop in reverse mode); adsrc's is timed with
nothing cached and with its kernel on disk.
"""

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]      # this checkout's adsrc, not another one installed

import alternatives as alt  # noqa: E402
import timing  # noqa: E402
import workloads as wl  # noqa: E402

import adsrc  # noqa: E402

HAND, NUMPY, NUMBA = "numpy (by hand)", "adsrc numpy", "adsrc numba"
NUMBA_DISK = "adsrc numba, kernels on disk"


# -- workloads beyond workloads.py ---------------------------------------------------------------

def while_loop(x, n):
    s = x
    i = 0
    while i < n:
        s = s + 0.001 * np.sin(s)
        i += 1
    return s


def while_loop_by_hand(x, n):
    ss = [x]
    for _ in range(n):
        ss.append(ss[-1] + 0.001 * np.sin(ss[-1]))
    ds = 1.0
    for i in range(n - 1, -1, -1):
        ds = ds * (1.0 + 0.001 * np.cos(ss[i]))
    return ds


def scalar_loop_by_hand(x):
    return wl.scalar_loop_by_hand(x)


def _jax_while(n):
    jax, jnp = alt.jax, alt.jnp
    return jax.jit(jax.grad(lambda x: jax.lax.fori_loop(0, n, lambda i, s: s + 0.001 * jnp.sin(s), x)))


def _jax_rnn():
    jax, jnp = alt.jax, alt.jnp

    def loss(Wx, Wh, Wy, xs, target):
        def step(h, x):
            return jnp.tanh(Wx @ x + Wh @ h), None
        h, _ = jax.lax.scan(step, jnp.zeros(Wh.shape[0]), xs)
        return jnp.sum((Wy @ h - target) ** 2)
    return jax.jit(jax.grad(loss, (0, 1, 2)))


def _jax_scalar_loop():
    jax, jnp = alt.jax, alt.jnp
    return jax.jit(jax.grad(alt.rebind(wl.scalar_loop, jnp)))


def cases(jax=True):
    """(label, fn, args, argnums, hand, jax gradient or None): warm timings and compile times."""
    rnn16 = wl.rnn_inputs(hidden=16, inputs=8, steps=10_000)
    rnn64 = wl.rnn_inputs(hidden=64, inputs=32, steps=100)
    jax_on = jax and alt.jax is not None
    return [
        ("scalar loop, 100 sin steps", wl.scalar_loop, (0.3,), 0, scalar_loop_by_hand,
         _jax_scalar_loop() if jax_on else None, (0.3,)),
        ("while loop, T=10^5", while_loop, (0.5, 100_000), 0, while_loop_by_hand,
         _jax_while(100_000) if jax_on else None, (0.5,)),
        ("RNN H16 D8, T=10^4", wl.rnn_loss, rnn16, (0, 1, 2), wl.rnn_by_hand,
         _jax_rnn() if jax_on else None, rnn16),
        ("RNN H64 D32, T=100", wl.rnn_loss, rnn64, (0, 1, 2), wl.rnn_by_hand,
         _jax_rnn() if jax_on else None, rnn64),
    ]


def _close(a, b):
    a, b = (a, b) if isinstance(a, tuple) else ((a,), (b,))
    return all(np.allclose(np.asarray(x), np.asarray(y), rtol=1e-6, atol=1e-9) for x, y in zip(a, b))


_FIRST_CALL = """
import sys, time
sys.path[:0] = {paths!r}
import numba_backend as b
case = b.cases(jax=False)[{index}]
import adsrc
g = adsrc.grad(case[1], argnums=case[3], backend="numba")
t0 = time.perf_counter()
g(*case[2])
print(time.perf_counter() - t0)
"""


def first_call(index, **env):
    """Seconds of the first call of case `index`'s numba gradient, in a new process with these environment
    variables (None: unset)."""
    environment = {k: v for k, v in os.environ.items() if k not in env}
    environment.update({k: v for k, v in env.items() if v is not None})
    code = _FIRST_CALL.format(paths=[HERE, os.path.dirname(HERE)], index=index)
    out = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def compile_times(index, helpers):
    """(new machine, helpers cached, kernel from disk) seconds for case index, each in a new process."""
    new = first_call(index, ADSRC_HELPER_CACHE="0", ADSRC_CACHE_DIR=None)
    first_call(index, ADSRC_HELPER_CACHE=helpers, ADSRC_CACHE_DIR=None)          # compiles the helpers once
    cached = first_call(index, ADSRC_HELPER_CACHE=helpers, ADSRC_CACHE_DIR=None)
    with tempfile.TemporaryDirectory() as kernels:
        first_call(index, ADSRC_HELPER_CACHE=helpers, ADSRC_CACHE_DIR=kernels)     # writes the kernel
        disk = first_call(index, ADSRC_HELPER_CACHE=helpers, ADSRC_CACHE_DIR=kernels)
    return new, cached, disk


def warm(samples, helpers):
    rows = []
    for index, (label, fn, args, argnums, hand, jfn, jargs) in enumerate(cases()):
        g_np = adsrc.grad(fn, argnums=argnums)
        compiled = compile_times(index, helpers)
        g_nb = adsrc.grad(fn, argnums=argnums, backend="numba")
        g_nb(*args)
        fns = {HAND: lambda: hand(*args), NUMPY: lambda: g_np(*args), NUMBA: lambda: g_nb(*args)}
        jax_first = None
        if jfn is not None:
            jx = alt.to_jax(jargs)
            t0 = time.perf_counter()
            alt.jax.block_until_ready(jfn(*jx))
            jax_first = time.perf_counter() - t0
            fns[alt.JAX_JIT] = lambda: alt.jax.block_until_ready(jfn(*jx))
        reference = hand(*args)
        for name, f in fns.items():
            out = f()
            out = tuple(np.asarray(o) for o in out) if isinstance(out, (tuple, list)) else np.asarray(out)
            if not _close(out, reference):
                raise AssertionError(f"{label}: {name} disagrees with the hand-written gradient")
        times = timing.compare(fns, samples=samples)
        rows.append((label, times, compiled, jax_first))
    return rows


@contextlib.contextmanager
def disk_cache(directory):
    """ADSRC_CACHE_DIR set to directory (None: unset) inside the block."""
    before = os.environ.pop("ADSRC_CACHE_DIR", None)
    if directory is not None:
        os.environ["ADSRC_CACHE_DIR"] = directory
    try:
        yield
    finally:
        os.environ.pop("ADSRC_CACHE_DIR", None)
        if before is not None:
            os.environ["ADSRC_CACHE_DIR"] = before


def _numba_sweep(x):
    t0 = time.perf_counter()
    g = adsrc.grad(wl.varying_loop, backend="numba")
    for n in wl.LENGTHS:
        g(x, n)
    return time.perf_counter() - t0


def sweep():
    """Total seconds for lengths 1..50, one call each, compile included."""
    x = np.random.default_rng(5).uniform(-1, 1, 100)
    with disk_cache(None):
        out = {NUMBA: _numba_sweep(x)}
    _numba_sweep(x)                     # compiled again, and cached on disk
    out[NUMBA_DISK] = _numba_sweep(x)
    t0 = time.perf_counter()
    g = adsrc.grad(wl.varying_loop)
    for n in wl.LENGTHS:
        g(x, n)
    out[NUMPY] = time.perf_counter() - t0
    if alt.jax is not None:
        jx = alt.jnp.asarray(x)
        f = alt.rebind(wl.varying_loop, alt.jnp)
        t0 = time.perf_counter()
        jg = alt.jax.jit(alt.jax.grad(f), static_argnums=(1,))
        for n in wl.LENGTHS:
            alt.jax.block_until_ready(jg(jx, n))
        out[alt.JAX_JIT] = time.perf_counter() - t0
    return out


def table(rows, totals):
    names = [HAND, NUMPY, NUMBA] + ([alt.JAX_JIT] if alt.jax is not None else [])
    lines = ["| workload | " + " | ".join(names) + " | numba / jax.jit | numba compile, new machine "
             "| numba compile, helpers cached | numba, kernel from disk | jax.jit compile |",
             "| --- " * (len(names) + 6) + "|"]
    for label, times, compiled, jax_first in rows:
        cells = [timing.fmt_time(times[n]) for n in names]
        ratio = f"{times[NUMBA] / times[alt.JAX_JIT]:.2f}x" if alt.JAX_JIT in times else "-"
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {ratio} | " +
                     " | ".join(timing.fmt_time(t) for t in compiled) +
                     f" | {timing.fmt_time(jax_first) if jax_first is not None else '-'} |")
    for numba_total, what in ((totals[NUMBA], "nothing cached"), (totals[NUMBA_DISK], "kernel on disk")):
        cells = [timing.fmt_time(numba_total) if n == NUMBA else timing.fmt_time(totals[n]) if n in totals
                 else "-" for n in names]
        ratio = f"{numba_total / totals[alt.JAX_JIT]:.4f}x" if alt.JAX_JIT in totals else "-"
        lines.append(f"| loop length 1..50, one call each, compile included ({what}) | " + " | ".join(cells) +
                     f" | {ratio} | - | - | - | - |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--samples", type=int, default=15)
    opts = p.parse_args()
    import numba
    print(f"numba {numba.__version__}, NumPy {np.__version__}" +
          (f", JAX {alt.jax.__version__}" if alt.jax is not None else ", JAX not installed"))
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as helpers, disk_cache(cache):
        print(table(warm(opts.samples, helpers), sweep()))


if __name__ == "__main__":
    main()
