"""Models composed of objects, as PyTorch users write them: a module handed to another module's constructor and
called from its methods (`Wrap(Linear(W))(x)`, an encoder and a decoder, a list of layers), and classes with
methods named like a dict's.

adsrc refused these (it knew the class of an object made in __init__, not of one handed to it); the class the
caller made is now passed to the methods, and checked when the code runs. Each is checked against central
finite differences, and the inputs must come back unchanged.
"""

import dataclasses

import numpy as np

from casekit import Registry, rand

CASES = Registry()
case = CASES.case


class _Dense:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


class _Residual:
    def __init__(self, inner):
        self.inner = inner

    def __call__(self, x):
        return x + self.inner(x)


class _AutoEncoder:
    def __init__(self, encoder, decoder):
        self.encoder = encoder
        self.decoder = decoder

    def encode(self, x):
        return self.encoder(x)

    def __call__(self, x):
        return self.decoder(self.encode(x))


class _Stack:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class _Scaled:
    """Holds a module and a number: the module's methods are followed through two levels of objects."""

    def __init__(self, block, scale):
        self.block = block
        self.scale = scale

    def __call__(self, x):
        return self.scale * self.block(x)


@case(rand(3, 3), rand(3), rand(4, 3), argnums=(0, 1, 2))
def a_module_handed_to_another_modules_constructor(W, b, x):
    model = _Residual(_Dense(W, b))
    return np.sum(model(x) ** 2) + np.sum(model.inner(x))


@case(rand(3, 2), rand(2, 3), rand(5, 3), argnums=(0, 1))
def an_encoder_and_a_decoder(We, Wd, x):
    enc = _Dense(We, np.zeros(2))
    ae = _AutoEncoder(enc, _Dense(Wd, np.zeros(3)))
    z = ae.encode(x)
    return np.mean((ae(x) - x) ** 2) + 0.1 * np.sum(z ** 2)


@case(rand(3, 3), rand(3, 3), rand(2, 3), argnums=(0, 1))
def a_list_of_layers_handed_to_a_container(W1, W2, x):
    layers = [_Dense(W1, np.zeros(3)), _Dense(W2, np.ones(3) * 0.1)]
    net = _Stack(layers)
    return np.sum(net(x) ** 2) + np.sum(_Stack([_Dense(W2, np.zeros(3))])(x))


@case(rand(3, 3), rand(2, 3), 0.7, argnums=(0, 2))
def modules_nested_two_levels(W, x, s):
    model = _Scaled(_Residual(_Dense(W, np.zeros(3))), s)
    return np.sum(model(x) * x)


class _Params:
    """A class with methods named like a dict's: its own methods are followed, not read as a dict's views."""

    def __init__(self, d):
        self.d = d

    def keys(self):
        return self.d.keys()

    def values(self):
        return list(self.d.values())


@case({"W": rand(2), "b": rand(3)})
def an_objects_own_keys_and_values_methods(d):
    p = _Params(d)
    total = 0.0
    for k in p.keys():
        total = total + np.sum(d[k] ** 2)
    return total + sum(np.sum(v * v * v) for v in p.values()) + sum(np.sum(d[k]) for k in p.keys())


class _Tanh:
    def __call__(self, x):
        return np.tanh(x)


@case(rand(3, 3), rand(3, 3), rand(2, 3), argnums=(0, 1))
def a_list_of_layers_of_several_classes_handed_to_a_container(W1, W2, x):
    # `Stack([Dense(W1, b), Tanh(), Dense(W2, b)])`: the loop over self.layers is unrolled with each layer's
    # class (checked when the code runs)
    net = _Stack([_Dense(W1, np.zeros(3)), _Tanh(), _Dense(W2, np.ones(3) * 0.1)])
    return np.sum(net(x) ** 2)


class _Sequential:
    def __init__(self, *layers):
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


@case(rand(3, 3), rand(3, 3), rand(2, 3), argnums=(0, 1))
def layers_passed_one_by_one_or_made_by_a_comprehension(W1, W2, x):
    # `Sequential(*layers)`-style constructors, and a list comprehension handed to one (both refused)
    net = _Sequential(_Dense(W1, np.zeros(3)), _Tanh(), _Dense(W2, np.zeros(3)))
    same = _Sequential(_Dense(W1, np.ones(3)), _Dense(W2, np.ones(3)))
    stack = _Stack([_Dense(W, np.zeros(3)) for W in (W1, W2)])
    return np.sum(net(x) ** 2) + np.sum(same(x)) + np.sum(stack(x) * x)


