"""The Laplace approximation of a Bayesian logistic regression: a Gaussian at the posterior mode
whose covariance is the inverse Hessian of the negative log posterior, from adsrc.hessian.

    w ~ Normal(0, s^2 I),   y_i ~ Bernoulli(sigmoid(x_i . w))       (labels y_i in {-1, +1})
    U(w) = -log p(w | y) + const = sum_i log(1 + exp(-y_i x_i . w)) + |w|^2 / (2 s^2)

The mode (MAP) comes from scipy.optimize.minimize with adsrc's gradient; the Hessian of U at
the mode, adsrc.hessian(U)(w_map, ...) (forward over reverse), gives the covariance
Sigma = H^-1, the log evidence log p(y) ~ -U(w_map) - log Z_prior - 1/2 log det(H / 2 pi),
and predictive probabilities (MacKay's probit approximation). The Hessian is checked against
the hand-written X^T diag(p (1 - p)) X + I / s^2; the Laplace mean (the mode) is compared with
the posterior mean from importance sampling with the Laplace Gaussian as the proposal.
"""

import pathlib
import sys
import time

import numpy as np
import scipy.optimize

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))     # this checkout's adsrc
import adsrc  # noqa: E402

PRIOR_SCALE = 2.0


def neg_log_posterior(w, X, y):
    z = X @ w
    return np.sum(np.logaddexp(0.0, -y * z)) + 0.5 * np.sum(w * w) / PRIOR_SCALE ** 2


def make_data(n=60, seed=3):
    rng = np.random.default_rng(seed)
    X = np.hstack([np.ones((n, 1)), rng.standard_normal((n, 3))])
    w_true = np.array([-0.5, 1.5, -1.0, 0.0])
    y = np.where(rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-X @ w_true)), 1.0, -1.0)
    return X, y, w_true


def hessian_by_hand(w, X):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return (X.T * (p * (1.0 - p))) @ X + np.eye(X.shape[1]) / PRIOR_SCALE ** 2


def main():
    X, y, w_true = make_data()
    d = X.shape[1]
    res = scipy.optimize.minimize(neg_log_posterior, np.zeros(d), args=(X, y), method="BFGS",
                                  jac=adsrc.grad(neg_log_posterior), options={"gtol": 1e-8})
    w_map = res.x
    t0 = time.perf_counter()
    H = adsrc.hessian(neg_log_posterior)(w_map, X, y)
    t_hessian = time.perf_counter() - t0
    Sigma = np.linalg.inv(H)
    std = np.sqrt(np.diag(Sigma))

    names = ["intercept", "x1", "x2", "x3"]
    print(f"Bayesian logistic regression: {X.shape[0]} examples, {d} weights, prior Normal(0, {PRIOR_SCALE}^2)")
    print(f"MAP by BFGS with adsrc.grad: {res.nit} iterations, converged: {res.success}")
    print(f"adsrc.hessian at the mode: {t_hessian * 1e3:.0f} ms (first call: code generated and compiled)")
    print("Laplace approximation, posterior mean +- standard deviation:")
    for name, m, s, t in zip(names, w_map, std, w_true):
        print(f"  {name:9s} {m:+.3f} +- {s:.3f}   (true {t:+.1f})")
    corr = Sigma / np.outer(std, std)
    print("posterior correlations:")
    for name, row in zip(names, corr):
        print(f"  {name:9s} " + " ".join(f"{c:+.2f}" for c in row))

    sign, logdet = np.linalg.slogdet(H / (2 * np.pi))
    log_prior_norm = 0.5 * d * np.log(2 * np.pi * PRIOR_SCALE ** 2)
    log_evidence = -res.fun - log_prior_norm - 0.5 * logdet
    print(f"log evidence (Laplace): {log_evidence:.3f}")

    x_new = np.array([1.0, 1.0, 1.0, 0.0])
    mean, var = x_new @ w_map, x_new @ Sigma @ x_new
    p_plugin = 1.0 / (1.0 + np.exp(-mean))
    p_laplace = 1.0 / (1.0 + np.exp(-mean / np.sqrt(1.0 + np.pi * var / 8.0)))
    print(f"P(y = +1) at x = {x_new[1:]}: {p_plugin:.3f} at the MAP, {p_laplace:.3f} averaged over the "
          f"Laplace posterior (probit approximation)")

    # checks: the Hessian against the hand-written one; the Gaussian against importance sampling
    h_err = np.max(np.abs(H - hessian_by_hand(w_map, X))) / np.max(np.abs(H))
    rng = np.random.default_rng(0)
    draws = rng.multivariate_normal(w_map, Sigma, size=20000)
    log_q = -0.5 * np.einsum("ni,ij,nj->n", draws - w_map, H, draws - w_map)
    log_p = -np.array([neg_log_posterior(w, X, y) for w in draws])
    weights = np.exp(log_p - log_q - np.max(log_p - log_q))
    weights /= weights.sum()
    is_mean = weights @ draws
    ess = 1.0 / np.sum(weights ** 2)
    print(f"check: adsrc.hessian against the hand-written Hessian: max relative difference {h_err:.1e}")
    print(f"the posterior mean by importance sampling (20000 draws from the Laplace Gaussian, effective "
          f"sample size {ess:.0f}): {np.round(is_mean, 3)},\n  {np.round(np.abs(is_mean - w_map) / std, 2)} "
          "Laplace standard deviations from the mode (the posterior is slightly skewed)")
    if h_err > 1e-10 or not res.success:
        raise SystemExit("the Laplace approximation disagrees with its checks")


if __name__ == "__main__":
    main()
