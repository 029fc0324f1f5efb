"""Scientific and numerical programs as people write them (integrators, simulations, likelihoods, kernels,
finance, objectives) that adsrc refused or got wrong. Checked against central finite differences by
test_changes.py and in forward mode by test_forward.py.
"""

import numpy as np

import science_module
from casekit import Registry, rand

CASES = Registry()
case = CASES.case


# -- a function of a class (or a module) of the user's taken by a name known only when the code runs

class _Activations:
    gain = 2.0

    @staticmethod
    def relu(z):
        return np.maximum(z, 0.0)

    @staticmethod
    def tanh(z):
        return np.tanh(z)

    @classmethod
    def scaled(cls, z):
        return cls.gain * z ** 2

    def plain(z):                  # a function in a class body, read from the class itself
        return np.sin(z) * z


@case(np.array([0.3, -0.7, 1.2]), "tanh", label="staticmethod")
@case(np.array([0.3, -0.7, 1.2]), "relu", label="other_staticmethod")
@case(np.array([0.3, -0.7, 1.2]), "scaled", label="classmethod")
@case(np.array([0.3, -0.7, 1.2]), "plain", label="function")
def activation_taken_from_a_class_by_a_name_known_when_it_runs(x, name):
    act = getattr(_Activations, name)
    return np.sum(act(x) ** 2) + np.sum(getattr(_Activations, name)(2.0 * x))


@case(np.array([0.3, -0.7, 1.2]), "softplus", label="softplus")
@case(np.array([0.3, -0.7, 1.2]), "cube", label="cube")
def function_taken_from_a_module_by_a_name_known_when_it_runs(x, name):
    f = getattr(science_module, name)
    return np.sum(f(x) * x)


# -- a module function or a NumPy function passed to a nested function (by position, keyword or default)

def _damping(v):
    return -0.3 * v


@case(np.array([0.3, -0.7, 1.2]), label="numpy_function")
def numpy_function_passed_to_a_nested_def_by_position_keyword_and_default(x):
    def apply(v, fn=np.sin, scale=2.0):
        return fn(v) * scale
    return np.sum(apply(x, np.cos)) + np.sum(apply(x, fn=np.tanh, scale=0.5)) + np.sum(apply(x ** 2))


@case(np.array([1.0, 0.5]), 0.4)
def module_function_passed_to_a_nested_integrator(y0, k):
    def rk2(f, y, h, steps):
        for _ in range(steps):
            mid = y + 0.5 * h * f(y)
            y = y + h * f(mid)
        return y
    y = rk2(_damping, y0, 0.1, 5)
    z = rk2(lambda v: -k * v ** 3, y0, 0.1, 5)
    return np.sum(y * z) + np.sum(rk2(np.sin, y0, 0.05, 3))


@case(np.array([0.3, -0.7, 1.2]), label="lambda_kept")
def numpy_functions_passed_to_a_lambda_in_a_loop(x):
    twice = lambda f, v: f(f(v))
    total = 0.0
    for g in (np.sin, np.tanh):
        total = total + np.sum(twice(g, x))
    scale = 3.0
    total = total + np.sum(twice(np.cos, x)) * scale      # reads scale where it is called
    return total


# -- functools.reduce over a list of functions; an entry of a table of functions passed to a nested function

@case(np.array([0.3, -0.7, 1.2]))
def reduce_applies_a_list_of_functions_in_turn(x):
    import functools
    stages = [np.sin, lambda z: z ** 2 + z, _damping, np.exp]
    y = functools.reduce(lambda acc, f: f(acc), stages, x)
    return np.sum(y)


@case(np.array([0.3, -0.7, 1.2]), 1, label="one")
@case(np.array([0.3, -0.7, 1.2]), 0, label="zero")
def table_entry_chosen_when_it_runs_passed_to_a_nested_function(x, k):
    def integrate(f, y, h=0.1):
        for _ in range(4):
            y = y + h * f(y)
        return y
    rhs = [_damping, np.sin, lambda v: -v ** 3]
    total = np.sum(integrate(rhs[k], x))
    for i in range(len(rhs)):
        total = total + np.sum(integrate(rhs[i], x, h=0.05))
    f = rhs[k + 1]
    return total + np.sum(integrate(f, x))


# -- likelihoods of positive data: lognormal, Weibull (with censoring), Pareto and half-normal

_TIMES = np.array([0.6, 1.1, 1.9, 2.4, 3.2, 4.0])
_CENSORED = np.array([False, False, True, False, True, False])


@case(np.array([0.2, 0.7]))
def lognormal_negative_log_likelihood(theta):
    from scipy import stats
    mu, log_s = theta
    return -np.sum(stats.lognorm.logpdf(_TIMES, np.exp(log_s), scale=np.exp(mu)))