@dataclasses.dataclass
class _Pair:
    first: _Dense
    second: object

    def __call__(self, x):
        return self.second(self.first(x))


@case(rand(3, 3), rand(2, 3))
def modules_held_by_a_dataclass(W, x):
    # a dataclass's fields holding modules made here (refused: its methods did not know their classes)
    pair = _Pair(_Dense(W, np.zeros(3)), _Tanh())
    return np.sum(pair(x) ** 2) + np.sum(_Pair(_Tanh(), _Dense(W, np.ones(3)))(x))


class _Positive:
    """A weight kept positive by a property computing it from the stored parameter."""

    def __init__(self, raw):
        self.raw = raw

    @property
    def W(self):
        return np.exp(self.raw)


class _UsesPositive:
    def __init__(self, inner):
        self.inner = inner

    def __call__(self, x):
        return x @ self.inner.W


@case(rand(3, 3), rand(2, 3))
def a_property_of_a_module_held_by_another(raw, x):
    # `self.inner.W` with W a property of the held module's class (refused when it ran: read as a field)
    return np.sum(_UsesPositive(_Positive(raw))(x) ** 2)


class _Backwards:
    def __init__(self, Ws):
        self.layers = [_Dense(W, np.zeros(3)) for W in Ws]

    def __call__(self, x):
        for layer in reversed(self.layers):
            x = layer(x)
        return x


@case(rand(3, 3), rand(3, 3), rand(2, 3), argnums=(0, 1))
def layers_applied_in_reverse(W1, W2, x):
    # `for layer in reversed(self.layers)` (refused: the layers' class was known only without reversed)
    return np.sum(_Backwards([W1, W2])(x) * x)


class _Layers:
    def __init__(self, Ws):
        self.layers = [_Dense(W, np.zeros(3)) for W in Ws]

    def __iter__(self):
        return iter(self.layers)


@case(rand(3, 3), rand(3, 3), rand(2, 3), argnums=(0, 1))
def layers_iterated_through_their_containers_iter(W1, W2, x):
    # `for layer in model:` with `__iter__` returning `iter(self.layers)` (refused: the layers' class)
    model = _Layers([W1, W2])
    for layer in model:
        x = layer(x)
    for block in _Layers([W2]):
        x = block(x)
    return np.sum(x ** 2)


_GLOBAL_MODEL = _Dense(np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4], [0.0, 0.2, 0.6]]), np.array([0.1, 0.0, -0.1]))


def _applied(model, x):
    return np.sum(model(x) ** 2)


@case(rand(2, 3))
def a_global_model_handed_to_a_helper(x):
    # `loss(MODEL, x)` with MODEL a module made at module level (refused: the helper did not know its class)
    return _applied(_GLOBAL_MODEL, x) + np.sum(_GLOBAL_MODEL(x) * x)


@case(rand(3, 3), rand(3, 3), rand(2, 3), argnums=(0, 1))
def a_list_of_residual_blocks(W1, W2, x):
    # `[Residual(Dense(W1, b)), Residual(Dense(W2, b))]` looped over (refused: what each block holds)
    blocks = [_Residual(_Dense(W1, np.zeros(3))), _Residual(_Dense(W2, np.zeros(3)))]
    for blk in blocks:
        x = blk(x)
    stages = [_Residual(_Dense(W, np.ones(3) * 0.1)) for W in (W2, W1)]
    for stage in stages:
        x = stage(x) * 0.5
    return np.sum(x ** 2)


@case(rand(3, 3), rand(2, 3))
def a_dict_of_modules(W, x):
    # `blocks["enc"](x)`, `for name, m in blocks.items()`, `for m in blocks.values()` (each refused)
    blocks = {"enc": _Dense(W, np.zeros(3)), "dec": _Dense(W.T, np.ones(3) * 0.1)}
    h = blocks["dec"](blocks["enc"](x))
    out = 0.0
    for name, m in blocks.items():
        out = out + np.sum(m(x))
    for block in blocks.values():
        out = out + np.sum(block(h) * h)
    return out + np.sum(h ** 2)
