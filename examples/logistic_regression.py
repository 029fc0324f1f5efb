"""Fit a logistic regression with adsrc gradients: scipy.optimize.minimize if SciPy is installed,
plain gradient descent otherwise (or both)."""

import numpy as np

import adsrc


def loss(w, X, y, l2):
    z = X @ w
    return np.mean(np.logaddexp(0.0, -y * z)) + l2 * np.sum(w[1:] ** 2)


loss_and_grad = adsrc.value_and_grad(loss)


def make_data(n=500, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = np.hstack([np.ones((n, 1)), rng.standard_normal((n, d - 1))])
    w_true = rng.standard_normal(d)
    y = np.where(rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-X @ w_true)), 1.0, -1.0)
    return X, y, w_true


def gradient_descent(X, y, l2, steps=300, lr=0.5):
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        value, g = loss_and_grad(w, X, y, l2)
        w -= lr * g
    return w, value


def main():
    X, y, w_true = make_data()
    w, value = gradient_descent(X, y, l2=1e-3)
    accuracy = np.mean(np.sign(X @ w) == y)
    print(f"gradient descent: loss {value:.4f}, training accuracy {accuracy:.1%}")
    print("  fitted w:", np.round(w, 2))
    print("  true w:  ", np.round(w_true, 2))
    try:
        from scipy.optimize import minimize
    except ImportError:
        print("(SciPy is not installed: skipping scipy.optimize.minimize)")
        return
    res = minimize(loss_and_grad, np.zeros(X.shape[1]), args=(X, y, 1e-3), jac=True, method="L-BFGS-B")
    print(f"scipy.optimize.minimize(jac=True): loss {res.fun:.4f} after {res.nit} iterations "
          f"({res.nfev} gradient evaluations), converged: {res.success}")


if __name__ == "__main__":
    main()