@case(np.array([0.4, 0.8]))
def weibull_survival_likelihood_with_right_censoring(theta):
    from scipy import stats
    shape, scale = np.exp(theta)
    events = stats.weibull_min.logpdf(_TIMES[~_CENSORED], shape, scale=scale)
    survived = stats.weibull_min.logsf(_TIMES[_CENSORED], shape, scale=scale)
    return -(np.sum(events) + np.sum(survived))


@case(np.array([2.5, 0.3]))
def pareto_tail_and_half_normal_noise(theta):
    from scipy import stats
    b, s = theta
    tail = stats.pareto(b, scale=0.5)            # a frozen distribution
    return -np.sum(tail.logpdf(_TIMES)) - np.sum(stats.halfnorm.logpdf(_TIMES, scale=np.exp(s))) + tail.cdf(2.0)


# -- `with ... as (a, b)`: what __enter__ returns, unpacked

class _Units:
    def __init__(self, length, time):
        self.factors = (length, time)

    def __enter__(self):
        return self.factors

    def __exit__(self, *exc):
        return False


@case(np.array([1.0, 0.5, -0.3]))
def context_manager_value_unpacked_after_as(v):
    with _Units(1e-3, 60.0) as (metres, seconds):
        speed = v * metres / seconds
        energy = 0.5 * np.sum(speed ** 2) * 1e6
    return energy + np.sum(v) * metres


# -- functools.partial objects in a table of functions, chosen when the code runs, and passed to a nested function

def _norm_p(z, p=2.0):
    return np.sum(np.abs(z) ** p) ** (1.0 / p)


@case(np.array([0.3, -0.7, 1.2]), 0, label="first")
@case(np.array([0.3, -0.7, 1.2]), 1, label="second")
@case(np.array([0.3, -0.7, 1.2]), 2, label="plain")
def partial_objects_chosen_from_a_list_when_it_runs(x, k):
    import functools
    penalties = [functools.partial(_norm_p, p=3.0), functools.partial(np.power, 2.0), np.sin]
    def weighted(f, v, w=0.5):
        return w * np.sum(f(v))
    total = np.sum(penalties[k](x)) + weighted(penalties[k], x)
    return total + weighted(functools.partial(_norm_p, p=1.5), x, w=2.0)


# -- numpy.polynomial series evaluated at points: in the coefficients and in x

@case(np.array([0.5, 1.0, -0.4, 0.25, 0.1]))
def chebyshev_and_legendre_least_squares_residuals(c):
    from numpy.polynomial import chebyshev, legendre
    x = np.linspace(-1.0, 1.0, 9)
    target = np.exp(x)
    r1 = chebyshev.chebval(x, c) - target
    r2 = legendre.legval(x, c[:3]) - target
    return np.sum(r1 ** 2) + 0.5 * np.sum(r2 ** 2)


@case(np.array([0.3, -0.8, 1.1]))
def hermite_gauss_expectation_and_laguerre_in_x(x):
    from numpy.polynomial import hermite, hermite_e, laguerre
    nodes, weights = hermite.hermgauss(6)
    m = x[0]
    expectation = np.sum(weights * np.sin(np.sqrt(2.0) * nodes + m)) / np.sqrt(np.pi)
    basis = np.array([[1.0, 0.5], [0.2, -0.3], [0.1, 0.4]])       # two series at once (tensor=True)
    return expectation + np.sum(hermite_e.hermeval(x, basis) ** 2) + np.sum(laguerre.lagval(x, [1.0, -0.5, 0.25])) \
        + np.sum(hermite.hermval(x[1:], [0.5, 0.1, 0.02]) * x[1:])


# -- a namedtuple unpacked with `*` into a call

import collections                                   # noqa: E402
import math                                          # noqa: E402

_Vec = collections.namedtuple("_Vec", ["x", "y", "z"])


def _kinetic(vx, vy, vz, m=2.0):
    return 0.5 * m * (vx * vx + vy * vy + vz * vz)


@case(np.array([0.3, -0.4, 1.2]))
def namedtuple_made_here_unpacked_into_calls(v):
    p = _Vec(v[0], v[1], v[2])
    q = p._replace(z=p.z * v[0])
    return math.hypot(*q[1:]) + _kinetic(*q, m=3.0) + np.hypot(*p[:2]) + sum(p)


@case(_Vec(0.3, -0.4, 1.2))
def namedtuple_argument_unpacked_into_a_call(p):
    return math.hypot(*p[:2]) + _kinetic(*p)


# -- dataclasses.asdict / astuple of a dataclass whose class is known when transforming

import dataclasses                                   # noqa: E402


@dataclasses.dataclass
class _Spring:
    k: np.ndarray
    rest: float = 1.0


