"""Ordinary programs the first core refused, crashed on or got wrong (the core redesign's list).

Each is registered with inputs (several where branches differ) and checked
against central finite differences; their inputs must come back unchanged.
"""

import functools

import numpy as np

from casekit import Registry, pos, rand

CASES = Registry()
case = CASES.case


@case(0.5, 3, label="branch-not-taken")
@case(101.0, 2, label="branch-taken")
def value_leaving_an_if_in_a_loop(x, n):
    v = x
    for i in range(n):
        if x > 100.0:
            v = np.tanh(v)
        v = np.sin(v)
    return v


@case(0.5, 3)
def dead_loop_body(s, n):
    for i in range(n):
        y = s * 2.0
    return s


@case(0.5, 0, label="zero-steps")
@case(0.5, 2, label="two-steps")
def empty_loop(s, n):
    v = s * 2.0
    for i in range(n):
        pass
    return v


@case(rand(3), rand(3, 3), argnums=1)
def dead_loop_and_fancy_index(x, W):
    v = W[[0, 1], [0, 2]]
    for i in range(len(x)):
        u = W * 2.0
    return np.sum(np.tanh(v)) + W.T.sum()


@case(0.5)
def np_sum_of_appended_numbers(s):
    lst = []
    for i in range(5):
        lst.append(s)
    return np.sum(lst)


@case(rand(3))
def np_sum_of_appended_arrays(x):
    lst = []
    for i in range(3):
        lst.append(x * i)
    return np.sum(lst, axis=0)[0]


@case(rand(3))
def builtin_sum_over_an_array(x):
    return sum(x * 2.0)


@case(rand(3))
def builtin_sum_of_negated(x):
    return sum(-x)


@case(rand(3))
def builtin_sum_squared(x):
    return sum(x) * sum(x)


@case(rand(3, 2))
def builtin_sum_over_rows(x):
    return np.sum(sum(x) ** 2)


@case(rand(3), 0.3, argnums=(0, 1), label="tanh")
def item_update_of_a_rule_output(w, s):
    v = np.tanh(w)
    v[0] += s
    return np.sum(v)


@case(pos(3), 0.3, argnums=(0, 1))
def item_update_of_sqrt(w, s):
    v = np.sqrt(w)
    v[0] += s
    return np.sum(v * v * v)


@case(rand(3), 0.3, argnums=(0, 1))
def item_update_of_exp(w, s):
    v = np.exp(w)
    v[1] = s * v[0]
    return np.sum(v ** 2)


@case(pos(3), 0.3, argnums=(0, 1))
def item_update_of_reciprocal(w, s):
    v = 1 / w
    v[0] += s
    return np.sum(v ** 2)


def _doubles_in_place(a):
    a += a
    return 0.0


@case(rand(3))
def callee_changes_its_argument(x):
    _doubles_in_place(x)
    return np.sum(x ** 2)


@case(rand(3))
def changed_while_iterating_rows(x):
    v = np.outer(x, x)
    for row in v:
        v += row
    return np.sum(v)


@case(0.5, label="array")
@case(0.1, label="number")
def kind_depends_on_branch(a):
    v = np.ones(2) if a > 0.3 else a
    return np.sum(v * a)


def _kind_depends_on_branch(a):
    v = np.ones(2) if a > 0.3 else a
    return np.sum(v * a)


@case(0.5, label="array")
@case(0.1, label="number")
def kind_depends_on_branch_in_a_callee(a):
    return _kind_depends_on_branch(a) * 2.0


@case(rand(3), [rand(3), rand(3)])
def nested_def_local_named_like_outer(W, inputs):
    def h2o(h):
        output = h * 2.0
        return output
    output = [h2o(W)]
    for x in inputs:
        output.append(h2o(np.tanh(W + x)))
    return sum(np.sum(o ** 2) for o in output)


def _scale(f, w):
    return f * w


@case(0.7)
def fresh_array_passed_to_a_callee(w):
    r0 = np.zeros(4)
    r0[1] = 1.0
    return np.sum(_scale(r0, w))


def _two(x):
    return x * 2.0


def _zero_first(x):
    out = _two(x)
    out[0] = 0.0
    return out


