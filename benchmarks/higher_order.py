"""Forward mode and second derivatives: jvp, Hessian-vector products and Hessians of the logistic loss.

    python benchmarks/higher_order.py [--samples 11] [--json FILE]

The README's logistic loss, X 1000x100 (run.py's workload). In this one
process, as medians of interleaved samples, each result first checked
against a hand-written NumPy version:

  jvp       adsrc.jvp against the loss itself (the primal; target <= 1.5x),
            beside a hand-written jvp, the generated forward code called
            directly (what adsrc.jvp costs beyond its own arithmetic), and
            autograd's make_jvp and jax.jvp (with and without jit) when installed
  hvp       adsrc.hvp against adsrc.grad (target <= 3x), beside a hand-written
            Hessian-vector product, the generated code called directly, and
            autograd's hessian_vector_product and JAX's jvp of grad
  hessian   adsrc.hessian of the 100-parameter loss against autograd.hessian
            and jax.hessian (with and without jit), each also timed from a
            fresh start to its first result (transformation, tracing or
            compilation included)
  jacrev    adsrc.jacrev of a layer with 100 outputs (`layer` below): every
            row pulled back in one batched call, against one pullback per row
            (the batching switched off), a hand-written Jacobian, and
            jax.jacrev (with and without jit) when installed

autograd and JAX run the very same Python source with their NumPy.
"""

import argparse
import json
import os
import statistics
import sys
import time
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]      # this checkout's adsrc, not another one installed

import alternatives as alt  # noqa: E402
import timing  # noqa: E402
import workloads as wl  # noqa: E402

import adsrc  # noqa: E402
from adsrc import batched_jacrev, forward_api, jacobians, transform  # noqa: E402
from adsrc.forward_api import _Call  # noqa: E402

loss = wl.logistic_loss
HAND = "numpy (by hand)"
DIRECT = "adsrc, generated code called directly"
TARGETS = {"jvp": 1.5, "hvp": 3.0}


def jvp_by_hand(w, X, y, v):
    z = X @ w
    e = np.exp(-y * z)
    return np.mean(np.log1p(e)) + 0.01 * np.sum(w * w), np.mean(-y * (X @ v) * e / (1.0 + e)) + 0.02 * (w @ v)


def _curvature(w, X, y):
    e = np.exp(-y * (X @ w))
    return e / (1.0 + e) ** 2 / X.shape[0]          # d2/dz2 of mean(log1p(exp(-y z))) (y = +-1)


def hvp_by_hand(w, X, y, v):
    return X.T @ (_curvature(w, X, y) * (X @ v)) + 0.02 * v


def hessian_by_hand(w, X, y):
    return (X.T * _curvature(w, X, y)) @ X + 0.02 * np.eye(X.shape[1])


JAC_A = np.random.default_rng(3).standard_normal((100, 100)) / 10.0


def layer(w):
    """100 outputs of 100 inputs: a tanh layer with a skip term (jacrev's benchmark)."""
    h = np.tanh(JAC_A @ w)
    return h * w[0] + np.sin(w) ** 2


def layer_jacobian_by_hand(w):
    h = np.tanh(JAC_A @ w)
    jac = (1.0 - h * h)[:, None] * JAC_A * w[0] + np.diag(2.0 * np.sin(w) * np.cos(w))
    jac[:, 0] += h
    return jac


def _close(a, b):
    a, b = alt.to_numpy(a), alt.to_numpy(b)
    if isinstance(a, tuple):
        return all(_close(x, y) for x, y in zip(a, b))
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-8, atol=1e-12)


def _checked(fns, reference, what):
    for name, fn in fns.items():
        if not _close(fn(), reference):
            raise SystemExit(f"{what}: {name} disagrees with the hand-written result")
    return fns


def _rebound():
    """The loss's own source with autograd's and JAX's NumPy (None when not installed)."""
    out = {}
    if alt.autograd is not None:
        import autograd.numpy as anp
        out["autograd"] = alt.rebind(loss, anp)
    if alt.jax is not None:
        out["jax"] = alt.rebind(loss, alt.jnp)
    return out


