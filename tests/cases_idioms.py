"""Ordinary idioms of users' code that adsrc refused or got wrong (found by probing with programs written in
the styles of PyTorch training loops, scikit-learn estimators, configuration objects and compatibility
shims). Checked against central finite differences by test_changes.py and in forward mode by test_forward.py.
"""

import numpy as np

from casekit import Registry, rand

CASES = Registry()
case = CASES.case


# -- a function that one NumPy has and another has not, chosen where it runs

@case(np.linspace(0.0, 1.0, 6) ** 2)
def trapezoid_of_this_numpy_or_trapz_of_an_older_one(f):
    t = np.linspace(0.0, 1.0, 6)
    area = np.trapezoid(f, t) if hasattr(np, "trapezoid") else np.trapz(f, t)
    return area + np.sum(np.gradient(f, t) ** 2)


@case(rand(3))
def a_missing_function_in_a_branch_never_taken(x):
    if np.sum(x ** 2) > 1e6:
        return np.trapz(x)
    return np.sum(np.sin(x))
