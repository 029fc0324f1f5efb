"""Programs written with classes: objects made in the function, methods, properties, inheritance,
attribute assignment, objects and functions passed as arguments.

Each is checked against central differences in reverse and forward mode, and the caller's objects
are never changed. What adsrc cannot follow is refused loudly (never a silent zero).
"""

import copy

import numpy as np
import pytest

import adsrc
from adsrc import check_grads
from adsrc.errors import TransformError

import object_programs as op

CHECK = dict(rtol=1e-5, atol=1e-7, modes=("rev", "fwd"))
rng = np.random.default_rng(7)
W3 = rng.normal(size=(3, 3)) * 0.5
PARAMS = [(rng.normal(size=(3, 4)), rng.normal(size=4)), (rng.normal(size=(4, 3)), rng.normal(size=3))]
X = rng.normal(size=(5, 3))
Y = rng.normal(size=(5, 4))


def _unchanged(args, before):
    for a, b in zip(args, before):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
        elif hasattr(a, "__dict__"):
            assert vars(a).keys() == vars(b).keys()
            for k in vars(a):
                np.testing.assert_array_equal(vars(a)[k], vars(b)[k])


CASES = {
    "made inside, method, property, super().__init__": (op.layer_loss, (W3, rng.normal(size=3), X)),
    "a method changing its object in a loop (RNN cell)": (op.rnn, (W3, rng.normal(size=(4, 3)))),
    "counters updated with +=": (op.mean_of_squares, (rng.normal(size=5),)),
    "a list of layers made here": (op.two_layers, (W3, W3.T, X)),
    "layers made in __init__, sliced and indexed": (op.mlp_loss, (PARAMS, X, Y)),
    "layers appended to lists, in __init__ and in the function": (op.appended_loss, ([PARAMS[0], (
        rng.normal(size=(4, 4)), rng.normal(size=4))], X)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_objects_made_in_the_function(name):
    f, args = CASES[name]
    before = copy.deepcopy(args)
    check_grads(f, args, **CHECK)
    _unchanged(args, before)


def test_second_derivatives_through_objects():
    check_grads(op.two_layers, (W3, W3.T, X[:2]), rtol=1e-4, atol=1e-6, order=2)
    check_grads(op.rnn, (W3, rng.normal(size=(3, 3))), rtol=1e-4, atol=1e-6, order=2)


def test_an_object_passed_as_an_argument_is_followed_and_one_code_serves_its_class():
    model = op.MLP(PARAMS)
    before = copy.deepcopy(model.layers[0].W)
    check_grads(op.model_loss, (X, Y, model), **CHECK)
    g = adsrc.grad(op.model_loss)
    first = g(X, Y, model)
    other = op.MLP([(W * 2.0, b) for W, b in PARAMS])
    second = g(X, Y, other)
    assert g.cache_info().misses == 1            # the same class: the same code
    h = 1e-6
    e = np.zeros_like(X)
    e[1, 2] = h
    fd = (op.model_loss(X + e, Y, other) - op.model_loss(X - e, Y, other)) / (2 * h)
    assert second[1, 2] == pytest.approx(fd, rel=1e-5)
    assert not np.allclose(first, second)
    np.testing.assert_array_equal(model.layers[0].W, before)


def test_attribute_assignment_on_an_argument_is_copy_on_write():
    class Obj:
        pass

    def fresh():
        obj = Obj()
        obj.a = 5.0
        return obj
    check_grads(op.set_fields, (0.4, fresh()), **CHECK)
    obj = fresh()
    g = adsrc.grad(op.set_fields)(0.4, obj)
    # f = 3x sin(3x): f' = 3 sin(3x) + 9x cos(3x), by hand
    assert g == pytest.approx(3 * np.sin(1.2) + 9 * 0.4 * np.cos(1.2), rel=1e-12)
    assert vars(obj) == {"a": 5.0}      # Python's own call would change it; the gradient does not


def test_a_function_passed_as_an_argument_is_followed():
    x = rng.normal(size=4)
    check_grads(op.with_function, (x, op.square), **CHECK)
    check_grads(op.with_function, (x, np.sin), **CHECK)
    np.testing.assert_allclose(adsrc.grad(op.with_function)(x, op.square), 4 * x ** 3, rtol=1e-12)


def test_an_inferred_class_is_checked_when_the_code_runs():
    class Other:
        def __call__(self, h):
            return h * 2.0
    with pytest.raises(TransformError, match=r"`layer` as a Linear.*type .*Other here"):
        adsrc.grad(op.two_layers_then_another)(W3, W3, X, Other())


def test_a_property_of_an_object_of_unknown_class_is_refused():
    with pytest.raises(TransformError, match=r"Layer.norm is computed \(property\)"):
        adsrc.grad(op.norm_of_an_item)(W3)
    with pytest.raises(TransformError, match=r"Layer.norm is computed"):
        adsrc.jvp(op.norm_of_an_item, (W3,), (W3,))


def test_an_object_a_factory_function_returns_is_followed():
    check_grads(op.set_through_a_factory, (0.3,), **CHECK)
    assert adsrc.grad(op.set_through_a_factory)(0.3) == 3.0


def test_a_call_for_its_effect_on_an_object_of_unknown_class_is_refused():
    with pytest.raises(TransformError, match=r"cannot follow `box.set\(...\)`.*may keep that value"):
        adsrc.grad(op.set_on_an_item)(1.0, [op.Box()])
    with pytest.raises(TransformError, match=r"cannot follow `box.set\(...\)`"):
        adsrc.jvp(op.set_on_an_item, (1.0, [op.Box()]), (1.0, None))


def test_a_call_adsrc_cannot_see_into_run_for_its_effect_is_refused():
    # np.ndarray.fill writes x[0] into out: the gradient through out was lost (a silent zero)
    with pytest.raises(TransformError, match=r"cannot follow `np.ndarray.fill\(...\)`.*write it into another"):
        adsrc.grad(op.fill_through_a_method_descriptor)(np.array([0.5, 2.0]))
    # printing and logging a differentiated value is fine
    np.testing.assert_allclose(adsrc.grad(op.prints_and_warns)(np.array([0.5, 2.0])), [1.0, 4.0], rtol=1e-12)
    _, t = adsrc.jvp(op.prints_and_warns, (np.array([0.5, 2.0]),), (np.array([1.0, -1.0]),))
    np.testing.assert_allclose(t, 2 * 0.5 - 2 * 2.0, rtol=1e-12)


def test_methods_of_library_objects_are_not_followed():
    # a Fraction's __rmul__ is Python source in the standard library; like library objects passed as arguments
    # (object_args.py), library objects known when transforming stay opaque, so the call is refused by name
    with pytest.raises(TransformError, match=r"method of an installed library's Fraction.*defvjp"):
        adsrc.grad(op.through_a_library_object)(np.array([0.5, 2.0]))
