"""What cases_user_programs.py cannot say by finite differences: the refusals of the constructs it covers when
they would compute something else (records, `type(x)(...)`), the size of the code forward over reverse makes
for a loop's tape, and the accuracy of the ψ functions math.lgamma's derivatives use."""

import dataclasses
import inspect
import math
from dataclasses import dataclass

import numpy as np
import pytest

import adsrc
from adsrc.rules.math_gamma import math_polygamma
from cases_user_programs import _Walker, backward_euler_solved_by_newton_with_a_break


@dataclass
class Normed:
    q: np.ndarray
    size: float = 0.0

    def __post_init__(self):
        self.size = float(np.sum(self.q ** 2))


def replaced_with_post_init(state, k):
    for i in range(2):
        state = dataclasses.replace(state, q=state.q * k)
    return state.size + np.sum(state.q)


class HasItsOwnReplace:
    def __init__(self, v):
        self.v = v

    def _replace(self, v):
        return HasItsOwnReplace(2.0 * v)


def replaced_by_its_own_method(items, k):
    out = 0.0
    for o in items:
        out = out + o._replace(v=o.v * k).v
    return out


class Box:
    def __init__(self, v):
        self.v = v


def made_like_a_box(x):
    return type(Box(1.0))(x[0]).v


def test_a_dataclass_replaced_whose_post_init_would_run_again_is_refused_where_it_runs():
    with pytest.raises(TypeError, match=r"__post_init__.*Normed\(\.\.\.\)") as info:
        adsrc.grad(replaced_with_post_init, argnums=1)(Normed(np.array([1.0, 2.0])), 0.5)
    line = inspect.getsourcelines(replaced_with_post_init)[1] + 2
    assert any(f"test_user_programs.py, line {line}" in note for note in getattr(info.value, "__notes__", []))


def test_replace_of_an_object_that_is_not_a_namedtuple_is_refused_naming_its_class():
    with pytest.raises(TypeError, match=r"namedtuple's, but the object is a HasItsOwnReplace"):
        adsrc.grad(replaced_by_its_own_method, argnums=1)([HasItsOwnReplace(1.0)], 0.5)


def test_type_of_an_object_called_is_refused_for_other_classes_than_containers_and_floats():
    with pytest.raises(TypeError, match=r"type\(x\)\(value\).*here x is a Box"):
        adsrc.grad(made_like_a_box)(np.array([1.0, 2.0]))


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


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_polygamma_of_floats_matches_scipy(n):
    special = pytest.importorskip("scipy.special")
    for x in [0.01, 0.3, 1.0, 2.5, 7.3, 14.9, 15.1, 40.0, 1e3, -0.5, -2.7, -10.3]:
        want = float(special.polygamma(n, x))
        assert math_polygamma(n, x) == pytest.approx(want, rel=1e-13, abs=1e-13)
    assert math.isnan(math_polygamma(n, -3.0))


def test_lgamma_second_derivative_is_the_trigamma_function():
    special = pytest.importorskip("scipy.special")
    x = 2.75
    d2 = adsrc.grad(adsrc.grad(math.lgamma))(x)
    assert d2 == pytest.approx(float(special.polygamma(1, x)), rel=1e-13)


class _Backwards(_Walker):
    def step(self, f):
        self.pos = self.pos - f


class _Elsewhere(_Walker):
    pass


def _walkers_with_one_replaced(X):
    ps = [_Walker(X[0]), _Backwards(X[1])]
    ps[0] = _Elsewhere(X[0])            # (an item set: not among the classes the list was made with)
    tot = 0.0
    for i in range(2):
        p = ps[i]
        p.step(X[1])
        tot = tot + p.energy()
    return tot


def _moved(ps, X):
    for i in range(len(ps)):
        b = ps[i]
        b.step(X[i])
    return ps


def _walkers_through_a_helper(X):
    ps = _moved([_Walker(X[0]), _Walker(X[1] * 2)], X)
    return sum(q.energy() for q in ps)


def test_an_object_of_another_class_taken_from_a_list_of_two_classes_is_refused_when_it_runs():
    with pytest.raises(adsrc.TransformError, match=r"`p` as those of _Backwards or _Walker.*_Elsewhere"):
        adsrc.grad(_walkers_with_one_replaced)(np.array([[0.3, 0.2], [0.5, -0.4]]))


def test_a_refused_method_of_a_generators_variable_names_it_as_written():
    with pytest.raises(adsrc.TransformError) as info:
        adsrc.grad(_walkers_through_a_helper)(np.array([[0.3, 0.2], [0.5, -0.4]]))
    assert "what `q` is" in str(info.value) and "q_1" not in str(info.value)


def lambdas_over_a_length_known_when_the_code_runs(x, n):
    fs = []
    for i in range(n):
        s = 0.5 * (i + 1)
        fs.append(lambda z, s=s: np.sin(s * z))
    return sum(np.sum(f(x)) for f in fs)


def lambdas_taken_by_index_over_a_length_known_when_the_code_runs(x, n):
    fs = [lambda z, i=i: np.sin((i + 1) * z) for i in range(n)]
    out = 0.0
    for i in range(n):
        out = out + np.sum(fs[i](x))
    return out


@pytest.mark.parametrize("f", [lambdas_over_a_length_known_when_the_code_runs,
                               lambdas_taken_by_index_over_a_length_known_when_the_code_runs])
def test_a_list_of_lambdas_of_a_length_known_when_the_code_runs_is_differentiated(f):
    # (refused once, naming the list: each lambda is now found when the code runs, and differentiated then)
    h = 1e-6
    for x, n in ((np.array([0.3, -0.5, 0.8]), 3), (np.array([1.1, 0.2, -0.4]), 5)):
        fd = np.array([(f(x + h * e, n) - f(x - h * e, n)) / (2 * h) for e in np.eye(3)])
        for g in (adsrc.grad(f)(x.copy(), n), adsrc.grad(f, static_argnums=1)(x.copy(), n)):
            assert np.all(np.isfinite(g))
            np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def scaled_by_a_static_shape(x, shape):
    z = np.zeros(shape)
    return np.sum(x * shape[0]) + np.sum(sum(shape) * x * x) + shape[1] * 0.5 * x[0] + np.sum(z)


@pytest.mark.parametrize("shape", [(2, 3), [2, 3]])
def test_a_static_tuple_argument_in_arithmetic(shape):
    x = np.array([0.3, -0.5, 0.8])
    for options in ({"static_argnums": 1}, {"static_argnames": "shape"}):
        value, g = adsrc.value_and_grad(scaled_by_a_static_shape, **options)(x, shape)
        np.testing.assert_allclose(value, scaled_by_a_static_shape(x, shape), rtol=1e-12)
        h = 1e-6
        fd = np.array([(scaled_by_a_static_shape(x + h * e, shape) - scaled_by_a_static_shape(x - h * e, shape))
                       / (2 * h) for e in np.eye(3)])
        assert np.all(np.isfinite(g))
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    _, dot = adsrc.jvp(lambda v: scaled_by_a_static_shape(v, shape), (x,), (np.ones(3),))
    np.testing.assert_allclose(dot, np.sum(fd), rtol=1e-6, atol=1e-8)
