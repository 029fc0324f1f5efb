"""Benchmark workloads: the functions adsrc differentiates, hand-written NumPy gradients,
and the same computations for the alternatives (see alternatives.py).

Each workload's `impls()` returns zero-argument callables that compute the
gradient(s); "numpy (by hand)" is the reference every other implementation is
checked against before it is timed.
"""

import numpy as np

import adsrc
import alternatives as alt

HAND = "numpy (by hand)"
ADSRC = "adsrc"


class Workload:
    """One benchmark: a function adsrc differentiates and its hand-written gradient."""

    def __init__(self, name, fn, args, argnums, hand, torch_fn=None, jit_fn=None, static_argnums=()):
        self.name = name
        self.fn = fn
        self.args = args
        self.argnums = argnums
        self.hand = hand
        self.torch_fn = torch_fn
        self.jit_fn = jit_fn
        self.static_argnums = static_argnums

    def adsrc_grad(self):
        return adsrc.grad(self.fn, argnums=self.argnums)

    def impls(self, alternatives=True):
        args = self.args
        g = self.adsrc_grad()
        out = {HAND: lambda: self.hand(*args), ADSRC: lambda: g(*args)}
        if alternatives:
            a = alt.autograd_impl(self.fn, args, self.argnums)
            if a is not None:
                out[alt.AUTOGRAD] = a
            out.update(alt.jax_impls(self.fn, args, self.argnums, self.jit_fn, self.static_argnums))
            if self.torch_fn is not None:
                t = alt.torch_impl(self.torch_fn, args, self.argnums)
                if t is not None:
                    out[alt.TORCH] = t
        return out

    def first_calls(self):
        """Builders of a fresh gradient for the first-call latency: name -> (build, call)."""
        out = {ADSRC: (self.adsrc_grad, lambda g: g(*self.args))}
        if alt.jax is not None:
            jargs = alt.to_jax(self.args)
            fn = self.jit_fn or alt.rebind(self.fn, alt.jnp)
            out[alt.JAX_JIT] = (lambda: alt.jax.jit(alt.jax.grad(fn, self.argnums),
                                                    static_argnums=self.static_argnums),
                                lambda g: alt.jax.block_until_ready(g(*jargs)))
        return out


# -- sum(exp(x)) --------------------------------------------------------------------------------

def sum_exp(x):
    return np.sum(np.exp(x))


def sum_exp_by_hand(x):
    return np.exp(x)


def sum_exp_torch(x):
    return alt.torch.sum(alt.torch.exp(x))


# -- logistic regression ------------------------------------------------------------------------------

def logistic_loss(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-y * z))) + 0.01 * np.sum(w * w)


def logistic_by_hand(w, X, y):
    z = X @ w
    e = np.exp(-y * z)
    dz = -y * e / (1.0 + e) / z.shape[0]
    return X.T @ dz + 0.02 * w


def logistic_torch(w, X, y):
    t = alt.torch
    return t.mean(t.log1p(t.exp(-y * (X @ w)))) + 0.01 * t.sum(w * w)


def logistic_inputs(n=1000, d=100):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((n, d))
    return rng.standard_normal(d) * 0.1, X, np.sign(rng.standard_normal(n))


# -- recurrent network written as a plain for loop ---------------------------------------------------