@case(rand(3))
def callee_changes_its_own_array(x):
    return np.sum(_zero_first(x) ** 2)


def _keys_or_shape(v):
    return sorted(v) if isinstance(v, dict) else np.shape(v)


@case(rand(3))
def unused_helper_result(x):
    s = _keys_or_shape(x)
    return np.sum(x ** 2)


@case(rand(3))
def copies_after_tuple_unpacking(x):
    a, b = x * 1.0, x * 2.0
    b = b.copy()
    b[0] = 5.0
    return np.sum(a) + np.sum(b ** 2)


class _Model:
    def __init__(self):
        self.k = 2.0

    def inner(self, x):
        return np.sin(x) * self.k

    def outer(self, x):
        return self.inner(x) + x


_MODEL = _Model()


def _through(x):
    return _MODEL.outer(x)


@case(rand(3))
def method_calling_a_method_through_a_function(x):
    return np.sum(_through(x) ** 2)


class _Dense:
    def __init__(self, w):
        self.w = w

    def forward(self, x):
        return np.tanh(x @ self.w)


class _Scale:
    def __init__(self, s):
        self.s = s

    def forward(self, x):
        return x * self.s


_LAYERS = [_Dense(np.linspace(-0.5, 0.5, 9).reshape(3, 3)), _Scale(3.0), _Dense(np.ones((3, 2)) * 0.2)]


@case(rand(3))
def methods_of_objects_in_a_module_list(x):
    for layer in _LAYERS:
        x = layer.forward(x)
    return np.sum(x ** 2)


@case(rand(3), rand(3))
def methods_of_objects_in_a_list_enumerated_zipped_reversed(x, y):
    total = 0.0
    for k, (net, v) in enumerate(zip(reversed(_LAYERS[:2]), [x, y]), 1):
        total = total + k * np.sum(net.forward(v) * y)
    return total


def _predict(params, x, nonlinearity=np.tanh):
    return nonlinearity(params * x)


@case(rand(3))
def function_in_a_default_argument(p):
    return np.sum(_predict(p, 2.0))


@case(rand(4))
def zip_star_of_pairs(x):
    pairs = [(x[0], x[1]), (x[2], x[3])]
    a, b = zip(*pairs)
    return a[0] * b[1] + a[1]


@case(rand(3))
def map_over_an_array(x):
    return sum(map(np.sin, x))


@case(rand(3))
def map_with_a_lambda(x):
    return sum(list(map(lambda t: t * t, x)))


@case(rand(3))
def partial_with_a_keyword(x):
    f = functools.partial(_scale, w=3.0)
    return np.sum(f(x) ** 2)


@case(rand(3))
def partial_binding_a_differentiated_value(x):
    f = functools.partial(_scale, x)
    return np.sum(f(2.0) ** 2)


@case(rand(3))
def dict_comprehension(x):
    d = {k: x[i] * 2 for i, k in enumerate("abc")}
    return d["a"] + d["c"] ** 2


@case(rand(3))
def nested_list_comprehension(x):
    m = [[x[i] * x[j] for j in range(3)] for i in range(3)]
    return np.sum(np.array(m))


@case(rand(3), rand(3), argnums=(0, 1))
def enumerate_of_zip(x, y):
    t = 0.0
    for i, (a, b) in enumerate(zip(x, y)):
        t = t + i * a * b
    return t


class _Point:
    pass


_Pair = __import__("collections").namedtuple("_Pair", "w b")


@case(rand(3))
def namedtuple_made_in_the_function(x):
    p = _Pair(x * 2.0, x[1])
    return np.sum(p.w * p.b) + np.sum(p[0])


@__import__("dataclasses").dataclass
class _Layer:
    W: np.ndarray
    scale: float = 1.0


@case(rand(3))
def dataclass_made_in_the_function(x):
    layer = _Layer(np.outer(x, x), x[0])
    return np.sum(np.tanh(layer.W) * layer.scale)


@case(rand(3))
def closure_returned_by_a_nested_function(x):
    def make(c):
        return lambda t: t * c
    f = make(x[0])
    return np.sum(f(x) ** 2)


