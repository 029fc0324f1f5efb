"""Small programs reduced from the gen7 probe (tests/progen_gen7.py), each with inputs that take
different branches. test_gen7_programs.py checks their gradients against central differences.

The first group is what the probe found refused: a function that a nested def of f makes and
returns, called at once (`make(c)(x)`) or through a name (`g = make(c); g(x)`). The rest are
shapes of code the probe generates that passed; they stay here so that they keep passing.
"""

import math

import numpy as np

CASES = []        # (function, list of argument tuples, argnums)


def case(*inputs, argnums=0):
    def deco(fn):
        CASES.append((fn, list(inputs), argnums))
        return fn
    return deco


_X = np.array([0.3, -0.5, 1.2])
_Y = np.array([-1.1, 0.4, 0.7])


# -- functions made by a nested factory ----------------------------------------------------------

@case((_X,), (_Y,))
def factory_called_at_once(x):
    def make(c):
        def g(t):
            return np.sin(t) * c
        return g
    return np.sum(make(2.0)(x))


@case((_X,), (_Y,))
def factory_of_a_lambda_through_a_name(x):
    def make(c):
        return lambda t: np.sin(t) * c
    g = make(2.0)
    return np.sum(g(x))


@case((_X,), (_Y,))
def factory_with_a_differentiated_argument(x):
    def make(c):
        def g(t):
            return np.sin(t) * c
        return g
    return np.sum(make(x[0])(x))


@case((_X,), (_Y,))
def factory_argument_rebound_after_making(x):
    def make(c):
        def g(t):
            return np.sin(t) * c
        return g
    c = x[0]
    g1 = make(c)          # g1 keeps the c it was made with
    g2 = make(2.0)
    c = 5.0
    return np.sum(g1(x) + g2(x)) + c


@case((_X,), (_Y,))
def factory_called_in_a_loop(x):
    def make(c):
        def g(t):
            return np.sin(t) * c
        return g
    tot = 0.0
    for i in range(3):
        tot = tot + np.sum(make(x[i])(x))
    return tot


@case((_X, 1.5), (_Y, -0.5), argnums=(0, 1))
def lambda_making_a_lambda(x, s):
    mk = lambda c: (lambda t: t * c + s)
    return np.sum(mk(s)(x) ** 2)


@case((_X,), (_Y,))
def factory_with_a_branch_inside(x):
    def make(c):
        def g(t):
            if np.sum(t) > 0.5:
                return t * c
            return t * t
        return g
    return np.sum(make(x[2])(x))


# -- shapes of generated code that passed ----------------------------------------------------------

@case((_X,), (_Y,))
def zip_loop_changing_its_element(a):
    t0 = np.sum(a)
    t3 = a[np.array([2, 2])]
    for e5, e6 in zip(t3, t3):
        if np.sum(t3) > 1.0:
            t0 = t0 + np.std(t3 + np.array([0.0, 1.0]))
            continue
        e6 -= 0.5 * min(a)
        t0 = t0 + e6
    return t0


@case((_X, 0.4), (_Y, -0.9), argnums=(0, 1))
def recurrence_in_a_buffer(v, s):
    buf = np.zeros(3)
    buf[0] = v[0]
    for i in range(1, 3):
        buf[i] = buf[i - 1] * np.tanh(s) + v[i]
    return np.sum(buf ** 2)


@case((_X,), (_Y,))
def conditional_appends_then_stack(v):
    parts = []
    for i in range(3):
        if v[i] > 0.0:
            parts.append(v * v[i])
        else:
            parts.append(np.sin(v))
    return np.sum(np.stack(parts) ** 2)


@case((_X * 3,), (_Y,))
def while_on_an_array_norm(v):
    w = v * 1.0
    k = 0
    while np.max(np.abs(w)) > 0.5 and k < 5:
        w = w * 0.7 + 0.01 * np.sum(v)
        k += 1
    return np.sum(w ** 2)


@case((_X, 0.7), (_Y, 2.3), argnums=(0, 1))
def index_from_a_value(v, s):
    t = s + v[int(abs(s * 2)) % 3]
    t = t + np.sum(v[v > s])
    cut = int(np.clip(abs(s) * 2, 1, 3))
    return t + np.sum(v[:cut] ** 2)


@case((np.outer(_X, _Y[:2]),), (np.outer(_Y, _X[:2]),))
def nested_loops_with_break_over_a_matrix(m):
    t = 0.0
    for i in range(3):
        for j in range(2):
            if m[i, j] < -0.5:
                break
            t = t + m[i, j] * (i + j)
    return t + math.tanh(np.sum(m))


@case((_X, 1.1), (_Y, -0.3), argnums=(0, 1))
def swapped_pair_in_a_loop(v, s):
    fa, fb = s, np.sum(v)
    for _ in range(3):
        fa, fb = fb, 0.5 * fa + 0.3 * fb
    return fa * fb


@case((_X,), (_Y,))
def rows_scaled_in_place_through_the_loop(v):
    mc = np.outer(v, v).copy()
    for row in mc:
        row *= 2.0
        row[0] += np.sum(v)
    return np.sum(mc ** 2)


@case((_X,), (_Y,))
def factory_of_a_factory(x):
    def make(a):
        def mid(b):
            return lambda t: a * t + b
        return mid
    return np.sum(make(x[0])(x[1])(x) ** 2)


@case((_X,), (_Y,))
def factory_bound_anew_in_a_loop(x):
    def make(c):
        def g(t):
            return np.tanh(t) * c
        return g
    tot = 0.0
    for i in range(3):
        step = make(x[i])
        tot = tot + np.sum(step(step(x)))
    return tot


def nested_def_returning_a_numpy_function(x):
    """the function pick returns is found when the code runs (test_gen7_programs.py)"""
    def pick(k):
        if k == 1:
            return np.sin
        return np.cos
    return np.sum(pick(1)(x))
