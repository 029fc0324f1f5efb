"""Functions defined inside the differentiated function, written as people write them: `nonlocal`
counters and accumulators, recursive helpers, and helpers taking *args/**kwargs.

Each is registered with inputs (several where branches differ) and checked against central finite
differences; their inputs must come back unchanged.
"""

import numpy as np

from casekit import Registry, pos, rand

CASES = Registry()
case = CASES.case


# -- nonlocal --------------------------------------------------------------------------------------

@case(rand(4))
def nonlocal_accumulator(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v * v

    for i in range(len(x)):
        add(x[i])
    return total


@case(np.array([0.5, -0.7, 1.5, 0.2]), label="mixed-signs")
@case(np.array([0.5, 0.7, 1.5, 0.2]), label="all-positive")
def nonlocal_in_a_branch_and_a_counter(x):
    acc = x[0]
    n = 0

    def step(v):
        nonlocal acc, n
        n += 1
        if v > 0:
            acc = acc * v
        else:
            acc = acc - v
        return acc

    y = 0.0
    for v in x:
        y = y + step(v)
    return y + acc * n


@case(rand(2))
def nonlocal_two_levels_deep(x):
    s = 0.0

    def outer(v):
        t = v

        def inner():
            nonlocal t
            t = t * np.cos(t)

        inner()
        inner()
        nonlocal s
        s = s + t

    outer(x[0])
    outer(x[1] ** 2)
    return s


@case(rand(3))
def nonlocal_through_map(x):
    s = 0.0

    def add(v):
        nonlocal s
        s = s + np.sin(v)

    list(map(add, x))
    return s


@case(1.3, 5)
def nonlocal_in_a_while_loop(x, n):
    state = x
    calls = 0

    def relax():
        nonlocal state, calls
        state = 0.5 * (state + 2.0 / state)
        calls += 1

    while calls < n:
        relax()
    return state * x


# -- recursion ---------------------------------------------------------------------------------------

@case(rand(3))
def recursive_helper(x):
    def power(a, n):
        if n == 0:
            return 1.0
        return a * power(a, n - 1)
    return np.sum(power(x, 3))


@case(rand(3))
def recursive_helper_reading_the_outer_variables(x):
    scale = np.sum(x)

    def f(a, n):
        if n <= 0:
            return a
        return scale * f(np.sin(a), n - 1)
    return np.sum(f(x, 2)) + np.sum(f(x, 1))


@case(rand(3), 5, label="depth-5")
@case(rand(3), 1, label="depth-1")
def recursive_helper_depth_known_when_it_runs(x, n):
    def fib(k):
        if k < 2:
            return x[k % len(x)]
        return fib(k - 1) + 0.5 * fib(k - 2)
    return fib(n)


# -- *args and **kwargs -----------------------------------------------------------------------------

@case(rand(3))
def helper_with_star_args(x):
    def sum_sq(*vs):
        return sum(v * v for v in vs)
    return sum_sq(*x) + sum_sq(x[0], 2.0 * x[1]) + sum_sq()


@case(pos(3))
def helper_with_kwargs(x):
    def f(a, scale=1.0, **opts):
        return scale * a ** opts.get("p", 2)
    return np.sum(f(x, scale=2.0, p=3)) + np.sum(f(x))


@case(rand(3))
def helper_with_every_kind_of_parameter(x):
    def f(a, *rest, k=1.0, **kw):
        t = a * k
        for r in rest:
            t = t + r
        for name in kw:
            t = t * kw[name]
        return t
    return np.sum(f(x, x ** 2, np.sin(x), k=3.0, z=x)) + np.sum(f(x, *[x, x]))


@case(rand(3))
def layer_called_with_unpacked_pairs(x):
    def layer(W, b):
        return np.tanh(W * x + b)

    params = [(x[0], x[1]), (x[2], 0.5)]
    s = 0.0
    for p in params:
        s = s + np.sum(layer(*p))
    return s


@case(rand(3))
def helper_called_with_a_slice_unpacked(x):
    def f(a, b, c=2.0):
        return a * b * c
    return f(*x[:1], b=x[1]) + f(*x[:2], c=3.0) + f(*x)


# -- classes defined in the function --------------------------------------------------------------------

@case(rand(3))
def class_defined_in_the_function(x):
    class Layer:
        def __init__(self, w):
            self.w = w

        def __call__(self, h):
            return np.tanh(self.w * h)

        @property
        def size(self):
            return len(self.w)

    first = Layer(x)
    layers = [first, Layer(x * 0.5)]
    h = 1.0
    for layer in layers:
        h = layer(h)
    return np.sum(h) * first.size + float(isinstance(layers[1], Layer))


@case(rand(3), label="positive")
@case(-pos(3), label="negative")
def dataclass_defined_in_the_function(x):
    from dataclasses import dataclass

    @dataclass
    class Params:
        a: np.ndarray
        b: float

        def energy(self):
            if np.sum(self.a) > 0.0:
                return np.sum(self.a ** 2) * self.b
            return np.sum(np.sin(self.a)) * self.b

    return Params(x, 2.0).energy()