@case(rand(3))
def function_chosen_by_assignment(x):
    def square(t):
        return t * t
    g = square
    return np.sum(g(x) + g(x[0]))


def _stack_then_dot(w, *parts, scale=1.0, **extra):
    out = np.dot(np.hstack(parts + (np.ones((parts[0].shape[0], 1)),)), w) * scale
    for k in extra:
        out = out + extra[k]
    return out


@case(rand(3, 2), rand(1, 1), rand(1, 1), argnums=(0, 1, 2))
def helper_taking_star_args(w, a, b):
    return np.sum(_stack_then_dot(w, a, b) ** 2)


@case(rand(3, 2), rand(1, 1), rand(1, 1), 0.3, argnums=(0, 1, 2, 3))
def helper_taking_star_args_and_keywords(w, a, b, c):
    return np.sum(_stack_then_dot(w, a, b, scale=c, shift=c * a[0, 0]) ** 2)


@case(rand(2))
def partial_called_where_it_is_made(x):
    return np.sum(list(map(functools.partial(_scale, w=2.0), [x, x * x]))[1])


@case(0.4)
def imports_inside_the_function(x):
    import math
    from numpy import tanh as th
    import numpy.linalg as la
    return math.sin(x) * th(x) + la.norm([x, 2.0 * x])



_SHAPES = [(2, 1), (1, 1)]


def _unpack_layers(weights):
    # a generator helper slicing a parameter vector into layers
    for m, n in _SHAPES:
        yield weights[: m * n].reshape((m, n)), weights[m * n: m * n + n]
        weights = weights[(m + 1) * n:]


@case(rand(5), rand(3, 2))
def generator_helper_consumed_by_a_loop(weights, x):
    for W, b in _unpack_layers(weights):
        x = np.tanh(x @ W + b) if W.shape[1] > 1 else x @ W + b
    return np.sum(x)


def _pairs(x, n):
    k = 0
    while True:
        if k >= n:
            return
        yield x[k] * x[k + 1]
        k += 1
    yield 0.0        # never reached


def _twice(x):
    yield from _pairs(x, 2)
    yield from (np.sin(v) for v in x)


@case(rand(4))
def generators_with_return_and_yield_from(x):
    def squares(v):
        for item in v:
            yield item ** 2
    return sum(_twice(x)) + max(squares(x)) + sum(list(_pairs(x, 3))[1:]) + next(_pairs(x, 2)) ** 2


