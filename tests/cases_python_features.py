"""Python features ordinary programs use, whose derivatives adsrc once lost or crashed on: property setters,
`functools.cached_property`, `__getattr__`, `__iadd__`, dataclass fields with default factories, deques (with
and without a maxlen), and values written into integer arrays.

Each is registered with inputs and checked against central finite differences; their inputs must come back
unchanged.
"""

import functools
import itertools
import math
import collections
from collections import deque, namedtuple
import dataclasses
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from casekit import Registry, rand

CASES = Registry()
case = CASES.case


class Particle:
    def __init__(self, pos):
        self._pos = pos

    @property
    def pos(self):
        return self._pos

    @pos.setter
    def pos(self, value):
        self._pos = value * 2.0

    @functools.cached_property
    def energy(self):
        return np.sum(self._pos ** 2)


class Namespace:
    def __init__(self, values):
        self.values = values

    def __getattr__(self, name):
        return self.values[name] * 3.0


class Accumulator:
    def __init__(self):
        self.total = 0.0

    def __iadd__(self, v):
        self.total = self.total + v
        return self


@dataclass
class History:
    x: float
    scale: float = 1.0
    seen: list = field(default_factory=list)


@case(rand(3))
def property_setter_and_cached_property(x):
    p = Particle(x)
    p.pos = x * x            # stored as 2 x**2
    return np.sum(p.pos) + p.energy


@case(rand(2))
def attributes_from_getattr(x):
    ns = Namespace({"w": x[0], "b": x[1]})
    return ns.w * ns.b + np.sin(ns.values["w"])


@case(rand(3))
def in_place_add_on_an_object(x):
    acc = Accumulator()
    for v in x:
        acc += v * v
    return acc.total


@case(rand(1))
def dataclass_with_a_default_factory(x):
    h = History(x[0] * 2.0)
    h.seen.append(h.x)
    return h.scale * h.x ** 2 + len(h.seen)


@case(rand(5))
def deque_as_a_moving_window(x):
    window = deque()
    total = 0.0
    for v in x:
        window.append(v)
        if len(window) > 2:
            window.popleft()
        total += sum(window) * window[0]
    return total


@case(rand(5))
def deque_with_a_maxlen(x):
    recent = deque(x[:1], maxlen=3)
    out = 0.0
    for v in x[1:]:
        recent.append(v * 2.0)
        out = out + recent[0] * recent[-1]
    recent.appendleft(x[0])
    return out + sum(recent)


@case(np.array([0.123, 0.456, 0.789]))
def value_written_into_an_integer_array(x):
    counts = np.zeros(3, dtype=int)
    counts[0] = x[0] * 10.0           # truncated: no derivative
    return np.sum(counts * x) + x[1]


class Spring:                   # no __init__ of its own
    K = 3.0

    def energy(self, r):
        return 0.5 * self.K * r ** 2


class Model:
    def __init__(self, w, b=0.0):
        self.w, self.b = w, b

    @classmethod
    def create(cls, w):
        return cls(w, 0.5)

    @staticmethod
    def act(z):
        return np.tanh(z)

    def scaled(self, s):
        self.w = self.w * s
        return self

    def __call__(self, x):
        return np.sum(self.act(self.w * x + self.b))


@case(rand(2))
def objects_made_and_called_as_people_write_them(x):
    s = Spring()
    m = Model.create(x)
    return s.energy(x[0]) + Model(x)(x[::-1]) + m(x) + Model(x).scaled(2.0)(x)


@case(rand(6))
def min_and_max_of_many_values_and_by_key(x):
    d = min(x[0], x[1], x[2]) + max(x[3], x[4], x[5], x[0])
    k = max(list(x), key=abs) + min(range(len(x)), key=lambda i: (x[i] - 0.2) ** 2) * x[0]
    return d + k + max([], default=x[1]) + min(x[:3], default=0.0)


@case(rand(6))
def standard_library_helpers(x):
    import itertools
    import math
    import statistics
    running = list(itertools.accumulate(x))
    product = list(itertools.accumulate(x, lambda a, b: a * b))
    pairs = sum(p * q for p, q in itertools.pairwise(x))
    chained = sum(itertools.chain(x[:2], [x[3]])) + sum(itertools.islice(x, 1, 4))
    q, r = divmod(x[0] * 7.0 + 10.0, 2.0)
    return (running[-1] + product[-1] + pairs + chained + r + math.fsum(x) + math.prod(x[:3])
            + math.dist(x[:2], x[2:4]) + statistics.mean(x) + statistics.median(x) + statistics.stdev(x))


