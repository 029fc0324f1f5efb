"""Unsupported code raises errors that name the file, line and construct, and say what to do."""

import sys

import numpy as np
import pytest

import adsrc
import bad_functions as bad
from adsrc import TransformError

HERE = bad.__file__


def line_of(fn, text):
    import inspect
    lines, start = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return start + i
    raise AssertionError(text)


CASES = [
    (bad.uses_try, "try:", "assigns `a` before its last statement, and the `except` clause reads it"),
    (bad.uses_with, "with Doubled(x) as d", "the value of a context manager's __enter__"),
    (bad.defines_class, "class Box", "the class `Box` reads the function's variable `scale`"),
    (bad.appends_unpacked, "lst.append(*[x[0]])", "`.append()` changes its object in place"),
    (bad.appends_to_a_global_objects_list, "HOLDER.items.append(x[0] * 2.0)", "`.append()` changes its object"),
    (bad.evaluates_a_string, 'return eval("np.sum(x * 2.0)")', "`eval` reads or runs code"),
    (bad.makes_a_namedtuple_from_a_variable, 'Pair = collections.namedtuple("Pair", names)',
     "makes a class inside the function"),
]


@pytest.mark.parametrize("fn,line_text,what", CASES, ids=[c[0].__name__ for c in CASES])
def test_unsupported_construct(fn, line_text, what):
    with pytest.raises(TransformError) as info:
        adsrc.grad(fn)(np.array([1.0, 2.0, 3.0]))
    msg = str(info.value)
    assert what in msg
    assert HERE in msg
    assert f"line {line_of(fn, line_text)}" in msg
    assert line_text in msg          # the offending line is shown
    assert "^" in msg                # with a caret under it
    assert len(msg.strip().splitlines()) >= 4  # problem, location, line, caret (+ what to do)


def test_attribute_assignment_is_followed_on_a_copy():
    class Obj:
        pass
    obj = Obj()
    assert adsrc.grad(bad.attribute_assignment)(1.0, obj) == 1.0
    assert not hasattr(obj, "value")        # the caller's object is not changed (copy-on-write)


def test_generator_is_refused():
    with pytest.raises(TransformError, match="generator function"):
        adsrc.grad(bad.generator)(1.0)


def test_generators_that_never_end_or_are_sent_values_are_refused_where_they_are():
    with pytest.raises(TransformError) as info:
        adsrc.grad(bad.uses_endless_generator)(1.0)
    assert "never ends" in str(info.value) and "bad_functions.py" in str(info.value)
    assert "while True" in str(info.value)
    with pytest.raises(TransformError, match="`yield` used as a value"):
        adsrc.grad(bad.uses_sent_generator)(1.0)


def test_function_without_rule_or_source_names_it_and_how_to_add_a_rule():
    with pytest.raises(TransformError) as info:
        adsrc.grad(bad.calls_vectorize)(np.array([1.0, 2.0]))
    msg = str(info.value)
    assert "np.vectorize" in msg and "signature=" in msg
    assert f"line {line_of(bad.calls_vectorize, 'vectorized(x)')}" in msg
    with pytest.raises(TransformError, match=r"doubled|<lambda>.*defvjp"):
        adsrc.grad(bad.calls_no_rule_c_function)(np.array([1.0, 2.0]))


def test_unknown_method_names_it():
    with pytest.raises(TransformError, match=r"\.ptp\(\)"):
        adsrc.grad(bad.unknown_method)(np.array([1.0, 2.0]))


def test_a_function_a_module_does_not_have_is_named_as_python_would():
    with pytest.raises(TransformError) as info:
        adsrc.grad(bad.misspelled_numpy_function)(np.array([1.0, 2.0]))
    msg = str(info.value)
    assert "module `numpy` has no attribute `sine`" in msg and "AttributeError" in msg
    assert "does not know what `np` is" not in msg
    assert HERE in msg and f"line {line_of(bad.misspelled_numpy_function, 'np.sine(x)')}" in msg
    with pytest.raises(AttributeError):
        bad.misspelled_numpy_function(np.array([1.0, 2.0]))     # (what Python says)


def test_method_of_an_object_of_unknown_class():
    x, model = np.array([1.0, 2.0]), bad.Scaler(3.0)
    # the method is found when the code runs, and differentiated then
    np.testing.assert_allclose(adsrc.grad(bad.method_of_an_item_of_an_argument)(x, [model]), [3.0, 3.0])
    # with the object differentiated, its fields' derivatives would be lost: refused where it is called
    with pytest.raises(TransformError, match=r"mark it static") as info:
        adsrc.grad(bad.method_of_an_item_of_an_argument, argnums=1)(x, [model, 2.0])
    assert f"line {line_of(bad.method_of_an_item_of_an_argument, 'model.apply(x)')}" in str(info.value)
    # an argument's class is known: its methods are followed, static or not
    np.testing.assert_allclose(adsrc.grad(bad.method_of_an_argument, static_argnums=1)(x, model), [3.0, 3.0])
    np.testing.assert_allclose(adsrc.grad(bad.method_of_an_argument)(x, model), [3.0, 3.0])


