"""Programs written with classes, the way users write models (tests/test_objects.py differentiates them)."""

import logging
from fractions import Fraction

import numpy as np

LOG = logging.getLogger("adsrc.tests.objects")
HALF = Fraction(1, 2)       # an object of a standard-library class, with methods in Python


class Base:
    def __init__(self, scale):
        self.scale = scale

    def act(self, z):
        return np.tanh(z) * self.scale


class Layer(Base):
    def __init__(self, W, b, scale=1.0):
        super().__init__(scale)
        self.W = W
        self.b = b

    def __call__(self, x):
        return self.act(self.pre(x))

    def pre(self, x):
        return x @ self.W + self.b

    @property
    def norm(self):
        return np.sum(self.W ** 2)


def layer_loss(W, b, x):
    layer = Layer(W, b, 2.0)
    return np.sum(layer(x)) + layer.norm


class Cell:
    """An RNN cell keeping its state in an attribute."""

    def __init__(self, W, h0):
        self.W = W
        self.h = h0

    def step(self, x):
        self.h = np.tanh(self.W @ self.h + x)
        return self.h


def rnn(W, xs):
    cell = Cell(W, np.zeros(W.shape[0]))
    total = 0.0
    for x in xs:
        total = total + np.sum(cell.step(x))
    return total + np.sum(cell.h ** 2)


class Counter:
    def __init__(self):
        self.total = 0.0
        self.n = 0

    def add(self, v):
        self.total += v
        self.n += 1


def mean_of_squares(x):
    c = Counter()
    for v in x:
        c.add(v * v)
    return c.total / c.n


class Linear:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, h):
        return h @ self.W + self.b


class MLP:
    def __init__(self, params):
        self.layers = [Linear(W, b) for W, b in params]
        self.head = Linear(params[-1][0].T, 0.0)

    def __call__(self, x):
        h = x
        for layer in self.layers[:-1]:
            h = np.tanh(layer(h))
        h = self.layers[-1](h)
        return self.head(h)

    def loss(self, x, y):
        return np.mean((self(x) - y) ** 2)


def mlp_loss(params, x, y):
    return MLP(params).loss(x, y)


def model_loss(x, y, model):
    """The model is an argument (not differentiated): its class is part of the specialization."""
    return model.loss(x, y)


def two_layers(W1, W2, x):
    layers = [Linear(W1, 0.0), Linear(W2, 0.0)]
    h = x
    for layer in layers:
        h = np.tanh(layer(h))
    return np.sum(h)


def two_layers_then_another(W1, W2, x, other):
    layers = [Linear(W1, 0.0), Linear(W2, 0.0)]
    layers[1] = other       # the class adsrc infers from the display is wrong here: checked when the code runs
    h = x
    for layer in layers:
        h = np.tanh(layer(h))
    return np.sum(h)


def set_fields(x, obj):
    obj.a = x * 2.0
    obj.a += x
    obj.b = np.sin(obj.a)
    return obj.a * obj.b


def apply_twice(f, x):
    return f(f(x))


def with_function(x, f):
    """f is a function passed as an argument."""
    return np.sum(apply_twice(f, x))


def square(x):
    return x * x


def norm_of_an_item(W):
    """The list is not a display of constructions: layer's class is not known when transforming, so its
    property must not be read as a field."""
    layers = [Layer(W, 0.0)] + []
    layer = layers[0]
    return layer.norm


class Box:
    def __init__(self):
        self.value = 0.0

    def set(self, v):
        self.value = v


def make_box():
    return Box()


def set_through_a_factory(x):
    box = make_box()        # the class of what make_box returns is read from its source (and checked)
    box.set(x * 3.0)
    return box.value


def set_on_an_item(x, boxes):
    box = boxes[0]          # adsrc does not know what `box` is
    box.set(x * 3.0)        # run for its effect, with a differentiated argument
    return box.value


class AppendedMLP:
    """Layers appended one by one in __init__, and a local list of layers appended in the loss."""

    def __init__(self, params):
        self.layers = []
        for W, b in params:
            self.layers.append(Linear(W, b))

    def __call__(self, x):
        for layer in self.layers:
            x = np.tanh(layer(x))
        return x


def appended_loss(params, x):
    model = AppendedMLP(params)
    extra = []
    for W, b in params[:1]:
        extra.append(Linear(W, b))
    h = model(x)
    for layer in extra:
        h = h + np.sum(layer(x))
    return np.sum(h ** 2)


def fill_through_a_method_descriptor(x):
    out = np.zeros(2)
    np.ndarray.fill(out, x[0])
    return np.sum(out * x)


def prints_and_warns(x):
    import warnings
    print("x:", x)
    warnings.warn(f"x is {x}")
    LOG.info("x is %s", x)                  # a bound method of a Logger at module level
    LOG.debug("squares: %s", x * x)
    return np.sum(x * x)


def through_a_library_object(x):
    return np.sum(x * HALF.__rmul__(x))