@case(rand(6))
def numpy_keywords_beyond_the_rules(x):
    labels = np.array([0, 2, 2, 1, 0, 2])
    values, counts = np.unique(labels, return_counts=True)
    strict = sum(a * b for a, b in zip(x[:3], x[3:], strict=True))
    return np.sum(x, where=x > 0) + np.mean(x.reshape(2, 3), axis=1, where=np.array([True, False, True])).sum() \
        + np.sum(counts * x[:3]) + strict + np.sum(np.unique(x * 2.0))


@case(np.array([0.3, 1.2, 0.8, -0.5]))
def iterators_advanced_with_next(x):
    it = iter(x)
    prev = next(it)
    total = 0.0
    for v in it:
        total = total + (v - prev) ** 2
        prev = v
    pairs = (v * 2.0 for v in x)
    a = next(pairs)
    b = next(pairs, 0.0)
    rest = iter(x[1:])
    cubes = 0.0
    while True:
        try:
            v = next(rest)
        except StopIteration:
            break
        cubes = cubes + v ** 3
    return total + a * b + cubes + next((v for v in x if v > 0.5), 0.0) * 3.0


@case(rand(2))
def loop_over_a_display_of_functions(x):
    total = 0.0
    for fn in (np.sin, np.cos):
        total = total + fn(x[0])
    s = x[1] * 2.0
    for fn in [lambda v: v, lambda v: v ** 2 * s]:
        total = total + fn(x[0])
    return total


def _quadratic(x, a, b=0.5, *, c=2.0):
    return a * x ** 2 + b * x + c


@case(rand(3))
def dict_unpacked_into_a_function(w):
    xs = np.linspace(0.0, 1.0, 5)
    params = {"a": w[0], "b": w[1]}
    options = {"c": w[2] * 3.0}
    return np.sum(_quadratic(xs, **params)) + np.sum(_quadratic(xs, w[1], **options))


class Path:
    def __init__(self, points):
        self.points = points

    def __iter__(self):
        for i in range(len(self.points) - 1):
            yield self.points[i], self.points[i + 1]


@case(np.array([0.0, 0.1, 1.0, 1.0, 2.0, 0.5]))
def iterating_an_object_whose_iter_yields(x):
    path = Path([x[0:2], x[2:4], x[4:6]])
    total = 0.0
    for a, b in path:
        total = total + np.sqrt(np.sum((a - b) ** 2))
    return total


class SquaredLoss:
    def total(self, p):
        return np.sum(p ** 2)


class AbsoluteLoss:
    def total(self, p):
        return np.sum(np.abs(p))


class CountedLayer:
    made = 0

    def __init__(self, w):
        self.w = w
        CountedLayer.made += 1            # a class-level counter: an effect, not a derivative

    def __call__(self, x):
        return np.tanh(self.w * x)


@case(np.array([0.3, -1.2, 0.7]))
def sort_by_key_losses_of_several_classes_and_a_class_counter(x):
    rows = [{"v": x[0]}, {"v": x[1]}, {"v": x[2]}]
    rows.sort(key=lambda r: r["v"])
    vals = [x[0], x[1], x[2]]
    vals.sort(key=abs, reverse=True)
    total = rows[0]["v"] * 2.0 + rows[-1]["v"] ** 2 + vals[0] * 10.0 + vals[2]
    for loss in [SquaredLoss(), AbsoluteLoss()]:
        total = total + loss.total(x)
    return total + np.sum(CountedLayer(x[0])(x))


# -- tables of functions ------------------------------------------------------------------------------------

def leaky(z):
    return np.where(z > 0, z, 0.1 * z)


ACTIVATIONS = {"tanh": np.tanh, "leaky": leaky, "softplus": lambda z: np.log1p(np.exp(z))}


@case(rand(4), kwargs={"kind": "leaky"})
@case(rand(4), kwargs={"kind": "softplus"})
def global_table_of_activations_by_name(x, kind="tanh"):
    return np.sum(ACTIVATIONS[kind](x) * x)


@case(rand(3))
def local_list_of_functions_indexed_by_the_loop(x):
    fs = [np.sin, leaky, lambda t: t * t * x[0]]
    s = 0.0
    for i in range(3):
        s = s + np.sum(fs[i](x)) * (i + 1)
    return s + np.sum(fs[-1](x))