@dataclasses.dataclass
class _Chain:
    spring: _Spring
    masses: np.ndarray


@case(np.array([0.3, 1.4, 2.2]))
def asdict_of_parameters_then_changed_in_place(k):
    params = _Spring(k * 2.0, rest=0.5)
    d = dataclasses.asdict(params)
    d["k"][0] = 1.0                      # a copy: params.k is unchanged
    d["k"] *= 3.0
    return np.sum(d["k"] * k) + np.sum(params.k ** 2) * d["rest"]


@case(np.array([0.3, 1.4, 2.2]))
def asdict_of_a_nested_dataclass_and_astuple(x):
    chain = _Chain(_Spring(x, rest=2.0), masses=x ** 2)
    d = dataclasses.asdict(chain)
    k, rest = dataclasses.astuple(chain.spring)
    return np.sum(d["spring"]["k"] * d["masses"]) + rest * np.sum(k) + d["spring"]["rest"]


@case(_Spring(np.array([0.5, 1.5]), 0.7))
def astuple_of_a_dataclass_argument(s):
    k, rest = dataclasses.astuple(s)
    return np.sum(k ** 2) * rest


# -- **kwargs with a keyword named like an attribute the function reads (`clip=` and np.clip)

def _series(x, *coeffs, scale=1.0, **options):
    out = 0.0
    for i, c in enumerate(coeffs):
        out = out + c * x ** i
    if options.get("clip"):
        out = np.clip(out, -options["clip"], options["clip"])
    return scale * out


@case(np.array([0.3, -0.4, 1.4]))
def keyword_arguments_named_like_numpy_functions(x):
    coefficients = (1.0, -0.5, 0.25)
    return np.sum(_series(x, *coefficients, scale=2.0, clip=1.2)) + np.sum(_series(x, 1.0, 2.0, sqrt=True))



# -- a function that picks a function by a name, with if/elif (NumPy's, a module function or a lambda)

def _relu(z):
    return np.maximum(z, 0.0)


def _activation(name, slope=0.1):
    """Returns the activation called `name`."""
    if name == "tanh":
        return np.tanh
    elif name == "relu":
        return _relu
    elif name == "leaky":
        return lambda z: np.where(z > 0, z, slope * z)
    raise ValueError(f"unknown activation {name}")


@case(np.array([0.5, -1.0, 2.0]))
def activation_picked_by_a_factory_with_a_constant_name(x):
    f = _activation("leaky", slope=0.2)
    g = _activation("tanh")
    return np.sum(f(x) * g(x)) + np.sum(_activation("relu")(x) ** 2)


@case(np.array([0.5, -1.0, 2.0]), "tanh", label="numpy")
@case(np.array([0.5, -1.0, 2.0]), "relu", label="module")
@case(np.array([0.5, -1.0, 2.0]), "leaky", label="lambda")
def activation_picked_by_a_factory_with_a_name_known_when_it_runs(x, name):
    act = _activation(name)
    return np.sum(act(x) * x) + np.sum(_activation(name, slope=0.3)(2.0 * x))


# -- scipy.stats.entropy: Shannon entropy and KL divergence of unnormalized weights

@case(np.array([0.3, 0.5, 0.2, 0.9]))
def entropy_and_kl_divergence_of_weights(w):
    from scipy.stats import entropy
    q = np.array([0.25, 0.25, 0.3, 0.2])
    table = np.vstack([w, w[::-1] ** 2])
    return entropy(w) + 2.0 * entropy(w, q, base=2) + np.sum(entropy(table, axis=1))


# -- scipy.signal: an IIR filter (lfilter) and an FFT convolution, in the signal and the filter's coefficients

@case(np.array([1.0, 0.5, -0.3, 0.8, 0.2, -0.6]), np.array([0.4, 0.3]), argnums=(0, 1))
def filtered_signal_energy(x, b):
    from scipy.signal import fftconvolve, lfilter
    y = lfilter(b, [1.0, -0.5, 0.1], x)
    smooth = fftconvolve(x, np.array([0.25, 0.5, 0.25]), mode="same")
    two = lfilter([0.5, 0.5], [1.0], np.vstack([x, x ** 2]), axis=1)
    return np.sum(y ** 2) + np.sum(smooth * y) + np.sum(two[1])


# -- scipy.linalg.pinv: a least-squares fit through the pseudo-inverse of a wide and a tall matrix

@case(np.array([[1.0, 0.5, -0.3], [0.2, 1.5, 0.4]]))
def least_squares_through_scipy_pinv(A):
    import scipy.linalg as sla
    b = np.array([1.0, -2.0])
    x = sla.pinv(A) @ b
    return np.sum(x ** 2) + np.sum(sla.pinv(A.T) * np.arange(6.0).reshape(2, 3))
