"""Functions exercising NumPy derivative rules, with inputs, for tests/test_rules.py.

Each case is a function (with real source, so adsrc can transform it) that
calls the rules listed with it and returns their output; the test wraps it
as np.sum(f(...)) and as np.sum(f(...) * W) for a fixed random W, once per
output for functions returning a tuple. All float arguments are
differentiated; integer indices, masks and the like are module constants.
Inputs stay away from points where a function is not differentiable (ties,
kinks, branch points).
"""

import numpy as np

_RNG = np.random.default_rng(1234)


def rand(*shape, low=-1.0, high=1.0):
    return _RNG.uniform(low, high, size=shape)


def pos(*shape, low=0.5, high=2.0):
    return _RNG.uniform(low, high, size=shape)


def away(*shape, gap=0.2):
    """Random values with |x| >= gap (away from kinks at zero), distinct."""
    x = _RNG.uniform(gap, 1.0, size=shape) * _RNG.choice([-1.0, 1.0], size=shape)
    return x


def spread(*shape):
    """Distinct values at least ~0.1 apart (away from ties), in random order."""
    n = int(np.prod(shape)) if shape else 1
    vals = np.linspace(-1.0, 1.0, n) + _RNG.uniform(-0.02, 0.02, size=n)
    return _RNG.permutation(vals).reshape(shape)


def spd(n, batch=()):
    """A well-conditioned symmetric positive definite matrix (stack)."""
    m = _RNG.normal(size=batch + (n, n))
    return np.matmul(m, np.swapaxes(m, -1, -2)) / n + np.eye(n)


def wellcond(*shape):
    """A well-conditioned (stack of) square matrices."""
    n = shape[-1]
    return _RNG.normal(size=shape) * 0.3 + np.eye(n) * 1.5


class RuleCase:
    def __init__(self, fn, args, rules, rtol, atol, label):
        self.fn = fn
        self.args = tuple(args)
        self.rules = tuple(rules)
        self.rtol = rtol
        self.atol = atol
        self.label = label
        out = fn(*self.args)
        self.tuple_output = isinstance(out, (tuple, list))
        outs = list(out) if self.tuple_output else [out]
        self.out_shapes = [np.shape(o) for o in outs]

    @property
    def id(self):
        return self.fn.__name__ + (f"[{self.label}]" if self.label else "")


CASES = []


def case(rules, *args, rtol=1e-5, atol=1e-6, label=None):
    """Register the decorated function with these inputs; `rules` names the rules it exercises."""
    rules = (rules,) if isinstance(rules, str) else rules

    def deco(fn):
        CASES.append(RuleCase(fn, args, rules, rtol, atol, label))
        return fn
    return deco


def add(fn, rules, *args, rtol=1e-5, atol=1e-6, label=None):
    case(rules, *args, rtol=rtol, atol=atol, label=label)(fn)


# -- elementwise, one argument (a factory: the closure variable `op` holds the ufunc) -----------------

def unary(op):
    def unary_op(x):
        return op(x)
    return unary_op


# inputs inside each function's domain, away from kinks
UNARY_DOMAINS = {
    np.negative: rand, np.positive: rand, np.exp: rand, np.exp2: rand, np.expm1: rand,
    np.log: pos, np.log2: pos, np.log10: pos, np.log1p: pos, np.sqrt: pos, np.cbrt: away,
    np.square: rand, np.reciprocal: away, np.sin: rand, np.cos: rand, np.tan: rand,
    np.arcsin: lambda *s: rand(*s, low=-0.8, high=0.8), np.arccos: lambda *s: rand(*s, low=-0.8, high=0.8),
    np.arctan: rand, np.sinh: rand, np.cosh: rand, np.tanh: rand, np.arcsinh: rand,
    np.arccosh: lambda *s: rand(*s, low=1.2, high=3.0), np.arctanh: lambda *s: rand(*s, low=-0.8, high=0.8),
    np.absolute: away, np.fabs: away, np.deg2rad: rand, np.rad2deg: rand, np.radians: rand, np.degrees: rand,
    np.sinc: away, np.conjugate: rand, np.real: rand, np.nan_to_num: rand, np.copy: rand, np.sign: away,
}
for _op, _dom in UNARY_DOMAINS.items():
    _f = unary(_op)
    _name = "np." + _op.__name__
    add(_f, _name, _dom(2, 3), label=f"{_op.__name__},2x3")
    add(_f, _name, _dom(4), label=f"{_op.__name__},4")
    if _op is not np.copy:
        add(_f, _name, float(_dom(1)[0]), label=f"{_op.__name__},float")


@case("np.sinc", np.array([0.0, 0.5, -1.5]))
def sinc_at_zero(x):
    return np.sinc(x)


@case("np.nan_to_num", np.array([0.5, -0.3, 2.0]))
def nan_to_num_of_inf(x):
    return np.nan_to_num(x + np.array([0.0, np.inf, -np.inf]), posinf=3.0, neginf=-3.0)


# -- elementwise, two arguments: equal shapes, broadcasting, a float ---------------------------------

def binary(op):
    def binary_op(x, y):
        return op(x, y)
    return binary_op


def _pairs(dx, dy):
    return [((dx(2, 3), dy(2, 3)), "2x3,2x3"), ((dx(2, 3), dy(3)), "2x3,3"), ((dx(2, 1), dy(1, 3)), "2x1,1x3"),
            ((dx(3), float(dy(1)[0])), "3,float"), ((float(dx(1)[0]), dy(2, 2)), "float,2x2")]


BINARY_DOMAINS = {
    np.add: (rand, rand), np.subtract: (rand, rand), np.multiply: (rand, rand), np.divide: (rand, away),
    np.float_power: (pos, rand), np.power: (pos, rand), np.remainder: (lambda *s: rand(*s, low=0.1, high=0.9),
                                                                       lambda *s: pos(*s, low=1.1, high=1.5)),
    np.fmod: (lambda *s: rand(*s, low=0.1, high=0.9), lambda *s: pos(*s, low=1.1, high=1.5)),
    np.maximum: (rand, rand), np.minimum: (rand, rand), np.fmax: (rand, rand), np.fmin: (rand, rand),
    np.logaddexp: (rand, rand), np.logaddexp2: (rand, rand), np.hypot: (away, away), np.arctan2: (away, away),
}
for _op, (_dx, _dy) in BINARY_DOMAINS.items():
    for _args, _label in _pairs(_dx, _dy):
        add(binary(_op), "np." + _op.__name__, *_args, label=f"{_op.__name__},{_label}")


@case(("np.remainder", "np.fmod"), np.array([2.3, -1.7, 5.2]), np.array([1.1, 0.7, -2.1]))
def remainder_signs(x, y):
    return np.remainder(x, y) + np.fmod(x, y)


