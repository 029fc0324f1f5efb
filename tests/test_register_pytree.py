"""User classes as pytrees: register_pytree_node, register_pytree_node_class, register_dataclass.

Every gradient is checked against central finite differences (check_grads, or
finite differences written out here), never against values from adsrc.
"""

import copy
import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pytest

import adsrc
from adsrc.checks import check_grads
from casekit import rand

RTOL, ATOL = 1e-5, 1e-7


@adsrc.register_pytree_node_class
class MLP:
    """Two layers; `act` is static (aux data)."""

    def __init__(self, W, b, V, act="tanh"):
        self.W, self.b, self.V, self.act = W, b, V, act

    def tree_flatten(self):
        return (self.W, self.b, self.V), self.act

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children, act=aux)

    def hidden(self, X):
        z = X @ self.W + self.b
        return np.tanh(z) if self.act == "tanh" else np.sin(z)

    def __call__(self, X):
        return self.hidden(X) @ self.V


class Pair:
    """Registered with functions (not methods); its children are a dict and a list."""

    def __init__(self, params, scales, name):
        self.params, self.scales, self.name = params, scales, name


adsrc.register_pytree_node(Pair, lambda p: ((p.params, p.scales), p.name),
                           lambda name, children: Pair(children[0], children[1], name))


@adsrc.register_dataclass
@dataclass
class Linear:
    W: np.ndarray
    b: np.ndarray
    power: int = field(default=2, metadata=dict(static=True))

    def predict(self, X):
        return X @ self.W + self.b


class Affine:
    def __init__(self, A, shift, label):
        self.A, self.shift, self.label = A, shift, label


adsrc.register_dataclass(Affine, data_fields=["A", "shift"], meta_fields=["label"])

X = rand(5, 3)
Y = rand(5, 2)


def mlp():
    return MLP(rand(3, 4), rand(4), rand(4, 2))


def mlp_loss(model, X, y):
    return np.mean((model(X) - y) ** 2)


def attribute_loss(model, X, y):
    h = np.tanh(X @ model.W + model.b)
    return np.sum((h @ model.V - y) ** 2) + 0.1 * np.sum(model.W ** 2)


def _layer(m, X):
    return m.hidden(X)


def helper_loss(model, X, y):
    return np.sum(_layer(model, X) ** 2) + np.sum(model.hidden(X) @ model.V * y[:, :1])


def _snapshot(tree):
    return copy.deepcopy(tree)


def _same_arrays(a, b):
    la, lb = adsrc.checks._leaves(a), adsrc.checks._leaves(b)
    return [p for p, _ in la] == [p for p, _ in lb] and all(np.array_equal(u, v) for (_, u), (_, v) in zip(la, lb))


@pytest.mark.parametrize("fn", [mlp_loss, attribute_loss, helper_loss])
@pytest.mark.parametrize("act", ["tanh", "sin"])
def test_pytree_class_gradient_matches_finite_differences(fn, act):
    model = mlp()
    model.act = act
    before = _snapshot(model)
    g = check_grads(fn, (model, X, Y), full=True, rtol=RTOL, atol=ATOL)
    assert type(g) is MLP and g.act == act          # an object of the same class, aux data kept
    for name in ("W", "b", "V"):
        assert getattr(g, name).shape == getattr(model, name).shape
        assert np.all(np.isfinite(getattr(g, name)))
    assert _same_arrays(model, before) and model.act == act      # the input is not changed


def test_gradient_against_finite_differences_written_out():
    model = mlp()
    g = adsrc.grad(mlp_loss)(model, X, Y)
    eps = 1e-6
    for name in ("W", "b", "V"):
        value = getattr(model, name)
        for idx in np.ndindex(value.shape):
            up, down = value.copy(), value.copy()
            up[idx] += eps
            down[idx] -= eps
            plus = MLP(**{**vars(model), name: up})
            minus = MLP(**{**vars(model), name: down})
            fd = (mlp_loss(plus, X, Y) - mlp_loss(minus, X, Y)) / (2 * eps)
            assert not np.isnan(getattr(g, name)[idx])
            np.testing.assert_allclose(getattr(g, name)[idx], fd, rtol=1e-5, atol=1e-8)


def pair_loss(p, X):
    out = X @ p.params["W"] * p.scales[0] + p.params["b"] * p.scales[1]
    return np.sum(np.sin(out)) if p.name == "sin" else np.sum(out ** 2)


def test_registered_with_functions_and_nested_children():
    p = Pair({"W": rand(3, 2), "b": rand(2)}, [1.5, rand(2)], "sin")
    before = _snapshot(p)
    g = check_grads(pair_loss, (p, X), full=True, rtol=RTOL, atol=ATOL)
    assert type(g) is Pair and g.name == "sin" and set(g.params) == {"W", "b"}
    assert isinstance(g.scales, list) and isinstance(g.scales[0], float) and g.scales[1].shape == (2,)
    assert _same_arrays(p, before)


def linear_loss(lin, X, y):
    return np.sum((lin.predict(X) - y) ** lin.power)