@case(rand(3))
def local_dict_of_functions_chosen_by_a_value(x):
    def cube(v):
        return v ** 3

    ops = {"square": lambda v: v * v, "cube": cube}
    name = "square" if x[0] > 0 else "cube"
    return np.sum(ops[name](x)) + ops["cube"](x[1])


@case(rand(3))
def entry_of_a_table_bound_to_a_name(x):
    # refused: `act = acts["leaky"]; act(h)` (a call of an unknown `act`); an entry chosen by a key known when
    # transforming is that entry
    acts = {"tanh": np.tanh, "leaky": leaky, "cube": lambda v: v ** 3}
    act = acts["leaky"]
    second = {"sin": np.sin, "sq": lambda v: v * v}["sq"]
    glob = ACTIVATIONS["softplus"]
    last = [np.cos, np.sin][-1]
    h = x
    for _ in range(2):
        h = act(h) + second(h) * 0.5
    return np.sum(glob(h)) + np.sum(last(x))


@case(rand(6))
def priority_queue_with_heapq(x):
    import heapq
    heap = []
    for i in range(6):
        heapq.heappush(heap, (x[i] * x[i], i))
    first, _ = heapq.heappop(heap)
    second, j = heapq.heappop(heap)
    rest = [v * 2.0 for v in x]
    heapq.heapify(rest)
    top = heapq.heapreplace(rest, x[0] * 3.0)
    kept = heapq.heappushpop(rest, x[1] - 1.0)
    return first + second * j + top * rest[0] + kept + heap[0][0] * heap[1][0]


@case(rand(6))
def next_inside_expressions(x):
    it = iter(x)
    a = np.zeros(3)
    a[0] = next(it) * 2.0
    total = 0.0
    for k in range(2):
        total += next(it) * (k + 1.0) + 1.0
    pair = (next(it), next(it, 5.0) ** 2)
    if next(it, -1.0) > 100.0:
        total = total * 2.0
    squares = (v * v for v in x)
    first = next(squares) + 3.0 * next(squares)
    return np.sum(a) + total + pair[0] * pair[1] + first * next(squares)


def _sum_of_squares(a, *more):
    return np.sum(a ** 2) + sum(np.sum(m) for m in more)


def _forwarding(*args):
    args = list(args)
    head = args[0] * 2.0
    return _sum_of_squares(head, *args[1:]) + np.sum(np.stack(args) * 0.5) + np.dot(*args[:1], args[-1])


@case(rand(3), rand(3))
def star_arguments_of_known_length_forwarded(x, y):
    # `*args[1:]`, and `*args` after `args = list(args)`, into a function and into a rule: their lengths are
    # known here (they were refused as sequences of unknown length)
    return _forwarding(x, y) + _forwarding(y)


_TERMS = [lambda v: np.sum(v ** 3), lambda v: np.prod(np.sin(v)), np.linalg.norm]


@case(rand(3))
def comprehensions_over_lists_of_functions(x):
    # as a for loop over them: each call followed (a comprehension's loop variable was an unknown function)
    local = [np.tanh, lambda v: v * 2.0]
    parts = [g(x) for g in _TERMS]
    more = [np.sum(h(x)) for h in local if h is not None]
    return sum(parts) + sum(more) + sum(f(x[1]) for f in (np.sin, np.cos))


@dataclass
class _Params:
    w: np.ndarray
    b: float


class _Layer:
    def __init__(self, w):
        self.w = w

    def relu(self, z):
        return np.maximum(z, 0.0) + 0.1 * z

    def lin(self, z):
        return z * self.w

    def __call__(self, x, kind):
        return getattr(self, kind)(x)      # a method chosen by a string the caller passes


_FIELDS = ("w", "b")
_UNARY = ["tanh", "sin"]


@case(np.array([0.3, -0.2, 0.5]), np.array([1.0, 2.0, -1.5]))
def getattr_with_names_known_when_transforming(x, w):
    # names from loops over strings, a comprehension, a global list, with a default: each getattr reads one
    # known attribute (all were refused: "Read the attribute with a constant name")
    p = _Params(w, 0.5)
    total = 0.0
    for i, k in enumerate(_FIELDS):
        total = total + (i + 1.0) * np.sum(getattr(p, k) * x)
    parts = [np.sum(getattr(p, k) ** 2) for k in ("w", "b")]
    for name in _UNARY:
        total = total + np.sum(getattr(np, name)(x * w))
    layer = _Layer(w)
    extra = getattr(layer, "scale", 2.0) * np.sum(getattr(layer, "w", 0.0) * x)
    return total + parts[0] * parts[1] + extra


