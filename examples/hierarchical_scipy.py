"""A hierarchical model written with SciPy's distributions: its MAP with scipy.optimize, then HMC.

The "eight schools" data (Rubin, 1981): each school j reports an effect y_j with standard error
sigma_j; the true effects theta_j share a population mean mu and spread tau:

    mu ~ Normal(0, 5),  tau ~ HalfCauchy(5),  theta_j = mu + tau * eta_j,  eta_j ~ Normal(0, 1),
    y_j ~ Normal(theta_j, sigma_j)          (the non-centered parametrization)

The log-posterior below is plain NumPy and scipy.stats code over the unconstrained parameters
(mu, log tau, eta). adsrc differentiates it (the gradient is checked against finite differences),
scipy.optimize.minimize uses that gradient to find the mode, and a short Hamiltonian Monte Carlo
run (the leapfrog scheme of hmc_sampler.py) samples the posterior.
"""

import pathlib
import sys

import numpy as np
import scipy.optimize
from scipy import stats

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))     # this checkout's adsrc
import adsrc  # noqa: E402

Y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
SIGMA = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])


def log_posterior(params):
    mu, log_tau, eta = params[0], params[1], params[2:]
    tau = np.exp(log_tau)
    theta = mu + tau * eta
    lp = stats.norm.logpdf(mu, 0.0, 5.0)
    # half-Cauchy(5) on tau (twice the Cauchy density on tau > 0), plus log|d tau / d log tau| = log tau
    lp = lp + stats.cauchy.logpdf(tau, 0.0, 5.0) + np.log(2.0) + log_tau
    lp = lp + np.sum(stats.norm.logpdf(eta))
    return lp + np.sum(stats.norm.logpdf(Y, theta, SIGMA))


grad_log_posterior = adsrc.grad(log_posterior)


def negative(params):
    return -log_posterior(params)


def negative_grad(params):
    return -grad_log_posterior(params)


def find_mode(x0):
    with_grad = scipy.optimize.minimize(negative, x0, jac=negative_grad, method="L-BFGS-B")
    without = scipy.optimize.minimize(negative, x0, method="L-BFGS-B")       # finite-difference gradients
    return with_grad, without


def hmc(x0, n_samples, step=0.2, n_steps=8, seed=0):
    rng = np.random.default_rng(seed)
    x = np.array(x0, dtype=float)
    samples, accepted = [], 0
    for _ in range(n_samples):
        p0 = rng.standard_normal(x.shape)
        x_new = x.copy()
        p = p0 + 0.5 * step * grad_log_posterior(x_new)
        for i in range(n_steps):
            x_new = x_new + step * p
            if i < n_steps - 1:
                p = p + step * grad_log_posterior(x_new)
        p = p + 0.5 * step * grad_log_posterior(x_new)
        current = log_posterior(x) - 0.5 * np.sum(p0 * p0)
        proposed = log_posterior(x_new) - 0.5 * np.sum(p * p)
        if np.log(rng.uniform()) < proposed - current:
            x, accepted = x_new, accepted + 1
        samples.append(x.copy())
    return np.array(samples), accepted / n_samples


def main():
    x0 = np.zeros(2 + len(Y))
    adsrc.check_grads(log_posterior, (x0 + 0.3,), full=True, rtol=1e-6, atol=1e-8)
    print("gradient of the log-posterior agrees with finite differences (all 10 coordinates)")

    with_grad, without = find_mode(x0)
    assert with_grad.success, with_grad.message
    assert np.allclose(with_grad.x, without.x, atol=1e-3)
    mu, tau = with_grad.x[0], np.exp(with_grad.x[1])
    print(f"posterior mode: mu = {mu:.3f}, tau = {tau:.3f}, log-posterior {-with_grad.fun:.4f}")
    print(f"L-BFGS-B function evaluations: {with_grad.nfev} with adsrc's gradient, "
          f"{without.nfev} with finite differences")

    samples, rate = hmc(with_grad.x, n_samples=150)
    kept = samples[30:]
    print(f"HMC: acceptance rate {rate:.2f}; posterior means mu = {kept[:, 0].mean():.2f}, "
          f"tau = {np.exp(kept[:, 1]).mean():.2f}; theta = "
          + ", ".join(f"{t:.1f}" for t in (kept[:, :1] + np.exp(kept[:, 1:2]) * kept[:, 2:]).mean(axis=0)))
    assert 0.3 < rate <= 1.0


if __name__ == "__main__":
    main()
