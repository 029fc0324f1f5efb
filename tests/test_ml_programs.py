"""API behaviour met by machine-learning programs (pytrees of parameters, optimisers' loops): adsrc
follows JAX where they differ for no good reason. Expected values are derived by hand."""

import collections

import numpy as np
import pytest

import adsrc
from adsrc import tree_util as tu


def test_a_defaultdict_is_a_node_rebuilt_with_its_factory():
    d = collections.defaultdict(list, {"b": np.ones(2), "a": 3.0})
    assert len(tu.tree_leaves(d)) == 2
    assert tu.tree_leaves(d)[0] == 3.0          # sorted keys, as a dict's
    m = tu.tree_map(lambda x: x * 2, d)
    assert type(m) is collections.defaultdict and m.default_factory is list
    assert m["a"] == 6.0 and np.array_equal(m["b"], [2.0, 2.0])
    assert m["missing"] == []                   # the factory still works
    leaves, treedef = tu.tree_flatten(d)
    back = tu.tree_unflatten(treedef, leaves)
    assert type(back) is collections.defaultdict and back.default_factory is list
    assert tu.tree_structure(d) == tu.tree_structure(collections.defaultdict(list, {"a": 1, "b": 2}))
    assert tu.tree_structure(d) != tu.tree_structure({"a": 1, "b": 2})
    assert tu.tree_structure(d) != tu.tree_structure(collections.defaultdict(float, {"a": 1, "b": 2}))


def test_gradient_of_a_defaultdict_of_parameters():
    p = collections.defaultdict(float, {"w": np.array([1.0, -2.0]), "b": 0.5})
    g = adsrc.grad(lambda p: np.sum(p["w"] ** 2) + 3.0 * p["b"])(p)
    assert np.allclose(g["w"], [2.0, -4.0]) and np.isclose(g["b"], 3.0)
    new = tu.tree_map(lambda w, d: w - 0.1 * d, p, g)
    assert type(new) is collections.defaultdict


def test_tree_reduce_with_an_explicit_none_initializer_uses_it():
    # as in JAX: None given is the initial value, not "no initializer"
    assert tu.tree_reduce(lambda a, b: (a, b), [1, 2], None) == ((None, 1), 2)
    assert tu.tree_reduce(lambda a, b: (a, b), [1, 2]) == (1, 2)
    assert tu.tree_reduce(lambda a, b: a + b, {"x": 1, "y": [2, 3]}, 10) == 16


def test_tree_reduce_in_a_differentiated_function():
    def loss(p):
        sq = tu.tree_map(lambda w: np.sum(w * w), p)
        return tu.tree_reduce(lambda a, b: a + b, sq, 0.0) + tu.tree_reduce(lambda a, b: np.sum(a) + np.sum(b), p)
    p = {"a": np.array([1.0, 2.0]), "b": [np.array([[0.5]]), -1.5]}
    g = adsrc.grad(loss)(p)
    # d/dw (w^2 + w) = 2w + 1 for every entry
    assert np.allclose(g["a"], [3.0, 5.0]) and np.allclose(g["b"][0], [[2.0]]) and np.isclose(g["b"][1], -2.0)


@adsrc.register_pytree_node_class
class _Linear:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, x):
        return x @ self.W + self.b

    def tree_flatten(self):
        return (self.W, self.b), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


def test_a_list_of_registered_layer_objects_as_parameters():
    def loss(layers, x):
        first, second = layers
        h = layers[0](x)
        for layer in layers[1:]:
            h = layer(h)
        return np.sum(h) + np.sum(second(first(x)))
    x = np.array([[1.0, 2.0]])
    layers = [_Linear(np.array([[1.0], [0.5]]), np.array([0.1])), _Linear(np.array([[2.0]]), np.array([0.3]))]
    g = adsrc.grad(loss)(layers, x)
    # loss = 2 * sum((x @ W1 + b1) @ W2 + b2): dW1 = 2 x^T W2^T, db1 = 2 W2, dW2 = 2 (x W1 + b1), db2 = 2
    assert type(g) is list and all(type(layer) is _Linear for layer in g)
    assert np.allclose(g[0].W, [[4.0], [8.0]]) and np.allclose(g[0].b, [4.0])
    assert np.allclose(g[1].W, [[2 * (1.0 + 1.0 + 0.1)]]) and np.allclose(g[1].b, [2.0])