@case(np.array([0.3, -0.2, 0.5]), np.array([1.0, 2.0, -1.5]))
def getattr_choosing_a_method_when_the_code_runs(x, w):
    layer = _Layer(w)
    kinds = ["lin", "relu"] if x[0] > 0 else ["relu", "relu"]
    out = x
    for kind in kinds:
        out = layer(out, kind)
    return np.sum(out * out)


class _Dense:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


def _dense(x, W, b):
    return x @ W + b


_W1 = np.array([[0.4, -0.3], [0.2, 0.5]])


@case((_W1, np.array([0.1, -0.2])), np.array([0.7, -0.4]))
def objects_made_from_unpacked_parameters(params, x):
    # `Cls(*params)`, `Cls(**d)` and `f(x, *layer)` with a differentiated tuple: matched to the parameters
    # (the gradient was silently zero for the constructor, and the call to `_dense` was refused)
    layer = _Dense(*params)
    named = _Dense(**{"W": params[0] * 2.0, "b": params[1]})
    out = layer(x) + named(x)
    for p in [params, (params[0] * params[0], params[1])]:
        out = _Dense(*p)(out) + 0.5 * _dense(out, *p)
    return np.sum(out ** 2)


@dataclass
class _Gauss:
    mu: np.ndarray
    log_sigma: float
    sigma: float = field(init=False)
    scale: float = 2.0

    def __post_init__(self):
        self.sigma = np.exp(self.log_sigma) * self.scale

    def logpdf(self, x):
        return -0.5 * np.sum((x - self.mu) ** 2) / self.sigma ** 2 - x.size * np.log(self.sigma)


@dataclass(frozen=True)
class _Frozen:
    log_s: float
    s: float = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "s", np.exp(self.log_s))


class _Settable:
    def __init__(self, a):
        setattr(self, "a", a * 2.0)


@case(np.array([0.1, 0.4]), np.array([0.3, -0.2]))
def dataclass_fields_computed_in_post_init(mu, x):
    # __post_init__ is followed after the object is made from its fields (their gradients were silently
    # dropped), in a frozen dataclass through object.__setattr__ too; setattr with a literal name
    g = _Gauss(mu, mu[0] * 0.5)
    h = _Gauss(mu * 2.0, log_sigma=mu[1], scale=0.5)
    s = _Settable(mu)
    setattr(s, "b", x * mu)
    return g.logpdf(x) + h.logpdf(x) + h.sigma + _Frozen(mu[0]).s ** 2 + np.sum(s.a * s.b)


def _swish(z):
    return z / (1.0 + np.exp(-z))


@case(np.array([0.2, -0.4, 0.7]))
def default_arguments_holding_functions(x, reduce=np.mean, act=lambda z: z ** 2, gate=_swish):
    # the differentiated function's own defaults (they were followed only in functions it calls)
    return reduce(np.sin(x)) + np.sum(act(x) * gate(x))


class _Linear:
    def __init__(self, W):
        self.W = W

    def __call__(self, x):
        return x @ self.W


class _Tanh:
    def __call__(self, x):
        return np.tanh(x)


class _Scaled(_Linear):
    def __call__(self, x):
        return 2.0 * (x @ self.W)


@case(np.array([[0.5, -0.2], [0.3, 0.4]]), np.array([0.7, -0.3]))
def loops_over_lists_of_objects_of_several_classes(W, x):
    # `for layer in layers` over objects of different classes, and zip/enumerate over lists of objects: each
    # unrolled with its object's class known (all were refused)
    layers = [_Linear(W), _Tanh(), _Scaled(W)]
    for layer in layers:
        x = layer(x)
    ms = [_Linear(W), _Linear(W * W)]
    total = sum(np.sum(m(v)) for m, v in zip(ms, [x, x * 2.0]))
    for i, m in enumerate([_Scaled(W), _Tanh()]):
        total = total + (i + 1.0) * np.sum(m(x))
    return total


class _State(NamedTuple):
    h: np.ndarray
    c: np.ndarray


@dataclass
class _Opt:
    w: np.ndarray
    lr: float


