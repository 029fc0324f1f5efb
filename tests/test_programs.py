"""Realistic programs (ODE integration, GP likelihood, attention, Newton iterations...) agree with
finite differences."""

import pytest

from cases_programs import CASES
from casekit import check_case


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_program_gradient(case):
    check_case(case)
