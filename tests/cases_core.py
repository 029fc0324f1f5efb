"""Straight-line functions for the core gradient checks (issue: core grad).

Each function is registered with its inputs; tests/test_core_gradients.py
checks adsrc's gradient of each against central finite differences.
"""

import math

import numpy as np

from casekit import Registry, pos, rand

CASES = Registry()
case = CASES.case

SCALE = 0.5                      # a module global read by some cases
OFFSET = np.array([0.1, -0.2, 0.3])


# -- Python arithmetic ------------------------------------------------------------------------

@case(1.3, 0.7, argnums=(0, 1))
def arith_scalars(a, b):
    return a * b + a / b - b ** 2 + 3.0 - a


@case(rand(4), pos(4), argnums=(0, 1))
def arith_arrays(x, y):
    return np.sum(x * y - x / y + (x - y) ** 2)


@case(rand(3))
def unary_minus_plus(x):
    return np.sum(-x * +x - (-x))


@case(pos(3))
def power_forms(x):
    return np.sum(x ** 3 + x ** 0.5 + 2.0 ** x + x ** -1.0)


@case(pos(3), rand(3), argnums=(0, 1))
def power_both_active(x, y):
    return np.sum(x ** y)


@case(rand(3), rand(3), argnums=(0, 1))
def augmented_assignment(x, y):
    s = x * 1.0
    s += y
    s *= x
    s -= 2.0 * y
    s /= 3.0
    s **= 2
    return np.sum(s)


@case(1.5)
def augmented_scalar(x):
    t = x
    t += 1.0
    t *= x
    return t


@case(rand(3), rand(3), argnums=(0, 1))
def comparisons_are_constants(x, y):
    mask = x > y
    both = (x > 0) & (y < 0.5)
    return np.sum(x * mask + y * both) + np.sum(np.where(x >= y, x, y))


@case(2.0, 3.0, argnums=(0, 1))
def tuple_pack_unpack(a, b):
    t = (a * b, a + b)
    u, v = t
    v, u = u, v
    return u * 2.0 + v * v


@case(rand(3))
def nested_tuple_unpack(x):
    (a, b), c = (x[0], x[1]), x[2]
    return a * b * c


@case(0.7)
def conditional_expression_true(x):
    y = x * x if x > 0 else -x
    return y * 3.0


@case(-0.7)
def conditional_expression_false(x):
    y = x * x if x > 0 else -x
    return y * 3.0 + (x if x < 10 else 0.0)


@case(1.2)
def math_functions(x):
    return (math.exp(x) + math.log(x) + math.sin(x) * math.cos(x) + math.sqrt(x) + math.tanh(x)
            + math.atan2(x, 2.0) + math.pow(x, 2.5) + math.log(x, 10) + math.hypot(x, 1.0)
            + math.erf(x) + math.log1p(x) + math.expm1(x))


@case(3.0, 2.0, argnums=(0, 1))
def math_two_argument_functions(x, b):
    return math.log(x, b) + math.pow(b, x) + math.atan2(x, b) + math.hypot(x, b) + math.copysign(x, b) * b


@case(0.4)
def math_inverse_trig(x):
    return math.asin(x) + math.acos(x) * math.atan(x) + math.asinh(x) + math.atanh(x) + math.acosh(1.0 + x)


# -- NumPy ufuncs and reductions ------------------------------------------------------------------------

@case(pos(5))
def ufuncs_unary(x):
    return np.sum(np.exp(x) + np.log(x) + np.sqrt(x) + np.sin(x) * np.cos(x) + np.tanh(x)
                  + np.log1p(x) + np.expm1(x) + np.square(x) + np.reciprocal(x) + np.abs(x - 1.0))


@case(rand(5) * 0.9)
def ufuncs_inverse(x):
    return np.sum(np.arcsin(x) + np.arccos(x) + np.arctan(x) + np.arcsinh(x) + np.arctanh(x)
                  + np.cosh(x) + np.sinh(x) + np.tan(x) + np.log2(2.0 + x) + np.log10(2.0 + x) + np.exp2(x))


