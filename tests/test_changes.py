"""Changes in place, the ordinary programs of the core redesign and nested functions: gradients against finite
differences."""

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

ALL = list(CHANGES) + list(ORDINARY) + list(METHODS) + list(NESTED) + list(PASSED) + list(WRITTEN) + list(FEATURES) + list(TRY) + list(SYNTAX)


@pytest.mark.parametrize("case", ALL, ids=[c.id for c in ALL])
def test_gradient_matches_finite_differences_and_inputs_are_unchanged(case):
    check_case(case)
