"""What cases_user_programs.py cannot say by finite differences: the size of the code forward over reverse
makes for a loop's tape."""

import numpy as np

import adsrc
from cases_user_programs import backward_euler_solved_by_newton_with_a_break


def test_forward_over_reverse_of_a_loop_with_an_inner_newton_loop_stays_small():
    # the gradient's tape is a list of tuples holding another list of tuples; reading it back used to
    # look to the alias analysis as if any name could share any other's array (61,000 lines, minutes)
    g = adsrc.grad(backward_euler_solved_by_newton_with_a_break, argnums=1)
    y0 = np.array([0.6, 0.2])
    source = adsrc.jvp.source(g, (y0, 4.0), (None, 1.0))
    assert len(source.splitlines()) < 3000
    _, hv = adsrc.jvp(g, (y0, 4.0), (None, 1.0))
    h = 1e-5
    np.testing.assert_allclose(hv, (g(y0, 4.0 + h) - g(y0, 4.0 - h)) / (2 * h), rtol=1e-5, atol=1e-9)
