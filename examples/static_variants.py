"""A static argument selects the model variant: each variant is compiled once, with the
choice made when transforming (the other variants' code is not in it)."""

import numpy as np

import adsrc


def model_loss(w, X, y, variant, depth):
    h = X @ w
    for _ in range(depth):                   # depth is static: a constant in each specialization
        h = np.tanh(h)
    if variant == "squared":
        return np.mean((h - y) ** 2)
    elif variant == "absolute":
        return np.mean(np.sqrt((h - y) ** 2 + 1e-6))
    else:
        return np.mean(np.logaddexp(0.0, -y * h))


grad = adsrc.grad(model_loss, static_argnames=("variant", "depth"))


def main():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((100, 4))
    y = np.sign(X @ np.array([1.0, -1.0, 0.5, 2.0]))
    w = rng.standard_normal(4) * 0.1
    for variant in ("squared", "absolute", "logistic"):
        for depth in (1, 2):
            for _ in range(3):                      # repeated calls hit the cache
                g = grad(w, X, y, variant=variant, depth=depth)
            print(f"{variant:>9}, depth {depth}: |grad| = {np.linalg.norm(g):.4f}")
    print(f"6 specializations compiled for 18 calls: {grad.cache_info()}")
    print("\nThe specialization for variant='absolute', depth=2 (no branch left, the loop unrolled):\n")
    print(grad.source(w, X, y, variant="absolute", depth=2))


if __name__ == "__main__":
    main()