@case(("np.fmax", "np.fmin"), np.array([0.3, -0.2, 0.7]), np.array([0.1, 0.4, -0.5]))
def fmax_fmin_with_nan(x, y):
    nan_x = x + np.array([0.0, np.nan, 0.0])
    nan_y = y + np.array([np.nan, 0.0, 0.0])
    return np.fmax(nan_x, y) + np.fmin(x, nan_y)


@case("np.power", pos(2, 3))
def power_constant_exponents(x):
    return np.power(x, 3) + np.power(x, 2) + np.power(x, 1) + np.power(x, 0) + np.power(x, -1.5) + x ** 0.5


@case("np.copysign", away(2, 3), away(3))
def copysign_x(x, y):
    return np.copysign(x, y) * y


@case("np.ldexp", rand(2, 3))
def ldexp_x(x):
    return np.ldexp(x, np.array([1, -2, 3]))


@case("np.heaviside", rand(4))
def heaviside_value_at_zero(y):
    return np.heaviside(np.array([0.0, 1.0, -1.0, 0.0]), y)


@case("np.where", rand(2, 3), rand(3))
def where_broadcast(x, y):
    return np.where(np.array([True, False, True]), x, y)


@case("np.where", rand(2, 3))
def where_on_values(x):
    return np.where(x > 0, np.exp(x), 1.0 + x)


@case("np.where", away(6))
def where_indices(x):
    idx = np.where(x > 0)
    return x[idx] ** 2 + np.sum(x[np.where(x < 0)[0]])


@case("np.clip", spread(3, 4))
def clip_constants(x):
    return np.clip(x, -0.55, 0.45)


@case("np.clip", spread(3, 4), np.array([-0.53, -0.27, 0.02, 0.26]), 0.48)
def clip_active_bounds(x, lo, hi):
    return np.clip(x, lo, hi)


@case("np.clip", spread(6), 0.49)
def clip_upper_only(x, hi):
    return np.clip(x, None, hi)


@case("np.clip", spread(6), 0.51, -0.49)
def clip_crossed_bounds(x, lo, hi):
    return np.clip(x, lo, hi)      # lo > hi: every element is hi


# -- elementwise functions returning tuples ---------------------------------------------------------

@case("np.modf", rand(2, 3) * 3.0)
def modf(x):
    return np.modf(x)


@case("np.divmod", rand(2, 3, low=0.1, high=3.0), pos(3, low=1.1, high=1.4))
def divmod_broadcast(x, y):
    return np.divmod(x, y)


# -- reductions ---------------------------------------------------------------------------------------

def reduction(op, axis=None, keepdims=False):
    """op(x, axis=..., keepdims=...) with the values held in closure variables."""
    def reduce_op(x):
        return op(x, axis=axis, keepdims=keepdims)
    return reduce_op


def reduction_default(op):
    def reduce_default(x):
        return op(x)
    return reduce_default


def cumulative(op, axis=None):
    def cumulative_op(x):
        return op(x, axis=axis)
    return cumulative_op


@case(("np.sum", "np.mean", "np.prod", "np.max", "np.min", "np.amax", "np.amin", "np.var", "np.std"), spread(3, 4))
def reductions_all_axes(x):
    return np.array([np.sum(x), np.mean(x), np.prod(x), np.max(x), np.min(x), np.amax(x), np.amin(x),
                     np.var(x), np.std(x)])


for _fn in (np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.var, np.std, np.ptp, np.median,
            np.nansum, np.nanmean, np.nanprod, np.nanmax, np.nanmin, np.nanvar, np.nanstd):
    _name = "np." + _fn.__name__
    _x3 = spread(3, 4)
    _x4 = spread(2, 3, 2)
    for _kw, _x, _label in (({}, _x3, "all"), ({"axis": 0}, _x3, "axis=0"), ({"axis": 1}, _x3, "axis=1"),
                            ({"axis": -1, "keepdims": True}, _x3, "axis=-1,keepdims"),
                            ({"keepdims": True}, _x3, "keepdims"),
                            ({"axis": (0, 2)}, _x4, "axis=(0,2)")):
        add(reduction(_fn, **_kw), _name, _x, label=f"{_fn.__name__},{_label}")
    add(reduction_default(_fn), _name, spread(2, 3), label=f"{_fn.__name__},default")


@case(("np.var", "np.std", "np.nanvar", "np.nanstd"), spread(3, 4))
def ddof_variants(x):
    return (np.var(x, axis=0, ddof=1)[:3] + np.std(x, axis=1, keepdims=True, ddof=1).T[0, :3]
            + np.nanvar(x, ddof=1, axis=1) + np.nanstd(x, axis=1, ddof=1))


@case("np.prod", np.array([[0.0, 1.5, 2.0], [0.5, 0.0, 0.0], [1.2, -0.7, 0.9]]))
def prod_with_zeros(x):
    return np.prod(x, axis=1) + np.prod(x, axis=0)


@case(("np.max", "np.min"), np.array([[0.5, 0.9, 0.9], [0.1, -0.3, 0.2]]))
def max_tie_shares_gradient(x):
    return np.max(x, axis=1) + np.min(x)


@case(("np.nansum", "np.nanmean", "np.nanprod", "np.nanmax", "np.nanmin", "np.nanvar", "np.nanstd"),
      spread(3, 4))
def nan_reductions_skip_nan(x):
    y = x + np.array([[0.0, np.nan, 0.0, 0.0], [0.0, 0.0, 0.0, np.nan], [np.nan, 0.0, 0.0, 0.0]])
    return (np.nansum(y, axis=1) + np.nanmean(y, axis=1) + np.nanprod(y, axis=1) + np.nanmax(y, axis=1)
            + np.nanmin(y, axis=1) + np.nanvar(y, axis=1) + np.nanstd(y, axis=1))


@case(("np.max", "np.sum", "np.exp", "np.log"), rand(3, 4) * 3.0)
def logsumexp(x):
    m = np.max(x, axis=1, keepdims=True)
    return np.log(np.sum(np.exp(x - m), axis=1)) + m[:, 0]


@case(("np.max", "np.sum", "np.exp", "np.log", "np.mean"), rand(3, 4) * 3.0, rand(3, 4))
def log_softmax_loss(x, target):
    z = x - np.max(x, axis=-1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=-1, keepdims=True))
    return np.mean(np.sum(-target * logp, axis=-1))


@case("np.average", spread(3, 4), pos(4))
def average_weights_1d(x, w):
    return np.average(x, axis=1, weights=w)


@case("np.average", spread(3, 4), pos(3, 4))
def average_weights_full(x, w):
    return np.average(x, weights=w)


