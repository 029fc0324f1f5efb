"""Functions adsrc must refuse, each with a clear error pointing at its line."""

import functools

import numpy as np

import adsrc

COUNTER = 0


def uses_try(x):
    try:
        y = np.log(x)
    except ValueError:
        y = x
    return y


def uses_with(x):
    with open("/dev/null") as fh:
        fh.read()
    return x * 2.0


def assigns_global(x):
    global COUNTER
    COUNTER = 1
    return x * 2.0


def defines_class(x):
    class Box:
        pass
    return x * 2.0


def generator(x):
    yield x


def imports_inside(x):
    import math
    return math.sin(x)


def deletes(x):
    y = x * 2.0
    del y
    return x


vectorized = np.vectorize(lambda t: t * 2.0)


def calls_vectorize(x):
    return np.sum(vectorized(x))


doubled = np.frompyfunc(lambda t: t * 2.0, 1, 1)    # a ufunc object: C code, no rule


def calls_no_rule_c_function(x):
    return np.sum(doubled(x).astype(float))


def aliased_setitem(x):
    y = x * 1.0
    view = y[:2]
    y[0] = 5.0
    return np.sum(view)


def aliased_inplace_array(x):
    y = x * 1.0
    z = y
    z += 1.0
    return np.sum(y * z)


def repeated_fancy_assignment(x):
    y = np.zeros(3)
    y[np.array([0, 0])] = x[:2]
    return np.sum(y)


def recursive_nested(x):
    def fact(n):
        if n <= 1:
            return x
        return fact(n - 1) * x
    return fact(3)


def runtime_error(x):
    y = x * 2.0
    z = y @ np.ones((5, 5))
    return np.sum(z)


def attribute_assignment(x, obj):
    obj.value = x
    return x


def mutating_method(x):
    y = x * 1.0
    y.sort()
    return np.sum(y)


def unknown_method(x):
    return np.sum(x.cumsum().conj().ptp())


def starred_target(x):
    a, *rest = x
    return a


class Scaler:
    def __init__(self, scale):
        self.scale = scale

    def apply(self, x):
        return x * self.scale


def method_of_an_argument(x, model):
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


def fill_first(buf, v):
    buf[0] = v


def fill_first_and_return(buf, v):
    buf[0] = v
    return buf


def append_twice(lst, v):
    lst.append(v * 2.0)


def add_into(a, b):
    a += b
    return a


def calls_fill_first(x):
    y = np.zeros(3)
    fill_first(y, x[1])
    return np.sum(y * x)


def calls_fill_first_and_return(x):
    y = np.zeros(3)
    z = fill_first_and_return(y, x[1])
    return np.sum(y * x) + np.sum(z)


def calls_append_twice(x):
    out = []
    append_twice(out, x[0])
    return out[0] * 3.0


def calls_add_into(x):
    return np.sum(add_into(x * 1.0, x))


def uses_copyto(x):
    y = np.zeros(3)
    np.copyto(y, x)
    return np.sum(y ** 2)


def uses_add_at(x):
    y = np.zeros(3)
    np.add.at(y, [0, 0, 1], x)
    return np.sum(y ** 2)


def uses_out_argument(x):
    y = np.zeros(3)
    np.exp(x, out=y)
    return np.sum(y)


def array_namespace_argument(x, xp):
    return xp.sum(x * x)


def appends_to_a_shared_item(x):
    groups = [[], []]
    first = groups[0]
    groups[0].append(x[0])
    return sum(first) + x[1]


def scales_an_array_held_in_a_dict(x):
    x = x * 1.0
    d = {"a": x}
    d["a"] *= 2.0
    return np.sum(x)


def scales_the_values_of_a_dict(x):
    d = {"a": x * 1.0, "b": x * 2.0}
    for v in d.values():
        v *= 0.5
    return np.sum(d["a"]) + np.sum(d["b"])


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
    def rhs(y):
        return -theta * y
    return euler(rhs, 1.0, 0.1, 10)


def stores_a_closure_over_x(x):
    fs = [lambda z: z * x[0]]
    return fs[0](1.0)


def nested_sets_an_item_of_its_argument(x):
    y = x * 1.0

    def zero_first(a):
        a[0] = 0.0
        return a * 2.0
    z = zero_first(y)
    return np.sum(y) + np.sum(z)


def nested_appends_to_its_argument(x):
    def grow(a):
        a.append(3.0)
    lst = [x[0]]
    grow(lst)
    return sum(lst) * x[1]


def nested_fills_an_outer_array(x):
    out = np.zeros(3)

    def put(i, v):
        out[i] = v
    for i in range(3):
        put(i, x[i] ** 2)
    return np.sum(out)


def nested_scales_its_argument(x):
    y = x * 1.0

    def scale(a):
        a *= 2.0
        return a
    z = scale(y)
    return np.sum(y) + np.sum(z)


def closure_returns_an_outer_array(x):
    y = x * 1.0
    get = lambda: y                      # noqa: E731
    z = get()
    z[0] = 0.0
    return np.sum(y)


def nested_calls_a_nested_function_that_changes_its_argument(x):
    y = x * 1.0

    def zero_first(a):
        a[0] = 0.0
        return a

    def through(b):
        return zero_first(b)
    z = through(y)
    return np.sum(y) + np.sum(z)


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
