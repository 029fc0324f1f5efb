"""Logistic regression over a Dask array larger than the memory it may use, with adsrc's gradient.

The data (rows x 100 float32, generated chunk by chunk with dask.array.random,
never held whole) live on a dask.distributed LocalCluster whose workers may
each use --memory-per-worker. adsrc differentiates the ordinary NumPy loss
below; given Dask arrays, the gradient it returns is a Dask array, built
lazily: each step computes the loss and the gradient in one pass over the
chunks. The script reports the peak memory (resident set size) of the client,
the scheduler and the workers together, against the data size.

    python examples/dask_logistic.py                       # 200,000 rows: a few seconds
    python examples/dask_logistic.py --rows 10000000       # 10^7 x 100 float32: 4 GB of data
"""

import argparse
import threading
import time

import numpy as np

import adsrc


def loss(w, X, y):
    z = X @ w
    return np.mean(np.logaddexp(0.0, -y * z)) + 1e-4 * np.sum(w * w)


def make_data(rows, cols, chunk_rows, seed=0):
    import dask.array as da
    rs = da.random.RandomState(seed)
    X = rs.standard_normal((rows, cols), chunks=(chunk_rows, cols)).astype(np.float32)
    w_true = np.linspace(-1.0, 1.0, cols).astype(np.float32)
    noise = rs.standard_normal(rows, chunks=chunk_rows).astype(np.float32)
    y = np.sign(X @ w_true + noise)        # labels, also lazy
    return X, y, w_true


class PeakMemory:
    """Samples the resident memory of this process and its children (the cluster's workers)."""

    def __init__(self, interval=0.05):
        import psutil
        self.me = psutil.Process()
        self.interval, self.peak, self._stop = interval, 0, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _total(self):
        total = 0
        for p in [self.me] + self.me.children(recursive=True):
            try:
                total += p.memory_info().rss
            except Exception:
                pass
        return total

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self._total())
            self._stop.wait(self.interval)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self.thread.join()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--cols", type=int, default=100)
    parser.add_argument("--chunk-rows", type=int, default=None, help="rows per chunk (default: 100 MB chunks)")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-per-worker", default="1GiB")
    args = parser.parse_args()
    try:
        import dask
        from dask.distributed import Client, LocalCluster
    except ImportError:
        print("this example needs Dask: pip install adsrc[dask]")
        return
    chunk_rows = args.chunk_rows or max(1, min(args.rows, 250_000 * 100 // args.cols))
    data_bytes = args.rows * args.cols * 4
    X, y, w_true = make_data(args.rows, args.cols, chunk_rows)
    value_and_grad = adsrc.value_and_grad(loss)
    w = np.zeros(args.cols, dtype=np.float32)
    lr = 2.0
    start = time.perf_counter()
    with PeakMemory() as mem:
        with LocalCluster(n_workers=args.workers, threads_per_worker=1, memory_limit=args.memory_per_worker,
                          processes=True, dashboard_address=None) as cluster, Client(cluster):
            for step in range(args.steps):
                value, dw = value_and_grad(w, X, y)        # Dask arrays: nothing computed yet
                assert isinstance(dw, dask.array.Array)
                value, dw = dask.compute(value, dw)        # one pass over the chunks
                w = w - lr * dw
                print(f"step {step}: loss {float(value):.5f}  |grad| {np.linalg.norm(dw):.5f}")
    elapsed = time.perf_counter() - start
    cosine = float(w @ w_true / (np.linalg.norm(w) * np.linalg.norm(w_true)))
    print(f"data: {args.rows:,} x {args.cols} float32 = {data_bytes / 2**30:.2f} GiB in chunks of "
          f"{chunk_rows:,} rows; {args.workers} workers limited to {args.memory_per_worker} each")
    print(f"{args.steps} gradient steps in {elapsed:.1f} s (cluster start included); peak resident memory of "
          f"client, scheduler and workers: {mem.peak / 2**30:.2f} GiB "
          f"({mem.peak / data_bytes:.0%} of the data)")
    print(f"cosine(w, w_true) = {cosine:.3f}")


if __name__ == "__main__":
    main()
