"""Representative functions whose generated source is pinned in tests/golden/."""

import numpy as np


def logistic_loss(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-y * z))) + 0.01 * np.sum(w * w)


def rnn(Wx, Wh, xs):
    h = np.zeros(Wh.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(Wx @ xs[t] + Wh @ h)
    return np.sum(h)


def piecewise(x):
    if x > 0:
        y = np.sin(x)
    else:
        y = np.cos(x)
    return y * x


def softplus(z):
    return np.log1p(np.exp(z))


def calls_helper(x, data):
    return np.sum(softplus(x * data))
