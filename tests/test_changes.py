"""Changes in place and the ordinary programs of the core redesign: gradients against finite differences."""

import pytest

from casekit import check_case
from cases_changes import CASES as CHANGES
from cases_methods import CASES as METHODS
from cases_ordinary import CASES as ORDINARY

ALL = list(CHANGES) + list(ORDINARY) + list(METHODS)


@pytest.mark.parametrize("case", ALL, ids=[c.id for c in ALL])
def test_gradient_matches_finite_differences_and_inputs_are_unchanged(case):
    check_case(case)
