"""Second derivatives of the random programs: a report, not a test (yet).

For each seed's program f(xs, s, W, ...) (the same programs and inputs as
test_random_programs.py), d2f/ds2 by `adsrc.grad(adsrc.grad(f, argnums=1),
argnums=1)` is compared with central differences of adsrc's own first
derivative along s. The inputs are at least proginst.MARGIN from every kink,
and the differences move s by 1e-5, so a mismatch is adsrc's.

    python tests/second_order_report.py --count 200 [--start 0] [--show 5]

Prints the count of each outcome (pass, mismatch, refused, crash, timeout) and
the first messages of each kind other than pass.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

import numpy as np  # noqa: E402

import adsrc  # noqa: E402
from reportkit import first_line, guarded, report  # noqa: E402

H = 1e-5


def second_derivative_outcome(case, seconds=30):
    return guarded(case, _second_derivatives, [(adsrc.TransformError, "refused", first_line)], seconds)


def _second_derivatives(f, case):
    g1 = adsrc.grad(f, argnums=1)
    g2 = adsrc.grad(g1, argnums=1)
    for which, args in enumerate(case.inputs):
        got = g2(*args)
        up, down = list(args), list(args)
        up[1], down[1] = args[1] + H, args[1] - H
        want = (g1(*up) - g1(*down)) / (2 * H)
        if not np.isfinite(got) or abs(got - want) > 1e-4 * max(1.0, abs(want)):
            return "mismatch", f"input {which}: adsrc {got!r}, differences {want!r}"
    return "pass", ""


def main(argv=None):
    return report(second_derivative_outcome, __doc__.splitlines()[0], argv)


if __name__ == "__main__":
    sys.exit(main())
