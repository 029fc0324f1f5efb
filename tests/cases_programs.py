"""Small realistic programs that combine features, checked against finite differences."""

import math

import numpy as np

from casekit import Registry, pos, rand

CASES = Registry()
case = CASES.case


def rk4_step(f, y, t, h, params):
    k1 = f(y, t, params)
    k2 = f(y + 0.5 * h * k1, t + 0.5 * h, params)
    k3 = f(y + 0.5 * h * k2, t + 0.5 * h, params)
    k4 = f(y + h * k3, t + h, params)
    return y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


def oscillator(y, t, params):
    k, c = params
    return np.array([y[1], -k * y[0] - c * y[1]])


@case(np.array([2.0, 0.3]), argnums=0, label="rk4")
def ode_final_energy(params):
    y = np.array([1.0, 0.0])
    t = 0.0
    for _ in range(20):
        y = rk4_step(oscillator, y, t, 0.05, params)
        t += 0.05
    return 0.5 * y[1] ** 2 + 0.5 * params[0] * y[0] ** 2


@case(pos(3), rand(5, 3), rand(5), argnums=(0,), label="gp")
def gp_negative_log_likelihood(log_params, X, y):
    length, signal, noise = np.exp(log_params)
    sq = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = signal ** 2 * np.exp(-0.5 * sq / length ** 2) + (noise ** 2 + 1e-6) * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(K, y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * X.shape[0] * math.log(2 * math.pi)


@case(rand(4, 3), rand(3, 3), rand(3, 3), rand(3, 3), argnums=(1, 2, 3), label="attention")
def self_attention(x, Wq, Wk, Wv):
    q = x @ Wq
    k = x @ Wk
    v = x @ Wv
    scores = np.einsum("id,jd->ij", q, k) / np.sqrt(q.shape[1])
    scores = scores - np.max(scores, axis=1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / np.sum(weights, axis=1, keepdims=True)
    return np.sum((weights @ v) ** 2)


@case(1.7, label="newton")
def newton_cube_root(a):
    x = a
    for _ in range(30):
        step = (x ** 3 - a) / (3.0 * x ** 2)
        x = x - step
        if abs(step) < 1e-14:
            break
    return x


@case(rand(6, 2), rand(3, 2), argnums=1, label="kmeans")
def soft_kmeans_loss(points, centers):
    d = np.sum((points[:, None, :] - centers[None, :, :]) ** 2, axis=2)
    nearest = np.argmin(d, axis=1)
    total = 0.0
    for i in range(points.shape[0]):
        total = total + d[i, nearest[i]]
    return total / points.shape[0]


@case(rand(5, 3), rand(3, 4), np.array([0, 3, 1, 1, 2]), argnums=1, label="softmax")
def softmax_regression(X, W, labels):
    logits = X @ W
    lse = np.log(np.sum(np.exp(logits - logits.max(axis=1, keepdims=True)), axis=1)) + logits.max(axis=1)
    picked = logits[np.arange(X.shape[0]), labels]
    return np.mean(lse - picked)


@case(np.array([0.5, 1.5]), label="projectile")
def projectile_distance(v0):
    pos_ = np.zeros(2)
    vel = v0.copy()
    dt = 0.01
    steps = 0
    while pos_[1] >= 0.0 and steps < 1000:
        vel = vel + dt * np.array([0.0, -9.81]) - dt * 0.1 * vel * np.linalg.norm(vel)
        pos_ = pos_ + dt * vel
        steps += 1
    return pos_[0]


@case(rand(8), 0.3, argnums=(0, 1), label="smooth")
def exponential_smoothing_loss(series, alpha):
    level = series[0]
    errors = []
    for t in range(1, len(series)):
        errors.append(series[t] - level)
        level = alpha * series[t] + (1 - alpha) * level
    return np.mean(np.array(errors) ** 2)


@case(rand(4), rand(4), label="huber")
def huber_loss(pred, target):
    total = 0.0
    for p, t in zip(pred, target):
        r = abs(p - t)
        total += 0.5 * r * r if r < 0.5 else 0.5 * (r - 0.25)
    return total


@case(rand(3, 3) + 3 * np.eye(3), label="logdet")
def regularized_logdet(A):
    S = A @ A.T + np.eye(3)
    sign, logdet = np.linalg.slogdet(S)
    return logdet + np.trace(np.linalg.inv(S)) + np.linalg.norm(A, "fro")


@case({"w": rand(3), "b": 0.2}, rand(6, 3), rand(6), label="params-dict")
def ridge_with_dict(params, X, y):
    pred = X @ params["w"] + params["b"]
    reg = sum(np.sum(v ** 2) for k, v in params.items() if k != "b")
    return np.mean((pred - y) ** 2) + 0.1 * reg


def make_mlp_loss(activation):
    def mlp(params, x):
        h = x
        for W, b in params:
            h = activation(h @ W + b)
        return np.sum(h ** 2)
    return mlp


mlp_tanh = make_mlp_loss(np.tanh)
CASES.case([(rand(3, 4), rand(4)), (rand(4, 2), rand(2))], rand(5, 3), label="closure-mlp")(mlp_tanh)


@case(rand(5), label="cumulative")
def running_max_drawdown(prices):
    peak = prices[0]
    worst = 0.0
    for p in prices[1:]:
        peak = max(peak, p)
        worst = min(worst, p - peak)
    return worst + np.sum(np.cumsum(prices) * 0.1)
