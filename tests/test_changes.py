"""Changes in place, the ordinary programs of the core redesign and nested functions: gradients against finite
differences."""

import numpy as np
import pytest

from casekit import check_case
from cases_changes import CASES as CHANGES
from cases_methods import CASES as METHODS
from cases_nested import CASES as NESTED
from cases_passed import CASES as PASSED
from cases_numpy_written import CASES as WRITTEN
from cases_python_features import CASES as FEATURES
from cases_ordinary import CASES as ORDINARY
from cases_syntax import CASES as SYNTAX
from cases_try import CASES as TRY
from cases_composed import CASES as COMPOSED
from cases_user_programs import CASES as USER_PROGRAMS
from cases_idioms import CASES as IDIOMS
from cases_user_programs_more import CASES as USER_PROGRAMS_MORE
from cases_science import CASES as SCIENCE
from cases_ml import CASES as ML

ALL = list(CHANGES) + list(ORDINARY) + list(METHODS) + list(NESTED) + list(PASSED) + list(WRITTEN) + list(FEATURES) + \
    list(TRY) + list(SYNTAX) + list(COMPOSED) + list(USER_PROGRAMS) + list(IDIOMS) + list(USER_PROGRAMS_MORE) + \
    list(SCIENCE) + list(ML)


@pytest.mark.parametrize("case", ALL, ids=[c.id for c in ALL])
def test_gradient_matches_finite_differences_and_inputs_are_unchanged(case):
    check_case(case)


def _rows_scaled_in_a_loop(x):
    a = x * 1.0
    rows = [a[0:2], a[2:4]]
    for rr in rows:
        rr *= 3.0
    return np.sum(a * x)


def _views_in_a_dict(x):
    a = x * 1.0
    d = {"lo": a[:2], "hi": a[2:]}
    for k, v in d.items():
        v *= 2.0
    return np.sum(a * x)


def _scale_each(vs, s):
    for v in vs:
        v *= s


def _views_to_a_helper(x):
    a = x * 1.0
    _scale_each([a[:2], a[2:]], 2.0)
    return np.sum(a * x)


@pytest.mark.parametrize("fn", [_rows_scaled_in_a_loop, _views_in_a_dict])
def test_views_held_in_containers_and_changed_one_after_another(fn):
    # (only the first view's change reached `a`, a wrong value and gradient, then a refusal; now each change
    # reaches `a`, and the views the container holds are taken again from it: rules/held_parts.py)
    import adsrc
    x = np.array([1.0, 2.0, 3.0, 4.0])
    given = x.copy()
    value, g = adsrc.value_and_grad(fn)(given)
    assert np.all(np.isfinite(g)) and np.isfinite(value)
    np.testing.assert_array_equal(given, x)
    np.testing.assert_allclose(value, fn(x.copy()), rtol=1e-12, atol=1e-12)
    h = 1e-6
    fd = np.array([(fn(x + h * e) - fn(x - h * e)) / (2 * h) for e in np.eye(4)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-7)


def test_views_held_in_a_list_and_changed_by_a_helper_are_refused():
    # (none of the changes reached `a`: value and gradient were wrong)
    import adsrc
    with pytest.raises(adsrc.TransformError, match="view"):
        adsrc.grad(_views_to_a_helper)(np.array([1.0, 2.0, 3.0, 4.0]))


class _Acc:
    def __init__(self, h):
        self.h = h

    def state(self):
        return self.h

    def add(self, x):
        self.h += x

    def add_then_replace(self, x):
        self.h += x
        self.h = self.h * 2.0


def _a_list_holding_a_field_changed_in_place(x):
    acc = _Acc(x * 1.0)
    hs = [acc.state()]          # a list holding the field: adsrc does not follow the field into the list
    acc.add(x)
    return np.sum(hs[0] * x)


def _a_field_changed_in_place_and_replaced(x):
    acc = _Acc(x * 1.0)
    old = acc.h                 # sees the `+=` but not the new array: adsrc cannot tell the order
    acc.add_then_replace(x)
    return np.sum(old * x) + np.sum(acc.h)


@pytest.mark.parametrize("fn", [_a_list_holding_a_field_changed_in_place, _a_field_changed_in_place_and_replaced])
def test_parts_of_an_object_a_method_changes_that_adsrc_cannot_follow_are_refused(fn):
    # (the first was silently wrong: the list kept the field's old values)
    import adsrc
    with pytest.raises(adsrc.TransformError, match="cannot follow how `(hs|old)` shares memory with `acc`"):
        adsrc.grad(fn)(np.array([1.0, 2.0, 3.0]))


class _TwoFields:
    def __init__(self, x):
        self.a = x * 1.0
        self.b = self.a             # one array in two fields

    def bump(self, v):
        self.a += v


class _History:
    def __init__(self):
        self.h = np.zeros(3)
        self.hs = []

    def step(self, x):
        self.hs.append(self.h)      # the state itself, then changed in place
        self.h += x


def _two_fields_one_array(x):
    p = _TwoFields(x)
    p.bump(x * x)
    return np.sum(p.b * 3.0)


def _a_history_of_the_state_itself(x):
    r = _History()
    r.step(x)
    return np.sum(r.hs[0] * x)


def _two_fields_set_here(x):
    p = _TwoFields(x * 2.0)
    p.a = p.b * 1.0
    p.b = p.a                       # one array again, then changed in place through the other field
    p.b *= x
    return np.sum(p.a * x)


@pytest.mark.parametrize("fn", [_two_fields_one_array, _a_history_of_the_state_itself, _two_fields_set_here])
def test_an_object_holding_one_array_in_two_places_changed_through_one(fn):
    # the change was written back into the field it was read from only: the other place kept the old values
    # (value and gradient wrong)
    from casekit import central_grad
    import adsrc
    x = np.array([0.3, -0.5, 0.7])
    value, g = adsrc.value_and_grad(fn)(x)
    assert value == pytest.approx(fn(x), rel=1e-12)
    np.testing.assert_allclose(g, central_grad(fn, x), rtol=1e-6, atol=1e-8)
