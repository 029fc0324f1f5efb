"""Side-by-side timing: medians of interleaved samples, in one process."""

import statistics
import time


def _calls_per_sample(fn, target=0.002):
    """How many calls make one sample last about `target` seconds."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= target or n >= 1 << 20:
            return max(1, int(n * target / max(dt, 1e-9)))
        n *= 4


def compare(fns, samples=15, target=0.002):
    """Median seconds per call for each of fns (a dict name -> zero-argument callable).

    Samples of all functions are interleaved so that slow drifts of the
    machine affect them alike.
    """
    for fn in fns.values():
        fn()                                    # warm up (and trigger compilation)
    counts = {name: _calls_per_sample(fn, target) for name, fn in fns.items()}
    times = {name: [] for name in fns}
    for _ in range(samples):
        for name, fn in fns.items():
            n = counts[name]
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            times[name].append((time.perf_counter() - t0) / n)
    return {name: statistics.median(ts) for name, ts in times.items()}


def first_call(make, args, repeats=5):
    """Median seconds from building a fresh gradient to its first result (transform + compile + run)."""
    from adsrc import transform
    out = []
    for _ in range(repeats):
        transform.clear_caches()
        t0 = time.perf_counter()
        make()(*args)
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def fmt_time(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def pyplot():
    """matplotlib.pyplot drawing to files, or None (with a note) when matplotlib is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        import sys
        print('matplotlib is not installed: no plot (pip install "adsrc[plots]")', file=sys.stderr)
        return None
    return plt
