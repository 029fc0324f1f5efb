"""Benchmark workloads: the functions adsrc differentiates and hand-written NumPy gradients.

Each workload builds its inputs and a dict of implementations, each a
zero-argument callable returning the gradient(s). "numpy (by hand)" is the
reference every other implementation is checked against before timing.
"""

import numpy as np

import adsrc

HAND = "numpy (by hand)"
ADSRC = "adsrc"


class Workload:
    def __init__(self, name, impls, make_adsrc=None, args=None, note=""):
        self.name = name
        self.impls = impls              # name -> zero-argument callable
        self.make_adsrc = make_adsrc    # () -> fresh adsrc gradient (for first-call latency)
        self.args = args
        self.note = note


# -- sum(exp(x)) --------------------------------------------------------------------------------

def sum_exp(x):
    return np.sum(np.exp(x))


def sum_exp_by_hand(x):
    return np.exp(x)


def sum_exp_workload(n):
    x = np.random.default_rng(0).uniform(-1, 1, n)
    g = adsrc.grad(sum_exp)
    return Workload(f"sum(exp(x)), n={n:,}", {HAND: lambda: sum_exp_by_hand(x), ADSRC: lambda: g(x)},
                    lambda: adsrc.grad(sum_exp), (x,))


# -- logistic regression ------------------------------------------------------------------------------

def logistic_loss(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-y * z))) + 0.01 * np.sum(w * w)


def logistic_by_hand(w, X, y):
    z = X @ w
    e = np.exp(-y * z)
    dz = -y * e / (1.0 + e) / z.shape[0]
    return X.T @ dz + 0.02 * w


def logistic_workload(n=1000, d=100):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((n, d))
    y = np.sign(rng.standard_normal(n))
    w = rng.standard_normal(d) * 0.1
    g = adsrc.grad(logistic_loss)
    return Workload(f"logistic regression, X {n}x{d}",
                    {HAND: lambda: logistic_by_hand(w, X, y), ADSRC: lambda: g(w, X, y)},
                    lambda: adsrc.grad(logistic_loss), (w, X, y))


def core_workloads():
    return [sum_exp_workload(10), sum_exp_workload(1000), sum_exp_workload(1_000_000), logistic_workload()]


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


def rnn_inputs(hidden=64, inputs=32, steps=100, outputs=1):
    rng = np.random.default_rng(2)
    return (rng.standard_normal((hidden, inputs)) * 0.1, rng.standard_normal((hidden, hidden)) * 0.1,
            rng.standard_normal((outputs, hidden)) * 0.1, rng.standard_normal((steps, inputs)),
            rng.standard_normal(outputs))


def rnn_workload():
    args = rnn_inputs()
    g = adsrc.grad(rnn_loss, argnums=(0, 1, 2))
    return Workload("RNN for-loop (h=64, in=32, T=100)", {HAND: lambda: rnn_by_hand(*args), ADSRC: lambda: g(*args)},
                    lambda: adsrc.grad(rnn_loss, argnums=(0, 1, 2)), args)


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


def scalar_loop_workload():
    g = adsrc.grad(scalar_loop)
    return Workload("scalar loop s += sin(x*i), 100 steps", {HAND: lambda: scalar_loop_by_hand(0.3),
                                                             ADSRC: lambda: g(0.3)},
                    lambda: adsrc.grad(scalar_loop), (0.3,))


# -- two-layer MLP with softmax cross-entropy, parameters in a dict ---------------------------------------

def mlp_loss(params, X, labels):
    h = np.tanh(X @ params["W1"] + params["b1"])
    logits = h @ params["W2"] + params["b2"]
    m = np.max(logits, axis=1, keepdims=True)
    shifted = logits - m
    logp = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(logp * labels, axis=1))


def mlp_by_hand(params, X, labels):
    a = X @ params["W1"] + params["b1"]
    h = np.tanh(a)
    logits = h @ params["W2"] + params["b2"]
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    e = np.exp(shifted)
    p = e / np.sum(e, axis=1, keepdims=True)
    n = X.shape[0]
    dlogits = (p * np.sum(labels, axis=1, keepdims=True) - labels) / n
    dW2 = h.T @ dlogits
    db2 = np.sum(dlogits, axis=0)
    da = (dlogits @ params["W2"].T) * (1.0 - h * h)
    return {"W1": X.T @ da, "b1": np.sum(da, axis=0), "W2": dW2, "b2": db2}


def mlp_inputs(batch=256, n_in=784, hidden=128, n_out=10):
    rng = np.random.default_rng(3)
    params = {"W1": rng.standard_normal((n_in, hidden)) * 0.05, "b1": np.zeros(hidden),
              "W2": rng.standard_normal((hidden, n_out)) * 0.05, "b2": np.zeros(n_out)}
    X = rng.standard_normal((batch, n_in))
    labels = np.eye(n_out)[rng.integers(0, n_out, batch)]
    return params, X, labels


def mlp_workload():
    args = mlp_inputs()
    g = adsrc.grad(mlp_loss)
    return Workload("MLP 784-128-10, batch 256 (dict params)", {HAND: lambda: mlp_by_hand(*args),
                                                                ADSRC: lambda: g(*args)},
                    lambda: adsrc.grad(mlp_loss), args)


def control_workloads():
    return [rnn_workload(), scalar_loop_workload()]


def all_workloads():
    return core_workloads() + control_workloads() + [mlp_workload()]


# -- specialization: the cost of the cache --------------------------------------------------------------

def poly(x, n, mode="plain"):
    y = x
    for _ in range(n - 1):
        y = y * x + 1.0
    if mode == "scaled":
        y = y * 2.0
    return np.sum(y)


def scaled_sum(x, k, mode="plain"):
    return np.sum(x) * k