@case("np.average", spread(2, 3, 2), pos(3))
def average_weights_middle_axis(x, w):
    return np.average(x, axis=1, weights=w, keepdims=True)


@case("np.average", spread(3, 4))
def average_unweighted(x):
    return np.average(x, axis=0)


@case("np.median", spread(5))
def median_odd(x):
    return np.median(x)


@case(("np.quantile", "np.percentile"), spread(3, 5), np.array([0.3, 0.55, 0.81]))
def quantiles(x, q):
    return np.quantile(x, q, axis=1) + np.percentile(x, q * 100.0, axis=1)


@case("np.quantile", spread(7), 0.37)
def quantile_scalar(x, q):
    return np.quantile(x, q)


@case("np.percentile", spread(2, 3, 3), 62.0)
def percentile_axes_keepdims(x, q):
    return np.percentile(x, q, axis=(0, 2), keepdims=True)


# -- cumulative, differences, convolutions ------------------------------------------------------------

for _fn in (np.cumsum, np.cumprod, np.nancumsum, np.nancumprod):
    for _kw, _x, _label in (({}, spread(3, 4), "flat"), ({"axis": 0}, spread(3, 4), "axis=0"),
                            ({"axis": -1}, spread(2, 3, 2), "axis=-1")):
        add(cumulative(_fn, **_kw), "np." + _fn.__name__, _x, label=f"{_fn.__name__},{_label}")
    add(reduction_default(_fn), "np." + _fn.__name__, spread(2, 3), label=f"{_fn.__name__},default")


@case("np.cumprod", np.array([[0.5, 0.0, 1.5, 2.0], [0.0, 0.0, 0.7, 1.1]]))
def cumprod_with_zeros(x):
    return np.cumprod(x, axis=1)


@case(("np.nancumsum", "np.nancumprod"), spread(5))
def nancumulative_skip_nan(x):
    y = x + np.array([0.0, np.nan, 0.0, 0.0, np.nan])
    return np.nancumsum(y) + np.nancumprod(y)


if hasattr(np, "cumulative_sum"):
    @case(("np.cumulative_sum", "np.cumulative_prod"), spread(3, 4))
    def cumulative_sum_prod(x):
        return (np.cumulative_sum(x, axis=1) + np.cumulative_prod(x, axis=1)
                + np.cumulative_sum(x, axis=1, include_initial=True)[:, 1:]
                + np.cumulative_prod(x, axis=1, include_initial=True)[:, :4])

    @case(("np.cumulative_sum", "np.cumulative_prod"), spread(5))
    def cumulative_1d(x):
        return np.cumulative_sum(x, include_initial=True) * np.cumulative_prod(x, include_initial=True)


@case("np.diff", rand(3, 5))
def diff_default(x):
    return np.diff(x)


@case("np.diff", rand(4, 3))
def diff_twice_axis0(x):
    return np.diff(x, n=2, axis=0)


if hasattr(np, "trapezoid"):
    @case("np.trapezoid", rand(3, 5))
    def trapezoid_uniform(y):
        return np.trapezoid(y)

    @case("np.trapezoid", rand(3, 4), np.array([0.0, 0.3, 0.9, 1.2]), 0.7)
    def trapezoid_x_and_dx(y, x, dx):
        return np.trapezoid(y, x) + np.trapezoid(y, dx=dx, axis=0)[:3]

    @case("np.trapezoid", rand(3, 4), np.cumsum(pos(3, 4), axis=0))
    def trapezoid_x_full(y, x):
        return np.trapezoid(y, x, axis=0)


for _mode in ("full", "same", "valid"):
    for _m, _n in ((5, 3), (3, 5), (4, 4), (4, 1), (4, 2)):
        def conv(a, v, mode=_mode):
            return np.convolve(a, v, mode=mode)

        def corr(a, v, mode=_mode):
            return np.correlate(a, v, mode=mode)
        add(conv, "np.convolve", rand(_m), rand(_n), label=f"{_mode},{_m},{_n}")
        add(corr, "np.correlate", rand(_m), rand(_n), label=f"{_mode},{_m},{_n}")


@case("np.correlate", rand(5), rand(3))
def correlate_default_mode(a, v):
    return np.correlate(a, v)


@case("np.polyval", rand(4), rand(2, 3))
def polyval(p, x):
    return np.polyval(p, x)


@case("np.interp", np.array([-0.5, 0.1, 0.45, 0.7, 1.3, 0.95]), np.array([0.0, 0.3, 0.6, 1.0]), rand(4))
def interp(x, xp, fp):
    return np.interp(x, xp, fp)


@case("np.interp", np.array([-0.5, 0.1, 0.7, 1.3]), np.array([0.0, 0.3, 0.6, 1.0]), rand(4), 0.5, -0.2)
def interp_left_right(x, xp, fp, left, right):
    return np.interp(x, xp, fp, left=left, right=right)


# -- products ------------------------------------------------------------------------------------------

@case("np.matmul", rand(3, 4), rand(4, 2), label="2d")
@case("np.matmul", rand(4), rand(4, 2), label="1d@2d")
@case("np.matmul", rand(3, 4), rand(4), label="2d@1d")
@case("np.matmul", rand(4), rand(4), label="1d@1d")
@case("np.matmul", rand(2, 3, 4), rand(4, 2), label="batch@2d")
@case("np.matmul", rand(3, 4), rand(2, 4, 2), label="2d@batch")
@case("np.matmul", rand(2, 1, 3, 4), rand(3, 4, 2), label="broadcast batches")
@case("np.matmul", rand(4), rand(2, 4, 3), label="1d@batch")
@case("np.matmul", rand(2, 3, 4), rand(4), label="batch@1d")
def matmul(x, y):
    return np.matmul(x, y) + 0.0 * (x @ y)


@case("np.dot", rand(3, 4), rand(4, 2), label="2d")
@case("np.dot", rand(4), rand(4), label="1d")
@case("np.dot", rand(3, 4), rand(4), label="2d,1d")
@case("np.dot", rand(4), rand(4, 2), label="1d,2d")
@case("np.dot", rand(2, 3, 4), rand(2, 4, 3), label="nd")
@case("np.dot", 1.5, rand(2, 3), label="scalar,2d")
@case("np.dot", rand(2, 3), 0.7, label="2d,scalar")
def dot(a, b):
    return np.dot(a, b)


@case("np.inner", rand(3, 4), rand(2, 4), label="2d")
@case("np.inner", rand(4), rand(4), label="1d")
@case("np.inner", rand(2, 3, 4), rand(4), label="3d,1d")
@case("np.inner", 0.6, rand(3), label="scalar")
def inner(a, b):
    return np.inner(a, b)