@case(np.array([0.5, -0.2]))
def records_replaced_field_by_field(w):
    # namedtuple._replace and dataclasses.replace: a new record with the other fields of the old one
    s = _State(np.zeros(2), np.ones(2) * w[0])
    for _ in range(2):
        s = s._replace(h=np.tanh(w * s.c + s.h))
    o = _Opt(w, 0.1)
    o = dataclasses.replace(o, w=o.w * 2.0)
    g = _Gauss(w, 0.3)
    g = dataclasses.replace(g, log_sigma=w[1])          # __post_init__ computes sigma again
    return np.sum(s.h) + np.sum(o.w ** 2) * o.lr + g.sigma


class _Vec2:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __add__(self, o):
        return _Vec2(self.x + o.x, self.y + o.y)

    def __mul__(self, s):
        return type(self)(self.x * s, self.y * s)

    def __rmul__(self, s):
        return self * s                 # delegating to __mul__

    def norm(self):
        return np.sqrt(self.x * self.x + self.y * self.y)


class _Store:
    def __init__(self, values):
        self.values = values

    def __getitem__(self, name):
        return self.values[:2] if name == "W" else self.values[2:]


def _euler(y, h):
    return y + h * (-y ** 2)


_INTEGRATORS = {"euler": _euler, "sine": lambda y, h: y + h * np.sin(y)}


@case(np.array([0.7, -0.3, 1.1]))
def objects_rebound_by_their_operators(v):
    # p = p + p * 0.5 keeps p's class (known from the operators' returns); 2.0 * q through __rmul__ returning
    # `self * s`, which makes `type(self)(...)`; a `__getitem__` of the user's; a function picked from a global
    # table by a constant
    p = _Vec2(1.0, v[0])
    for _ in range(3):
        p = p + p * 0.5
    q = 2.0 * _Vec2(v[1], v[2])
    store = _Store(v)
    stepper = _INTEGRATORS["euler"]
    return p.norm() + q.norm() + np.sum(store["W"] ** 2) + np.sum(store["b"]) + stepper(v[0], 0.1)


class _Activated:
    def __init__(self, W, b, act=np.tanh):
        self.W, self.b, self.act = W, b, act

    def __call__(self, x):
        return self.act(x @ self.W + self.b)


def _leaky_relu(z):
    return np.maximum(z, 0.0) + 0.1 * np.minimum(z, 0.0)


@case(np.array([[0.5, -0.2], [0.3, 0.4]]), np.array([0.1, -0.2]), np.array([0.7, -0.3]))
def functions_held_in_fields_of_objects_made_here(W, b, x):
    # `self.act(z)` with act the function the object was made with (a default, a module function, a ufunc):
    # each method follows its own object's function (all were refused)
    h = _Activated(W, b)(x)
    layer = _Activated(W.T, b, _leaky_relu)
    d = _Activated(W, b, act=np.sin)
    return np.sum(layer(h)) + np.sum(d(x) ** 2)


class _Scaled2:
    scale = 1.5                     # a class attribute: a constant (forward mode took its value for a tangent)

    def __init__(self, w):
        self.w = w

    def __call__(self):
        return self.scale * self.w ** 2


@case(np.array([0.7, 1.3]))
def class_attributes_read_through_self(x):
    return _Scaled2(x[0])() * x[1] + _Scaled2(x)().sum()


class _Signed:
    def __init__(self, a):
        self.a = a

    def __add__(self, o):
        return _Signed(self.a + o)

    def __neg__(self):
        return _Signed(-self.a)

    def __abs__(self):
        return _Signed(np.abs(self.a) + self.a ** 2)

    def total(self):
        return np.sum(self.a * np.arange(1.0, self.a.size + 1.0))


class _Point(NamedTuple):
    x: float
    y: float

    def scaled(self, s):
        return self._replace(x=self.x * s)

    def norm2(self):
        return self.x ** 2 + self.y ** 2


_FAMILIES = {"signed": _Signed}


@functools.lru_cache(maxsize=None)
def _cached_weight(k):
    return 1.0 / (1.0 + k)


