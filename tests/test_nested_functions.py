"""Nested functions: what Python would refuse is refused as Python would, and what adsrc cannot follow is
refused by name. (Their gradients are checked in cases_nested.py, in every mode.)"""

import numpy as np
import pytest

import adsrc


def unpacks_too_many(x):
    def f(a, b):
        return a * b
    return f(*x)


def test_unpacking_the_wrong_number_of_items_raises_type_error_as_python_does():
    with pytest.raises(TypeError):
        unpacks_too_many(np.ones(3))
    with pytest.raises(TypeError, match=r"unpacks a sequence with `\*` that must hold 2 items"):
        adsrc.grad(unpacks_too_many)(np.ones(3))
    np.testing.assert_allclose(adsrc.grad(unpacks_too_many)(np.array([2.0, 3.0])), [3.0, 2.0], rtol=1e-12)


def extra_arguments_before_the_star(x):
    def f(a, *rest):
        return a * sum(rest)
    return f(x[0], x[1], *x[2:])


def test_extra_arguments_before_a_star_are_refused_naming_the_line():
    with pytest.raises(adsrc.TransformError, match="cannot match the arguments of this call to `f`") as info:
        adsrc.grad(extra_arguments_before_the_star)(np.ones(4))
    assert "return f(x[0], x[1], *x[2:])" in str(info.value)


def counts(x):
    calls = 0

    def g(v):
        nonlocal calls
        calls += 1
        return v * calls
    return g(x) + g(x)


def test_a_nonlocal_counter_is_counted_once_per_call():
    g = adsrc.grad(counts)
    assert counts(2.0) == 6.0
    assert g(2.0) == 3.0 and g(5.0) == 3.0      # d/dx (x * 1 + x * 2), on every call


scale = 100.0       # a module global of the same name as the function's variable below


def class_default_from_the_functions_variable(x):
    scale = 2.0

    class Scaled:
        def f(self, v, k=scale):           # Python: the function's scale (2.0), not the global
            return v * k
    return np.sum(Scaled().f(x))


def test_a_class_reading_the_functions_variable_in_a_default_is_refused_not_given_the_global():
    with pytest.raises(adsrc.TransformError, match="reads the function's variable `scale`"):
        adsrc.grad(class_default_from_the_functions_variable)(np.ones(2))
