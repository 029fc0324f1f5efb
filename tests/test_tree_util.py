"""adsrc.tree_util (JAX's names): the structures and leaves it finds, written out by hand; and gradients of
functions using tree_leaves / tree_map / tree_flatten / tree_unflatten against central differences."""

import collections
import dataclasses

import numpy as np
import pytest

import adsrc
from adsrc.tree_util import tree_all, tree_flatten, tree_leaves, tree_map, tree_reduce, tree_structure, tree_unflatten

P = collections.namedtuple("P", "w b")


@dataclasses.dataclass
class Box:
    a: object
    b: object


@adsrc.register_pytree_node_class
class Pair:
    def __init__(self, left, right):
        self.left, self.right = left, right

    def tree_flatten(self):
        return (self.left, self.right), "pair"

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


TREE = {"z": [1.0, (2.0, None)], "a": P(np.ones(2), 3.0), "d": Box(np.zeros(2), 4), "p": Pair(5.0, "s")}


def test_leaves_in_order_sorted_keys_none_has_none():
    leaves = tree_leaves(TREE)
    expected = [np.ones(2), 3.0, np.zeros(2), 4, 5.0, "s", 1.0, 2.0]
    assert len(leaves) == len(expected)
    for got, want in zip(leaves, expected):
        np.testing.assert_array_equal(got, want)


def test_unflatten_rebuilds_each_kind():
    leaves, treedef = tree_flatten(TREE)
    assert treedef.num_leaves == 8
    again = tree_unflatten(treedef, [f"leaf{i}" for i in range(8)])
    assert again["z"] == ["leaf6", ("leaf7", None)]
    assert again["a"] == P("leaf0", "leaf1")
    assert isinstance(again["d"], Box) and (again["d"].a, again["d"].b) == ("leaf2", "leaf3")
    assert isinstance(again["p"], Pair) and (again["p"].left, again["p"].right) == ("leaf4", "leaf5")
    assert tree_structure(again) == treedef
    assert repr(treedef).startswith("PyTreeDef({'a': P(*, *)")
    with pytest.raises(ValueError, match="has 8 leaves, got 2"):
        tree_unflatten(treedef, [1, 2])


def test_tree_map_several_trees_and_prefixes():
    out = tree_map(lambda x, y: x + y, {"a": 1.0, "b": [2.0, 3.0]}, {"a": 10.0, "b": [20.0, 30.0]})
    assert out == {"a": 11.0, "b": [22.0, 33.0]}
    assert tree_map(lambda x, y: (x, y), [1, 2], [{"k": 1}, (3,)]) == [(1, {"k": 1}), (2, (3,))]
    with pytest.raises(ValueError, match="differ"):
        tree_map(lambda x, y: x, {"a": 1}, {"b": 1})
    assert tree_map(lambda v: v, [[1, 2], 3], is_leaf=lambda v: isinstance(v, list) and len(v) == 2) == [[1, 2], 3]


def test_reduce_and_all():
    assert tree_reduce(lambda a, b: a + b, {"x": 1, "y": [2, 3]}) == 6
    assert tree_reduce(lambda a, b: a + b, [], 0) == 0
    assert tree_all([True, (1, 2)]) and not tree_all({"a": True, "b": 0})


# -- differentiated -----------------------------------------------------------------------------------------------

PARAMS = {"w": np.array([0.3, -0.7, 1.1]), "b": 0.5}


def squares_of_leaves(p):
    return sum(np.sum(v ** 2) for v in tree_leaves(p))


def mapped_once(p):
    q = tree_map(lambda v: np.sin(v) * 2.0, p)
    return np.sum(q["w"]) + q["b"] ** 2


def mapped_with_two_trees(p):
    q = tree_map(lambda v, w: np.sin(v) * w, p, p)
    return np.sum(q["w"] ** 2) + 3.0 * q["b"]


def mapped_with_three_trees(p):
    q = tree_map(lambda u, v, w: u * v + w, p, p, p)
    return np.sum(np.cos(q["w"])) + q["b"]


