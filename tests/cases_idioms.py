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
        return np.product(x)        # (removed in NumPy 2.0; np.trapz, still in 2.2, is gone from 2.4)
    return np.sum(np.sin(x))


# -- a set comprehension (of keys, of indices)

@case(np.array([0.3, -1.2, 0.8]))
def set_comprehensions_of_keys_and_indices(x):
    d = {f"k{i}": v ** 2 for i, v in enumerate(x)}
    keys = sorted({k for k in d if k != "k1"})
    parities = {i % 2 for i in range(len(x))}
    return sum(d[k] for k in keys) + sum(np.sum(x[p] ** 3) for p in sorted(parities))


# -- a function chosen by a condition known only when the code runs (a configuration's field)

def _relu(z):
    return np.maximum(z, 0.0)


def _twice(fn, v):
    return 2.0 * fn(v) + fn(v * 0.5)


@case(np.array([0.3, -0.7, 1.2]), "tanh", label="tanh")
@case(np.array([0.3, -0.7, 1.2]), "square", label="lambda")
@case(np.array([0.3, -0.7, 1.2]), "relu", label="relu")
def activation_chosen_by_a_conditional_expression(x, kind):
    act = np.tanh if kind == "tanh" else (lambda z: z ** 2) if kind == "square" else _relu
    return np.sum(act(x) * act(2.0 * x))


@case(np.array([0.3, -0.7, 1.2]), "tanh", label="tanh")
@case(np.array([0.3, -0.7, 1.2]), "relu", label="relu")
@case(np.array([0.3, -0.7, 1.2]), "softplus", label="nested_def")
def activation_chosen_by_if_elif_else_with_a_raise(x, kind):
    def softplus(z, t=2.0):
        return np.log1p(np.exp(t * z)) / t
    if kind == "tanh":
        act = np.tanh
        scale = 1.0
    elif kind == "relu":
        act = _relu
        scale = 2.0
    elif kind == "softplus":
        act = softplus
        scale = 0.5
    else:
        raise ValueError(f"unknown activation {kind!r}")
    return scale * np.sum(act(x) ** 2)


@case(np.array([0.3, -0.7, 1.2]), True, label="smooth")
@case(np.array([0.3, -0.7, 1.2]), False, label="sine")
def chosen_function_passed_to_a_helper(x, smooth):
    act = np.tanh if smooth else np.sin
    return np.sum(_twice(act, x)) + np.sum(_twice(fn=act, v=x ** 2))


# -- a name bound to several functions: a default overridden in a branch, rebindings in sequence

def _mse(r):
    return np.mean(r ** 2)


def _huber(r, d=1.0):
    a = np.abs(r)
    return np.mean(np.where(a < d, 0.5 * r ** 2, d * (a - 0.5 * d)))


@case(np.array([0.3, -2.5, 1.2, 0.1]), False, label="default")
@case(np.array([0.3, -2.5, 1.2, 0.1]), True, label="overridden")
def loss_function_default_overridden_in_a_branch(r, robust):
    loss_fn = _mse
    if robust:
        loss_fn = _huber
    return loss_fn(r) + loss_fn(2.0 * r)


@case(np.array([0.3, -0.7, 1.2]))
def a_nested_def_then_a_module_function_then_a_lambda_under_one_name(x):
    def sq(z):
        return z * z
    act = sq
    y = act(x)
    act = np.sin
    y = y + act(x)
    k = 3.0
    act = lambda z: k * z ** 3
    k = 0.5                        # the lambda reads k when it is called, as Python does
    return np.sum(y * act(x))


@case(np.array([0.3, -0.7, 1.2]))
def a_function_rebound_inside_a_loop_and_called_before_the_rebinding(x):
    step = np.tanh
    for i in range(3):
        x = step(x) + 0.1 * x
        step = np.sin if i == 0 else np.cos
    return np.sum(step(x))
