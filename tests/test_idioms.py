"""What cases_idioms.py cannot say by finite differences: where the idioms it covers raise, as Python would."""

import numpy as np
import pytest

import adsrc
from cases_idioms import a_missing_function_in_a_branch_never_taken


def test_a_missing_module_function_in_a_branch_raises_attribute_error_naming_the_line_when_taken():
    g = adsrc.grad(a_missing_function_in_a_branch_never_taken)
    g(np.ones(3))
    with pytest.raises(AttributeError, match=r"module `numpy` has no attribute `trapz`.*cases_idioms.py, line \d+"):
        g(np.full(3, 1e4))