def flattened_and_rebuilt(p):
    leaves, treedef = tree_flatten(p)
    r = tree_unflatten(treedef, [leaf ** 3 for leaf in leaves])
    return np.sum(r["w"]) - r["b"]


CASES = [squares_of_leaves, mapped_once, mapped_with_two_trees, mapped_with_three_trees, flattened_and_rebuilt]


def _differences(fn, p, h=1e-6):
    out = {}
    for k, v in p.items():
        x = np.array(v, dtype=float)
        g = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            e = np.zeros_like(x)
            e[i] = h
            plus, minus = dict(p), dict(p)
            plus[k], minus[k] = (x + e, x - e) if x.ndim else (float(x + h), float(x - h))
            g[i] = (fn(plus) - fn(minus)) / (2 * h)
        out[k] = g
    return out


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_gradient_through_tree_util(fn):
    before = PARAMS["w"].copy()
    g = adsrc.grad(fn)(PARAMS)
    np.testing.assert_array_equal(PARAMS["w"], before)
    expected = _differences(fn, PARAMS)
    assert set(g) == set(expected)
    for k in expected:
        assert not np.any(np.isnan(g[k]))
        np.testing.assert_allclose(g[k], expected[k], rtol=1e-6, atol=1e-8)


def test_leaves_of_namedtuples_in_a_list():
    def fn(p):
        return sum(np.sum(v ** 2) for v in tree_leaves(p["layers"])) * p["s"]
    p = {"layers": [P(np.array([1.0, 2.0]), 0.5), P(np.array([-1.0, 0.5]), 1.5)], "s": 2.0}
    g = adsrc.grad(fn)(p)
    np.testing.assert_allclose(g["layers"][0].w, 4.0 * p["layers"][0].w)
    np.testing.assert_allclose(g["layers"][1].b, 4.0 * 1.5)
    np.testing.assert_allclose(g["s"], 1 + 4 + 0.25 + 1 + 0.25 + 2.25)


def test_is_leaf_inside_a_gradient_is_refused_naming_the_line():
    def fn(p):
        return np.sum(tree_map(lambda v: v * 2, p, is_leaf=lambda x: False)["w"])
    with pytest.raises(adsrc.TransformError, match="test_tree_util.py") as info:
        adsrc.grad(fn)(PARAMS)
    assert "without is_leaf=" in str(info.value)


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_forward_mode_through_tree_util(fn):
    direction = {"w": np.array([1.0, -0.5, 0.25]), "b": 0.7}
    value, tangent = adsrc.jvp(fn, (PARAMS,), (direction,))
    np.testing.assert_allclose(value, fn(PARAMS), rtol=1e-12)
    h = 1e-6
    moved = [{k: PARAMS[k] + s * h * direction[k] for k in PARAMS} for s in (1.0, -1.0)]
    np.testing.assert_allclose(tangent, (fn(moved[0]) - fn(moved[1])) / (2 * h), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_second_order_through_tree_util(fn):
    from casekit import central_grad

    def of_vector(v):
        return fn({"w": v[:3], "b": v[3]})
    x = np.array([0.3, -0.7, 1.1, 0.5])
    hess = adsrc.hessian(of_vector)(x)
    by_differences = np.array([central_grad(lambda u: adsrc.grad(of_vector)(u)[i], x) for i in range(4)])
    np.testing.assert_allclose(hess, by_differences, rtol=1e-5, atol=1e-7)


def test_ordered_dicts_keep_their_order_and_type_as_in_jax():
    import collections
    from adsrc import tree_util
    od = collections.OrderedDict([("b", 1.0), ("a", 2.0)])
    assert tree_util.tree_leaves(od) == [1.0, 2.0]
    out = tree_util.tree_map(lambda x: x * 2, od)
    assert type(out) is collections.OrderedDict and list(out.items()) == [("b", 2.0), ("a", 4.0)]
    leaves, treedef = tree_util.tree_flatten(od)
    assert tree_util.tree_unflatten(treedef, leaves) == od
