"""Logistic regression by Newton-CG: scipy.optimize.minimize with adsrc's gradient and exact
Hessian-vector products (forward over reverse, never forming the Hessian).

    minimize(loss, w0, args=(X, y, l2), method="Newton-CG",
             jac=adsrc.grad(loss), hessp=lambda w, p, *a: adsrc.hvp(loss, w, p, *a))

The solution is checked against BFGS (which sees only gradients), and adsrc's
Hessian-vector products against the hand-written Hessian X^T diag(s (1 - s)) X / n + 2 l2 I.
"""

import pathlib
import sys
import time

import numpy as np
import scipy.optimize

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))     # this checkout's adsrc
import adsrc  # noqa: E402


def loss(w, X, y, l2):
    z = X @ w
    return np.mean(np.logaddexp(0.0, -y * z)) + l2 * np.sum(w * w)


grad = adsrc.grad(loss)


def hessp(w, p, *args):
    return adsrc.hvp(loss, w, p, *args)


def hessian_by_hand(w, X, y, l2):
    s = 1.0 / (1.0 + np.exp(-(X @ w)))
    return (X.T * (s * (1.0 - s))) @ X / X.shape[0] + 2.0 * l2 * np.eye(X.shape[1])


def make_data(n=2000, d=20, seed=0):
    rng = np.random.default_rng(seed)
    X = np.hstack([np.ones((n, 1)), rng.standard_normal((n, d - 1))])
    w_true = rng.standard_normal(d)
    y = np.where(rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-X @ w_true)), 1.0, -1.0)
    return X, y, w_true


def main():
    X, y, w_true = make_data()
    l2 = 1e-3
    args = (X, y, l2)
    w0 = np.zeros(X.shape[1])
    t0 = time.perf_counter()
    grad(w0, *args), hessp(w0, w0, *args)          # the first calls generate and compile the code
    t_first = time.perf_counter() - t0

    t0 = time.perf_counter()
    newton = scipy.optimize.minimize(loss, w0, args=args, method="Newton-CG", jac=grad, hessp=hessp,
                                     options={"xtol": 1e-10})
    t_newton = time.perf_counter() - t0
    t0 = time.perf_counter()
    bfgs = scipy.optimize.minimize(loss, w0, args=args, method="BFGS", jac=grad, options={"gtol": 1e-9})
    t_bfgs = time.perf_counter() - t0

    print(f"data: {X.shape[0]} examples, {X.shape[1]} features (intercept included), l2 = {l2}")
    print(f"first gradient and Hessian-vector product (code generated and compiled): {t_first * 1e3:.0f} ms")
    print(f"Newton-CG: loss {newton.fun:.8f} in {newton.nit} iterations, {newton.njev} gradients, "
          f"{newton.nhev} Hessian-vector products, {t_newton * 1e3:.0f} ms; converged: {newton.success}")
    print(f"BFGS:      loss {bfgs.fun:.8f} in {bfgs.nit} iterations, {bfgs.njev} gradients, "
          f"{t_bfgs * 1e3:.0f} ms; converged: {bfgs.success}")
    gap = np.max(np.abs(newton.x - bfgs.x))
    print(f"max |w_newton - w_bfgs| = {gap:.2e};  |grad| at the Newton-CG solution = "
          f"{np.linalg.norm(grad(newton.x, *args)):.2e}")
    print("fitted w[:6]:", np.round(newton.x[:6], 3))
    print("true w[:6]:  ", np.round(w_true[:6], 3))

    H = hessian_by_hand(newton.x, *args)
    rng = np.random.default_rng(1)
    errors = []
    for _ in range(5):
        p = rng.standard_normal(X.shape[1])
        hv = hessp(newton.x, p, *args)
        errors.append(np.max(np.abs(hv - H @ p)) / np.max(np.abs(H @ p)))
    print(f"adsrc.hvp against the hand-written Hessian, 5 random vectors: max relative error "
          f"{max(errors):.1e}")

    if not (newton.success and gap < 1e-5 and max(errors) < 1e-10):
        raise SystemExit("Newton-CG with adsrc's Hessian-vector products disagrees with BFGS or the "
                         "hand-written Hessian")


if __name__ == "__main__":
    main()
