"""Generated source pinned for representative functions (regenerate with ADSRC_UPDATE_GOLDEN=1).

The pinned files were read and checked by hand: names come from the user's
names, every block has a comment with the user's line, and nothing unused is
computed.
"""

import os
import pathlib

import pytest

import adsrc
import golden_functions as g

GOLDEN = pathlib.Path(__file__).parent / "golden"
CASES = {
    "logistic_loss": lambda: adsrc.grad(g.logistic_loss).source(),
    "rnn": lambda: adsrc.grad(g.rnn, argnums=(0, 1)).source(),
    "piecewise": lambda: adsrc.grad(g.piecewise).source(),
    "piecewise_lowered": lambda: adsrc.grad(g.piecewise).source(stage="lowered"),
    "calls_helper": lambda: adsrc.grad(g.calls_helper).source(),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_generated_source_matches_golden(name):
    text = CASES[name]()
    text = text.replace(g.__file__, "golden_functions.py")
    path = GOLDEN / f"{name}.py.txt"
    if os.environ.get("ADSRC_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


def test_constant_argument_has_no_derivative_code():
    src = adsrc.grad(g.calls_helper).source()
    assert "ddata" not in src          # data is a constant: no adjoint is computed for it
    assert "def softplus_vjp_z" not in src or "dz" in src