def test_method_of_an_argument_that_is_no_module_is_refused_when_it_runs():
    # `xp.sum(v)` reads like ndarray.sum; when xp is an object with a method of that name the rule would be wrong.
    # A module passed there is static, like a function (test_library_arguments.py): `xp.sum` is NumPy's
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(adsrc.grad(bad.array_namespace_argument)(x, np), 2 * x)
    with pytest.raises(TransformError, match=r"`xp` is an object of type Scaler"):
        adsrc.grad(bad.array_namespace_argument)(x, bad.Scaler(2.0))
    np.testing.assert_allclose(adsrc.grad(bad.array_namespace_argument, static_argnums=1)(x, np), 2 * x)


def test_derivatives_adsrc_cannot_transform_yet_are_refused():
    with pytest.raises(TransformError, match="cannot differentiate again.*not through vjp pullbacks"):
        adsrc.grad(adsrc.vjp(bad.cube, 1.0)[1])(1.0)



def test_grad_of_a_gradient_is_the_second_derivative():
    assert adsrc.grad(bad.cube_grad)(1.5) == pytest.approx(6 * 1.5, rel=1e-12)      # d2/dx2 x^3 = 6x
    with pytest.raises(Exception, match="scalar"):     # value_and_grad returns a pair, not a scalar
        adsrc.value_and_grad(adsrc.value_and_grad(bad.cube))(1.0)


def test_calling_a_gradient_inside_a_differentiated_function_differentiates_it():
    assert adsrc.grad(bad.calls_a_gradient)(1.5) == pytest.approx(12 * 1.5, rel=1e-12)   # d/dx 2 (3 x^2)
    assert bad.calls_a_gradient(2.0) == pytest.approx(24.0)     # called normally it still runs


def test_decorator_wrappers_forwarding_star_args_are_differentiated():
    # d/dx 2 x^2 = 4 x, called directly, through another function, and keyword by keyword
    assert adsrc.grad(bad.decorated)(1.5) == pytest.approx(6.0, rel=1e-12)
    assert adsrc.grad(bad.calls_decorated)(1.5) == pytest.approx(6.0, rel=1e-12)


def test_a_wrapper_changing_its_kwargs_is_refused_with_advice():
    with pytest.raises(TransformError, match=r"decorator's wrapper \(`wrapper`.*__wrapped__") as info:
        adsrc.grad(bad.calls_decorated_popping)(1.5)
    assert "kwargs.pop" in str(info.value) and "cannot match the arguments" in str(info.value)
    assert f"line {line_of(bad.calls_decorated_popping, 'return decorated_popping')}" in str(info.value)


def test_changes_to_objects_adsrc_does_not_own_are_refused():
    with pytest.raises(TransformError, match="an object adsrc does not own") as info:
        adsrc.grad(bad.changes_a_global_array)(np.array([0.5, -1.0, 2.0]))
    assert f"line {line_of(bad.changes_a_global_array, 'w[0] = x[0]')}" in str(info.value)
    assert bad.GLOBAL_W[0] == 1.0                  # and it was not changed


def test_augmented_items_that_are_numbers_or_unshared_are_differentiated():
    def numbers(x):
        lst = [x[0], x[1]]
        lst[0] += 1.0
        lst[1] *= lst[0]
        d = {"a": x * 1.0}
        d["a"] *= 2.0
        return lst[0] * lst[1] + np.sum(d["a"] ** 2)
    x = np.array([0.5, -1.0, 2.0])
    expected = np.array([(x[1] * 2 * (x[0] + 1)) + 8 * x[0], (x[0] + 1) ** 2 + 8 * x[1], 8 * x[2]])
    np.testing.assert_allclose(adsrc.grad(numbers)(x), expected, rtol=1e-12)


def test_nested_function_chosen_by_a_runtime_branch_is_refused():
    x = np.array([0.5, -1.0])
    with pytest.raises(TransformError, match=r"`act` is defined differently depending on the branch") as info:
        adsrc.grad(bad.defines_by_branch)(x, "square")
    assert f"line {line_of(bad.defines_by_branch, 'return np.sum(act(x))')}" in str(info.value)
    assert "static" in str(info.value)
    np.testing.assert_allclose(adsrc.grad(bad.defines_by_branch, static_argnums=1)(x, "square"), 2 * x)
    np.testing.assert_allclose(adsrc.grad(bad.defines_by_branch, static_argnums=1)(x, "sine"), np.cos(x))


@pytest.mark.parametrize("fn,line_text", [
    (bad.passes_a_closure_over_x, "return euler(rhs, 1.0, 0.1, 10)"),
], ids=["passed"])
def test_closures_over_differentiated_values_used_as_values_are_refused(fn, line_text):
    # the gradient through the captured value would be lost (it was silently zero)
    with pytest.raises(TransformError) as info:
        adsrc.grad(fn)(np.array([0.7, 0.2]))
    assert f"line {line_of(fn, line_text)}" in str(info.value)
    assert "`rhs` uses `theta[0]`, which is differentiated, and is passed on as a value" in str(info.value)