class _BatchNorm:
    def __init__(self, d):
        self.running_mean = np.zeros(d)

    def __call__(self, x):
        m = x.mean(0)
        self.running_mean = 0.9 * self.running_mean + 0.1 * m
        return x - m


_BN = _BatchNorm(2)


def _loss_with_a_global_batchnorm(x):
    return np.sum(_BN(x) ** 2)


def test_running_statistics_on_a_global_layer_are_refused_with_what_to_do():
    with pytest.raises(adsrc.TransformError) as info:
        adsrc.grad(_loss_with_a_global_batchnorm)(np.ones((3, 2)))
    msg = str(info.value)
    assert "test_ml_programs.py" in msg and "self.running_mean = ..." in msg and "has_aux=True" in msg
    assert np.array_equal(_BN.running_mean, np.zeros(2))


def test_paths_of_a_parameter_tree():
    import dataclasses

    Pair = collections.namedtuple("Pair", "a b")

    @dataclasses.dataclass
    class Box:
        v: float

    tree = {"layers": [{"W": 1.0, "b": 2.0}, (3.0, None, Pair(4.0, [5.0]))], "box": Box(6.0),
            "od": collections.OrderedDict([("z", 7.0), ("a", 8.0)])}
    pairs, treedef = tu.tree_flatten_with_path(tree)
    assert [tu.keystr(p) for p, _ in pairs] == [
        "['box'].v", "['layers'][0]['W']", "['layers'][0]['b']", "['layers'][1][0]",
        "['layers'][1][2].a", "['layers'][1][2].b[0]", "['od']['z']", "['od']['a']"]
    assert [x for _, x in pairs] == tu.tree_leaves(tree) and treedef == tu.tree_structure(tree)
    assert pairs[1][0] == (tu.DictKey("layers"), tu.SequenceKey(0), tu.DictKey("W"))
    assert tu.tree_leaves_with_path([1.0]) == [((tu.SequenceKey(0),), 1.0)]


def test_weight_decay_mask_by_path_in_an_optimiser_step():
    params = {"dense": {"kernel": np.array([1.0, -2.0]), "bias": np.array([0.5])}}
    grads = adsrc.grad(lambda p: np.sum(p["dense"]["kernel"] ** 2) + np.sum(p["dense"]["bias"]))(params)
    decayed = tu.tree_map_with_path(
        lambda path, w, g: w - 0.1 * (g + (0.0 if "bias" in tu.keystr(path) else 0.5 * w)), params, grads)
    assert np.allclose(decayed["dense"]["kernel"], [1.0 - 0.1 * (2.0 + 0.5), -2.0 - 0.1 * (-4.0 - 1.0)])
    assert np.allclose(decayed["dense"]["bias"], [0.5 - 0.1])
    # a subtree where the first tree has a leaf goes to f whole, as in tree_map
    assert tu.tree_map_with_path(lambda p, x, y: y, {"a": 1}, {"a": [1, 2]}) == {"a": [1, 2]}


def test_paths_agree_with_jax():
    jtu = pytest.importorskip("jax").tree_util
    tree = {"l": [{"W": 1.0}, (2.0, None)], "od": collections.OrderedDict([("z", 3.0), ("a", 4.0)]),
            "dd": collections.defaultdict(list, {"k": 5.0})}
    ours = [tu.keystr(p) for p, _ in tu.tree_flatten_with_path(tree)[0]]
    theirs = [jtu.keystr(p) for p, _ in jtu.tree_flatten_with_path(tree)[0]]
    assert ours == theirs