@case(rand(3, 4), argnums=0)
def reductions_axis(x):
    return np.sum(np.sum(x, axis=0) ** 2) + np.sum(np.mean(x, axis=1) ** 2) + np.sum(x.sum(axis=-1) * 2.0)


@case(rand(3, 4))
def reductions_keepdims(x):
    m = np.mean(x, axis=1, keepdims=True)
    s = np.sum(x * x, axis=0, keepdims=True)
    return np.sum((x - m) * s)


@case(rand(2, 3, 4))
def reductions_tuple_axis(x):
    return np.sum(np.sum(x, axis=(0, 2)) ** 2) + np.mean(x)


@case(pos(3, 4))
def prod_var_std(x):
    return np.prod(x) + np.sum(np.var(x, axis=0)) + np.std(x) + np.sum(np.prod(x, axis=1))


@case(rand(4, 3))
def max_min_reductions(x):
    return np.max(x) + np.sum(np.min(x, axis=0)) + np.sum(np.max(x, axis=1, keepdims=True) * x)


# -- broadcasting --------------------------------------------------------------------------------------

@case(rand(3, 1), rand(1, 4), argnums=(0, 1))
def broadcast_outer_shapes(a, b):
    return np.sum(np.sin(a + b) * (a * b))


@case(rand(4), rand(3, 4), argnums=(0, 1))
def broadcast_row(v, m):
    return np.sum((m - v) ** 2 / (1.0 + v * v))


@case(0.8, rand(2, 3), argnums=(0, 1))
def broadcast_scalar_array(s, m):
    return np.sum(np.exp(s * m) + s)


@case(rand(2, 1, 3), rand(4, 1), argnums=(0, 1))
def broadcast_three_dims(a, b):
    return np.sum(a * b + np.maximum(a, b))


# -- products -------------------------------------------------------------------------------------------

@case(rand(3, 4), rand(4), argnums=(0, 1))
def matvec(A, x):
    return np.sum(np.tanh(A @ x))


@case(rand(4), rand(4, 2), argnums=(0, 1))
def vecmat(x, B):
    return np.sum((x @ B) ** 2)


@case(rand(2, 3), rand(3, 2), argnums=(0, 1))
def matmat_dot_matmul(A, B):
    return np.sum(np.dot(A, B) * np.matmul(A, B)) + np.sum(A.dot(B))


@case(rand(2, 3, 4), rand(4, 2), argnums=(0, 1))
def batched_matmul(A, B):
    return np.sum(np.sin(A @ B))


@case(rand(3), rand(4), argnums=(0, 1))
def outer_inner(a, b):
    return np.sum(np.outer(a, b) ** 2) + np.inner(a, a) * np.inner(b, b)


@case(rand(3), rand(3), argnums=(0, 1))
def vector_dot(a, b):
    return np.dot(a, b) * (a @ b)


# -- indexing -------------------------------------------------------------------------------------------

@case(rand(5))
def index_int_negative(x):
    return x[0] * x[-1] + x[2] ** 2


@case(rand(6))
def index_slices(x):
    return np.sum(x[1:4] * x[:3]) + np.sum(x[::2]) + np.sum(x[-3:] ** 2)


@case(rand(6))
def index_int_array_repeated(x):
    idx = np.array([0, 2, 2, 5])
    return np.sum(x[idx] ** 2) + np.sum(x[[1, 1, 1]])


@case(rand(3, 4))
def index_2d(x):
    return x[1, 2] * x[0, 0] + np.sum(x[:, 1] * x[2, :3]) + np.sum(x[..., -1]) + np.sum(x[None, 0, :])


@case(rand(5))
def index_boolean_mask(x):
    return np.sum(x[x > 0] ** 2)


# -- shapes ----------------------------------------------------------------------------------------------

@case(rand(6))
def reshape_transpose(x):
    m = np.reshape(x, (2, 3))
    t = m.T
    u = np.transpose(m)
    return np.sum(t * u * 2.0) + np.sum(x.reshape(3, 2)[0] * m.reshape((3, 2))[1])


