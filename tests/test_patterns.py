"""Common ways people write NumPy code: dict views, iterables, list()/tuple(), methods of objects."""

import functools

import numpy as np
import pytest

import adsrc
from adsrc.checks import check_grads
from casekit import rand

PARAMS = {"a": rand(3), "bb": rand(3)}


def l2_over_values(params):
    return sum(np.sum(v ** 2) for v in params.values())


def loop_over_items(params):
    out = 0.0
    for k, v in params.items():
        out = out + np.sum(v) * len(k)
    return out


def loop_over_keys(params):
    out = 0.0
    for k in params.keys():
        out = out + np.sum(params[k] * 2.0)
    return out


def loop_over_generator(xs):
    total = 0.0
    for v in (x * 2.0 for x in xs):
        total = total + v * v
    return total


def list_and_tuple_conversions(x):
    rows = list(x)
    pair = tuple([x[0], x[1]])
    return rows[0] * rows[-1] + pair[0] * 3.0 + np.sum(np.array(list(x)) ** 2)


def loop_over_dict(params):
    out = 0.0
    for k in params:                          # a dict iterates its keys
        out = out + np.sum(params[k] ** 2) * len(k)
    for i, k in enumerate(params):
        out = out + np.sum(params[k]) * i
    return out


def loop_over_int_keyed_dict_and_set(params):
    order = {0: 2, 1: 0, 2: 1}                # int keys: params["a"][k] must use keys, not values
    out = 1.0
    for k in order:
        out = out * params["a"][k] + 1.0
    for i in {2, 0}:
        out = out + params["bb"][i] ** 2
    return out


@pytest.mark.parametrize("fn", [l2_over_values, loop_over_items, loop_over_keys, loop_over_dict,
                                loop_over_int_keyed_dict_and_set])
def test_dict_views(fn):
    check_grads(fn, (PARAMS,), full=True)


def test_iterating_a_generator_and_conversions():
    check_grads(loop_over_generator, (rand(4),), full=True)
    check_grads(list_and_tuple_conversions, (rand(3),), full=True)


def zip_star(params):
    total = 0.0
    for a, b in zip(*[params["a"], params["bb"]]):
        total = total + a * b
    return total


def test_zip_of_unpacked_lists():
    check_grads(zip_star, (PARAMS,), full=True)


class Model:
    def __init__(self, scale):
        self.scale = scale
        self.W = np.array([[1.0, 2.0], [0.5, -1.0]])

    def predict(self, x):
        return np.tanh(self.W @ x) * self.scale

    def loss(self, x, target):
        return np.sum((self.predict(x) - target) ** 2)


MODEL = Model(2.0)


def uses_global_model(x):
    return np.sum(MODEL.predict(x) ** 2)


def test_bound_methods():
    m = Model(1.5)
    x, t = np.array([0.3, -0.2]), np.array([0.1, 0.2])
    check_grads(m.loss, (x, t), full=True)
    check_grads(m.loss, (x, t), argnums=1, full=True)
    g = adsrc.grad(m.loss)
    g(x, t)
    g(x, t)
    assert g.cache_info().misses == 1
    assert "predict_vjp" in g.source(x, t)           # self.predict was followed
    other = Model(3.0)
    np.testing.assert_allclose(adsrc.grad(other.loss)(x, t),
                               adsrc.grad(Model.loss, argnums=1, static_argnums=0)(other, x, t))


def test_method_of_a_global_object():
    check_grads(uses_global_model, (np.array([0.3, -0.2]),), full=True)


def square(v):
    return v * v


def apply_twice(f, x):
    return f(f(x))


def integrate(f, a, n):
    h = 1.0 / n
    total = 0.0
    for i in range(n):
        total = total + f(a + i * h) * h
    return total


def higher_order(x):
    return np.sum(apply_twice(square, x)) + np.sum(apply_twice(np.sin, x)) + integrate(np.exp, x[0], 5)


def test_functions_passed_as_arguments():
    check_grads(higher_order, (rand(3),), full=True)
    src = adsrc.grad(higher_order).source(rand(3))
    assert "square_vjp" in src and "def apply_twice_vjp" in src