@case(np.array([0.3, -1.2]))
def idioms_that_keep_an_objects_class(x):
    # -v, abs(v), `a if c else b`, a namedtuple method returning self._replace, a class from a registry by a
    # constant key, a, b = A(...), B(...); with contextlib.suppress / nullcontext; an lru_cache'd helper; a
    # name bound to a string read with getattr (all were refused)
    import contextlib
    a, b = _Signed(x), _Signed(2.0 * x)
    m = a if x[0] > 0 else b
    cls = _FAMILIES["signed"]
    total = (-a + 1.0).total() + abs(b).total() + m.total() + cls(x * 3.0).total()
    total = total + _Point(x[0], x[1]).scaled(3.0).norm2() * _cached_weight(2)
    field = "a"
    total = total + np.sum(getattr(a, field))
    d = {"k": x[0]}
    with contextlib.suppress(KeyError):
        total = total * d["k"] + d["missing"]
    with contextlib.nullcontext(x[1]) as v:
        total = total + v ** 2
    return total


class _Summable:
    def __init__(self, a):
        self.a = a

    def __add__(self, o):
        return _Summable(self.a + (o.a if isinstance(o, _Summable) else o))

    def __radd__(self, o):
        return self.__add__(o)          # its returned class is __add__'s

    def total(self):
        return np.sum(self.a ** 2)


@case(np.array([0.3, -1.2, 2.0]))
def builtin_sum_of_objects(x):
    # sum([u, v]) is 0 + u + v through __radd__ and __add__ (it was refused)
    v = _Summable(x)
    s = sum([v, _Summable(x * x)])
    return s.total() + sum((v, v), _Summable(1.0)).total()


@case(np.array([0.3, 1.2, -0.8, 0.5, 2.0, -1.5, 0.7]))
def loops_and_sums_over_an_iterator_advanced_with_next(x):
    # `for a in it: b = next(it)` (pairs), a loop that breaks then `next`, and `sum(it)` of the rest: the loop
    # read the iterator's items as they were before the `next` calls (value and gradient were wrong), and
    # `sum(it)` after `next(it)` was refused
    it = iter(x[:4])
    pairs = 0.0
    for a in it:
        b = next(it)
        pairs = pairs + a * b
    gen = (v * v for v in x[4:])
    for v in gen:
        if v > 0.1:
            break
    after = next(gen)
    squares = (v * 2.0 for v in x)
    first = next(squares)
    return pairs + after * 3.0 + first * sum(squares)


def _scaled(a, y):
    return a * y


@case(np.array([0.6, -1.1, 2.0, 0.4]))
def defaults_and_partials_keep_the_values_of_when_they_were_made(x):
    # a nested function's default (`a=a`, `s=a * 2.0`, keyword-only, a lambda's) and functools.partial's
    # arguments are computed when the def, lambda or partial runs; adsrc read them at the call, after the
    # name was rebound (value and gradient wrong), and dropped a default computed from x from the gradient
    a = x[0]

    def g(y, a=a, s=a * 2.0, *, c=a + 1.0):
        return a * y + s + c
    p = functools.partial(_scaled, a)
    key = lambda t, w=a: w * t          # noqa: E731  (a lambda's default, as written)
    a = 10.0
    w = 1.0
    by = sorted(list(x), key=lambda t, w=w: w * t)
    w = -1.0
    return np.sum(g(x)) + np.sum(p(x)) + key(x[1]) + by[0] * 2.0 + a


@case(np.array([1.0, 2.0, 3.0]))
def itertools_combinatorics_and_math_fmod(x):
    # itertools.combinations/product/permutations/combinations_with_replacement and math.fmod were refused
    s = 0.0
    for a, b in itertools.combinations(x, 2):
        s += a * b
    for a, b in itertools.product(x[:2], x[1:]):
        s += a * b * 0.5
    for p in itertools.permutations(x, 2):
        s += p[0] ** 2 * p[1]
    for a, b in itertools.combinations_with_replacement(x[:2], 2):
        s += a - b * 0.1
    return s + math.fmod(x[0] * 7.0, 1.3) + math.fmod(-x[1] * 2.0, x[2])


class _Bag:
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)


@case(np.array([0.4, -1.3, 2.2]))
def sets_lambda_tables_a_def_in_a_loop_and_iter_delegation(x):
    # s.add/s.discard (seen through an alias), `[lambda v, k=k: ... for k in range(3)]` called from the list,
    # a def in a loop called after it (the loop variable's last value), a class's `__iter__` returning
    # iter(self.items): each was refused
    idx = set()
    idx.add(0)
    alias = idx
    alias.add(2)
    idx.discard(1)
    picked = sum(x[i] ** 2 for i in sorted(idx))
    fns = [lambda v, k=k: v * (k + 1.0) for k in range(3)]
    tabled = sum(fn(x[1]) ** 2 for fn in fns)
    for k in range(3):
        def scaled(y):
            return y * (k + 0.5)
    bagged = 0.0
    for v in _Bag([x[0], x[1] * 2.0, x[2] ** 2]):
        bagged = bagged + v
    return picked + tabled + np.sum(scaled(x)) + bagged


