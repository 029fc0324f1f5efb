"""`try` / `except` / `else` / `finally` in differentiated functions, written as people write them.

Each is registered with inputs that take the `try` block's path and inputs that take an `except`
clause's, and checked against central finite differences (inputs must come back unchanged).
"""

import math

import numpy as np

from casekit import Registry, rand

CASES = Registry()
case = CASES.case


@case(rand(3, 3), 1.0, label="positive-definite")
@case(rand(3, 3), -10.0, label="jitter-needed")
def cholesky_with_jitter(A, shift):
    K = A @ A.T + shift * np.eye(3)
    try:
        L = np.linalg.cholesky(K)
    except np.linalg.LinAlgError:
        L = np.linalg.cholesky(K + (1.0 - shift) * 10.0 * np.eye(3))
    return np.sum(np.log(np.diag(L)))


@case(np.array([0.5, -1.5, 2.0, 0.3]))
def math_domain_error_in_a_loop(x):
    s = 0.0
    for v in x:
        try:
            s = s + math.sqrt(v)
        except ValueError:
            s = s - v * v
    return s


@case(np.array([0.5, -1.5]), "a", label="key-present")
@case(np.array([0.5, -1.5]), "b", label="key-missing")
def dict_lookup_with_a_default(x, key):
    d = {"a": x[0] * 2.0}
    try:
        v = d[key]
    except KeyError:
        v = x[1] ** 2
    return v * x[0]


@case(rand(2), 0, label="key-error")
@case(rand(2), 1, label="index-error")
@case(rand(2), 2, label="no-error")
def several_handlers_else_and_finally(x, k):
    try:
        if k == 0:
            raise KeyError("k")
        elif k == 1:
            raise IndexError("i")
        y = np.sin(x)
    except KeyError:
        y = np.cos(x)
    except (IndexError, ValueError) as e:
        y = x * len(str(e))
    else:
        y = y * 3.0
    finally:
        z = 2.0
    return np.sum(y) * z


@case(2.0, label="log")
@case(-2.0, label="handler")
def returns_from_both(x):
    try:
        return math.log(x)
    except ValueError:
        return -x * x


@case(3.0, label="body")
@case(0.5, label="handler")
def bare_except(x):
    try:
        y = 1.0 / (x - 1.0)
        r = math.sqrt(y)
    except:  # noqa: E722  (as users write it)
        r = x ** 3
    return r


def _checked_log(v):
    if v <= 0.0:
        raise ValueError("log of a non-positive number")
    return math.log(v)


@case(np.array([1.5, -0.5, 2.0]))
def exception_raised_by_a_called_function(x):
    total = 0.0
    for v in x:
        try:
            total += _checked_log(v) * v
        except ValueError:
            total += v
    return total


@case(np.array([0.2, 0.4, 0.3]), 3, label="completes")
@case(np.array([0.2, 4.0, 0.3]), 3, label="fails-in-the-loop")
def loop_inside_the_try_block(x, n):
    s = x[0]
    try:
        for i in range(n):
            if x[i] > 1.0:
                raise FloatingPointError("too large")
            s = s * np.cos(x[i]) + x[i]
    except FloatingPointError:
        s = np.sum(x) * 0.5
    return s


@case(1.7, label="converges")
@case(-0.3, label="gives-up")
def try_in_a_while_loop_that_breaks(x):
    y = x
    k = 0
    while k < 5:
        try:
            y = math.sqrt(y) + 0.1 * x
        except ValueError:
            y = y * y
            break
        k += 1
    return y


@case(rand(3))
def nothing_raises_a_dead_value_still_runs(x):
    ok = 1.0
    try:
        np.linalg.cholesky(np.outer(x, x) - np.eye(3))     # never positive definite: always raises
    except np.linalg.LinAlgError:
        ok = 2.0
    return np.sum(x * x) * ok


@case(rand(3))
def nested_helper_with_a_try(x):
    def safe_log(v):
        try:
            r = math.log(v)
        except ValueError:
            r = v
        return r
    return sum(safe_log(v) for v in x)


@case(2.0, [1.0, 2.0], label="list-shorter-than-the-loop")
@case(2.0, [1.0, 2.0, 3.0, 4.0, 5.0], label="list-long-enough")
def index_error_ends_the_loop(x, data):
    total = 0.0
    for i in range(5):
        try:
            val = data[i]            # assigned before the block's last statement, read only inside it
            total += val * x
        except IndexError:
            break
    return total


def _made_by_a_helper(v):
    return np.cumsum(v * np.array([0.3, -0.2, 0.7]))


@case(rand(3), 0.4)
def try_whose_value_nothing_reads(xs, s):
    try:
        y = s * 2.0
    except Exception:
        y = _made_by_a_helper(s)          # a call adsrc keeps: both branches still bind y
    else:
        y = y * 0.5
    return np.mean(xs * xs)


@case(np.array([0.4, -0.3, 0.9]), 1.0, label="positive-definite")
@case(np.array([0.4, -0.3, 0.9]), -0.05, label="retried-until-jitter-0.1")
def retry_with_jitter_then_break(x, shift):
    K = np.outer(x, x) + shift * np.eye(3)
    jitter = 1e-8
    for _ in range(20):
        try:
            L = np.linalg.cholesky(K + jitter * np.eye(3))
            break                    # the block's last statement that may raise assigns L
        except np.linalg.LinAlgError:
            jitter *= 10.0
    return np.sum(L ** 2) + np.sum(np.log(np.diag(L)))


@case(np.array([0.5, 2.0]), label="body")
@case(np.array([-0.5, 2.0]), label="handler")
def helper_returns_from_the_block(x):
    def safe(v):
        try:
            r = math.log(v[0]) * v[1]
            return r
        except ValueError:
            return v[1] ** 2
    return safe(x)
