"""Machine-learning programs as PyTorch, JAX and autograd users write them, that adsrc refused or got
wrong (found by probing with MLPs, layer classes, attention, RNN cells, optimisers' losses ...). Checked
against central finite differences by test_changes.py and in forward mode by test_forward.py.
"""

import dataclasses

import numpy as np

import adsrc
from casekit import Registry, rand

CASES = Registry()
case = CASES.case


# -- an activation chosen by a function that returns one of several by a name (an if/elif chain)

def get_activation(name):
    if name == "relu":
        return lambda z: np.where(z > 0, z, 0.0)
    elif name == "leaky_relu":
        return lambda z: np.where(z > 0, z, 0.01 * z)
    elif name == "softplus":
        return lambda z: np.logaddexp(0.0, z)
    elif name == "tanh":
        return np.tanh
    raise ValueError(f"unknown activation {name}")


def _swish(z):
    return z / (1.0 + np.exp(-z))


def activation_by_name(name):
    """Returns a module function or one defined here, by an if without else (falling through)."""
    if name == "swish":
        return _swish

    def cube(z):
        return z ** 3
    if name == "cube":
        return cube
    return np.cos


_W = rand(3, 4)


@case(rand(5, 3), _W, "relu", label="relu")
@case(rand(5, 3), _W, "leaky_relu", label="leaky_relu")
@case(rand(5, 3), _W, "softplus", label="softplus")
@case(rand(5, 3), _W, "tanh", label="tanh")
def activation_from_a_factory_with_an_if_chain(x, W, act):
    f = get_activation(act)
    h = f(x @ W)
    return np.sum(h ** 2) + np.sum(get_activation(act)(x[:, :1] * 2.0))


@case(rand(4, 3), "swish", label="module_function")
@case(rand(4, 3), "cube", label="nested_def")
@case(rand(4, 3), "cos", label="numpy_function")
def activation_from_a_factory_falling_through(x, name):
    act = activation_by_name(name)
    return np.sum(act(x) * x)


# -- weight decay by tree_reduce over a tree_map of the parameters

_P = {"enc": {"W": rand(3, 2), "b": rand(2)}, "dec": {"W": rand(2, 3), "b": rand(3)}}


@case(_P, rand(4, 3))
def weight_decay_by_tree_reduce_with_an_initializer(p, x):
    sq = adsrc.tree_util.tree_map(lambda w: np.sum(w * w), p)
    l2 = adsrc.tree_util.tree_reduce(lambda a, b: a + b, sq, 0.0)
    z = np.tanh(x @ p["enc"]["W"] + p["enc"]["b"])
    return np.mean((z @ p["dec"]["W"] + p["dec"]["b"] - x) ** 2) + 0.1 * l2


@case(_P)
def products_by_tree_reduce_without_an_initializer(p):
    total = adsrc.tree_util.tree_reduce(lambda a, b: a * np.sum(b), p, )
    return np.sum(total) + adsrc.tree_util.tree_reduce(lambda a, b: a + np.sum(b ** 2), p, 1.0)


# -- a nested def called with a function known when transforming, which it calls

@case(rand(3, 2), rand(4, 3))
def nested_layer_with_an_activation_keyword(W, x):
    def layer(x, W, *, activation=None, scale=1.0):
        h = x @ W * scale
        return activation(h) if activation is not None else h
    return np.sum(layer(x, W, activation=np.tanh, scale=0.5) ** 2) + np.sum(layer(x, W))


def _square(z):
    return z ** 2


@case(rand(3, 2), rand(4, 3))
def nested_layer_closing_over_parameters_given_activations(W, x):
    b = np.sum(W)
    outs = []

    def layer(x, act):
        h = act(x @ W + b)
        outs.append(h)
        return h
    return np.sum(layer(x, np.tanh)) + np.sum(layer(x, _square) * layer(x, np.sin)) + len(outs) * np.sum(outs[0])


@case(rand(3, 2), rand(4, 3))
def activation_by_getattr_of_numpy_bound_to_a_name(W, x):
    name = "tanh"
    f = getattr(np, name)
    g = getattr(np, "sin")
    return np.sum(f(x @ W) ** 2) + np.sum(g(x @ W))


