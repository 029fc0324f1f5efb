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