def jvp_rows(w, X, y, v, samples):
    args, tangents = (w, X, y), (v, None, None)
    direct = _Call(loss, args, tangents, False, (), ()).compiled()
    fns = {HAND: lambda: jvp_by_hand(w, X, y, v),
           "adsrc.jvp": lambda: adsrc.jvp(loss, args, tangents),
           DIRECT: lambda: direct(w, X, y, w_dot=v)}
    peers = _rebound()
    if "autograd" in peers:
        from autograd import make_jvp
        ag = make_jvp(peers["autograd"])
        fns["autograd make_jvp"] = lambda: ag(w, X, y)(v)
    if "jax" in peers:
        jax, jf = alt.jax, peers["jax"]
        jw, jX, jy, jv = alt.to_jax((w, X, y, v))
        eager = lambda: alt._block(jax.jvp(lambda a: jf(a, jX, jy), (jw,), (jv,)))  # noqa: E731
        jitted_jvp = jax.jit(lambda a, b, c, t: jax.jvp(lambda p: jf(p, b, c), (a,), (t,)))
        fns[alt.JAX] = eager
        fns[alt.JAX_JIT] = lambda: alt._block(jitted_jvp(jw, jX, jy, jv))
    _checked(fns, jvp_by_hand(w, X, y, v), "jvp")
    fns["primal (the loss)"] = lambda: loss(w, X, y)
    return "primal (the loss)", timing.compare(fns, samples=samples)


def hvp_rows(w, X, y, v, samples):
    g = adsrc.grad(loss)
    direct = _Call(g, (w, X, y), (v, None, None), False, (), ()).compiled()
    fns = {HAND: lambda: hvp_by_hand(w, X, y, v),
           "adsrc.hvp": lambda: adsrc.hvp(loss, w, v, X, y),
           DIRECT: lambda: direct(w, X, y, w_dot=v)[1]}
    peers = _rebound()
    if "autograd" in peers:
        from autograd import hessian_vector_product
        ag = hessian_vector_product(peers["autograd"])
        fns["autograd hessian_vector_product"] = lambda: ag(w, X, y, v)
    if "jax" in peers:
        jax, jf = alt.jax, peers["jax"]
        jw, jX, jy, jv = alt.to_jax((w, X, y, v))
        jg = jax.grad(jf)

        def hvp(a, b, c, t):
            return jax.jvp(lambda p: jg(p, b, c), (a,), (t,))[1]
        jitted = jax.jit(hvp)
        fns[alt.JAX] = lambda: alt._block(hvp(jw, jX, jy, jv))
        fns[alt.JAX_JIT] = lambda: alt._block(jitted(jw, jX, jy, jv))
    _checked(fns, hvp_by_hand(w, X, y, v), "hvp")
    fns["adsrc.grad"] = lambda: g(w, X, y)
    return "adsrc.grad", timing.compare(fns, samples=samples)


def _fresh(fn):
    """A new function object with fn's code: no cache adsrc keeps by function can answer for it."""
    return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


def _hessians():
    """name -> make(): a fresh Hessian function (its first call transforms, traces or compiles)."""
    makers = {"adsrc.hessian": lambda: adsrc.hessian(_fresh(loss))}
    peers = _rebound()
    if "autograd" in peers:
        import autograd.numpy as anp
        makers["autograd.hessian"] = lambda: alt.autograd.hessian(alt.rebind(loss, anp))
    if "jax" in peers:
        makers[alt.JAX] = lambda: (lambda h: lambda *a: alt._block(h(*a)))(alt.jax.hessian(
            alt.rebind(loss, alt.jnp)))
        makers[alt.JAX_JIT] = lambda: (lambda h: lambda *a: alt._block(h(*a)))(alt.jax.jit(alt.jax.hessian(
            alt.rebind(loss, alt.jnp))))
    return makers


def _clear_adsrc_caches():
    """Forget every generated function, forward mode's included (transform.clear_caches keeps those)."""
    transform.clear_caches()
    forward_api._CACHES.clear()
    jacobians._GRADS.clear()


def hessian_rows(w, X, y, samples, repeats=3):
    makers = _hessians()
    jargs = alt.to_jax((w, X, y)) if alt.jax is not None else None
    args_of = {name: (jargs if name.startswith("jax") else (w, X, y)) for name in makers}
    firsts = {}
    for name, make in makers.items():
        out = []
        for _ in range(repeats):
            _clear_adsrc_caches()
            if name.startswith("jax"):
                alt.jax.clear_caches()
            t0 = time.perf_counter()
            make()(*args_of[name])
            out.append(time.perf_counter() - t0)
        firsts[name] = statistics.median(out)
    made = {name: (make(), args_of[name]) for name, make in makers.items()}
    fns = {name: (lambda h=h, a=a: h(*a)) for name, (h, a) in made.items()}
    fns[HAND] = lambda: hessian_by_hand(w, X, y)
    _checked(fns, hessian_by_hand(w, X, y), "hessian")
    return "adsrc.hessian", timing.compare(fns, samples=samples), firsts


BATCHED, ROWS = "adsrc.jacrev (one batched pullback)", "adsrc.jacrev (one pullback per row)"


