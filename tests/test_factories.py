"""Functions that make functions (`make_step(2.0)(x)`), called with values known when transforming."""

import numpy as np
import pytest

import adsrc
from casekit import central_grad

SCALE = np.array([0.5, -1.5, 2.0])
CALLS = []


def make_step(a):
    return lambda x: x - 0.05 * (x ** 2 - a)


def make_layer(w, b=0.1):
    """A nested def closing over its factory's arguments."""
    def layer(x):
        return np.tanh(w * x + b)
    return layer


def my_grad(f, argnum=0):
    return adsrc.grad(f, argnums=argnum)


def noisy_factory(a):
    CALLS.append(a)                       # an effect: never called early
    return lambda x: x * a


def cube(x):
    return x ** 3


def through_named_factory_result(x):
    step = make_step(2.0)
    return step(step(x))


def through_inline_factory_call(x):
    return np.sum(make_layer(SCALE)(x) ** 2)


def through_keyword_factory_call(x):
    layer = make_layer(w=2.0, b=-0.3)
    return np.sum(layer(x))


def through_a_gradient_factory(x):
    return my_grad(cube)(x) * x           # autograd's `grad(loglike)(r, p(r))` with a wrapper of grad


def through_active_argument(a):
    return make_step(a)(1.0)


def through_noisy_factory(x):
    return noisy_factory(3.0)(x)


DATA = np.linspace(-1.0, 1.0, 5)


def fit_loss(w):
    return np.sum((np.tanh(w * DATA) - DATA) ** 2)


def through_sgd_steps_with_a_local_gradient(w0):
    """Differentiating through a few steps of gradient descent, the gradient made in the function."""
    g = adsrc.grad(fit_loss)
    w = w0
    for _ in range(3):
        w = w - 0.1 * g(w)
    return fit_loss(w)


def with_static_scale(x, k):
    return np.sum(make_layer(k)(x))


@pytest.mark.parametrize("f, x", [
    (through_named_factory_result, 0.7),
    (through_inline_factory_call, np.array([0.3, -0.2, 0.9])),
    (through_keyword_factory_call, np.array([0.3, -0.2])),
    (through_a_gradient_factory, 1.3),
    (through_sgd_steps_with_a_local_gradient, 0.3),
])
def test_functions_made_by_factories_are_differentiated(f, x):
    got = adsrc.grad(f)(x)
    want = central_grad(f, x)
    assert not np.any(np.isnan(got))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_the_second_derivative_through_a_factory():
    g2 = adsrc.grad(adsrc.grad(through_named_factory_result))
    g = adsrc.grad(through_named_factory_result)
    want = (g(0.7 + 1e-5) - g(0.7 - 1e-5)) / 2e-5
    assert np.isclose(g2(0.7), want, rtol=1e-6, atol=1e-8)


def test_static_arguments_reach_the_factory():
    g = adsrc.grad(with_static_scale, static_argnums=1)
    x = np.array([0.1, 0.4])
    for k in (1.0, -2.0):
        np.testing.assert_allclose(g(x, k), central_grad(lambda v: with_static_scale(v, k), x), rtol=1e-6, atol=1e-8)


def named_layer_of_a_differentiated_value(w, x):
    layer = make_layer(w)
    return np.sum(layer(x) ** 2)


def layer_of_a_computed_value(w, x):
    w2 = w * 2.0
    layer = make_layer(w2, b=0.5)
    return np.sum(layer(layer(x)))


def layer_of_a_parameter_bound_again(w, x):
    layer = make_layer(w)
    w = w + 1.0                    # the layer keeps the old w: refused rather than guessed
    return np.sum(layer(x)) + np.sum(w)


def test_a_factory_of_a_differentiated_value_runs_its_body_and_calls_what_it_returns():
    assert np.isclose(adsrc.grad(through_active_argument)(2.0), 0.05, rtol=1e-12)     # d/da of step(1.0)
    w, x = np.array([1.2, 0.7]), np.array([0.3, -0.5])
    for f in (named_layer_of_a_differentiated_value, layer_of_a_computed_value):
        got = adsrc.grad(f)(w, x)
        want = central_grad(lambda v: f(v, x), w)
        assert not np.any(np.isnan(got))
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    src = adsrc.grad(through_active_argument).source()
    assert "make_step_then_call" in src


def layer_of_an_argument_changed_in_place(w, x):
    a = w * 1.0
    layer = make_layer(a)
    a *= 3.0                       # the layer holds the same array: it sees the change, as in Python
    return np.sum(layer(x)) + np.sum(a)


def test_a_factorys_arguments_are_the_values_it_was_called_with():
    # (refused: the factory's arguments are now computed once where it is called, into names nothing rebinds)
    w, x = np.array([1.2, 0.7]), np.array([0.3, -0.5])
    for f in (layer_of_a_parameter_bound_again, layer_of_an_argument_changed_in_place):
        np.testing.assert_allclose(adsrc.grad(f)(w, x), central_grad(lambda v: f(v, x), w), rtol=1e-6, atol=1e-8)


def test_a_factory_with_effects_runs_when_the_code_runs_not_when_transforming():
    CALLS.clear()
    g = adsrc.grad(through_noisy_factory)
    assert g(2.0) == pytest.approx(3.0, rel=1e-12)
    assert CALLS == [3.0]                 # once, as Python calls it: not again when transforming
    g(2.0)
    assert CALLS == [3.0, 3.0]
    assert "noisy_factory_then_call" in g.source()


def _counted(v):
    CALLS.append(v)
    return v


def factory_with_a_call_in_a_default(a):
    return lambda x, k=_counted(2.0): x * a * k        # the default is computed when the lambda is made


def through_a_default_with_an_effect(x):
    return factory_with_a_call_in_a_default(3.0)(x)


def test_a_factory_computing_something_when_it_makes_the_function_is_not_called_early():
    CALLS.clear()
    assert adsrc.grad(through_a_default_with_an_effect)(2.0) == pytest.approx(6.0, rel=1e-12)
    assert CALLS == [2.0]                 # the default, computed once as the call made the lambda


def make_scaled_square(scale):
    def f(v):
        return np.sum(v ** 2) * scale
    return f


def factory_bound_to_a_name_with_a_computed_argument(x):
    g = make_scaled_square(x[0] * 2.0)      # (refused: the argument was not a name bound once)
    h = make_scaled_square(np.sum(x))
    return g(x) + g(x * 0.5) + h(x)


def test_a_factory_called_with_computed_values_then_called_by_name():
    x = np.array([0.3, -0.8, 1.1])
    np.testing.assert_allclose(adsrc.grad(factory_bound_to_a_name_with_a_computed_argument)(x),
                               central_grad(factory_bound_to_a_name_with_a_computed_argument, x),
                               rtol=1e-7, atol=1e-9)