@case(rand(8))
def growing_a_list_in_a_loop_of_unknown_length(x):
    out = []
    for i in range(x.shape[0] // 2):
        out.append(x[2 * i] * x[2 * i + 1])
        out.append(np.sin(out[-1]))
    acc = []
    k = 0
    while k < len(out):
        acc.append(out[k] * (k + 1.0))
        k += 2
    return np.sum(np.stack(out)) + sum(acc)


def _shapes_of(tree):                 # recursive, and only shapes: nothing to differentiate
    if isinstance(tree, list):
        return [_shapes_of(t) for t in tree]
    return np.shape(tree)


def _flatten(tree):
    shapes = _shapes_of(tree)

    def unflatten(vector):
        return [vector[:shapes[0][0]], vector[shapes[0][0]:]]
    return np.concatenate(tree), unflatten


@case([rand(2), rand(3)])
def flatten_returning_a_closure_over_a_recursive_helper(params):
    flat, unflatten = _flatten(params)
    flat2, _ = _flatten([p * 2.0 for p in params])
    return np.dot(flat, flat2) + np.sum(np.sin(flat))


def _swap_down(x, y, n):             # mutually recursive: which input the result follows depends on n
    if n == 0:
        return x
    return _swap_again(y, x * 1.5, n - 1)


def _swap_again(a, b, n):
    return _swap_down(np.sin(a), b, n)


@case(0.3, 0.7, argnums=(0, 1))
def mutually_recursive_helpers(x, y):
    return _swap_down(x, y, 1) * _swap_down(x, y, 2) + _swap_down(y, x, 3)


def _logged(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        out = f(*args, **kwargs)
        if kwargs.get("verbose", False):
            print("called", len(args))
        return out
    return wrapper


@_logged
def _affine(x, w, b=0.0, verbose=False):
    return x * w + b


@case(rand(3), 0.7, argnums=(0, 1))
def decorated_helper_forwarding_star_args_and_keywords(x, w):
    return np.sum(_affine(x, w) ** 2) + np.sum(_affine(x, w, b=w * 2.0)) + np.sum(_affine(x, 1.5, verbose=False))


def _apply_all(fn, *arrays, **options):
    return [fn(a, **options) for a in arrays]


@case(rand(2), rand(3))
def star_args_helper_with_a_function_argument(x, y):
    parts = _apply_all(np.cumsum, x, y * 2.0, axis=0)
    return np.sum(parts[0] ** 2) + np.sum(parts[1] * y)


def _affine_loss(w, b, x):
    return np.sum((x * w + b) ** 2)


_DIMS = (2, 3)


@case(rand(3), 0.4, argnums=(0, 1))
def call_with_a_tuple_unpacked_into_arguments(w, b):
    params = (w, b)
    grid = np.ones(_DIMS)
    return _affine_loss(*params, np.linspace(0.0, 1.0, 3)) + _affine_loss(*(w, b * 2.0), 1.0) * np.sum(grid)


@case(np.array([[2.0, 1.0], [0.5, 3.0]]) + 0.1 * rand(2, 2))
def numpy_scalar_result_indexed_like_an_array(a):
    d = np.linalg.det(a)              # a NumPy scalar, which supports d[None] and d[()]
    return np.sum(d[None] * 2.0) + d[()] ** 2


class _Parser:
    """Slices a parameter vector by name (its `get` is not dict.get)."""

    def __init__(self):
        self.slots, self.size = {}, 0

    def add(self, key, shape):
        n = int(np.prod(shape))
        self.slots[key] = (slice(self.size, self.size + n), shape)
        self.size += n

    def get(self, vect, key):
        where, shape = self.slots[key]
        return np.reshape(vect[where], shape)


class _Softmax:
    def __init__(self, n_in, n_out):
        self.parser = _Parser()
        self.parser.add("W", (n_in, n_out))
        self.parser.add("b", (n_out,))

    def forward(self, inputs, weights):
        W = self.parser.get(weights, "W")
        b = self.parser.get(weights, "b")
        return self.squash(inputs @ W + b)

    def squash(self, x):
        return x - np.log(np.sum(np.exp(x), axis=1, keepdims=True))


_NET = [_Softmax(3, 4), _Softmax(4, 2)]
_NET_PARSER = _Parser()
for _layer in _NET:
    _NET_PARSER.add(_layer, (_layer.parser.size,))


@case(0.3 * rand(_NET_PARSER.size), rand(5, 3))
def layers_reading_their_weights_through_a_parser_object(w, x):
    # a layer list walked in a loop, each layer a method of its own parser object (convnet-style)
    for layer in _NET:
        x = layer.forward(x, _NET_PARSER.get(w, layer))
    return np.sum(x[:, 0])


def _leaves(value):
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [np.ravel(value)]


def _structure(value):
    if isinstance(value, dict):
        keys = sorted(value)
        return ("dict", keys, [_structure(value[k]) for k in keys])
    if isinstance(value, (list, tuple)):
        return ("seq", [_structure(v) for v in value])
    return ("leaf", np.shape(value))


def _unflatten(structure, vector):
    return vector


def _flatten_with_partial(value):
    # autograd.misc.flatten's shape: (vector, partial(unflatten, structure)); callers often drop the partial
    return np.concatenate(_leaves(value)), functools.partial(_unflatten, _structure(value))


@case([(rand(2, 2), rand(2)), (rand(2, 1), rand(1))])
def flatten_returning_a_partial_through_recursive_helpers(params):
    flat, _ = _flatten_with_partial(params)
    return np.dot(flat, np.sin(flat))


@case([rand(2), rand(3)])
def nested_loops_appending_to_one_list(parts):
    out = []
    for item in parts:
        for leaf in [item, item * 2.0]:
            out.append(np.sin(leaf))
    return np.sum(np.concatenate(out) ** 2)


@case(rand(6))
def augmented_updates_of_views_slices_masks_and_index_lists(x):
    a = np.tanh(x).reshape(2, 3)
    row = a[1]
    col = a[:, :1]
    row[::2] += x[0]
    col[col > 0.0] *= 2.0
    a[[0, 1], [2, 2]] += np.cos(a[[0, 1], [2, 2]])
    a *= x[1]
    a[1, 1] -= a[0, 0] ** 2
    return np.sum(row * np.arange(3.0)) + np.sum(col) + np.sum(a ** 2)


@case(rand(3), 0.5)
def nested_tuple_unpacking_then_a_copy_changed_in_place(xs, s):
    (first, grid), last = ((s, np.arange(4.0)), s)
    grid = grid.astype(float)
    alias = grid
    alias[0] += xs.sum()
    return first * last + np.sum(alias * grid)


@case(rand(3), rand(4, 3), argnums=(0, 1))
def loop_whose_inner_loop_computes_only_unused_values(xs, W):
    for x, row in zip(xs, W):
        W = W + row * x
        for k in range(3):
            unused = np.minimum(np.max(W, axis=1).sum(), sum(row)) * k
    return np.sum(W ** 2)


@case(0.8 * rand(4, 3))
def element_of_a_row_view_updated_in_a_loop(W):
    W = 0.7 * W
    for k in range(2):
        row = W[1]
        row[2] *= row[2]          # a number, not a part of the row: no link to follow
    return np.sum(W ** 2)


# -- functools.reduce: a loop carrying its accumulator -----------------------------------------------------

@case(rand(4))
def reduce_with_an_initial_value(x):
    return functools.reduce(lambda a, b: a * b + 0.5, x, 1.0)


@case(rand(4))
def reduce_from_the_first_item(x):
    return functools.reduce(lambda a, b: a * np.cos(b), x)


@case(rand(3), rand(2, 2), argnums=(0, 1))
def reduce_over_a_range_with_a_matrix(x, W):
    h = functools.reduce(lambda h, i: np.tanh(W @ h + x[i]), range(3), np.ones(2))
    return np.sum(h ** 2)


@case(rand(5))
def reduce_of_a_comprehension_by_an_operator(x):
    import operator
    return functools.reduce(operator.add, [np.sin(v) * v for v in x]) + \
        functools.reduce(np.maximum, (x, 2.0 * x, -x)).sum()


def _weighted(acc, pair):
    k, v = pair
    return acc + (k + 1.0) * v ** 2


@case(rand(4))
def reduce_of_enumerate_with_a_helper(x):
    return functools.reduce(_weighted, enumerate(x), 0.0)


@case(rand(3))
def reduce_of_an_empty_list_is_its_initial_value(x):
    return functools.reduce(lambda a, b: a + b, [], np.sum(x ** 2))


# -- operators and methods of the user's classes: the result's class is known from what they return ---------

class _Vec:
    def __init__(self, data):
        self.data = data

    def __add__(self, other):
        return _Vec(self.data + (other.data if isinstance(other, _Vec) else other))

    def __mul__(self, k):
        return _Vec(self.data * k)

    __rmul__ = __mul__

    def scaled(self, k):
        return _Vec(self.data * k)

    def norm2(self):
        return np.sum(self.data ** 2)


@case(rand(3))
def operators_of_a_user_class_then_a_method(x):
    v = _Vec(x)
    w = 2.0 * v + v * 3.0 + 1.0
    u = w.scaled(0.5)
    return u.norm2() + w.norm2()


class _Gain:
    def __init__(self, data):
        self.data = data

    def __add__(self, other):
        return _Gain(self.data * other)               # not an addition: its own code decides

    def __rmul__(self, k):
        return _Gain(np.sin(self.data) * k)


@case(rand(3))
def operators_of_a_user_class_that_are_not_arithmetic(x):
    g = _Gain(x)
    h = 2.0 * (g + 3.0)
    return np.sum(h.data ** 2)


class _Flipped:
    def __init__(self, data):
        self.data = data

    def __neg__(self):
        return _Flipped(self.data[::-1] * 2.0)        # not a negation


@case(rand(3))
def unary_minus_of_a_user_class(x):
    f = -_Flipped(x * x)
    return np.sum(f.data * np.arange(3.0))