@case(rand(3), rand(2), argnums=(0, 1))
def concatenate_stack(a, b):
    c = np.concatenate([a, b])
    s = np.stack([a, a * 2.0], axis=1)
    return np.sum(c ** 2) + np.sum(s[:, 1] * s[:, 0])


@case(rand(3))
def expand_dims_squeeze(x):
    e = np.expand_dims(x, 0)
    return np.sum(e * x[:, None]) + np.sum(np.squeeze(e) ** 3) + np.sum(np.ravel(e))


@case(rand(5), rand(5), argnums=(0, 1))
def where_maximum_minimum(x, y):
    return np.sum(np.where(x > y, x * x, y) + np.maximum(x, 0.1) * np.minimum(y, 0.2))


@case(rand(5))
def max_min_abs_clip(x):
    return np.max(x) - np.min(x) + np.sum(np.abs(x)) + np.sum(np.clip(x, -0.5, 0.5)) + abs(x[0])


@case(1.1, 2.2, argnums=(0, 1))
def builtin_max_min(a, b):
    return max(a, b) * min(a, b) + max(a * 2.0, 3.0)


# -- constructors ------------------------------------------------------------------------------------------

@case(rand(3))
def array_of_active_values(x):
    a = np.array([x[0], x[1] * 2.0, 3.0])
    b = np.array([[x[2], x[0]], [1.0, x[1]]])
    return np.sum(a * a) + np.sum(b @ b)


@case(rand(3))
def lists_and_tuples_concatenated_then_repeated(x):
    a = [x[0]] + [x[1] * 2.0]                 # a list, whatever `+` usually means
    t = (x[0], x[1]) + (x[2],)
    b = 2 * [x[0] * x[1]]
    return sum(a * 2) + sum(t * 3) * x[2] + sum(b) + sum(list(t) + a)


@case(np.array([0.3, -0.4, 0.7]))
def builtin_extrema_and_numpy_reductions_of_lists(x):
    return (max(x) + min(x) * 2.0 + max(x[0], x[1]) * min([x[2], x[1]])
            + np.sum([x[0] * 2.0, x[1]]) + np.mean([x[2], x[0] ** 2]) + np.prod((x[0], x[2])))


@case(rand(3))
def list_slice_assignment(x):
    lst = [x[0], x[1], x[2]]
    lst[0:2] = [x[2], x[0]]
    a = [x[0], x[1], x[2], x[0] * x[1]]
    a[1:3] = [x[2] ** 2]                 # the list gets shorter
    b = [x[1], x[2]]
    b[1:1] = [x[0], x[0] * 3.0]          # inserted
    c = [x[0], x[1], x[2], 1.0]
    c[::2] = [x[1] * 5.0, x[0] * 7.0]
    return lst[0] * 5.0 + lst[1] + sum(a) * a[-1] + sum(v * v for v in b) * b[-1] + c[0] * c[2] + c[1]


@case(rand(4))
def zeros_ones_full_arange(x):
    z = np.zeros(4) + x
    o = np.ones_like(x) * x
    f = np.full((4,), 2.0) * x
    r = np.arange(4.0) * x
    return np.sum(z * o + f - r)


@case(rand(4))
def zeros_then_setitem(x):
    out = np.zeros(3)
    out[0] = x[0] * x[1]
    out[1:] = x[2:] ** 2
    out[2] += x[0]
    return np.sum(out * np.array([1.0, 2.0, 3.0]))


@case(rand(4))
def setitem_on_parameter_copy(x):
    y = x * 1.0
    y[1] = 0.0
    y[2] *= 3.0
    return np.sum(y * y)


@case(rand(3), rand(3), argnums=(0, 1))
def inplace_array_operator(a, b):
    c = a * 2.0
    c += b
    c *= a
    return np.sum(c)


# -- methods -------------------------------------------------------------------------------------------------

@case(rand(3, 4))
def array_methods(x):
    return x.sum() + x.mean(axis=0).dot(np.ones(4)) + x.reshape(4, 3).max() + x.T.sum(axis=1)[0] + x.prod()


@case(rand(3, 2))
def method_chain(x):
    return (x * 2.0).T.reshape(-1).sum() + x.ravel().dot(x.flatten())


# -- names: globals, closures ----------------------------------------------------------------------------------