def affine_loss(a, X):
    return np.sum(np.cos(X @ a.A + a.shift)) * (2.0 if a.label == "double" else 1.0)


def test_register_dataclass_decorator_and_explicit_fields():
    lin = Linear(rand(3, 2), rand(2), power=4)
    g = check_grads(linear_loss, (lin, X, Y), full=True, rtol=RTOL, atol=ATOL)
    assert type(g) is Linear and g.power == 4       # the meta field is kept, not differentiated
    a = Affine(rand(3, 2), rand(2), "double")
    g = check_grads(affine_loss, (a, X), full=True, rtol=RTOL, atol=ATOL)
    assert type(g) is Affine and g.label == "double" and g.A.shape == (3, 2)


def test_meta_fields_and_aux_data_select_specializations():
    g = adsrc.grad(linear_loss)
    lin = Linear(rand(3, 2), rand(2))
    g(lin, X, Y)
    g(Linear(rand(3, 2), rand(2)), X, Y)                  # same meta values: the cache is hit
    assert (g.cache_info().hits, g.cache_info().misses) == (1, 1)
    g(Linear(lin.W, lin.b, power=4), X, Y)                # a new meta value: a new specialization
    assert (g.cache_info().hits, g.cache_info().misses) == (1, 2)
    g(Linear(lin.W, lin.b, power=2), X, Y)
    assert (g.cache_info().hits, g.cache_info().misses) == (2, 2)
    h = adsrc.grad(mlp_loss)
    model = mlp()
    h(model, X, Y)
    h(MLP(model.W, model.b, model.V, act="sin"), X, Y)
    h(MLP(model.W, model.b, model.V, act="tanh"), X, Y)
    assert (h.cache_info().hits, h.cache_info().misses) == (1, 2)


def test_value_and_grad_has_aux_and_vjp():
    model = mlp()

    def with_aux(m, X, y):
        loss = mlp_loss(m, X, y)
        return loss, {"model": m, "pair": (m, loss)}

    (value, aux), g = adsrc.value_and_grad(with_aux, has_aux=True)(model, X, Y)
    assert value == pytest.approx(mlp_loss(model, X, Y), rel=1e-12)
    assert aux["model"] is model and aux["pair"][0] is model
    expected = check_grads(mlp_loss, (model, X, Y), full=True, rtol=RTOL, atol=ATOL)
    g2, aux2 = adsrc.grad(with_aux, has_aux=True)(model, X, Y)
    for name in ("W", "b", "V"):
        np.testing.assert_allclose(getattr(g, name), getattr(expected, name), rtol=1e-12)
        np.testing.assert_allclose(getattr(g2, name), getattr(expected, name), rtol=1e-12)

    out, pullback = adsrc.vjp(lambda m, X: m(X), model, X)
    np.testing.assert_allclose(out, model(X))
    ct = rand(5, 2)
    dm, dX = pullback(ct)
    assert type(dm) is MLP and dm.act == model.act
    check = check_grads(lambda m, X: np.sum(m(X) * ct), (model, X), argnums=(0, 1), full=True,
                        rtol=RTOL, atol=ATOL)
    for name in ("W", "b", "V"):
        np.testing.assert_allclose(getattr(dm, name), getattr(check[0], name), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dX, check[1], rtol=1e-10, atol=1e-12)


def containers_loss(models, X, y):
    total = 0.0
    for m in models["layers"]:
        total = total + np.sum(MLP.hidden(m, X) ** 2)    # an item's methods: through its class
    return total + attribute_loss(models["head"], X, y)


def item_method_loss(models, X):
    head = models["head"]
    return np.sum(head.hidden(X))


def test_objects_inside_containers_and_made_in_the_function():
    models = {"layers": [mlp(), mlp()], "head": mlp()}
    before = _snapshot(models)
    g = check_grads(containers_loss, (models, X, Y), full=True, rtol=RTOL, atol=ATOL)
    assert all(type(m) is MLP for m in g["layers"]) and type(g["head"]) is MLP
    assert _same_arrays(models, before)

    def built_inside(W, X):
        lin = Linear(W * 2.0, W[0], power=2)
        return np.sum(lin.predict(X) ** lin.power)
    check_grads(built_inside, (rand(3, 2), X), full=True, rtol=RTOL, atol=ATOL)


# -- errors ----------------------------------------------------------------------------------------

class Plain:
    def __init__(self, W):
        self.W = W


def plain_loss(p):
    return np.sum(p.W ** 2)


def test_method_of_an_item_is_followed():
    # (refused before: the class of a dict argument's item is now known from the call's key, cases_ml.py)
    g = check_grads(item_method_loss, ({"head": mlp()}, X), full=True, rtol=RTOL, atol=ATOL)
    assert type(g["head"]) is MLP


def test_unregistered_object_is_refused_with_how_to_register():
    with pytest.raises(TypeError, match=r"a Plain object.*register_pytree_node_class.*register_dataclass"):
        adsrc.grad(plain_loss)(Plain(rand(3)))


class Derived:
    def __init__(self, W):
        self.W = W
        self.W2 = W * 2.0        # computed, not a child