@case(np.array([0.1, 0.45, -0.3]))
def a_generator_expressions_variable_shadowing_a_loop_variable(x):
    # `any(t > 0.4 for t in ls)` after a loop `for t in ls`: the generator read the loop's last t (the other
    # branch: value and gradient wrong); a `try` block saw the generator's t as assigned (refused)
    ls = [x[0], x[1], -1.0]
    for t in ls:
        pass
    out = x[0] * 2.0 if any(t > 0.4 for t in ls) else x[0] * 3.0
    for s in ls:
        try:
            if all(t > 0.9 for t in ls):
                raise ValueError("no")
            z = s * 2.0
        except ValueError:
            z = -s
        out = out + z + t * sum(u * u for u in [s, x[2]])
    return out


_COEFS = [0.3, -0.2, 0.5]


class _Pair:
    def __init__(self, w, b):
        self.w = w
        self.b = b


@case(np.array([0.3, -0.7, 1.1]))
def an_object_made_with_a_number_from_a_global_list(x):
    # the object's field changed in place was taken for the global's (refused)
    o = _Pair(np.zeros(3), _COEFS[0])
    o.w[1] += x[0]
    o.w += x * _COEFS[2]
    return np.sum(o.w * x) + o.b * x[1]


@case(np.array([0.4, -1.3, 2.2]))
def lambdas_made_by_comprehensions_late_binding_and_a_dict(x):
    # a lambda reading the comprehension's variable itself sees its last value (Python's late binding: each
    # is v[2] * 2); a dict comprehension of lambdas over (name, power) pairs: both were refused
    late = [lambda v: v[i] * i for i in range(3)]
    powers = {name: (lambda v, p=p: v ** p) for name, p in [("sq", 2), ("cube", 3)]}
    return sum(f(x) for f in late) + np.sum(powers["sq"](x)) + np.sum(powers["cube"](x) * x[0])


_SCALES = (0.5, 1.5)


@case(np.array([0.4, -1.3, 2.2]))
def functions_appended_to_a_list_in_a_loop(x):
    # lambdas with a default and a one-line def appended in loops, a NumPy function appended after them: the list
    # is the table `[lambda ... for k in range(3)] + [...]` (frontend/appended.py); all were refused as calls of
    # an unknown `g`
    fs = []
    for k in range(3):
        fs.append(lambda v, k=k: v[k] * (k + 1))
    fs.append(np.sin)
    for c in _SCALES:
        def scaled(v, c=c):
            return np.tanh(c * v)
        fs.append(scaled)
    return sum(np.sum(g(x)) for g in fs) * x[k]       # (k is the loop's last value, 2)


@case(np.array([0.4, -1.3, 2.2]))
def functions_appended_late_bound_and_by_a_longer_def(x):
    # a lambda reading the loop's variable itself reads its last value (each is v[2] * 2); a def of two
    # statements appended keeps its own default; a def of this function and np.exp appended to a display
    def square(v):
        return v * v
    late = []
    for i in range(3):
        late.append(lambda v: v[i] * i)
    longer = [square]
    longer.append(np.exp)
    for k in range(3):
        def term(v, k=k):
            w = v[k] * 2.0
            return w ** 2 + k
        longer.append(term)
    total = 0.0
    for j in range(len(longer)):
        total = total + np.sum(longer[j](x))
    return sum(g(x) for g in late) + total


@case(np.array([0.4, -1.3, 2.2]))
def a_namedtuple_made_in_the_function(x):
    # namedtuple's class made inside the function (adsrc makes it when transforming, from its literal
    # arguments): refused, as namedtuple runs code through eval
    Params = namedtuple("Params", ["W", "b"])
    State = collections.namedtuple("State", "q v", defaults=(0.0,))
    p = Params(x[:2], x[2])
    s = State(x[0], x[1])
    for _ in range(3):
        s = State(s.q + 0.1 * s.v, s.v - 0.1 * s.q * p.b)
    s = s._replace(v=s.v * 2.0)
    W, b = p
    return np.sum(p.W ** 2) * p.b + s.q ** 2 + s.v + State(x[1]).v + np.sum(W * b) + len(p)