@case(rand(3))
def reads_module_globals(x):
    return np.sum((x + OFFSET) * SCALE)


def make_closure(w):
    def closure_loss(x):
        return np.sum(w * x * x)
    return closure_loss


closure_loss = make_closure(np.array([1.0, 2.0, 3.0]))
CASES.case(rand(3))(closure_loss)


# -- calls to other user functions -------------------------------------------------------------------------------

def softplus(z):
    return np.log1p(np.exp(z))


def two_outputs(a, b):
    return a * b, a - b


@case(rand(4))
def calls_module_function(x):
    return np.sum(softplus(x) * softplus(2.0 * x))


@case(rand(3), rand(3), argnums=(0, 1))
def calls_tuple_returning_function(x, y):
    p, q = two_outputs(x, y)
    r = two_outputs(p, 2.0)
    return np.sum(p * q) + np.sum(r[0] + r[1])


@case(rand(3))
def calls_nested_def(x):
    def inner(a, k):
        return np.sin(a) * k
    return np.sum(inner(x, 2.0) + inner(x * x, 3.0))


@case(rand(3), 1.3, argnums=(0, 1))
def nested_def_keyword_arguments(x, scale):
    def inner(v, scale=2.0, *, shift=scale):          # the default `shift` is the outer `scale`
        return v * scale + shift
    return np.sum(inner(x, scale=3.0) ** 2) + np.sum(inner(x, shift=x * x)) + np.sum(inner(v=x))


@case(rand(3, low=0.2), label="true")
@case(rand(3, high=-0.2), label="false")
def nested_def_called_in_both_branches(x):
    def act(t):
        return np.tanh(t) * 3.0
    if x[0] > 0:
        y = act(x)
    else:
        y = act(x * x) * 2.0
    return np.sum(y * act(y))


@case(rand(3))
def nested_def_closure_over_active(x):
    scale = np.sum(x)

    def inner(a):
        return a * scale
    return np.sum(inner(x) ** 2)


def power_rec(x, n):
    if n == 0:
        return 1.0
    return x * power_rec(x, n - 1)


@case(1.3)
def calls_recursive(x):
    return power_rec(x, 4) + power_rec(x, 1)


@case(rand(3))
def keyword_arguments(x):
    return np.sum(softplus(z=x)) + np.sum(np.sum(x, axis=0, keepdims=False))


# -- lambdas --------------------------------------------------------------------------------------------------------

lambda_sum_sin = lambda x: np.sum(np.sin(x))  # noqa: E731
CASES.case(rand(4))(lambda_sum_sin)
lambda_first, lambda_second = (lambda x: np.sum(x * x)), (lambda x: np.sum(np.exp(x)))  # noqa: E731
CASES.case(rand(4))(lambda_first)
CASES.case(rand(4))(lambda_second)


@case(rand(3))
def lambda_inside(x):
    sq = lambda v: v * v  # noqa: E731
    return np.sum(sq(x) + sq(2.0 * x))


# -- misc ------------------------------------------------------------------------------------------------------------

@case(rand(3), rand(3), argnums=1)
def differentiate_second_argument(x, y):
    return np.sum(x * np.exp(y))


@case(rand(3), rand(3), 2.0, argnums=(2, 0))
def argnums_out_of_order(x, y, s):
    return np.sum(x * y) * s * s


@case(rand(3), argnums=-1)
def negative_argnum(x):
    return np.sum(x ** 4)


@case(rand(3))
def output_independent_of_input(x):
    return 3.0


@case(rand(3))
def constant_data_not_differentiated(x):
    data = np.arange(3.0)
    weights = np.exp(data) / np.sum(np.exp(data))
    return np.sum(weights * x * x)


@case(rand(4))
def float_and_item(x):
    return float(np.sum(x)) * x[0] + np.sum(x[1:2]).item() ** 2


@case(rand(3), rand(2, 3), argnums=(0, 1))
def logistic_regression(w, X):
    y = np.array([1.0, -1.0])
    z = X @ w
    return np.mean(np.log1p(np.exp(-y * z))) + 0.01 * np.sum(w * w)
