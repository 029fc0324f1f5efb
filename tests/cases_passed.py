"""Functions defined in the differentiated function and passed to module functions, as numerical code passes
them: a right-hand side to an ODE integrator, a residual to Newton's method, an integrand to a quadrature rule,
a loss to an optimizer step. The functions read the caller's variables (the parameters being differentiated)
as closures do.

Each is registered with inputs and checked against central finite differences; their inputs must come back
unchanged.
"""

import functools

import numpy as np

from casekit import Registry, rand

CASES = Registry()
case = CASES.case


# -- module functions taking a function -------------------------------------------------------------------

def rk4(f, y0, t0, t1, steps):
    h = (t1 - t0) / steps
    y, t = y0, t0
    for _ in range(steps):
        k1 = f(t, y)
        k2 = f(t + h / 2, y + h / 2 * k1)
        k3 = f(t + h / 2, y + h / 2 * k2)
        k4 = f(t + h, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t = t + h
    return y


def newton(g, x0, tol=1e-12, max_iter=50):
    x = x0
    for _ in range(max_iter):
        fx = g(x)
        dfx = (g(x + 1e-7) - g(x - 1e-7)) / 2e-7
        step = fx / dfx
        x = x - step
        if abs(step) < tol:
            break
    return x


def simpson(f, a, b, n=20):
    h = (b - a) / n
    total = f(a) + f(b)
    for i in range(1, n):
        total = total + (4 if i % 2 else 2) * f(a + i * h)
    return total * h / 3


def apply_twice(f, x):
    return f(f(x))


def mapped(f, xs):
    return np.array([f(v) for v in xs])


def integrate_with(solver, rhs, y0):
    """Hands the function on to the next one."""
    return solver(rhs, y0, 0.0, 1.0, 10)


def shrink_step(loss, w, lr=0.1):
    return w - lr * loss(w) * w


def scaled(x, *, fn, scale=2.0):
    return scale * fn(x)


# -- callers -------------------------------------------------------------------------------------------

@case(rand(2))
def ode_decay_with_lambda(p):
    k, y0 = p[0], p[1]
    return rk4(lambda t, y: -k * y, y0, 0.0, 1.0, 8)


@case(rand(3))
def ode_nested_def_reads_two_variables(p):
    a, b = p[0], p[1]

    def rhs(t, y):
        return a * np.sin(y) + b * t

    y = rk4(rhs, np.array([p[2], 0.5]), 0.0, 1.0, 6)
    return np.sum(y ** 2)


@case(rand(2))
def newton_root_of_closure(p):
    a = p[0] + 1.0
    root = newton(lambda x: x ** 3 - a, 1.0)
    return root * p[1]


@case(rand(2))
def simpson_integrand_reads_parameter(p):
    w = p[0]
    return simpson(lambda t: np.exp(-w * t * t), 0.0, 1.0) + p[1] * simpson(lambda t: t ** 2, 0.0, 1.0)


@case(rand(3))
def passed_by_keyword_and_twice(x):
    c = x[0]
    y = apply_twice(lambda v: c * v + np.sin(v), x[1])
    return scaled(x[2], fn=lambda v: v * c, scale=3.0) + y


@case(rand(4))
def passed_down_to_another_function(p):
    k = p[0]
    y = integrate_with(rk4, lambda t, y: -k * y + t, p[1:])
    return np.sum(y)


@case(rand(3))
def closure_over_a_loop_variable(x):
    total = 0.0
    for i in range(3):
        total = total + apply_twice(lambda v: v * x[i], 1.5)
    return total


@case(rand(3))
def mapped_closure(x):
    s = x[0]
    return np.sum(mapped(lambda v: v * s + v ** 2, x))


@case(rand(3))
def optimizer_step_on_a_loss_of_data(w):
    data = np.array([0.5, -1.0, 2.0])

    def loss(v):
        return np.sum((v - data) ** 2) * w[0]

    w1 = shrink_step(loss, w)
    return np.sum(w1 ** 2)


@case(rand(2, low=0.2, high=1.0))        # a positive base: np.power of a negative one is NaN
def partial_of_a_module_function(x):
    f = functools.partial(np.power, x[0])
    return apply_twice(lambda v: f(v) + v, x[1])


@case(rand(2))
def partial_of_a_nested_def(x):
    def shifted(v, shift):
        return np.tanh(v + shift)

    f = functools.partial(shifted, shift=x[0])
    return apply_twice(f, x[1])