@case("np.outer", rand(3), rand(4), label="1d")
@case("np.outer", rand(2, 2), rand(3), label="2d raveled")
def outer(a, b):
    return np.outer(a, b)


@case("np.vdot", rand(2, 3), rand(3, 2))
def vdot(a, b):
    return np.vdot(a, b)


@case("np.tensordot", rand(2, 3, 4), rand(3, 4, 2), label="axes=2")
def tensordot_default(a, b):
    return np.tensordot(a, b)


@case("np.tensordot", rand(2, 3, 4), rand(4, 2, 3), label="pairs")
def tensordot_pairs(a, b):
    return np.tensordot(a, b, axes=([1, 2], [2, 0]))


@case("np.tensordot", rand(2, 3), rand(3, 4))
def tensordot_int_axes(a, b):
    return np.tensordot(a, b, axes=1) + np.tensordot(a, b, axes=0).sum(axis=(1, 2))[:, None]


@case("np.kron", rand(2, 3), rand(3, 2), label="2d")
@case("np.kron", rand(3), rand(2, 2), label="1d,2d")
@case("np.kron", rand(2), rand(3), label="1d")
def kron(a, b):
    return np.kron(a, b)


@case("np.cross", rand(4, 3), rand(3), label="broadcast")
@case("np.cross", rand(3), rand(3), label="1d")
def cross(a, b):
    return np.cross(a, b)


@case("np.cross", rand(3, 2), rand(2, 3))
def cross_axes(a, b):
    return np.cross(a, b, axisa=0, axisb=1, axisc=0)


EINSUM_CASES = [
    ("ij,jk->ik", (3, 4), (4, 2)), ("ij,jk", (3, 4), (4, 2)), ("i,i->", (4,), (4,)), ("i,j->ij", (3,), (2,)),
    ("ij->", (3, 4)), ("ij->j", (3, 4)), ("ii->i", (3, 3)), ("ii", (3, 3)), ("ij->ji", (2, 3)),
    ("bij,bjk->bik", (2, 3, 4), (2, 4, 2)), ("...ij,...jk->...ik", (2, 3, 4), (4, 2)),
    ("ij,ij,ij->i", (2, 3), (2, 3), (2, 3)), ("i,i", (3,), (1,)), ("ijk,k->ij", (2, 3, 4), (4,)),
    ("iij->ij", (2, 2, 3)), ("...i,...i->...", (2, 3), (1, 3)), ("ab,bc,cd,de->ae", (2, 3), (3, 2), (2, 2), (2, 3)),
]
for _spec, *_shapes in EINSUM_CASES:
    if len(_shapes) == 1:
        def einsum1(a, spec=_spec):
            return np.einsum(spec, a)
        _f = einsum1
    elif len(_shapes) == 2:
        def einsum2(a, b, spec=_spec):
            return np.einsum(spec, a, b)
        _f = einsum2
    elif len(_shapes) == 3:
        def einsum3(a, b, c, spec=_spec):
            return np.einsum(spec, a, b, c)
        _f = einsum3
    else:
        def einsum4(a, b, c, d, spec=_spec):
            return np.einsum(spec, a, b, c, d)
        _f = einsum4
    add(_f, "np.einsum", *[rand(*s) for s in _shapes], label=_spec)


@case("np.einsum", rand(3, 4), rand(4))
def einsum_optimize(a, b):
    return np.einsum("ij,j->i", a, b, optimize=True)


@case("np.einsum", rand(3), rand(3))
def einsum_six_operands(a, b):
    return np.einsum("i,j,i,k,k,j->ij", a, b, b * 2.0, a - b, a, a * b) + np.einsum("i,i,i,i,i->i", a, b, a, b, a)


if hasattr(np, "vecdot"):
    @case("np.vecdot", rand(2, 3), rand(3), label="broadcast")
    @case("np.vecdot", rand(2, 1, 3), rand(4, 3), label="batches")
    def vecdot(x1, x2):
        return np.vecdot(x1, x2)

    @case("np.vecdot", rand(3, 2), rand(3, 1))
    def vecdot_axis0(x1, x2):
        return np.vecdot(x1, x2, axis=0)

if hasattr(np, "matvec"):
    @case("np.matvec", rand(3, 4), rand(4), label="2d")
    @case("np.matvec", rand(2, 3, 4), rand(1, 4), label="batch")
    def matvec(x1, x2):
        return np.matvec(x1, x2)

    @case("np.vecmat", rand(3), rand(3, 4), label="2d")
    @case("np.vecmat", rand(2, 1, 3), rand(2, 3, 4), label="batch")
    def vecmat(x1, x2):
        return np.vecmat(x1, x2)


# -- shapes ----------------------------------------------------------------------------------------------

@case(("np.reshape", "np.ravel", "np.squeeze", "np.expand_dims"), rand(2, 1, 3))
def reshapes(x):
    return (np.reshape(x, (3, 2)) + np.reshape(np.ravel(x), (3, 2)) + np.squeeze(x).T
            + np.expand_dims(np.squeeze(x, axis=1), 0)[0].T + np.reshape(x, shape=(3, 2)))


@case(("np.atleast_1d", "np.atleast_2d", "np.atleast_3d"), rand(3))
def atleast(x):
    return np.atleast_1d(x)[None, None, :] + np.atleast_2d(x)[None] + np.atleast_3d(x).transpose(0, 2, 1)


@case(("np.atleast_1d", "np.atleast_2d", "np.atleast_3d"), 0.7)
def atleast_scalar(x):
    return np.atleast_1d(x) + np.atleast_2d(x)[0] + np.atleast_3d(x)[0, 0]


@case("np.transpose", rand(2, 3, 4), label="reverse")
def transpose(x):
    return np.transpose(x)


@case("np.transpose", rand(2, 3, 4), label="axes")
def transpose_axes(x):
    return np.transpose(x, (1, 2, 0)) + np.transpose(x, axes=(-2, -1, 0))


@case(("np.swapaxes", "np.moveaxis", "np.rollaxis"), rand(2, 3, 4))
def axis_moves(x):
    return (np.swapaxes(x, 0, 2), np.moveaxis(x, 0, -1), np.rollaxis(x, 2), np.moveaxis(x, (0, 1), (2, 0)),
            np.rollaxis(x, 1, 3))


@case("np.rollaxis", rand(2, 3, 4, 2))
def rollaxis_start(x):
    return np.rollaxis(x, 3, 1)


if hasattr(np, "matrix_transpose"):
    @case("np.matrix_transpose", rand(2, 3, 4))
    def matrix_transpose(x):
        return np.matrix_transpose(x)


