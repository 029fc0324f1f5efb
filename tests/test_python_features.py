"""Outputs that are arrays of one element, and iterators read twice or late (refused by name). The gradients of
the other Python features ordinary programs use are checked, in every mode, in cases_python_features.py."""

import sys
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
import pytest

import adsrc
from adsrc.errors import TransformError
from casekit import central_grad

A = np.array([[2.0, 0.5], [0.5, 1.0]])


def quadratic_form_of_a_column_vector(x):
    return 0.5 * x.T @ A @ x          # an array of shape (1, 1)


def row_times_vector(w):
    return np.dot(np.array([[1.0, 3.0]]), w) + np.einsum("ij,j->i", np.array([[2.0, 1.0]]), w) * w[0]


def vector_times_column(w):
    return w @ np.array([[1.0], [2.0]]) * np.sin(w[1])


@pytest.mark.parametrize("fn,x", [(quadratic_form_of_a_column_vector, np.array([[1.0], [2.0]])),
                                  (row_times_vector, np.array([0.3, -0.7])),
                                  (vector_times_column, np.array([0.3, -0.7]))])
def test_an_output_of_one_element_with_dimensions_is_differentiated(fn, x):
    g = adsrc.grad(fn)(x)
    assert g.shape == x.shape and np.all(np.isfinite(g))
    np.testing.assert_allclose(g, central_grad(lambda v: float(np.sum(fn(v))), x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(adsrc.grad(fn, backend="numpy")(x), g, rtol=0, atol=0)


def read_twice(x):
    squares = (v ** 2 for v in x)
    a = sum(squares)
    b = sum(squares)          # 0 in Python
    return a + b


def read_late(x):
    s = 1.0
    scaled = (v * s for v in x)
    s = 2.0                   # Python's generator reads s when it runs: 2
    return sum(scaled)


def read_in_a_loop(x):
    items = map(np.sin, x)
    total = 0.0
    for _ in range(2):
        for v in items:       # empty on the second pass
            total = total + v
    return total


def generator_read_twice(x):
    def gen():
        for v in x:
            yield v * 2.0
    g = gen()
    return sum(g) + max(g, default=0.0)


@pytest.mark.parametrize("fn,line,what", [(read_twice, "b = sum(squares)", "read a second time"),
                                          (read_late, "return sum(scaled)", "after `s` changes"),
                                          (read_in_a_loop, "for v in items:", "read in a loop"),
                                          (generator_read_twice, "return sum(g) + max(g", "read a second time")])
def test_iterators_python_would_find_empty_or_changed_are_refused_by_name(fn, line, what):
    with pytest.raises(TransformError) as info:
        adsrc.grad(fn)(np.array([0.5, 1.0]))
    message = str(info.value)
    assert what in message and line in message and "Make it a list" in message


def test_iterators_read_once_are_followed():
    def f(x):
        pairs = zip(x[:-1], x[1:])
        squares = (v * v for v in x)
        v = 3.0                           # the generator's own v is another variable
        total = 0.0
        for _ in range(2):
            steps = map(np.sin, x)        # made on each pass
            for s in steps:
                total = total + s
        return sum(a * b for a, b in pairs) + sum(squares) * v + total
    x = np.array([0.5, 1.0, -0.3])
    np.testing.assert_allclose(adsrc.grad(f)(x), central_grad(f, x), rtol=1e-6, atol=1e-8)


@dataclass
class Gauss:
    mu: float
    log_sigma: float

    def logpdf(self, x):
        return -0.5 * ((x - self.mu) / np.exp(self.log_sigma)) ** 2 - self.log_sigma

    @property
    def sigma(self):
        return np.exp(self.log_sigma)


class Line(NamedTuple):
    a: float
    b: float

    def __call__(self, x):
        return self.a * x + self.b


def negative_log_likelihood(g, data):
    return -sum(g.logpdf(d) for d in data) + g.sigma


def squared_error(line, xs):
    return np.sum((line(xs) - 1.0) ** 2)


@pytest.mark.parametrize("fn,params,data", [(negative_log_likelihood, Gauss(0.3, -0.2), [0.1, 1.2, -0.5]),
                                            (squared_error, Line(0.5, 0.2), np.array([0.1, 0.5, 0.9]))])
def test_methods_of_a_differentiated_dataclass_or_namedtuple_are_followed(fn, params, data):
    g = adsrc.grad(fn)(params, data)
    assert type(g) is type(params)
    for field in params.__dataclass_fields__ if hasattr(params, "__dataclass_fields__") else params._fields:
        def along(h, field=field):
            value = getattr(params, field) + h
            moved = replace(params, **{field: value}) if hasattr(params, "__dataclass_fields__") else \
                params._replace(**{field: value})
            return fn(moved, data)
        expected = (along(1e-6) - along(-1e-6)) / 2e-6
        np.testing.assert_allclose(getattr(g, field), expected, rtol=1e-6, atol=1e-8)


def next_in_a_nested_function(x):
    def first_two(v):
        it = iter(v)
        a = next(it)
        b = next(it)
        return a * b
    return first_two(x) + first_two(x[1:])


def test_next_in_a_nested_function_is_followed_and_next_python_may_skip_is_refused_by_name():
    x = np.array([0.3, 1.2, 0.8])
    np.testing.assert_allclose(adsrc.grad(next_in_a_nested_function)(x),
                               central_grad(next_in_a_nested_function, x), rtol=1e-6, atol=1e-8)

    def inside_an_expression(v):
        it = iter(v)
        return next(it) * next(it)
    np.testing.assert_allclose(adsrc.grad(inside_an_expression)(x), [x[1], x[0], 0.0], rtol=1e-12)

    def only_if_positive(v):
        it = iter(v)
        return next(it) * (next(it) if v[0] > 0 else 1.0)
    with pytest.raises(TransformError, match=r"advanced by `next` inside an expression"):
        adsrc.grad(only_if_positive)(x)


# -- tables of functions: a key without an entry fails as in Python -------------------------------------------

TABLE = {"sin": np.sin, "cube": lambda v: v ** 3}


def through_global_table(x, kind):
    return np.sum(TABLE[kind](x))


def through_local_list(x, i):
    fs = [np.sin, np.cos]
    return np.sum(fs[i](x))


def test_a_key_a_table_of_functions_lacks_raises_pythons_error():
    x = np.array([0.4, -0.3])
    g = adsrc.grad(through_global_table)
    np.testing.assert_allclose(g(x, "cube"), 3 * x ** 2, rtol=1e-12)
    with pytest.raises(KeyError):
        g(x, "tanh")
    h = adsrc.grad(through_local_list)
    np.testing.assert_allclose(h(x, -1), -np.sin(x), rtol=1e-12)
    with pytest.raises(IndexError):
        h(x, 2)


GROWING = {}            # the table the next test changes


def test_an_entry_added_to_a_table_after_the_transformation_is_refused_not_skipped():
    table = {"sin": np.sin}
    globals()["GROWING"] = table

    def through(x, kind):
        return np.sum(GROWING[kind](x))

    x = np.array([0.4, -0.3])
    g = adsrc.grad(through)
    np.testing.assert_allclose(g(x, "sin"), np.cos(x), rtol=1e-12)
    table["cos"] = np.cos
    with pytest.raises(TypeError, match="gained that entry"):
        g(x, "cos")
    table["sin"] = np.tanh           # an entry replaced: the guards notice, and it is transformed again
    np.testing.assert_allclose(g(x, "sin"), 1 - np.tanh(x) ** 2, rtol=1e-12)


def _product(a, b, c=0.0):
    return a * b + c


def star_of_a_list_grown_through_another_name(x):
    xs = [x, x * 2.0]
    ys = xs
    ys.append(x * 3.0)          # xs has three items now
    return np.sum(_product(*xs))


def test_a_list_grown_through_another_name_is_not_taken_for_its_first_length():
    # `*xs` is passed item by item only when nothing can change xs's length: here it would pass two of three
    with pytest.raises(TransformError, match="cannot match the arguments"):
        adsrc.grad(star_of_a_list_grown_through_another_name)(np.array([0.3, 0.5]))


class _WithActivation:
    def __init__(self, w):
        self.w = w
        self.act = np.tanh          # a field holding a function, not a method

    def lin(self, z):
        return z * self.w

    def __call__(self, x, kind):
        return getattr(self, kind)(x)


def _chosen_by_name(w, x, kind):
    return np.sum(_WithActivation(w)(x, kind))


def test_getattr_with_a_name_known_only_when_the_code_runs():
    # each method of the class is a branch; another attribute (a field holding np.tanh) is found when the
    # code runs, and called as it is (it holds no differentiated value)
    x = np.array([0.3, -0.2, 0.5])
    g = adsrc.grad(_chosen_by_name, argnums=(0, 1))
    for kind in ("lin", "act"):
        gw, gx = g(x, x * 2.0, kind)
        np.testing.assert_allclose(gw, central_grad(lambda w: _chosen_by_name(w, x * 2.0, kind), x),
                                   rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(gx, central_grad(lambda v: _chosen_by_name(x, v, kind), x * 2.0),
                                   rtol=1e-7, atol=1e-9)


def _scaled(w):
    return lambda z: np.tanh(z * w)      # a closure over w


def _factory_by_name(w, x, name):
    return np.sum(getattr(sys.modules[__name__], name)(w)(x))


def _array_method_by_name(w, x, op):
    return np.sum(getattr(w, op)(x))


def test_a_function_found_when_the_code_runs_that_holds_a_differentiated_value_is_refused():
    x = np.array([0.3, -0.2, 0.5])
    # the bound method w.dot, found when the code runs, holds w: its derivative would be lost
    with pytest.raises(TransformError, match=r"holds values of its own") as info:
        adsrc.grad(_array_method_by_name)(x, x, "dot")
    assert "getattr(w, op)(x)" in str(info.value) + "".join(getattr(info.value, "__notes__", []))
    # the closure _scaled(w) returns holds w: refused where it is made
    with pytest.raises(TransformError, match=r"`lambda_1` uses `w`, which is differentiated"):
        adsrc.grad(_factory_by_name)(x, x, "_scaled")
    # w not differentiated: the closure is a constant
    g = adsrc.grad(_factory_by_name, argnums=1)
    np.testing.assert_allclose(g(x, x * 2.0, "_scaled"), central_grad(lambda v: _factory_by_name(x, v, "_scaled"),
                                                                      x * 2.0), rtol=1e-7, atol=1e-9)
    g = adsrc.grad(_array_method_by_name, argnums=1)
    np.testing.assert_allclose(g(x, x * 2.0, "dot"), x, rtol=1e-12)


class _Affine:
    def __init__(self, W, b=0.0):
        self.W, self.b = W, b

    def __call__(self, x):
        return x @ self.W + self.b


def _affine_loss(params, x):
    return np.sum(_Affine(*params)(x) ** 2)


def _affine_dict_loss(params, x):
    return np.sum(_Affine(**params)(x) ** 2)


def test_unpacking_into_a_constructor_is_matched_or_refused_never_dropped():
    W, x = np.array([[0.4, -0.3], [0.2, 0.5]]), np.array([0.7, -0.4])
    # b has a default: the length of *params is not known, and the constructor changes the object
    with pytest.raises(TransformError, match="cannot match the arguments"):
        adsrc.grad(_affine_loss)((W, np.array([0.1, 0.2])), x)
    g = adsrc.grad(_affine_dict_loss)({"W": W}, x)          # b left to its default
    np.testing.assert_allclose(g["W"], central_grad(lambda w: _affine_dict_loss({"W": w}, x), W), rtol=1e-6)
    with pytest.raises(TypeError, match="unexpected keyword argument 'c'"):
        adsrc.grad(_affine_dict_loss)({"W": W, "c": 1.0}, x)


class _NamedAtRunTime:
    def __init__(self, name, v):
        setattr(self, name, v)         # a name known only when the code runs


def _named_at_run_time(x):
    return _NamedAtRunTime("w", x * 2.0).w ** 2


def test_setattr_with_a_name_known_only_when_the_code_runs_is_refused_not_dropped():
    # the constructor's effect was not seen: the gradient was silently zero
    with pytest.raises(TransformError, match=r"cannot follow `setattr\(\.\.\.\)`"):
        adsrc.grad(_named_at_run_time)(0.3)


def test_an_integer_array_in_a_differentiated_dict_gets_a_zero_gradient():
    # it crashed in grad_output (np.float64 taken for a dtype)
    p = {"w": np.array([0.1, 0.2]), "ids": np.array([1, 2])}
    g = adsrc.grad(lambda p: np.sum(p["w"][p["ids"] - 1] ** 2))(p)
    np.testing.assert_allclose(g["w"], [0.2, 0.4], rtol=1e-12)
    assert g["ids"].dtype == np.float64 and not np.any(g["ids"])


class _Flat:
    def __init__(self, flat):
        self.flat = flat                # a field named like an array attribute (it was read as `a.ravel()`)

    def __getitem__(self, name):
        return self.flat[:2] if name == "W" else self.flat[2:]


def _flat_fields(v):
    p = _Flat(v)
    return np.sum(p["W"] ** 2) + np.sum(p["b"]) + np.sum(p.flat * 3.0)


def test_a_field_named_like_an_array_attribute_is_the_objects_field():
    v = np.array([0.7, -0.3, 1.1])
    np.testing.assert_allclose(adsrc.grad(_flat_fields)(v), central_grad(_flat_fields, v), rtol=1e-7, atol=1e-9)


class _Holder:
    def __init__(self, arr):
        self.arr = arr


def _changed_through_the_holder(x):
    y = [x[0], x[1]]
    h = _Holder(y)                      # the constructor keeps y: h.arr is y
    h.arr[0] = h.arr[0] * 3.0
    return y[0] + y[1] * y[0]


def test_a_change_through_an_object_holding_a_local_list_is_seen_through_the_list():
    # the write through h.arr was not seen through y: value and gradient silently wrong
    x = np.array([0.3, 1.2])
    value, g = adsrc.value_and_grad(_changed_through_the_holder)(x)
    assert value == pytest.approx(_changed_through_the_holder(x), rel=1e-12)
    np.testing.assert_allclose(g, central_grad(_changed_through_the_holder, x), rtol=1e-7, atol=1e-9)


class _Keeper:
    def __init__(self, arr):
        self.arr = arr
        self.calls = 0

    def scale(self, s):
        self.calls += 1                 # a number: rebound, no conflict
        self.arr *= s                   # the array the caller holds too, changed in place

    def push(self, v):
        self.arr.append(v)


def _scaled_through_a_method(x):
    y = x.copy()
    h = _Keeper(y)
    h.scale(x[1])
    return np.sum(y ** 2)


def _pushed_through_a_method(x):
    store = []
    h = _Keeper(store)
    h.push(x[0] ** 2)
    return sum(store)


def _counted_only(x):
    y = x * 2.0
    h = _Keeper(np.ones(1))
    h.scale(3.0)                        # changes its own list, not y
    return np.sum(y) * h.calls


def test_a_method_changing_an_array_the_caller_also_holds_is_refused_not_dropped():
    # y's change through h was not seen (value and gradient silently wrong)
    x = np.array([0.3, 1.2])
    for fn in (_scaled_through_a_method, _pushed_through_a_method):
        with pytest.raises(adsrc.TransformError, match="adsrc follows the change into the object but not into"):
            adsrc.grad(fn)(x)
    np.testing.assert_allclose(adsrc.grad(_counted_only)(x), [2.0, 2.0], rtol=1e-12)