def jacrev_rows(w, samples):
    jac = adsrc.jacrev(layer)

    def row_by_row():
        batched_jacrev.ENABLED = False
        try:
            return jac(w)
        finally:
            batched_jacrev.ENABLED = True
    fns = {BATCHED: lambda: jac(w), ROWS: row_by_row, HAND: lambda: layer_jacobian_by_hand(w)}
    if alt.jax is not None:
        jf = alt.rebind(layer, alt.jnp)
        jw = alt.to_jax(w)
        eager, jitted = alt.jax.jacrev(jf), alt.jax.jit(alt.jax.jacrev(jf))
        fns[alt.JAX] = lambda: alt._block(eager(jw))
        fns[alt.JAX_JIT] = lambda: alt._block(jitted(jw))
    before = batched_jacrev.STATS["batched"]
    _checked(fns, layer_jacobian_by_hand(w), "jacrev")
    if batched_jacrev.STATS["batched"] == before:
        raise SystemExit(f"jacrev: the batched pullback was not taken ({batched_jacrev.STATS['reason']})")
    return BATCHED, timing.compare(fns, samples=samples)


def table(title, reference, times, firsts=None, target=None):
    ref = times[reference]
    lines = [f"{title}", "", "| implementation | time | ratio to " + reference + " |"
             + (" first call |" if firsts is not None else ""),
             "| --- | --- | --- |" + (" --- |" if firsts is not None else "")]
    for name, t in sorted(times.items(), key=lambda kv: kv[0] != reference):
        cell = f"| {name} | {timing.fmt_time(t)} | {t / ref:.2f}x |"
        if firsts is not None:
            cell += f" {timing.fmt_time(firsts[name])} |" if name in firsts else " - |"
        lines.append(cell)
    if target is not None:
        lines.append("")
        lines.append(target)
    return "\n".join(lines)


def not_installed():
    missing = [n for n, m in (("autograd", alt.autograd), ("jax", alt.jax)) if m is None]
    return f"not installed: {', '.join(missing)} (their rows are left out)" if missing else None


def run(samples=11, hessian_size=100, repeats=3):
    """Time the three benchmarks, printing each table as it is done; the results as a dict."""
    w, X, y = wl.logistic_inputs()
    v = np.random.default_rng(2).standard_normal(w.shape[0])
    missing = not_installed()
    if missing:
        print(missing)
    results = {"not_installed": missing}
    ref, times = jvp_rows(w, X, y, v, samples)
    ratio = times["adsrc.jvp"] / times[ref]
    results["jvp"] = {"reference": ref, "times": times}
    print(table(f"jvp of the logistic loss, X {X.shape[0]}x{X.shape[1]}", ref, times,
                target=f"adsrc.jvp / primal = {ratio:.2f}x (target <= {TARGETS['jvp']}x: "
                       f"{'met' if ratio <= TARGETS['jvp'] else 'missed'}); the hand-written jvp is "
                       f"{times[HAND] / times[ref]:.2f}x"), flush=True)
    ref, times = hvp_rows(w, X, y, v, samples)
    ratio = times["adsrc.hvp"] / times[ref]
    results["hvp"] = {"reference": ref, "times": times}
    print("\n" + table(f"Hessian-vector product of the logistic loss, X {X.shape[0]}x{X.shape[1]}", ref, times,
                       target=f"adsrc.hvp / adsrc.grad = {ratio:.2f}x (target <= {TARGETS['hvp']}x: "
                              f"{'met' if ratio <= TARGETS['hvp'] else 'missed'})"), flush=True)
    n = hessian_size
    hw, hX = w[:n], X[:, :n]
    ref, times, firsts = hessian_rows(hw, hX, y, max(3, samples // 2), repeats)
    results["hessian"] = {"reference": ref, "times": times, "first_call": firsts}
    print("\n" + table(f"Hessian of the logistic loss, {n} parameters (X {hX.shape[0]}x{n})", ref, times, firsts),
          flush=True)
    ref, times = jacrev_rows(np.random.default_rng(4).standard_normal(JAC_A.shape[1]), samples)
    results["jacrev"] = {"reference": ref, "times": times}
    print("\n" + table(f"Jacobian of a layer with {JAC_A.shape[0]} outputs (jacrev)", ref, times,
                       target=f"one batched pullback is {times[ROWS] / times[ref]:.1f}x faster than one per row"),
          flush=True)
    return results


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--samples", type=int, default=11)
    p.add_argument("--json", help="write the times as JSON to this file")
    p.add_argument("--hessian-size", type=int, default=100, help="parameters of the Hessian's loss")
    p.add_argument("--repeats", type=int, default=3, help="fresh starts timed for each first call (median)")
    args = p.parse_args(argv)
    started = time.perf_counter()
    results = run(args.samples, args.hessian_size, args.repeats)
    print(f"\nfinished in {time.perf_counter() - started:.0f} s")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