# -- a list of layer objects (a dataclass; a registered pytree class in test_ml_programs.py) as the
#    differentiated parameters

@dataclasses.dataclass
class Dense:
    W: np.ndarray
    b: np.ndarray

    def __call__(self, x):
        return x @ self.W + self.b


def _layers():
    return [Dense(rand(3, 4), rand(4)), Dense(rand(4, 2), rand(2))]


@case(_layers(), rand(5, 3))
def list_of_layer_objects_looped_over(layers, x):
    for layer in layers[:-1]:
        x = np.tanh(layer(x))
    return np.sum(layers[-1](x) ** 2)


@case(_layers(), rand(5, 3))
def list_of_layer_objects_indexed_and_unpacked(layers, x):
    enc, dec = layers
    last = layers[-1]
    h = np.tanh(layers[0](x))
    return np.sum(dec(np.sin(enc(x))) * last(h)) + np.sum(last.W ** 2)


@case(tuple(_layers()), rand(5, 3))
def tuple_of_layer_objects(layers, x):
    for layer in layers:
        x = np.tanh(layer.__call__(x))
    return np.sum(x)


# -- a model object (a registered dataclass) whose field is a list of layer objects, as Equinox users write

@dataclasses.dataclass
class MLP:
    layers: list
    act: str = "tanh"

    def __call__(self, x):
        f = np.tanh if self.act == "tanh" else (lambda z: np.maximum(z, 0.0))
        for layer in self.layers[:-1]:
            x = f(layer(x))
        return self.layers[-1](x)


adsrc.register_dataclass(MLP, data_fields=["layers"], meta_fields=["act"])


@case(MLP(_layers()), rand(5, 3), rand(5), label="tanh")
@case(MLP(_layers(), act="relu"), rand(5, 3), rand(5), label="relu")
def model_object_with_a_list_of_layers(model, x, y):
    return np.mean((model(x)[:, 0] - y) ** 2) + np.sum(model.layers[0](x))


# -- tree_leaves of an object the function also reads attributes of (their cotangents are added)

@case(Dense(rand(3, 2), rand(2)), rand(4, 3))
def weight_decay_by_tree_leaves_of_a_layer_object(layer, x):
    return np.sum(layer(x) ** 2) + 0.1 * sum(np.sum(p ** 2) for p in adsrc.tree_util.tree_leaves(layer))


@case(MLP(_layers()), rand(4, 3))
def weight_decay_by_tree_leaves_of_a_model_object(model, x):
    l2 = sum(np.sum(p ** 2) for p in adsrc.tree_util.tree_leaves(model))
    return np.sum(model(x)) + np.sum(model.layers[1].W) + 0.1 * l2


# -- a dict of layer objects of one class

@case({"a_enc": Dense(rand(3, 2), rand(2)), "b_dec": Dense(rand(2, 3), rand(3))}, rand(4, 3))
def dict_of_layer_objects(p, x):
    h = np.tanh(p["a_enc"](x))
    out = 0.0
    for layer in p.values():
        out = out + np.sum(layer.W ** 2)
    for name in ["a_enc", "b_dec"]:
        x = np.tanh(p[name](x))
    return np.sum((p["b_dec"](h) - x) ** 2) + out


# -- a Sequential-style list (and a dict) of layer objects of several classes, as the parameters

@dataclasses.dataclass
class Scaled:
    scale: np.ndarray

    def __call__(self, x):
        return np.tanh(x) * self.scale


@dataclasses.dataclass
class ReLU:
    def __call__(self, x):
        return np.maximum(x, 0.0)


def _sequence():
    return [Dense(rand(3, 4), rand(4)), Scaled(rand(4)), Dense(rand(4, 2), rand(2)), ReLU()]


@case(_sequence(), rand(4, 3))
def sequential_list_of_layers_of_several_classes(layers, x):
    for i, layer in enumerate(layers):
        x = layer(x) * (1.0 + 0.1 * i)
    return np.sum(x ** 2)


