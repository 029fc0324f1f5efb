"""What adsrc says about scientific programs it cannot follow as written: the user's file, line and construct,
and what to do instead (the programs it now follows are in cases_science.py)."""

import numpy as np
import pytest

import adsrc


class _Acts:
    scale = 2.0

    @staticmethod
    def relu(z):
        return np.maximum(z, 0.0)


def _taken_by_name(x, name):
    act = getattr(_Acts, name)
    return np.sum(act(x))


def test_a_name_the_class_lacks_raises_pythons_attribute_error_when_it_runs():
    with pytest.raises(AttributeError, match="nope"):
        adsrc.grad(_taken_by_name)(np.array([0.3, -0.2]), "nope")


def test_an_attribute_that_is_not_a_function_is_refused_at_the_call():
    with pytest.raises(adsrc.TransformError) as info:
        adsrc.grad(_taken_by_name)(np.array([0.3, -0.2]), "scale")
    message = str(info.value)
    assert "test_science_programs.py" in message and "return np.sum(act(x))" in message
    assert "static" in message


def _rebinds_its_function(x):
    def apply(v, fn):
        fn = fn if v.size > 2 else np.cos
        return fn(v)
    return np.sum(apply(x, np.sin))


def test_a_nested_def_that_rebinds_a_function_parameter_is_refused_where_it_calls_it():
    with pytest.raises(adsrc.TransformError) as info:
        adsrc.grad(_rebinds_its_function)(np.array([0.3, -0.2, 0.5]))
    message = str(info.value)
    assert "test_science_programs.py" in message and "return fn(v)" in message


def _copy_reads_late(x):
    k = 1.0

    def apply(v, fn):
        return fn(v) * k
    k = 3.0                             # the call reads k when it runs, as Python does
    return np.sum(apply(x, np.sin))


def test_a_copy_for_a_passed_function_reads_free_variables_when_called():
    x = np.array([0.3, -0.2])
    np.testing.assert_allclose(adsrc.grad(_copy_reads_late)(x), 3.0 * np.cos(x), rtol=1e-12)