adsrc.register_pytree_node(Derived, lambda d: ((d.W,), None), lambda aux, children: Derived(*children))


class Tied:
    def __init__(self, W):
        self.W = W


adsrc.register_pytree_node(Tied, lambda t: ((t.W, t.W), None), lambda aux, children: Tied(children[0]))


class Unhashable:
    def __init__(self, W, names):
        self.W, self.names = W, names


adsrc.register_pytree_node(Unhashable, lambda u: ((u.W,), u.names), lambda names, c: Unhashable(c[0], names))


def test_attribute_that_is_no_child_is_refused():
    with pytest.raises(adsrc.TransformError, match="`W2` of a Derived.*not one of the children"):
        adsrc.grad(lambda d: np.sum(d.W2 ** 2))(Derived(rand(3)))
    g = check_grads(lambda d: np.sum(d.W ** 2), (Derived(rand(3)),), full=True, rtol=RTOL, atol=ATOL)
    assert type(g) is Derived
    with pytest.raises(adsrc.TransformError, match="`W` of a Tied.*children \\[0, 1\\]"):
        adsrc.grad(lambda t: np.sum(t.W ** 2))(Tied(rand(3)))


def test_unhashable_aux_data_and_bad_registrations():
    with pytest.raises(TypeError, match="aux data .* of a Unhashable is not hashable"):
        adsrc.grad(lambda u: np.sum(u.W))(Unhashable(rand(3), ["a"]))
    with pytest.raises(ValueError, match="already registered"):
        adsrc.register_pytree_node(MLP, lambda m: ((), None), lambda a, c: None)
    with pytest.raises(TypeError, match="only user classes"):
        adsrc.register_pytree_node(dict, lambda m: ((), None), lambda a, c: None)

    @dataclass
    class Partial:
        a: float
        b: float
    with pytest.raises(ValueError, match="must be its init fields"):
        adsrc.register_dataclass(Partial, data_fields=["a"], meta_fields=[])
    with pytest.raises(TypeError, match="not a dataclass"):
        adsrc.register_dataclass(Plain)

    class NoMethods:
        pass
    with pytest.raises(TypeError, match="no method `tree_flatten`"):
        adsrc.register_pytree_node_class(NoMethods)


def test_registered_dataclass_meta_field_is_not_a_leaf():
    @adsrc.register_dataclass
    @dataclass
    class Scaled:
        W: np.ndarray
        scale: float = field(default=3.0, metadata=dict(static=True))
    s = Scaled(rand(3), 2.0)
    g = adsrc.grad(lambda s: np.sum(s.W ** 2) * s.scale)(s)
    assert g.scale == 2.0                               # static: kept, as in JAX
    np.testing.assert_allclose(g.W, 2.0 * 2 * s.W, rtol=1e-12)
    assert dataclasses.fields(g)[1].name == "scale"


def test_vjp_of_functions_returning_registered_objects():
    model = mlp()

    def build(m):
        return Linear(m.W * 2.0, np.sin(m.b), power=3)

    out, pullback = adsrc.vjp(build, model)
    assert type(out) is Linear and out.power == 3
    ct = Linear(rand(3, 4), rand(4), power=3)
    (dm,) = pullback(ct)
    assert type(dm) is MLP
    # <ct, build(m)> = 2 <ct.W, W> + <ct.b, sin(b)>: its gradient, by finite differences
    check = check_grads(lambda m: np.sum(ct.W * build(m).W) + np.sum(ct.b * build(m).b), (model,), full=True,
                        rtol=RTOL, atol=ATOL)
    for name in ("W", "b", "V"):
        np.testing.assert_allclose(getattr(dm, name), getattr(check, name), rtol=1e-10, atol=1e-12)
    out, pullback = adsrc.vjp(lambda m: m, model)
    (dm,) = pullback(MLP(model.W * 0 + 1.0, model.b * 0 + 2.0, model.V * 0 + 3.0))
    assert np.all(dm.W == 1.0) and np.all(dm.b == 2.0) and np.all(dm.V == 3.0)
    with pytest.raises(ValueError, match="must be a MLP"):
        pullback({"W": model.W})


class SharedConstant:
    def __init__(self, W, scale=None):
        self.W = W
        self.scale = 1.0 if scale is None else scale
        self.eps = 1.0           # the same float object as scale: Python shares equal constants


adsrc.register_pytree_node(SharedConstant, lambda s: ((s.W, s.scale), None),
                           lambda aux, c: SharedConstant(*c))


def test_float_child_shared_with_another_attribute_is_refused():
    s = SharedConstant(rand(3))
    assert s.scale is s.eps
    with pytest.raises(adsrc.TransformError, match="same float object as `(scale|eps)`"):
        adsrc.grad(lambda s: np.sum(s.W) * s.eps)(s)
    s2 = SharedConstant(rand(3), scale=float(np.float64(1.5)))     # a float of its own: no ambiguity
    g = check_grads(lambda s: np.sum(s.W ** 2) * s.scale, (s2,), full=True, rtol=RTOL, atol=ATOL)
    assert isinstance(g.scale, float)
