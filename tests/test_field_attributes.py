"""Fields named like array attributes (`c.size`, `c.shape`, `c.T`, `c.real`) are differentiated as fields.

`x.shape`, `x.size`... of an array carry no derivative and `x.T`, `x.real` have array rules, but a
namedtuple or dataclass may have fields with those names. They used to get a zero gradient
(`size`, `shape`...) or a wrong one (`T` of a namedtuple made inside the function), silently.
Every case is checked against central differences, in reverse and forward mode.
"""

import numpy as np
import pytest

import adsrc
from adsrc import check_grads

NAMES = ["shape", "ndim", "size", "dtype", "itemsize", "nbytes", "strides", "T", "mT", "real", "imag"]
CHECK = dict(rtol=1e-6, atol=1e-9, modes=("rev", "fwd"))


@pytest.fixture(autouse=True)
def _sources(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


CLASSES = """import collections
import dataclasses

import numpy as np


@dataclasses.dataclass
class Cell:
    w: float
    NAME: float


Pair = collections.namedtuple("Pair", ["w", "NAME"])
"""


def _load(tmp_path, name, body):
    """A module with a dataclass Cell and a namedtuple Pair with fields w and `name`, and `body`."""
    import importlib
    path = tmp_path / f"fields_{name}.py"
    path.write_text((CLASSES + body).replace("NAME", name))
    mod = importlib.import_module(f"fields_{name}")
    return importlib.reload(mod)


PARAM = """
def f(c):
    return c.w * 2.0 + c.NAME * 3.0 + np.sin(c.NAME)
"""

MADE_INSIDE = """
def f(x):
    c = MAKE(x * 2.0, x ** 2)
    return c.NAME * c.w + c.w
"""

IN_A_LIST = """
def f(x):
    cs = [MAKE(x, x * x), MAKE(2.0 * x, 1.0)]
    t = 0.0
    for c in cs:
        t = t + c.NAME * c.w
    return t
"""

THROUGH_A_HELPER = """
def helper(c):
    return c.NAME * c.w


def f(x):
    return helper(MAKE(x, np.sin(x)))
"""


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", ["dataclass", "namedtuple"])
def test_field_of_a_parameter(name, kind, _sources):
    mod = _load(_sources, name, PARAM)
    obj = (mod.Cell if kind == "dataclass" else mod.Pair)(1.0, 0.5)
    g = adsrc.grad(mod.f)(obj)
    assert type(g) is type(obj)
    # d/dw = 2, d/dfield = 3 + cos(0.5): worked by hand, not by adsrc
    assert g.w == pytest.approx(2.0, rel=1e-12)
    assert getattr(g, name) == pytest.approx(3.0 + np.cos(0.5), rel=1e-12)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("body", [MADE_INSIDE, IN_A_LIST, THROUGH_A_HELPER], ids=["inside", "list", "helper"])
@pytest.mark.parametrize("kind", ["dataclass", "namedtuple"])
def test_field_of_an_object_made_inside(name, body, kind, _sources):
    mod = _load(_sources, name, body.replace("MAKE", "Cell" if kind == "dataclass" else "Pair"))
    check_grads(mod.f, (0.7,), **CHECK)


def array_of_unknown_kind(x):
    d = {}
    for k in range(2):
        d[k] = x * (k + 1.0)
    y = d[1]       # the analysis cannot tell what y is: its attributes are checked when the code runs
    return np.sum(y @ y.T) + np.sum(y.mT ** 3) + np.sum(y.real ** 2) / y.size + y.shape[0] * np.sum(y) * y.ndim


def test_array_attributes_of_a_value_of_unknown_kind():
    x = np.arange(6.0).reshape(2, 3) / 7.0
    check_grads(array_of_unknown_kind, (x,), **CHECK)
    g = adsrc.grad(array_of_unknown_kind)
    assert "add_attr(" in g.source()      # the path this test is for


def test_second_derivative_through_fields(_sources):
    mod = _load(_sources, "size", MADE_INSIDE.replace("MAKE", "Cell"))
    # f(x) = (x^2)(2x) + 2x = 2x^3 + 2x: f'' = 12 x
    d2 = adsrc.grad(adsrc.grad(mod.f))(0.7)
    assert d2 == pytest.approx(12 * 0.7, rel=1e-10)
    check_grads(array_of_unknown_kind, (np.arange(6.0).reshape(2, 3) / 7.0,), rtol=1e-5, atol=1e-7, order=2)