@case(_sequence(), rand(4, 3))
def layers_of_several_classes_indexed_and_unpacked(layers, x):
    first, act, second, relu = layers
    h = layers[1](layers[0](x))
    return np.sum(layers[-1](layers[-2](h))) + np.sum(relu(second(act(first(x))))) + np.sum(layers[1].scale)


@case({"enc": Dense(rand(3, 4), rand(4)), "act": Scaled(rand(4)), "dec": Dense(rand(4, 3), rand(3))}, rand(4, 3))
def dict_of_layers_of_several_classes(p, x):
    return np.sum((p["dec"](p["act"](p["enc"](x))) - x) ** 2)


@case([Dense(rand(3, 3), rand(3)), rand(3)], rand(4, 3))
def list_of_a_layer_and_an_array(p, x):
    return np.sum(p[0](x) * p[1]) + np.sum(p[-2].W)


# -- a tree_map of a model object is an object of its class (as the tree_map rebuilds it)

@case(MLP(_layers()), rand(4, 3))
def model_object_rebuilt_by_a_tree_map(model, x):
    half = adsrc.tree_util.tree_map(lambda p: 0.5 * p, model)
    return np.sum(half.layers[0](x)) + np.sum(half(x) * model(x))


@case(rand(4, 3), rand(3, 3))
def nested_def_given_a_numpy_reduction_changes_its_argument(x, W):
    def centre_(h, fn):
        h -= fn(h, axis=0)
        return h
    h = x @ W
    h2 = centre_(h, np.mean)
    return np.sum(h ** 2) + np.sum(h2 * np.arange(3.0)) + np.sum(centre_(x * 1.0, np.max))


# -- tree_reduce's initializer by keyword; a weight-decay mask by the leaves' paths

@case(_P)
def tree_reduce_with_the_initializer_by_keyword(p):
    return adsrc.tree_util.tree_reduce(lambda a, x: a + np.sum(np.sin(x)), p, initializer=0.5)


@case(_P, rand(4, 3))
def weight_decay_masked_by_leaf_paths(p, x):
    decay = 0.0
    for path, leaf in adsrc.tree_util.tree_flatten_with_path(p)[0]:
        decay = decay + (0.0 if ".b" in adsrc.tree_util.keystr(path) or "['b']" in adsrc.tree_util.keystr(path)
                         else 0.1) * np.sum(leaf ** 2)
    pairs = adsrc.tree_util.tree_leaves_with_path(p)
    z = np.tanh(x @ p["enc"]["W"] + p["enc"]["b"])
    return np.sum(z ** 2) + decay + np.sum(pairs[0][1])


# -- an activation looked up in a dict display by a factory, with the name in a configuration object

def act_fn(name):
    return {"relu": lambda z: np.maximum(z, 0.0), "tanh": np.tanh, "swish": _swish, "sin": np.sin}[name]


@dataclasses.dataclass
class Config:
    act: str = "relu"
    dropout: float = 0.0


@case(rand(3, 4), rand(5, 3), Config(act="tanh"), label="tanh")
@case(rand(3, 4), rand(5, 3), Config(act="relu"), label="relu")
@case(rand(3, 4), rand(5, 3), Config(act="sin"), label="last_of_a_repeated_key")
def activation_looked_up_in_a_dict_by_a_configuration(W, x, cfg):
    f = act_fn(cfg.act)
    return np.sum(f(x @ W) ** 2) * (1 - cfg.dropout) + np.sum(act_fn("tanh")(x))


# (both arguments: a second derivative through a lifted nested def whose activation's derivative calls NumPy,
#  np.cos -> np.sin, is still refused, so this case is not among test_forward's Hessian-vector products)
@case(rand(4, 3), rand(3, 3), argnums=(0, 1))
def nested_layer_with_a_default_activation(x, W):
    def layer(h, act=np.tanh):
        return act(h @ W)
    return np.sum(layer(x)) + np.sum(layer(x, np.sin)) + np.sum(layer(x, act=np.cos))
