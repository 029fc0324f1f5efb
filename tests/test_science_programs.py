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


def test_an_attribute_that_is_not_a_function_raises_pythons_type_error_at_the_call():
    with pytest.raises(TypeError, match="not callable") as info:
        adsrc.grad(_taken_by_name)(np.array([0.3, -0.2]), "scale")
    message = str(info.value) + "".join(getattr(info.value, "__notes__", []))
    assert "test_science_programs.py" in message and "return np.sum(act(x))" in message


def test_a_static_method_taken_by_a_run_time_name_is_differentiated():
    x = np.array([0.3, -0.2])
    np.testing.assert_allclose(adsrc.grad(_taken_by_name)(x, "relu"), [1.0, 0.0])


def _rebinds_its_function(x):
    def apply(v, fn):
        fn = fn if v.size > 2 else np.cos
        return fn(v)
    return np.sum(apply(x, np.sin))


def test_a_nested_def_that_rebinds_a_function_parameter_calls_what_python_calls():
    # the function `fn` holds is found when the code runs: np.sin for three elements, np.cos for two
    for x, derivative in ((np.array([0.3, -0.2, 0.5]), np.cos), (np.array([0.3, -0.2]), lambda v: -np.sin(v))):
        np.testing.assert_allclose(adsrc.grad(_rebinds_its_function)(x.copy()), derivative(x), rtol=1e-12)


def _copy_reads_late(x):
    k = 1.0

    def apply(v, fn):
        return fn(v) * k
    k = 3.0                             # the call reads k when it runs, as Python does
    return np.sum(apply(x, np.sin))


def test_a_copy_for_a_passed_function_reads_free_variables_when_called():
    x = np.array([0.3, -0.2])
    np.testing.assert_allclose(adsrc.grad(_copy_reads_late)(x), 3.0 * np.cos(x), rtol=1e-12)


import dataclasses                                   # noqa: E402


@dataclasses.dataclass
class _Inner:
    k: np.ndarray


@dataclasses.dataclass
class _Outer:
    part: object
    w: np.ndarray


def _asdict_of_an_unknown_inner(x, i):
    parts = [_Inner(x), _Inner(2.0 * x)]
    chosen = parts[i] if i < 2 else 3.0           # an _Inner or a float: its class is not known
    outer = _Outer(chosen, x)
    return np.sum(dataclasses.asdict(outer)["w"] ** 2)


def _asdict_of_a_construction(x):
    return np.sum(dataclasses.asdict(_Inner(x))["k"] ** 2)


def test_asdict_of_an_object_whose_class_is_not_known_is_refused_saying_what_to_write():
    with pytest.raises(adsrc.TransformError) as info:
        adsrc.grad(_asdict_of_a_construction)(np.array([0.3, -0.2]))
    message = str(info.value)
    assert "test_science_programs.py" in message and "dataclasses.asdict(_Inner(x))" in message
    assert "Bind the object to a name first" in message


def test_asdict_with_a_field_holding_a_dataclass_of_a_class_unknown_when_transforming_is_refused_when_it_runs():
    with pytest.raises(adsrc.TransformError) as info:
        adsrc.grad(_asdict_of_an_unknown_inner)(np.array([0.3, -0.2]), 1)
    message = str(info.value)
    assert "test_science_programs.py" in message and "_Inner" in message and "Write the dict" in message


def _rows_normalized(X):
    n = np.linalg.norm(X, axis=1, keepdims=True)
    unit = X / np.where(n > 0, n, 1.0)
    w = np.array([1.0, -2.0, 0.5])
    return np.sum((unit @ w) ** 2) + np.sum(np.where(n > 0, n, 0.0) * np.array([[1.0], [2.0], [3.0]]))


def test_a_zero_norm_guarded_by_where_has_a_finite_gradient():
    # (the norm's cotangent was g * x / 0 at the zero row: 0 * NaN = NaN through the unselected branch; now 0 there,
    # as |x|'s is at 0, which central differences also give); first order only: the row's Hessian does not exist
    from casekit import central_grad
    X = np.array([[0.0, 0.0, 0.0], [0.3, -0.4, 1.2], [2.0, 0.5, -1.0]])
    g = adsrc.grad(_rows_normalized)(X)
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, central_grad(_rows_normalized, X), rtol=1e-6, atol=1e-7)
    _, t = adsrc.jvp(_rows_normalized, (X,), (np.ones_like(X),))
    assert np.isfinite(t)


def _compose(f, g):
    return lambda x: g(f(x))


def _composed_with_a_lambda(x):
    h = _compose(np.sin, lambda z: z * 2)
    return np.sum(h(x))


def test_a_factory_given_a_module_function_and_a_lambda_is_differentiated():
    # (once an AttributeError inside adsrc: np.sin held as a copy of a name; then refused; now the closure
    # the factory returns is found when the code runs and differentiated then)
    x = np.array([0.3, -0.2])
    np.testing.assert_allclose(adsrc.grad(_composed_with_a_lambda)(x.copy()), 2.0 * np.cos(x), rtol=1e-12)
