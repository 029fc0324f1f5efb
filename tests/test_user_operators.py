"""Operators on objects of the user's classes. Where adsrc knows the class it calls the Python operator
method (cases_ordinary.py: operators_of_a_user_class_*), a name bound again to the operator's result too
(the method's returns make one of the class); where it cannot tell (a name bound to what a function returns
that makes no object), the operator, differentiated as arithmetic on numbers, refuses the object when the
code runs instead of giving a wrong gradient."""

import numpy as np
import pytest

import adsrc


class Field:
    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        return Field(self.v * (other.v if isinstance(other, Field) else other))      # not an addition


def rebinds_the_name(x):
    o = Field(x)
    o = o + 3.0
    o = o + 2.0
    return np.sum(o.v)


def new_names(x):
    o = Field(x)
    o2 = o + 3.0
    o3 = o2 + 2.0
    return np.sum(o3.v)


def _same(v):
    return v            # makes no object: the class of what it returns is not known when transforming


def through_an_unknown_function(x):
    o = Field(x)
    o = _same(o)
    o = o + 2.0
    return np.sum(o.v)


def test_an_operator_on_an_object_of_unknown_class_is_refused_when_it_runs():
    with pytest.raises(adsrc.TransformError, match=r"`\+` on `o`.*Field object with its own `__add__`"):
        adsrc.grad(through_an_unknown_function)(np.ones(2))


def test_a_name_bound_again_to_the_operators_result_keeps_its_class():
    x = np.array([0.5, -1.5])
    np.testing.assert_allclose(adsrc.grad(new_names)(x), [6.0, 6.0], rtol=1e-12)
    np.testing.assert_allclose(adsrc.grad(rebinds_the_name)(x), [6.0, 6.0], rtol=1e-12)
    np.testing.assert_allclose(adsrc.jvp(rebinds_the_name, (x,), (np.ones(2),))[1], 12.0, rtol=1e-12)
    assert new_names(x) == rebinds_the_name(x)


def test_numbers_and_arrays_pass_the_check():
    from adsrc.runtime import check_operand
    for value in (1.0, 2, np.ones(3), np.float32(1.0), [1.0], (1.0,), {"a": 1.0}, None):
        assert check_operand(value, "+", "v") is None


def test_forward_mode_refuses_it_too():
    with pytest.raises(adsrc.TransformError, match=r"`\+` on `o`.*Field object"):
        adsrc.jvp(through_an_unknown_function, (np.ones(2),), (np.ones(2),))


class Flip:
    def __init__(self, v):
        self.v = v

    def __neg__(self):
        return Flip(self.v[::-1])


def negates_a_rebound_name(x):
    o = Flip(x * 1.0)
    o = -o
    o = _same(o)
    o = -o
    return np.sum(o.v * np.arange(2.0))


def negated_twice(x):
    o = Flip(x * 1.0)
    o = -o
    o = -o
    return np.sum(o.v * np.arange(2.0))


def test_unary_minus_on_an_object_of_unknown_class_is_refused():
    with pytest.raises(adsrc.TransformError, match=r"`unary -` on `o`.*own `__neg__`"):
        adsrc.grad(negates_a_rebound_name)(np.ones(2))
    np.testing.assert_allclose(adsrc.grad(negated_twice)(np.ones(2)), [0.0, 1.0], rtol=1e-12)


class Scaled:
    def __init__(self, v):
        self.v = v

    def __rmul__(self, k):
        return Scaled(self.v * k * 10.0)               # not a product of numbers


def number_times_object(x):
    return np.sum((2.0 * Scaled(x)).v)


def name_times_object(x, a):
    return np.sum((a * Scaled(x)).v)


def test_a_reflected_operator_is_called_after_a_number_and_checked_after_a_name():
    x = np.array([0.5, -1.5])
    np.testing.assert_allclose(adsrc.grad(number_times_object)(x), [20.0, 20.0], rtol=1e-12)
    # `a` could be an array, whose own `*` Python would call first: adsrc does not guess, and refuses loudly
    with pytest.raises(adsrc.TransformError, match=r"`\*` on .*Scaled object with its own `__rmul__`"):
        adsrc.grad(name_times_object)(x, 2.0)


# -- indexing: v[i] and v[i] = x call the class's own __getitem__ / __setitem__ --------------------------

class Doubled:
    def __init__(self, v):
        self.v = v

    def __getitem__(self, i):
        return self.v[i] * 2.0

    def __len__(self):
        return len(self.v)


class Grid:
    def __init__(self, n):
        self.data = np.zeros(n)

    def __setitem__(self, i, v):
        self.data[i] = v * 2.0

    def __getitem__(self, i):
        return self.data[i]


def indexes_an_object(x):
    v = Doubled(x)
    return sum(v[i] for i in range(len(v))) + v[0] * v[1]


def rebinds_to_a_new_object(x):
    v = Doubled(x)
    v = Doubled(v.v * 2.0)          # the arguments read the old v
    return v[0] + np.sum(v[1:])


def writes_items_of_an_object(x):
    g = Grid(3)
    g[0] = x[0]
    g[1] = x[1] ** 2
    return g[0] * x[2] + g[1]


def _pick(a, b, k):
    return a if k > 0 else b


def indexes_an_object_of_unknown_class(x):
    w = _pick(Doubled(x), None, 1)
    return w[0] + w[1]


@pytest.mark.parametrize("fn", [indexes_an_object, rebinds_to_a_new_object, writes_items_of_an_object])
def test_indexing_an_object_calls_its_class_methods(fn):
    from adsrc.checks import check_grads
    check_grads(fn, (np.array([0.3, -0.5, 0.8]),), rtol=1e-6, atol=1e-9, full=True, modes=("rev", "fwd"))


def test_indexing_an_object_of_unknown_class_is_refused_when_it_runs():
    with pytest.raises(adsrc.TransformError, match=r"`w\[...\]` as indexing .* Doubled object with its own "
                                                   r"`__getitem__`"):
        adsrc.grad(indexes_an_object_of_unknown_class)(np.array([0.3, -0.5, 0.8]))


def writes_an_object_of_unknown_class(x):
    g = _pick(Grid(3), None, 1)
    g[0] = x[0]
    return g.data[0] * x[1]


def test_writing_an_item_of_an_object_of_unknown_class_is_refused_when_it_runs():
    with pytest.raises(adsrc.TransformError, match=r"`g\[...\]` as indexing .* Grid object with its own "
                                                   r"`__setitem__`"):
        adsrc.grad(writes_an_object_of_unknown_class)(np.array([0.3, -0.5, 0.8]))