def rnn_loss(Wx, Wh, Wy, xs, target):
    h = np.zeros(Wh.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(Wx @ xs[t] + Wh @ h)
    y = Wy @ h
    return np.sum((y - target) ** 2)


def rnn_by_hand(Wx, Wh, Wy, xs, target):
    hs = [np.zeros(Wh.shape[0])]
    for t in range(xs.shape[0]):
        hs.append(np.tanh(Wx @ xs[t] + Wh @ hs[-1]))
    y = Wy @ hs[-1]
    dy = 2.0 * (y - target)
    dWy = np.outer(dy, hs[-1])
    dh = Wy.T @ dy
    dWx = np.zeros_like(Wx)
    dWh = np.zeros_like(Wh)
    for t in range(xs.shape[0] - 1, -1, -1):
        da = dh * (1.0 - hs[t + 1] ** 2)
        dWx += np.outer(da, xs[t])
        dWh += np.outer(da, hs[t])
        dh = Wh.T @ da
    return dWx, dWh, dWy


def rnn_torch(Wx, Wh, Wy, xs, target):
    t = alt.torch
    h = t.zeros(Wh.shape[0], dtype=t.float64)
    for i in range(xs.shape[0]):
        h = t.tanh(Wx @ xs[i] + Wh @ h)
    return t.sum((Wy @ h - target) ** 2)


def rnn_inputs(hidden=64, inputs=32, steps=100, outputs=1):
    rng = np.random.default_rng(2)
    return (rng.standard_normal((hidden, inputs)) * 0.1, rng.standard_normal((hidden, hidden)) * 0.1,
            rng.standard_normal((outputs, hidden)) * 0.1, rng.standard_normal((steps, inputs)),
            rng.standard_normal(outputs))


# -- scalar loop ---------------------------------------------------------------------------------------

def scalar_loop(x):
    s = 0.0
    for i in range(100):
        s = s + np.sin(x * i)
    return s


def scalar_loop_by_hand(x):
    zs = []
    s = 0.0
    for i in range(100):                   # forward pass, keeping what the backward pass needs
        z = x * i
        zs.append(z)
        s = s + np.sin(z)
    dx = 0.0
    for i in range(99, -1, -1):            # backward pass
        dx += np.cos(zs[i]) * i
    return dx


def scalar_loop_torch(x):
    s = 0.0
    for i in range(100):
        s = s + alt.torch.sin(x * i)
    return s


# -- two-layer MLP with softmax cross-entropy, parameters in a dict ---------------------------------------

def mlp_loss(params, X, labels):
    h = np.tanh(X @ params["W1"] + params["b1"])
    logits = h @ params["W2"] + params["b2"]
    m = np.max(logits, axis=1, keepdims=True)
    shifted = logits - m
    logp = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(logp * labels, axis=1))


def mlp_by_hand(params, X, labels):
    h = np.tanh(X @ params["W1"] + params["b1"])
    logits = h @ params["W2"] + params["b2"]
    e = np.exp(logits - np.max(logits, axis=1, keepdims=True))
    p = e / np.sum(e, axis=1, keepdims=True)
    dlogits = (p * np.sum(labels, axis=1, keepdims=True) - labels) / X.shape[0]
    da = (dlogits @ params["W2"].T) * (1.0 - h * h)
    return {"W1": X.T @ da, "b1": np.sum(da, axis=0), "W2": h.T @ dlogits, "b2": np.sum(dlogits, axis=0)}


def mlp_torch(params, X, labels):
    t = alt.torch
    h = t.tanh(X @ params["W1"] + params["b1"])
    logits = h @ params["W2"] + params["b2"]
    return -t.mean(t.sum(t.log_softmax(logits, dim=1) * labels, dim=1))


def mlp_inputs(batch=256, n_in=784, hidden=128, n_out=10):
    rng = np.random.default_rng(3)
    params = {"W1": rng.standard_normal((n_in, hidden)) * 0.05, "b1": np.zeros(hidden),
              "W2": rng.standard_normal((hidden, n_out)) * 0.05, "b2": np.zeros(n_out)}
    X = rng.standard_normal((batch, n_in))
    return params, X, np.eye(n_out)[rng.integers(0, n_out, batch)]


# -- a branch that depends on the input value ------------------------------------------------------------

def piecewise(x):
    if np.sum(x) > 0:
        y = np.sum(np.sin(x) * x)
    else:
        y = np.sum(x * x) * 0.5
    return y


def piecewise_by_hand(x):
    if np.sum(x) > 0:
        return np.cos(x) * x + np.sin(x)
    return x