def test_a_closure_kept_in_a_list_and_called_from_it_is_differentiated():
    # once refused (its gradient was silently zero before that); a list of functions is a table now
    x = np.array([0.7, 0.2])
    np.testing.assert_allclose(adsrc.grad(bad.stores_a_closure_over_x)(x), [1.0, 0.0], rtol=0, atol=0)


def test_nested_functions_changing_arguments_nobody_reads_again_are_differentiated():
    def f(x):
        def reset_first(a, k):
            a *= k
            a[0] = 1.0
            return a
        y = x * 2.0
        return np.sum(reset_first(x * 1.0, 2.0) ** 2) + np.sum(reset_first(y, 3.0))
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(adsrc.grad(f)(x), [0.0, 8 * x[1] + 6.0, 8 * x[2] + 6.0], rtol=1e-12)


def test_runtime_error_shows_generated_and_user_line():
    with pytest.raises(ValueError) as info:
        adsrc.grad(bad.runtime_error)(np.array([1.0, 2.0, 3.0]))
    tb = info.traceback
    generated = [entry for entry in tb if str(entry.path).startswith("<adsrc ")]
    assert generated, "the traceback should go through the generated code"
    assert "z = y @ ones" in str(generated[-1].statement)
    notes = "\n".join(getattr(info.value, "__notes__", [])) if sys.version_info >= (3, 11) else str(info.value)
    assert f"line {line_of(bad.runtime_error, 'z = y @')}" in notes and HERE in notes
    assert "z = y @ np.ones((5, 5))" in notes


def test_function_without_source_says_so():
    namespace = {"np": np}
    exec(compile("def typed_at_prompt(x):\n    return x * 2.0\n", "<stdin>", "exec"), namespace)
    with pytest.raises(TransformError, match="interactive prompt"):
        adsrc.grad(namespace["typed_at_prompt"])(1.0)


def test_non_function_is_refused():
    # np.sin has a rule, so adsrc.grad(np.sin) works (test_callables.py); np.busday_count has none
    with pytest.raises(TransformError, match="only differentiate Python functions"):
        adsrc.grad(np.busday_count)


class _Slicer:
    def get(self, vect, name):          # not dict.get
        return vect[:2] * 2.0


def _through_unknown_get(w, slicer):
    return np.sum(slicer.get(w, "a") ** 2)


def _through_unknown_get_of_an_item(w, tools):
    slicer = tools[0]
    return np.sum(slicer.get(w, "a") ** 2)


def test_a_method_named_like_a_container_method_on_an_unknown_object_is_refused_when_it_runs():
    # adsrc cannot see what `slicer` is: it must not take `.get` for dict.get and drop w's gradient
    with pytest.raises(TransformError, match=r"`slicer.get\(...\)` with its rule .* type _Slicer"):
        adsrc.grad(_through_unknown_get_of_an_item)(np.ones(3), [_Slicer()])
    # passed as an argument, its class is known
    for g in (adsrc.grad(_through_unknown_get, static_argnames="slicer"), adsrc.grad(_through_unknown_get)):
        np.testing.assert_allclose(g(np.ones(3), _Slicer()), [8.0, 8.0, 0.0], rtol=1e-12)


def _bessel_in_its_order(x):
    import scipy.special as sp
    return np.sum(sp.jv(x, 2.0))


def test_a_rule_without_a_derivative_for_an_argument_names_the_users_line():
    with pytest.raises(TransformError) as info:
        adsrc.grad(_bessel_in_its_order)(1.5)
    message = str(info.value)
    assert "with respect to its order" in message
    assert f"line {line_of(_bessel_in_its_order, 'return np.sum(sp.jv(x, 2.0))')}" in message and "^" in message


def test_a_view_reading_the_bytes_as_another_dtype_is_refused_by_name():
    def f(x):
        return np.sum(x.view(np.int64) * 1.0 + x)
    with pytest.raises(TransformError, match=r"\.view\(int64\)"):
        adsrc.grad(f)(np.array([0.5, 1.5]))


def test_functions_appended_over_a_run_time_range_are_differentiated_when_called():
    # each lambda is found when the code runs (adsrc/dynamic_calls.py), and transformed once per `k`
    from adsrc import dynamic_wrappers
    g = adsrc.grad(bad.appends_functions_over_an_unknown_range)
    for x in (np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.5, 2.5, 4.0])):
        expected = 2.0 * x
        expected[-1] = 0.0          # (the range stops before the last element)
        np.testing.assert_allclose(g(x.copy()), expected, rtol=1e-12)
    made = len(dynamic_wrappers._WRAPPERS)
    g(np.array([1.0, 2.0, 3.0]))
    assert len(dynamic_wrappers._WRAPPERS) == made         # the lambdas made on this call are the earlier ones


def test_a_namedtuple_made_from_variables_says_to_define_it_at_module_level():
    with pytest.raises(TransformError, match="Define the namedtuple at module level") as info:
        adsrc.grad(bad.makes_a_namedtuple_from_a_variable)(np.array([1.0, 2.0, 3.0]))
    assert "`eval`" not in str(info.value)         # (not the eval inside collections)
