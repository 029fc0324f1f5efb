"""Forward mode (adsrc.jvp) and forward over reverse (Hessian-vector products) on every gradient case file."""

import pytest

import adsrc
from fwdkit import all_cases, check_hvp, check_jvp, nums_of

CASES = [c for c in all_cases() if all(i < len(c.args) for i in nums_of(c))]

# Second derivatives adsrc does not take yet, each refused with an error naming the construct.
# Calls to other user functions: their first-order code returns a pullback closure, which a
# transformation of that code cannot follow yet.
HVP_REFUSED = {
    "append_to_items_of_containers[append-to-items]", "callee_changes_its_argument", "callee_changes_its_own_array",
    "calls_add_into", "calls_append_twice", "calls_fill_first", "calls_fill_first_and_return",
    "calls_module_function", "calls_recursive", "fresh_array_passed_to_a_callee", "function_in_a_default_argument",
    "generator_helper_consumed_by_a_loop", "generators_with_return_and_yield_from", "keyword_arguments",
    "kind_depends_on_branch_in_a_callee[array]", "kind_depends_on_branch_in_a_callee[number]",
    "layers_reading_their_weights_through_a_parser_object", "method_calling_a_method_through_a_function",
    "methods_of_objects_in_a_list_enumerated_zipped_reversed", "methods_of_objects_in_a_module_list",
    "numpy_scalar_result_indexed_like_an_array", "ode_final_energy[rk4]", "partial_binding_a_differentiated_value",
    "partial_called_where_it_is_made", "partial_with_a_keyword", "recursion_with_branch[recursive]",
    "star_args_helper_with_a_function_argument", "user_function_in_loop[calls-in-loop]",
}
# Transforming this gradient's code takes minutes (the alias analysis of its many views); not run.
HVP_TOO_SLOW = {"halving_a_view_while_iterating_its_base"}


def _hvp_cases():
    import numpy as np
    out = []
    for c in CASES:
        if not isinstance(c.argnums, int) or c.kwargs or c.id in HVP_TOO_SLOW:
            continue
        x = c.args[c.argnums]
        if isinstance(x, float) or (isinstance(x, np.ndarray) and x.dtype.kind == "f"):
            out.append(c)
    return out


HVP_CASES = _hvp_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_jvp_matches_finite_differences_and_reverse_mode(case):
    check_jvp(case)


@pytest.mark.parametrize("case", [c for c in HVP_CASES if c.id not in HVP_REFUSED],
                         ids=[c.id for c in HVP_CASES if c.id not in HVP_REFUSED])
def test_hessian_vector_product_matches_differences_of_the_gradient(case):
    check_hvp(case)


@pytest.mark.parametrize("case", [c for c in HVP_CASES if c.id in HVP_REFUSED],
                         ids=[c.id for c in HVP_CASES if c.id in HVP_REFUSED])
def test_second_derivatives_not_supported_yet_are_refused_clearly(case):
    with pytest.raises(adsrc.TransformError, match="cannot differentiate"):
        check_hvp(case)


def test_enough_cases():
    assert len(CASES) >= 270
    assert len([c for c in HVP_CASES if c.id not in HVP_REFUSED]) >= 180


def test_a_real_value_times_a_complex_literal_has_a_complex_tangent():
    import numpy as np
    x, t = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    out, tout = adsrc.jvp(lambda x: x * 1j + 2j * x - x / 1j, (x,), (t,))
    np.testing.assert_allclose(tout, 4j * t, rtol=1e-14)      # x/1j = -1j x
    np.testing.assert_allclose(out, 4j * x, rtol=1e-14)
