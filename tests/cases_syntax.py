"""Python syntax adsrc follows by rewriting it: `:=` in an `if` or `while` test, and `match` statements.

Each is registered with inputs that take different branches and checked against central finite
differences; their inputs must come back unchanged.
"""

import numpy as np

from casekit import Registry, rand

CASES = Registry()
case = CASES.case


@case(np.array([0.5, -0.2, 0.7, 0.1]))
def assignment_expression_in_an_if(x):
    total = 0.0
    for v in x:
        if (sq := v * v) > 0.1:
            total += sq
    return total


@case(np.array([0.3, -0.5, 0.8]), label="several-steps")
@case(np.array([0.01, -0.02, 0.03]), label="no-step")
def assignment_expression_in_a_while_test(x):
    y = x
    n = 0
    m = 0.0
    while (m := np.max(np.abs(y))) > 0.2 and n < 10:
        y = y * 0.7 + 0.01 * m
        n += 1
    return np.sum(y) + m


@case(np.array([0.4, 0.6]), label="both-tests")
@case(np.array([-0.4, 0.6]), label="first-test-fails")
def assignment_expression_after_and(x):
    if np.sum(x) > 0 and (t := np.tanh(x[0])) > 0.1:
        return t * x[1]
    return np.sum(x)


@case(rand(3), "sum", label="sum")
@case(rand(3), "total", label="or-pattern")
@case(rand(3), "other", label="captured")
def match_on_a_string(x, mode):
    match mode:
        case "sum" | "total":
            y = np.sum(x ** 2)
        case "max":
            y = np.max(x)
        case other:
            y = np.mean(x) * len(other)
    return y


@case(rand(3), 0, label="zero")
@case(rand(3), 1, label="one-with-guard")
@case(rand(3), 2, label="default")
def match_on_a_number_with_a_guard(x, k):
    match k:
        case 0:
            return np.sum(np.sin(x))
        case 1 if np.sum(x) > -10.0:
            return np.sum(np.tanh(x)) * 2.0
        case _:
            return np.sum(x * x * x)


@case(np.array([0.5, 1.5]), label="log")
@case(np.array([-0.5, 1.5]), label="handler")
def errstate_raise_decides_the_branch(x):
    with np.errstate(divide="raise", invalid="raise"):
        try:
            y = np.log(x)
        except FloatingPointError:
            y = x * 2.0
    return np.sum(y * y)