def conj_alias(x):
    y = x * 1.0
    c = y.conj()                    # y itself for real arrays
    y[0] = 0.0
    return np.sum(c * x)


def einsum_alias(x):
    y = x * 1.0
    d = np.einsum("ii->i", y)       # a view of y's diagonal
    y[0, 0] = 0.0
    return np.sum(d * d)


@pytest.mark.parametrize("fn,arg", [(conj_alias, np.array([1.0, 2.0, 3.0])),
                                    (einsum_alias, np.array([[1.0, 2.0], [3.0, 4.0]]))])
def test_views_from_rule_functions_see_changes_to_their_array(fn, arg):
    # Python changes the array the view shows; adsrc takes the view again from the new value
    before = arg.copy()
    check_grads(fn, (arg,), full=True)
    assert np.array_equal(arg, before)


def softplus(v):
    return np.log1p(np.exp(v))


ACTIVATIONS = {"tanh": np.tanh, "softplus": softplus, "sin": np.sin}
LAYERS = (np.cos, square)


def activation_table(x, kind):
    return np.sum(ACTIVATIONS[kind](x)) + np.sum(LAYERS[1](x)) + np.sum(ACTIVATIONS["sin"](x))


@pytest.mark.parametrize("kind", ["tanh", "softplus"])
def test_function_tables_indexed_by_static_keys(kind):
    x = rand(3)
    check_grads(activation_table, (x, kind), static_argnames="kind", full=True)
    src = adsrc.grad(activation_table, static_argnames="kind").source(x, kind)
    assert ("softplus_vjp" in src) == (kind == "softplus")


def doubled(f):
    @functools.wraps(f)
    def wrapper(x):
        return 2.0 * f(x)
    return wrapper


@doubled
def doubled_square(x):
    return x ** 2


def calls_doubled(x):
    return doubled_square(x) + x


def test_decorator_wrappers_are_differentiated_as_written():
    # the wrapper changes the value: differentiating the undecorated function would be wrong
    assert adsrc.grad(doubled_square)(1.5) == pytest.approx(6.0)
    assert adsrc.grad(calls_doubled)(1.5) == pytest.approx(7.0)
    check_grads(calls_doubled, (0.7,))


def copies_first(buf, v):
    buf = buf.copy()
    buf[0] = v
    return buf


def grows_a_local_list(v):
    out = [v]
    out.append(v * 2.0)
    return out[0] + out[1]


def bumps_a_number(v, n):
    n += 1
    return v * n


def copies_in_a_loop(v):
    acc = v
    for _ in range(3):
        acc = acc.copy()
        acc[0] = acc[0] * 2.0
    return acc


def fills_constant(buf, value):
    buf[1] = value


def changes_that_stay_local_or_run_as_written(x):
    y = copies_first(np.zeros(3), x[1])
    mask = np.ones(3)
    fills_constant(mask, 0.5)                # no differentiated argument: runs as written
    print("norm", np.linalg.norm(x))         # effects on nothing adsrc tracks
    return (np.sum(y * x) + np.sum(grows_a_local_list(x)) + np.sum(bumps_a_number(x, 2))
            + np.sum(copies_in_a_loop(x) * x) + np.sum(mask * x))


def test_changes_in_place_that_stay_local_are_differentiated(capsys):
    g = check_grads(changes_that_stay_local_or_run_as_written, (rand(3),), full=True)
    assert "norm" in capsys.readouterr().out
    x = np.array([1.0, 2.0, 3.0])
    # d/dx of x1*x0, 3x, 3x, 8x0^2 + x1^2 + x2^2 and the mask [1, 0.5, 1]
    expected = np.array([x[1], x[0], 0.0]) + 3.0 + 3.0 + np.array([16.0 * x[0], 2.0 * x[1], 2.0 * x[2]]) \
        + np.array([1.0, 0.5, 1.0])
    np.testing.assert_allclose(adsrc.grad(changes_that_stay_local_or_run_as_written)(x), expected)
    assert g.shape == (3,)
