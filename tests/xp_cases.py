"""Functions written against the array API, one per mapped namespace function (tests/test_array_api.py).

Each takes arrays of one library and returns a scalar; `DOMAIN` gives the interval its inputs are drawn from.
"""

from array_api_compat import array_namespace


def f_abs(x):
    xp = array_namespace(x)
    return xp.sum(xp.abs(x) * x)


def f_acos(x):
    xp = array_namespace(x)
    return xp.sum(xp.acos(x))


def f_acosh(x):
    xp = array_namespace(x)
    return xp.sum(xp.acosh(x + 2.0))


def f_add(x):
    xp = array_namespace(x)
    return xp.sum(xp.add(x, x[0]) * x)


def f_asin(x):
    xp = array_namespace(x)
    return xp.sum(xp.asin(x))


def f_asinh(x):
    xp = array_namespace(x)
    return xp.sum(xp.asinh(x))


def f_atan(x):
    xp = array_namespace(x)
    return xp.sum(xp.atan(x))


def f_atan2(x):
    xp = array_namespace(x)
    return xp.sum(xp.atan2(x, x * x + 1.0))


def f_atanh(x):
    xp = array_namespace(x)
    return xp.sum(xp.atanh(x))


def f_cos(x):
    xp = array_namespace(x)
    return xp.sum(xp.cos(x))


def f_cosh(x):
    xp = array_namespace(x)
    return xp.sum(xp.cosh(x))


def f_divide(x):
    xp = array_namespace(x)
    return xp.sum(xp.divide(x, x * x + 1.0))


def f_exp(x):
    xp = array_namespace(x)
    return xp.sum(xp.exp(x))


def f_expm1(x):
    xp = array_namespace(x)
    return xp.sum(xp.expm1(x))


def f_hypot(x):
    xp = array_namespace(x)
    return xp.sum(xp.hypot(x, x * 2.0 + 1.0))


def f_log(x):
    xp = array_namespace(x)
    return xp.sum(xp.log(x + 2.0))


def f_log1p(x):
    xp = array_namespace(x)
    return xp.sum(xp.log1p(x * x))


def f_log2(x):
    xp = array_namespace(x)
    return xp.sum(xp.log2(x + 2.0))


def f_log10(x):
    xp = array_namespace(x)
    return xp.sum(xp.log10(x + 2.0))


def f_logaddexp(x):
    xp = array_namespace(x)
    return xp.sum(xp.logaddexp(x, 2.0 * x))


def f_multiply(x):
    xp = array_namespace(x)
    return xp.sum(xp.multiply(x, x))


def f_negative(x):
    xp = array_namespace(x)
    return xp.sum(xp.negative(x) * x)


def f_positive(x):
    xp = array_namespace(x)
    return xp.sum(xp.positive(x) * x)


def f_pow(x):
    xp = array_namespace(x)
    return xp.sum(xp.pow(x + 2.0, 1.5) + xp.pow(2.0 + x * 0.0, x))


def f_reciprocal(x):
    xp = array_namespace(x)
    return xp.sum(xp.reciprocal(x + 2.0))


def f_sin(x):
    xp = array_namespace(x)
    return xp.sum(xp.sin(x))


def f_sinh(x):
    xp = array_namespace(x)
    return xp.sum(xp.sinh(x))


def f_sqrt(x):
    xp = array_namespace(x)
    return xp.sum(xp.sqrt(x + 2.0))


def f_square(x):
    xp = array_namespace(x)
    return xp.sum(xp.square(x) * x)


def f_subtract(x):
    xp = array_namespace(x)
    return xp.sum(xp.subtract(x, 2.0 * x) * x)


def f_tan(x):
    xp = array_namespace(x)
    return xp.sum(xp.tan(x))


def f_tanh(x):
    xp = array_namespace(x)
    return xp.sum(xp.tanh(x))


def f_where(x):
    xp = array_namespace(x)
    return xp.sum(xp.where(x > 0.0, x * x, 3.0 * x))


def f_sum(x):
    xp = array_namespace(x)
    return xp.sum(xp.sum(x * x, axis=1) * xp.sum(x, axis=0, keepdims=True)[0, :3])


def f_mean(x):
    xp = array_namespace(x)
    return xp.mean(xp.mean(x * x, axis=0) * x[1, :])


def f_prod(x):
    xp = array_namespace(x)
    return xp.sum(xp.prod(x + 2.0, axis=1))


def f_max(x):
    xp = array_namespace(x)
    return xp.sum(xp.max(x * x, axis=0)) + xp.max(x)


def f_min(x):
    xp = array_namespace(x)
    return xp.sum(xp.min(x, axis=1, keepdims=True) * x)


def f_std(x):
    xp = array_namespace(x)
    return xp.sum(xp.std(x, axis=0, correction=1)) + xp.std(x)


def f_var(x):
    xp = array_namespace(x)
    return xp.sum(xp.var(x, axis=1)) + xp.var(x, correction=1.0)


def f_cumulative_sum(x):
    xp = array_namespace(x)
    return xp.sum(xp.cumulative_sum(x, axis=1) * x)


def f_matmul(x):
    xp = array_namespace(x)
    return xp.sum(xp.tanh(xp.matmul(x, xp.matrix_transpose(x))))


def f_tensordot(x):
    xp = array_namespace(x)
    return xp.sum(xp.sin(xp.tensordot(x, x, axes=((0,), (0,)))))


def f_vecdot(x):
    xp = array_namespace(x)
    return xp.sum(xp.sin(xp.vecdot(x, x * x, axis=-1)))


def f_matrix_transpose(x):
    xp = array_namespace(x)
    return xp.sum(xp.matrix_transpose(x)[0, :] * x[:, 1])


def f_reshape(x):
    xp = array_namespace(x)
    return xp.sum(xp.reshape(x, (-1,))[1:] * xp.reshape(x * x, (x.shape[0] * x.shape[1],))[:-1])


def f_permute_dims(x):
    xp = array_namespace(x)
    return xp.sum(xp.permute_dims(x, (1, 0))[0, :] * x[:, 2])


def f_expand_dims(x):
    xp = array_namespace(x)
    return xp.sum(xp.expand_dims(x, axis=0) * xp.expand_dims(x[0, :], axis=0))


def f_squeeze(x):
    xp = array_namespace(x)
    return xp.sum(xp.squeeze(x[0:1, :], axis=0) * x[1, :])


def f_flip(x):
    xp = array_namespace(x)
    return xp.sum(xp.flip(x, axis=1) * x * x)


def f_broadcast_to(x):
    xp = array_namespace(x)
    return xp.sum(xp.broadcast_to(x[0, :], (4, x.shape[1])) * xp.sin(x[0:1, :]))


def f_moveaxis(x):
    xp = array_namespace(x)
    return xp.sum(xp.moveaxis(x, 0, 1)[1, :] * x[:, 0])


def f_asarray(x):
    xp = array_namespace(x)
    return xp.sum(xp.asarray(x) * x)


# inputs in (-0.9, 0.9) unless listed; 2-d functions get a (3, 4) array, the others a (5,) one
TWO_D = {"sum", "mean", "prod", "max", "min", "std", "var", "cumulative_sum", "matmul", "tensordot", "vecdot",
         "matrix_transpose", "reshape", "permute_dims", "expand_dims", "squeeze", "flip", "broadcast_to",
         "moveaxis"}

CASES = {name[2:]: fn for name, fn in list(globals().items()) if name.startswith("f_")}