def test_treedef_flatten_up_to():
    d = tu.tree_structure({"a": 1, "b": (2, 3)})
    assert d.flatten_up_to({"a": [9], "b": ({"x": 1}, 4)}) == [[9], {"x": 1}, 4]
    with pytest.raises(ValueError):
        d.flatten_up_to({"a": 1})


@adsrc.register_pytree_node_class
class _Named:
    """A registered class whose aux data is a tuple of strings (names that are not its attributes)."""

    def __init__(self, W, b, names=("kernel", "bias")):
        self.W, self.b, self.names = W, b, names

    def tree_flatten(self):
        return (self.W, self.b), self.names

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children, names=aux)


def test_attribute_reads_of_a_tree_map_of_a_registered_object():
    # (the cotangent of `doubled.W` was looked up under the aux data's names: a zero gradient)
    def loss(m, x):
        doubled = tu.tree_map(lambda p: 2.0 * p, m)
        return np.sum(x @ doubled.W + doubled.b)
    m = _Named(np.ones((3, 2)), np.ones(2))
    x = np.arange(6.0).reshape(2, 3)
    g = adsrc.grad(loss)(m, x)
    assert np.allclose(g.W, 2.0 * np.repeat(x.sum(0)[:, None], 2, axis=1)) and np.allclose(g.b, [4.0, 4.0])


def test_tree_leaves_and_attribute_reads_of_registered_layers_add_up():
    def loss(layers, x):
        for layer in layers:
            x = layer(x)
        return np.sum(x) + sum(np.sum(p ** 2) for p in tu.tree_leaves(layers))
    layers = [_Linear(np.array([[1.0], [2.0]]), np.array([0.5]))]
    x = np.array([[1.0, 1.0]])
    g = adsrc.grad(loss)(layers, x)
    # d/dW (x W + b + |W|^2 + b^2) = x^T + 2W, d/db = 1 + 2b
    assert np.allclose(g[0].W, [[3.0], [5.0]]) and np.allclose(g[0].b, [2.0])


def test_tree_leaves_and_tree_map_of_a_defaultdict_in_a_differentiated_function():
    def loss(p):
        q = tu.tree_map(lambda v: v * 2, p)
        return np.sum(q["z"] ** 2) + np.sum(tu.tree_leaves(p)[0] * 3.0)     # leaves in sorted keys: "a" first
    p = collections.defaultdict(float, {"z": np.array([1.0, 2.0]), "a": np.array([0.5, 0.5, 0.5])})
    g = adsrc.grad(loss)(p)
    assert type(g) is collections.defaultdict
    assert np.allclose(g["z"], 8.0 * p["z"]) and np.allclose(g["a"], [3.0, 3.0, 3.0])
    flat, unravel = adsrc.ravel_pytree(p)
    assert np.allclose(flat, [0.5, 0.5, 0.5, 1.0, 2.0])


def test_code_written_with_autograd_numpy():
    anp = pytest.importorskip("autograd.numpy")
    asp = pytest.importorskip("autograd.scipy.special")
    from casekit import assert_matches_differences

    def loss(params, inputs, targets):
        for W, b in params:
            outputs = anp.dot(inputs, W) + b
            inputs = anp.tanh(outputs)
        logp = outputs - asp.logsumexp(outputs, axis=1, keepdims=True)
        prior = sum(anp.sum(W ** 2) + anp.sum(b ** 2) for W, b in params)
        return -anp.sum(logp * targets) + 0.1 * prior + anp.mean(anp.concatenate([inputs[0], anp.stack([b, b])[0]]))

    rng = np.random.default_rng(3)
    params = [(rng.normal(size=(3, 4)), rng.normal(size=4)), (rng.normal(size=(4, 2)), rng.normal(size=2))]
    x, t = rng.normal(size=(5, 3)), np.eye(2)[[0, 1, 1, 0, 1]]
    g = adsrc.grad(loss)(params, x, t)
    flat = [g[0][0], g[0][1], g[1][0], g[1][1]]
    leaves = [params[0][0], params[0][1], params[1][0], params[1][1]]

    def of_leaves(*ls):
        return loss([(ls[0], ls[1]), (ls[2], ls[3])], x, t)
    assert_matches_differences(of_leaves, leaves, flat, rtol=1e-5, atol=1e-7)


