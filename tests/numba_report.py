"""The random programs through backend="numba": a report, not a test.

For each seed's program f(xs, s, W, ...) (the same programs and inputs as
test_random_programs.py), the gradient with backend="numba" is compared with
the NumPy backend's at both inputs. A program numba refuses (BackendError,
naming the line) is counted as refused; anything else that differs is a
mismatch, and anything else raised is a crash.

    python tests/numba_report.py --count 200 [--start 0] [--show 5]
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

import numpy as np  # noqa: E402

import adsrc  # noqa: E402
from adsrc.numba_backend.kernel import BackendError  # noqa: E402
from reportkit import first_line, guarded, report  # noqa: E402


def _leaves(g):
    return list(g) if isinstance(g, (tuple, list)) else [g]


def _reason(e):
    """What numba objected to: the helper it has no version of, or numba's own message."""
    lines = str(e).splitlines()
    return next((ln for ln in lines if ln.startswith("numba: ")), lines[0]).split(" (the numba backend")[0][:160]


def outcome(case, seconds=60):
    return guarded(case, _compare, [(BackendError, "refused", _reason),
                                    (adsrc.TransformError, "numpy backend refuses", first_line)], seconds)


def _compare(f, case):
    argnums = tuple(range(len(case.params)))
    compiled = adsrc.grad(f, argnums=argnums, backend="numba")
    plain = adsrc.grad(f, argnums=argnums)
    for which, args in enumerate(case.inputs):
        want = plain(*args)
        got = compiled(*args)
        for k, (a, b) in enumerate(zip(_leaves(got), _leaves(want))):
            if type(a) is not type(b) or np.shape(a) != np.shape(b) or \
                    not np.allclose(a, b, rtol=1e-8, atol=1e-10, equal_nan=False):
                return "mismatch", f"input {which}, argument {k}: numba {a!r}, numpy {b!r}"
    return "pass", ""


def main(argv=None):
    return report(outcome, __doc__.splitlines()[0], argv, tally="refused")


if __name__ == "__main__":
    sys.exit(main())
