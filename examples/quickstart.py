"""adsrc in one page: differentiate a plain NumPy function and read the generated code."""

import numpy as np

import adsrc


def loss(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-y * z))) + 0.01 * np.sum(w * w)


def main():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 5))
    y = np.sign(X @ np.array([1.0, -2.0, 0.5, 0.0, 3.0]) + 0.1 * rng.standard_normal(200))
    w = np.zeros(5)

    grad_loss = adsrc.grad(loss)                 # gradient with respect to w (argument 0)
    print("gradient at w=0:", np.round(grad_loss(w, X, y), 4))

    value_and_grad = adsrc.value_and_grad(loss)  # (value, gradient) in one call
    for _ in range(100):                         # a few steps of gradient descent
        value, g = value_and_grad(w, X, y)
        w = w - 1.0 * g
    print(f"loss after 100 steps: {value:.4f}   w = {np.round(w, 2)}")

    print("\nThe Python adsrc generated for the gradient:\n")
    print(grad_loss.source())


if __name__ == "__main__":
    main()