def piecewise_jit(x):
    j = alt.jax
    return j.lax.cond(alt.jnp.sum(x) > 0, lambda v: alt.jnp.sum(alt.jnp.sin(v) * v),
                      lambda v: alt.jnp.sum(v * v) * 0.5, x)


def piecewise_torch(x):
    t = alt.torch
    if t.sum(x) > 0:
        return t.sum(t.sin(x) * x)
    return t.sum(x * x) * 0.5


class Alternating(Workload):
    """Calls alternate between inputs taking one branch and the other."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.flip = False

    def impls(self, alternatives=True):
        pos = self.args
        neg = tuple(-a for a in self.args)
        inner = {}
        for sign, args in (("+", pos), ("-", neg)):
            self.args = args
            for name, fn in super().impls(alternatives).items():
                inner.setdefault(name, {})[sign] = fn
        self.args = pos
        state = {"i": 0}

        def alternate(fns):
            def call():
                state["i"] += 1
                return fns["+" if state["i"] % 2 else "-"]()
            call.both = fns
            return call
        return {name: alternate(fns) for name, fns in inner.items()}


# -- a loop whose length changes on every call ----------------------------------------------------------------

def varying_loop(x, n):
    s = x
    for i in range(n):
        s = np.sin(s) * 0.9 + x * 0.1
    return np.sum(s)


def varying_loop_by_hand(x, n):
    ss = [x]
    for i in range(n):
        ss.append(np.sin(ss[-1]) * 0.9 + x * 0.1)
    ds = np.ones_like(x)
    dx = np.zeros_like(x)
    for i in range(n - 1, -1, -1):
        dx += ds * 0.1
        ds = ds * np.cos(ss[i]) * 0.9
    return dx + ds


def varying_loop_torch(x, n):
    s = x
    for i in range(n):
        s = alt.torch.sin(s) * 0.9 + x * 0.1
    return alt.torch.sum(s)


LENGTHS = range(1, 51)


def all_workloads():
    rng = np.random.default_rng(0)
    out = [Workload(f"sum(exp(x)), n={n:,}", sum_exp, (rng.uniform(-1, 1, n),), 0, sum_exp_by_hand,
                    sum_exp_torch) for n in (10, 1000, 1_000_000)]
    out.append(Workload("logistic regression, X 1000x100", logistic_loss, logistic_inputs(), 0,
                        logistic_by_hand, logistic_torch))
    out.append(Workload("RNN for loop (h=64, in=32, T=100)", rnn_loss, rnn_inputs(), (0, 1, 2), rnn_by_hand,
                        rnn_torch))
    out.append(Workload("scalar loop s += sin(x*i), 100 steps", scalar_loop, (0.3,), 0, scalar_loop_by_hand,
                        scalar_loop_torch))
    out.append(Workload("MLP 784-128-10, batch 256, dict params", mlp_loss, mlp_inputs(), 0, mlp_by_hand,
                        mlp_torch))
    out.append(Alternating("branch on the input (alternating), n=1000", piecewise,
                           (rng.uniform(0.1, 1.0, 1000),), 0, piecewise_by_hand, piecewise_torch,
                           jit_fn=piecewise_jit if alt.jax is not None else None))
    return out


def sweep_workload():
    """The loop whose length changes on every call (n = 1..50), timed as a total."""
    return Workload("loop length 1..50, one call each (total)", varying_loop,
                    (np.random.default_rng(5).uniform(-1, 1, 100), 1), 0, varying_loop_by_hand,
                    varying_loop_torch, static_argnums=(1,))


# -- specialization: the cost of the cache --------------------------------------------------------------

def scaled_sum(x, k, mode="plain"):
    return np.sum(x) * k


def poly(x, n, mode="plain"):
    y = x
    for _ in range(n - 1):
        y = y * x + 1.0
    if mode == "scaled":
        y = y * 2.0
    return np.sum(y)
