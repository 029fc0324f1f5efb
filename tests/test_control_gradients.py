"""Every control-flow case's gradient agrees with central finite differences."""

import pytest

from cases_control import CASES
from casekit import check_case


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_gradient_matches_finite_differences(case):
    check_case(case)


def test_enough_control_flow_functions():
    assert len({c.fn for c in CASES}) >= 40