def test_paths_of_a_registered_dataclass_name_its_fields():
    import dataclasses

    @dataclasses.dataclass
    class Lin:
        W: object
        b: object
    adsrc.register_dataclass(Lin, data_fields=["W", "b"], meta_fields=[])
    out = tu.tree_map_with_path(lambda p, x: tu.keystr(p), {"enc": Lin(1.0, 2.0)})
    assert (out["enc"].W, out["enc"].b) == ("['enc'].W", "['enc'].b")
    assert tu.keystr(tu.tree_leaves_with_path([_Linear(1.0, 2.0)])[1][0]) == "[0][<flat index 1>]"


def _loss_without_aux(w):
    return np.sum(w ** 2)


def _loss_with_aux_in_a_list(w):
    out = [np.sum(w ** 2), {"n": 2}]
    return out


def test_has_aux_with_a_function_that_returns_no_pair():
    with pytest.raises(TypeError, match=r"has_aux=True.*must return a pair.*returned a float"):
        adsrc.grad(_loss_without_aux, has_aux=True)(np.ones(2))
    with pytest.raises(TypeError, match=r"has_aux=True.*must return a pair"):
        adsrc.value_and_grad(_loss_without_aux, has_aux=True)(np.ones(2))
    g, aux = adsrc.grad(_loss_with_aux_in_a_list, has_aux=True)(np.ones(2))
    assert np.allclose(g, 2.0) and aux == {"n": 2}


class _AsArrayLayer:
    """A registered class whose __init__ stores np.asarray of each child (the same array) or a copy of it."""

    def __init__(self, W, b, copy=False):
        self.W = np.array(W) if copy else np.asarray(W)
        self.b = np.asarray(b)


adsrc.register_pytree_node(_AsArrayLayer, lambda m: ((m.W, m.b), None), lambda aux, ch: _AsArrayLayer(*ch))


class _CopyingLayer(_AsArrayLayer):
    def __init__(self, W, b):
        super().__init__(W, b, copy=True)


adsrc.register_pytree_node(_CopyingLayer, lambda m: ((m.W, m.b), None), lambda aux, ch: _CopyingLayer(*ch))


def _doubled_affine(m, x):
    d = adsrc.tree_util.tree_map(lambda p: 2.0 * p, m)
    return np.sum(np.tanh(x @ d.W + d.b))


def test_attribute_reads_of_a_tree_map_whose_class_stores_asarray_of_its_children():
    # (the stand-in children were plain objects, which np.asarray wraps: no attribute matched, and every
    # cotangent was silently 0)
    W, b, x = np.array([[0.3, -0.2], [0.5, 0.1], [-0.4, 0.7]]), np.array([0.1, -0.3]), np.array([0.5, -1.0, 2.0])
    g = adsrc.grad(_doubled_affine)(_AsArrayLayer(W, b), x)
    z = 2.0 * (x @ W + b)
    s = 1.0 - np.tanh(z) ** 2
    np.testing.assert_allclose(g.W, 2.0 * np.outer(x, s), rtol=1e-12)        # by hand
    np.testing.assert_allclose(g.b, 2.0 * s, rtol=1e-12)


def test_a_class_storing_copies_of_its_children_is_refused_not_given_zeros():
    m = _CopyingLayer(np.ones((3, 2)), np.zeros(2))
    with pytest.raises(TypeError, match="store each child in an attribute"):
        adsrc.grad(_doubled_affine)(m, np.array([0.5, -1.0, 2.0]))