@case("np.broadcast_to", rand(3), label="lead")
@case("np.broadcast_to", rand(2, 1, 3), label="inner")
def broadcast_to(x):
    return np.broadcast_to(x, (2, 2, 3))


@case("np.broadcast_arrays", rand(3), rand(2, 1), rand(1, 1))
def broadcast_arrays(x, y, z):
    return np.broadcast_arrays(x, y, z)


@case(("np.array", "np.asarray", "np.asanyarray"), rand(3), 0.5, 1.5)
def array_from_parts(x, a, b):
    return np.array([a, b, a * b]) * x + np.asarray([x, x * a]).sum(axis=0) + np.asanyarray(x) * b


@case(("np.array", "np.asarray"), rand(2, 3))
def array_of_array(x):
    return np.array(x) * np.asarray(x, dtype=float)


@case("np.resize", rand(2, 3), label="grow")
def resize_grow(x):
    return np.resize(x, (4, 4))


@case("np.resize", rand(2, 3), label="shrink")
def resize_shrink(x):
    return np.resize(x, (5,))


# -- joining and splitting ------------------------------------------------------------------------------

@case("np.concatenate", rand(2, 3), rand(1, 3), rand(3))
def concatenate(a, b, c):
    return np.concatenate([a, b, c[None, :]]) + 0.0 * np.concatenate((a, b), axis=0)[:1]


@case("np.concatenate", rand(2, 3), rand(2, 1))
def concatenate_axis(a, b):
    return np.concatenate([a, b], axis=-1)


@case("np.concatenate", rand(2, 2), rand(3))
def concatenate_flat(a, b):
    return np.concatenate([a, b], axis=None)


@case("np.stack", rand(2, 3), rand(2, 3))
def stack(a, b):
    return np.stack([a, b]) + np.stack([b, a], axis=-1).transpose(2, 0, 1) + np.stack((a, b), axis=1).swapaxes(0, 1)


@case(("np.hstack", "np.vstack", "np.dstack", "np.column_stack"), rand(2, 3), rand(2, 3))
def stacks_2d(a, b):
    return np.hstack([a, b]), np.vstack([a, b]), np.dstack([a, b]), np.column_stack([a, b])


@case(("np.hstack", "np.vstack", "np.dstack", "np.column_stack"), rand(3), rand(3))
def stacks_1d(a, b):
    return np.hstack([a, b]), np.vstack([a, b]), np.dstack([a, b]), np.column_stack([a, b])


@case("np.append", rand(2, 3), rand(2))
def append_flat(a, v):
    return np.append(a, v)


@case("np.append", rand(2, 3), rand(2, 2))
def append_axis(a, v):
    return np.append(a, v, axis=1)


@case("np.split", rand(6, 2), label="sections")
def split_sections(x):
    return np.split(x, 3)


@case("np.split", rand(2, 5), label="indices")
def split_indices(x):
    return np.split(x, [1, 3], axis=1)


@case("np.array_split", rand(7))
def array_split(x):
    return np.array_split(x, 3)


@case(("np.hsplit", "np.vsplit", "np.dsplit"), rand(4, 4, 2))
def hvd_split(x):
    h = np.hsplit(x, 2)
    v = np.vsplit(x, [1])
    d = np.dsplit(x, 2)
    return h[0] * h[1], v[0], v[1] * 2.0, d[0] - d[1]


@case("np.hsplit", rand(6))
def hsplit_1d(x):
    return np.hsplit(x, 3)


if hasattr(np, "unstack"):
    @case("np.unstack", rand(3, 2))
    def unstack(x):
        return np.unstack(x, axis=1)


# -- rearranging ----------------------------------------------------------------------------------------

@case(("np.flip", "np.fliplr", "np.flipud"), rand(3, 4))
def flips(x):
    return np.flip(x) + np.flip(x, axis=1) * 2.0 + np.fliplr(x) * 3.0 + np.flipud(x) * 4.0 + np.flip(x, (0,))


@case("np.roll", rand(3, 4))
def rolls(x):
    return np.roll(x, 2) + np.roll(x, -1, axis=1) * 2.0 + np.roll(x, (1, 2), axis=(0, 1)) * 3.0


@case("np.rot90", rand(3, 4))
def rot90(x):
    return np.rot90(x).T + np.rot90(x, 2) * 2.0 + np.rot90(x, -1, axes=(1, 0)).T * 3.0


@case("np.tile", rand(2, 3), label="2d")
def tile(x):
    return np.tile(x, (2, 2))


@case("np.tile", rand(3), label="lead reps")
def tile_lead(x):
    return np.tile(x, (2, 1, 2))


@case("np.tile", rand(2, 2, 3), label="short reps")
def tile_short(x):
    return np.tile(x, 2)


@case("np.repeat", rand(2, 3))
def repeats(x):
    return (np.repeat(x, 2).reshape(2, 6) + np.repeat(x, 2, axis=1) * 2.0
            + np.repeat(x, [1, 0, 5], axis=1) * 3.0 + np.repeat(x, [2, 1, 2, 1, 2, 4]).reshape(2, 6))


@case("np.pad", rand(2, 3), label="constant")
def pad_constant(x):
    return np.pad(x, 1) + np.pad(x, ((0, 2), (1, 1)), constant_values=0.3)[:4, :5]


@case("np.pad", rand(3, 4), 0.7, label="value")
def pad_value(x, v):
    return np.pad(x, ((1, 0), (2, 1)), constant_values=v)


PAD_MODES = ("edge", "reflect", "symmetric", "wrap")
for _mode in PAD_MODES:
    def pad_mode(x, mode=_mode):
        return np.pad(x, ((2, 1), (0, 3)), mode=mode)
    add(pad_mode, "np.pad", rand(3, 4), label=_mode)


@case("np.sort", spread(3, 4), label="last axis")
def sort_last(x):
    return np.sort(x)


@case("np.sort", spread(3, 4), label="axis 0 and flat")
def sort_axes(x):
    return np.sort(x, axis=0) + np.sort(x, axis=None).reshape(3, 4)


@case("np.unique", np.array([0.3, -0.5, 0.9, 0.1]))
def unique(x):
    return np.unique(x)


# -- indexing and selecting ---------------------------------------------------------------------------------

IDX = np.array([2, 0, 2, 1])


@case("np.take", rand(3, 4))
def takes(x):
    return (np.take(x, IDX) + np.take(x, IDX, axis=1)[1]
            + np.take(x, np.array([[0, 2], [1, 1]]), axis=0)[:, 0, :2].ravel()
            + np.take(x, np.array([5, -1, 7, 13]), mode="wrap") + np.take(x, np.array([-1, 9, 3, 0]), mode="clip"))


@case("np.take", rand(3, 4))
def take_scalar_index(x):
    return np.take(x, 1, axis=1) + np.take(x, -2, axis=0)[:3]


