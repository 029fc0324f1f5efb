"""A module of the user's own whose functions a program chooses by name when it runs (cases_science.py)."""

import numpy as np


def softplus(z):
    return np.log1p(np.exp(z))


def cube(z):
    return z ** 3
