"""The lowered program (cond/scan/while_loop) computes what the user's function computes."""

import numpy as np
import pytest

from adsrc import transform
from cases_control import CASES as CONTROL
from cases_core import CASES as CORE

ALL = list(CORE) + list(CONTROL)


@pytest.mark.parametrize("case", ALL, ids=[c.id for c in ALL])
def test_lowered_program_computes_the_same_value(case):
    lowered = transform.lowered(case.fn).compile()
    expected = case.fn(*case.args, **case.kwargs)
    got = lowered(*case.args, **case.kwargs)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


def test_lowered_source_shows_primitives():
    from cases_control import for_with_break, if_else, while_data_dependent
    import adsrc
    assert "scan(" in adsrc.grad(for_with_break).source(stage="lowered")
    assert "cond(" in adsrc.grad(for_with_break).source(stage="lowered")
    assert "cond(" in adsrc.grad(if_else).source(stage="lowered")
    assert "while_loop(" in adsrc.grad(while_data_dependent).source(stage="lowered")