@case("np.take_along_axis", spread(3, 4))
def take_along_axis(x):
    return (np.take_along_axis(x, np.argsort(x, axis=1), axis=1)
            + np.take_along_axis(x, np.array([[0, 2, 2, 1]]), axis=0))


@case("np.take_along_axis", rand(5))
def take_along_axis_flat(x):
    return np.take_along_axis(x, np.array([4, 4, 0]), axis=None)


@case(("np.compress", "np.extract"), rand(3, 4))
def compress_extract(x):
    mask = np.array([True, False, True, True])
    return np.compress(mask, x, axis=1), np.compress(np.arange(12) % 2 == 0, x), np.extract(np.tile(mask, 3), x)


@case("np.delete", rand(3, 4))
def delete(x):
    return np.delete(x, [0, 3], axis=1).ravel() + np.delete(x, [1, 5, 6, 7, 11])[:6]


@case("np.select", rand(2, 4), rand(4), 0.4)
def select(a, b, default):
    conds = [np.array([True, False, False, True]), np.array([[True, True, False, False], [False, True, True, False]])]
    return np.select(conds, [a, b], default=default)


@case("np.select", rand(4), rand(2, 4))
def select_default_array(a, default):
    return np.select([np.array([False, True, False, True])], [a], default)


@case("np.bincount", rand(5))
def bincount_weights(w):
    return np.bincount(np.array([0, 2, 2, 4, 0]), weights=w, minlength=6)


# -- matrices: diagonals and triangles -------------------------------------------------------------------

@case("np.diag", rand(3), label="vector")
def diag_of_vector(v):
    return np.diag(v) + np.diag(v, k=1)[:3, :3] + np.diag(v, -1)[1:, 1:]


@case("np.diag", rand(3, 4), label="matrix")
def diag_of_matrix(a):
    return np.diag(a) + np.diag(a, 1) * 2.0 + np.diag(a, -1)[:1].sum()


@case("np.diagflat", rand(2, 2))
def diagflat(v):
    return np.diagflat(v) + np.diagflat(v, 1)[1:, 1:]


@case("np.diagonal", rand(3, 4), label="2d")
def diagonal_2d(a):
    return np.diagonal(a) + np.diagonal(a, 1) * 2.0 + np.diagonal(a, -1)[:1].sum()


@case("np.diagonal", rand(2, 3, 4), label="3d axes")
def diagonal_3d(a):
    return np.diagonal(a, 0, 1, 2).T + np.diagonal(a, 1, axis1=2, axis2=0)[:3, :2] * 0.5


@case("np.trace", rand(3, 4), label="2d")
def trace_2d(a):
    return np.trace(a) + np.trace(a, 1) * 2.0


@case("np.trace", rand(2, 3, 4), label="3d axes")
def trace_3d(a):
    return np.trace(a, axis1=1, axis2=2) + np.trace(a, -1, 2, 0)[:2]


@case(("np.triu", "np.tril"), rand(3, 4), label="2d")
@case(("np.triu", "np.tril"), rand(2, 3, 3), label="stack")
def triangles(a):
    return np.triu(a) + np.tril(a, -1) * 2.0 + np.triu(a, 1) * 3.0


# -- constructors depending on float arguments ------------------------------------------------------------

@case(("np.full", "np.full_like"), 0.7, rand(3))
def full(v, w):
    return np.full((2, 3), v) * np.full((2, 3), w) + np.full_like(np.zeros((2, 3)), v) + np.full_like(w, w[0])


@case("np.linspace", 0.3, 1.7, label="scalars")
def linspace(a, b):
    return np.linspace(a, b, 5) + np.linspace(a, b, num=4, endpoint=False)[1:].sum()


@case("np.linspace", rand(3), rand(2, 3), label="arrays")
def linspace_arrays(a, b):
    return np.linspace(a, b, 4, axis=1)


@case("np.arange", 0.3, 0.4)
def arange(a, s):
    return np.arange(a, 4.0, s), np.arange(a, a + 4.9 * s, step=s), np.arange(5.0 + a) * a


@case("np.meshgrid", rand(3), rand(2), label="xy")
def meshgrid(x, y):
    return np.meshgrid(x, y)


@case("np.meshgrid", rand(3), rand(2), rand(2), label="ij,sparse")
def meshgrid_ij(x, y, z):
    return np.meshgrid(x, y, z, indexing="ij", sparse=True)


@case(("np.random.normal", "np.random.uniform"), rand(3), pos(3), -0.5, 1.7)
def random_draws(loc, scale, low, high):
    np.random.seed(7)
    return (np.random.normal(loc, scale) + np.random.normal(loc, scale=2.0, size=(2, 3))
            + np.random.uniform(low, high, size=3))


# -- np.linalg ------------------------------------------------------------------------------------------

@case("np.linalg.inv", wellcond(3, 3), label="2d")
@case("np.linalg.inv", wellcond(2, 3, 3), label="stack")
def inv(a):
    return np.linalg.inv(a)


@case("np.linalg.solve", wellcond(3, 3), rand(3), label="vector")
@case("np.linalg.solve", wellcond(3, 3), rand(3, 2), label="matrix")
@case("np.linalg.solve", wellcond(2, 3, 3), rand(3), label="stack,vector")
@case("np.linalg.solve", wellcond(2, 3, 3), rand(3, 2), label="stack,matrix")
@case("np.linalg.solve", wellcond(3, 3), rand(2, 3, 2), label="matrix stack")
def solve(a, b):
    return np.linalg.solve(a, b)


@case("np.linalg.det", np.array([[1.0, 2.0, 0.5], [2.0, 4.0, 1.0], [0.3, -0.7, 1.1]]), label="singular")
@case("np.linalg.det", wellcond(3, 3), label="2d")
@case("np.linalg.det", wellcond(2, 2, 2), label="stack")
def det(a):
    return np.linalg.det(a)


@case("np.linalg.slogdet", wellcond(3, 3) - 3.0 * np.eye(3), label="negative det")
@case("np.linalg.slogdet", wellcond(2, 3, 3), label="stack")
def slogdet(a):
    return np.linalg.slogdet(a)


