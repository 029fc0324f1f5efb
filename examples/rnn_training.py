"""Train a small recurrent network, written as a plain Python for loop, to predict a sine wave.

adsrc differentiates the loop as written: the same generated gradient serves
sequences of every length (see the cache statistics at the end).
"""

import numpy as np

import adsrc


def rnn_loss(params, xs, targets):
    h = np.zeros(params["Wh"].shape[0])
    total = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(params["Wx"] @ xs[t] + params["Wh"] @ h + params["b"])
        y = params["Wy"] @ h
        total = total + np.sum((y - targets[t]) ** 2)
    return total / xs.shape[0]


def sequence(length, phase):
    t = np.arange(length + 1) * 0.3 + phase
    wave = np.sin(t)
    return wave[:-1, None], wave[1:, None]     # input: the wave; target: its next value


def main():
    rng = np.random.default_rng(1)
    hidden = 16
    params = {"Wx": rng.standard_normal((hidden, 1)) * 0.5, "Wh": rng.standard_normal((hidden, hidden)) * 0.1,
              "b": np.zeros(hidden), "Wy": rng.standard_normal((1, hidden)) * 0.1}
    grad = adsrc.value_and_grad(rnn_loss)
    lr = 0.1
    for step in range(301):
        length = int(rng.integers(10, 40))               # a different length every step
        xs, ys = sequence(length, rng.uniform(0, 2 * np.pi))
        value, g = grad(params, xs, ys)
        for k in params:
            params[k] = params[k] - lr * g[k]
        if step % 100 == 0:
            print(f"step {step:3d}: sequence length {length:2d}, loss {value:.4f}")
    xs, ys = sequence(50, 0.0)
    print(f"loss on a new sequence of length 50: {rnn_loss(params, xs, ys):.4f}")
    print(f"transformations: {grad.cache_info().misses} for 301 steps of varying length ({grad.cache_info()})")


if __name__ == "__main__":
    main()
