"""Every core case's gradient agrees with central finite differences."""

import numpy as np
import pytest

import adsrc
from adsrc.checks import check_grads
from cases_core import CASES


def _copy(x):
    return np.array(x, copy=True) if isinstance(x, np.ndarray) else x


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_gradient_matches_finite_differences(case):
    before = [_copy(a) for a in case.args]
    check_grads(case.fn, case.args, case.argnums, rtol=case.rtol, atol=case.atol, full=case.full,
                kwargs=case.kwargs)
    for a, b in zip(case.args, before):
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, b), "an input was mutated"


def test_enough_core_cases():
    assert len(CASES) >= 60