@case("np.linalg.slogdet", wellcond(3, 3))
def slogdet_unpacked(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign * logdet


@case("np.linalg.cholesky", spd(3), label="2d")
@case("np.linalg.cholesky", spd(3, (2,)), label="stack")
def cholesky(a):
    return np.linalg.cholesky(a)


@case("np.linalg.cholesky", spd(3))
def cholesky_upper(a):
    return np.linalg.cholesky(a, upper=True)


@case("np.linalg.eigh", spd(3), label="2d")
@case("np.linalg.eigh", spd(3, (2,)), label="stack")
def eigh(a):
    w, v = np.linalg.eigh(a)
    return w, v * np.conj(v)       # |v|^2: eigenvectors are defined up to sign (a phase, if complex)


@case("np.linalg.eigh", spd(3))
def eigh_upper(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    return w * np.sum(v * np.conj(v) * np.array([1.0, 2.0, 3.0])[:, None], axis=0)


@case("np.linalg.eigh", spd(3))
def eigh_values_only(a):
    return np.linalg.eigh(a)[0]


@case("np.linalg.eigvalsh", spd(3), label="2d")
@case("np.linalg.eigvalsh", spd(3, (2,)), label="stack")
def eigvalsh(a):
    return np.linalg.eigvalsh(a) + np.linalg.eigvalsh(a, UPLO="U")


@case("np.linalg.qr", rand(4, 3), label="tall")
@case("np.linalg.qr", wellcond(3, 3), label="square")
@case("np.linalg.qr", rand(2, 4, 3), label="stack")
def qr(a):
    q, r = np.linalg.qr(a)
    return q * np.sign(np.diagonal(r, 0, -2, -1))[..., None, :], r * np.sign(np.diagonal(r, 0, -2, -1))[..., :, None]


@case("np.linalg.svd", rand(4, 3), label="tall")
@case("np.linalg.svd", rand(3, 5), label="wide")
@case("np.linalg.svd", rand(2, 3, 3), label="stack")
def svd(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return u * np.conj(u), s, vh * np.conj(vh)     # |u|^2: singular vectors are defined up to sign (or phase)


@case("np.linalg.svd", rand(4, 3), label="tall")
@case("np.linalg.svd", rand(2, 3), label="wide")
def svd_full_matrices_leading_vectors(a):
    u, s, vh = np.linalg.svd(a)
    k = min(a.shape)
    return np.abs(u[:, :k]) ** 2, s, np.abs(vh[:k]) ** 2


@case("np.linalg.svd", np.eye(3) * 2.0)
def svd_repeated_values_only(a):
    return np.sum(np.linalg.svd(a)[1])      # the nuclear norm is differentiable at a positive definite a


@case(("np.linalg.eigh", "np.linalg.eigvalsh"), np.eye(3) * 2.0)
def eigh_repeated_values_only(a):
    return np.sum(np.linalg.eigh(a)[0]) + np.sum(np.linalg.eigvalsh(a) ** 2)   # trace(a) + trace(a @ a)


@case("np.linalg.svd", rand(3, 3))
def svd_square_products(a):
    u, s, vh = np.linalg.svd(a)
    return (u[:, :2] * s[:2]) @ vh[:2, :]


if hasattr(np.linalg, "svdvals"):
    @case("np.linalg.svdvals", rand(4, 3), label="tall")
    @case("np.linalg.svdvals", rand(2, 2, 3), label="stack")
    def svdvals(x):
        return np.linalg.svdvals(x)


@case("np.linalg.pinv", rand(4, 3), label="tall")
@case("np.linalg.pinv", rand(2, 4), label="wide")
@case("np.linalg.pinv", wellcond(3, 3), label="square")
def pinv(a):
    return np.linalg.pinv(a)


@case("np.linalg.matrix_power", wellcond(3, 3))
def matrix_power(a):
    return (np.linalg.matrix_power(a, 3) + np.linalg.matrix_power(a, 1) + np.linalg.matrix_power(a, 0)
            + np.linalg.matrix_power(a, -2))


@case("np.linalg.matrix_power", wellcond(2, 3, 3))
def matrix_power_stack(a):
    return np.linalg.matrix_power(a, 2)


@case("np.linalg.multi_dot", rand(3), rand(3, 4), rand(4, 2), rand(2))
def multi_dot_vectors(a, b, c, d):
    return np.linalg.multi_dot([a, b, c, d])


@case("np.linalg.multi_dot", rand(2, 3), rand(3, 4), rand(4, 2))
def multi_dot_matrices(a, b, c):
    return np.linalg.multi_dot([a, b, c])


NORM_CASES = [
    (dict(), (3, 4)), (dict(), (5,)), (dict(ord=1), (5,)), (dict(ord=3), (5,)), (dict(ord=0.5), (5,)),
    (dict(ord=np.inf), (5,)), (dict(ord=-np.inf), (5,)), (dict(axis=1), (3, 4)),
    (dict(axis=0, keepdims=True, ord=1), (3, 4)), (dict(ord="fro"), (3, 4)), (dict(ord="nuc"), (3, 4)),
    (dict(ord=2), (3, 4)), (dict(ord=-2), (3, 4)), (dict(ord=1), (3, 4)), (dict(ord=-1), (3, 4)),
    (dict(ord=np.inf), (3, 4)), (dict(ord=-np.inf), (3, 4)), (dict(axis=(0, 2)), (2, 3, 2)),
    (dict(axis=(2, 0), ord="nuc", keepdims=True), (2, 3, 2)), (dict(axis=(1, 2), ord=1), (2, 3, 3)),
]


def norm_with(ord, axis, keepdims):
    def norm(x):
        return np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
    return norm


for _kw, _shape in NORM_CASES:
    add(norm_with(_kw.get("ord"), _kw.get("axis"), _kw.get("keepdims", False)), "np.linalg.norm",
        away(*_shape) + 0.01 * spread(*_shape), label=",".join(f"{k}={v}" for k, v in _kw.items()) + f",{_shape}")


if hasattr(np.linalg, "vector_norm"):
    @case("np.linalg.vector_norm", away(2, 3) + 0.01 * spread(2, 3))
    def vector_norms(x):
        return (np.linalg.vector_norm(x) + np.linalg.vector_norm(x, axis=1)
                + np.linalg.vector_norm(x, ord=1, axis=0)[:2]
                + np.linalg.vector_norm(x, ord=np.inf, axis=(0, 1)) + np.linalg.vector_norm(x, ord=3, keepdims=True)[0])

    @case("np.linalg.matrix_norm", rand(2, 3, 3))
    def matrix_norms(x):
        return (np.linalg.matrix_norm(x) + np.linalg.matrix_norm(x, ord="nuc") + np.linalg.matrix_norm(x, ord=2)
                + np.linalg.matrix_norm(x, ord=1, keepdims=True)[:, 0, 0])


if hasattr(np.linalg, "vecdot"):
    @case(("np.linalg.matmul", "np.linalg.tensordot", "np.linalg.outer", "np.linalg.vecdot"), rand(3, 4), rand(4, 3))
    def linalg_array_api_products(a, b):
        return (np.linalg.matmul(a, b) + np.linalg.tensordot(a, b, axes=1) + np.linalg.outer(a[0, :3], b[0])
                + np.linalg.vecdot(a[:, :3], b[:3]))

    @case(("np.linalg.cross", "np.linalg.trace", "np.linalg.diagonal", "np.linalg.matrix_transpose"),
          rand(2, 3, 3), rand(3))
    def linalg_array_api_matrices(a, v):
        return (np.linalg.cross(a, v), np.linalg.trace(a) + np.linalg.trace(a, offset=1),
                np.linalg.diagonal(a, offset=-1), np.linalg.diagonal(a), np.linalg.matrix_transpose(a))


# -- ndarray methods and attributes ------------------------------------------------------------------------

@case(("ndarray.sum()", "ndarray.mean()", "ndarray.prod()", "ndarray.max()", "ndarray.min()", "ndarray.var()",
       "ndarray.std()"), spread(3, 4))
def reduction_methods(x):
    return (x.sum() + x.sum(axis=0)[:3] + x.mean(1) + x.prod(axis=1) + x.max(axis=1) + x.min(0)[1:]
            + x.var(axis=1) + x.std(axis=1, ddof=1) + x.mean(axis=1, keepdims=True)[:, 0])


@case(("ndarray.cumsum()", "ndarray.cumprod()"), spread(3, 4))
def cumulative_methods(x):
    return x.cumsum(axis=1) + x.cumprod(1) + x.cumsum().reshape(3, 4)


@case(("ndarray.reshape()", "ndarray.ravel()", "ndarray.flatten()", "ndarray.squeeze()", "ndarray.transpose()",
       "ndarray.swapaxes()"), rand(2, 1, 3))
def shape_methods(x):
    return (x.reshape(3, 2).T + x.reshape((2, 3)) + x.ravel().reshape(2, 3) + x.flatten().reshape(2, 3)
            + x.squeeze() + x.transpose(1, 0, 2)[0] + x.transpose((0, 2, 1))[:, :, 0] + x.transpose().T[:, 0]
            + x.swapaxes(0, 2).T[:, 0] + x.reshape(-1, order="C").reshape(2, 3))


@case(("ndarray.reshape()", "ndarray.ravel()", "ndarray.flatten()", "np.reshape", "np.ravel"), rand(3, 4))
def orders(x):
    xt = x.T                                              # not C-contiguous: 'A' and 'K' read it as F
    w = np.arange(12.0)
    return (np.sum(x.ravel(order="F") * w) + np.sum(x.flatten("F") * w ** 2) + np.sum(np.ravel(xt, "K") * w)
            + np.sum(x.reshape(2, 6, order="F") * w.reshape(2, 6)) + np.sum(np.reshape(xt, (6, 2), order="A") ** 3)
            + np.sum(xt.ravel(order="A") * w) + np.sum(np.ravel(x, order="K") * w * w))


@case(("ndarray.T", "ndarray.mT", "ndarray.real"), rand(2, 3, 4))
def attributes(x):
    return x.T.transpose(2, 1, 0) + x.mT.swapaxes(1, 2) * 2.0 + x.real * 3.0


@case(("ndarray.dot()", "ndarray.conj()", "ndarray.conjugate()", "ndarray.copy()", "ndarray.astype()",
       "ndarray.item()", "ndarray.view()"), rand(3, 4), rand(4))
def misc_methods(a, b):
    return (a.dot(b) + a.conj().sum(axis=1) + a.conjugate()[:, 0] + a.copy()[:, 1] + a.astype(np.float64)[:, 2]
            + b.item(1) * a.item(2, 3) + b[:1].item() + a.item((1, 2)) * a.item(-1) + a.view()[:, 3] * 2.0
            + b.view(b.dtype)[:3] * a.view(type=np.ndarray)[:, 0])


@case(("ndarray.tolist()", "ndarray.astype()", "np.asarray", "np.array"), np.array([[1.3, -0.4, 2.7], [0.6, 1.8, -1.2]]))
def conversions(x):
    rows = x.tolist()                                   # nested lists of Python floats carry the values
    flat = sum(v * v for v in x[0].tolist())
    as_int = x * x.astype(int) + x * np.asarray(x, dtype=np.int64) + np.array(x, dtype=bool) * x
    return np.sum(as_int) + rows[1][2] * rows[0][0] + flat + np.sum(np.array(rows) * 2.0)


@case("ndarray.clip()", spread(3, 4), -0.27, 0.43)
def clip_method(x, lo, hi):
    return x.clip(-0.55, hi) + x.clip(min=lo) + x.clip(max=hi) * 2.0 + x.clip(lo, 0.3) * 3.0


@case(("ndarray.take()", "ndarray.diagonal()", "ndarray.trace()", "ndarray.repeat()", "ndarray.compress()"), rand(3, 4))
def indexing_methods(x):
    return (x.take(IDX), x.take(IDX, axis=1), x.diagonal(1), x.trace() + x.trace(offset=-1), x.repeat(2, axis=0),
            x.repeat(2), x.compress([True, False, True, True], axis=1), x.diagonal())


# -- constants: rules whose output is never differentiated ---------------------------------------------------

@case(("np.floor", "np.ceil", "np.round", "np.rint", "np.trunc", "np.fix", "np.sign", "np.around"),
      np.array([0.3, 1.4, -2.7, 3.2]) + 0.01 * spread(4))
def piecewise_constants(x):
    return (x * np.floor(x) + x * np.ceil(x) + np.round(x) * x ** 2 + np.rint(x) * x + np.trunc(x) * x
            + np.fix(x) * x + np.sign(x) * x * x + np.around(x, 1) * x)


@case(("np.argmax", "np.argmin", "np.argsort", "np.greater", "np.less_equal", "np.isfinite", "np.zeros_like",
       "np.ones_like", "np.full_like", "np.empty_like"), spread(3, 4))
def index_and_mask_constants(x):
    i = np.argmax(x, axis=1)
    j = np.argmin(x)
    order = np.argsort(x, axis=None)
    mask = np.greater(x, 0.1) & np.less_equal(x, 0.8) & np.isfinite(x)
    z = np.zeros_like(x) + np.ones_like(x) * 2.0 + np.full_like(x, 3.0) + np.shape(np.empty_like(x))[0]
    return x[np.arange(3), i] + x.ravel()[j] + x.ravel()[order][:3] + np.sum(x * mask * z, axis=1)


@case(("np.maximum", "np.sign", "np.absolute", "np.fabs"), away(3, 4))
def abs_via_sign(x):
    return np.abs(x) - np.sign(x) * x + np.maximum(x, 0.0) + np.fabs(x) * 0.5


import rule_cases_more  # noqa: E402,F401  (more cases: issue 13's NumPy functions, operator, dict, sorted)
