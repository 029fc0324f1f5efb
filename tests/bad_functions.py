"""Functions adsrc must refuse, each with a clear error pointing at its line."""

import collections
import functools

import numpy as np

import adsrc

COUNTER = 0


def uses_try(x):
    try:
        a = np.log(x)
        y = np.sqrt(a)
    except ValueError:
        y = a       # what the block assigned before it failed
    return np.sum(y)


class Doubled:
    """A context manager whose `as` value is computed from the differentiated argument."""

    def __init__(self, v):
        self.v = v

    def __enter__(self):
        return self.v * 2.0

    def __exit__(self, *exc):
        return False


def uses_with(x):
    with Doubled(x) as d:
        y = d * x
    return y


def assigns_global(x):
    global COUNTER
    COUNTER = 1
    return x * 2.0


def defines_class(x):
    scale = 2.0

    class Box:
        def doubled(self, v):
            return v * scale       # the function's variable: adsrc makes the class once
    return Box().doubled(x)


def generator(x):
    yield x


def _endless(x):
    while True:
        yield x
        x = x * 2.0


def uses_endless_generator(x):
    total = 0.0
    for k, v in zip(range(3), _endless(x)):
        total = total + v
    return total


def _sent(x):
    y = yield x
    yield y


def uses_sent_generator(x):
    return sum(_sent(x))


vectorized = np.vectorize(lambda t: t * 2.0, signature="()->()")      # adsrc follows plain np.vectorize only


def calls_vectorize(x):
    return np.sum(vectorized(x))


doubled = np.frompyfunc(lambda t: t * 2.0, 1, 1)    # a ufunc object: C code, no rule


def calls_no_rule_c_function(x):
    return np.sum(doubled(x).astype(float))


def runtime_error(x):
    y = x * 2.0
    z = y @ np.ones((5, 5))
    return np.sum(z)


def attribute_assignment(x, obj):
    obj.value = x
    return x


def unknown_method(x):
    return np.sum(x.cumsum().conj().ptp())


class Scaler:
    def __init__(self, scale):
        self.scale = scale

    def apply(self, x):
        return x * self.scale


def method_of_an_argument(x, model):
    return np.sum(model.apply(x))


def method_of_an_item_of_an_argument(x, models):
    model = models[0]       # adsrc cannot tell what it is when transforming
    return np.sum(model.apply(x))


def cube(x):
    return x ** 3


cube_grad = adsrc.grad(cube)


def calls_a_gradient(x):
    return cube_grad(x) * 2.0


def forwards_everything(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return 2.0 * f(*args, **kwargs)
    return wrapper


@forwards_everything
def decorated(x):
    return x ** 2


def calls_decorated(x):
    return decorated(x) + 1.0


def pops_a_keyword(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        scale = kwargs.pop("scale", 1.0)
        return scale * f(*args, **kwargs)
    return wrapper


@pops_a_keyword
def decorated_popping(x, power=2.0):
    return x ** power


def calls_decorated_popping(x):
    return decorated_popping(x, scale=3.0, power=3.0)


def array_namespace_argument(x, xp):
    return xp.sum(x * x)


def defines_by_branch(x, mode):
    if mode == "square":
        def act(t):
            return t ** 2
    else:
        def act(t):
            return np.sin(t)
    return np.sum(act(x))


def euler(f, y, dt, n):
    for _ in range(n):
        y = y + dt * f(y)
    return y


def passes_a_closure_over_x(theta):
    def rhs(y, k=theta[0]):
        return -k * y * theta[1]
    return euler(rhs, 1.0, 0.1, 10)


def stores_a_closure_over_x(x):
    fs = [lambda z: z * x[0]]
    return fs[0](1.0)


def evaluates_a_string(x):
    return eval("np.sum(x * 2.0)")


def appends_unpacked(x):
    lst = []
    lst.append(*[x[0]])
    return sum(lst)


class Holder:
    def __init__(self):
        self.items = []


HOLDER = Holder()


def appends_to_a_global_objects_list(x):
    HOLDER.items.append(x[0] * 2.0)
    return sum(HOLDER.items)


GLOBAL_W = np.array([1.0, 2.0, 3.0])


def changes_a_global_array(x):
    w = GLOBAL_W
    w[0] = x[0]
    return np.sum(w * x)


def misspelled_numpy_function(x):
    return np.sum(np.sine(x))       # numpy has no `sine`


def appends_functions_over_an_unknown_range(x):         # (differentiated: test_errors.py)
    fs = []
    for k in range(x.shape[0] - 1):       # (its length is not known when transforming)
        fs.append(lambda v, k=k: v[k] ** 2)
    return sum(g(x) for g in fs)


def makes_a_namedtuple_from_a_variable(x):
    names = ["w", "b"]
    Pair = collections.namedtuple("Pair", names)
    return np.sum(Pair(x, 1.0).w)
