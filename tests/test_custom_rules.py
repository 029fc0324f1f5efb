"""Custom rules: @adsrc.custom_vjp (JAX's protocol) and adsrc.defvjp for functions without source."""

import functools
import math
import re

import numpy as np
import pytest
import scipy.special as scipy_special

import adsrc
from adsrc.checks import check_grads
from casekit import central_grad, rand


@adsrc.custom_vjp
def softplus(x):
    return np.log1p(np.exp(x))


def softplus_fwd(x):
    e = np.exp(x)
    return np.log1p(e), e / (1.0 + e)     # residual: the derivative itself


def softplus_bwd(slope, g):
    return (g * slope,)


softplus.defvjp(softplus_fwd, softplus_bwd)


@adsrc.custom_vjp
def straight_through_round(x):
    return np.round(x)


straight_through_round.defvjp(lambda x: (np.round(x), None), lambda res, g: (g,))


@adsrc.custom_vjp
def scaled_product(x, y):
    return x * y * 2.0


scaled_product.defvjp(lambda x, y: (x * y * 2.0, (x, y)), lambda res, g: (2.0 * g * res[1], 2.0 * g * res[0]))


def uses_softplus(x):
    return np.sum(softplus(x) * x)


def custom_in_loop_and_branch(xs, w):
    h = 0.0
    for x in xs:
        if x > 0:
            h = h + softplus(w * x)
        else:
            h = h * 0.5 + scaled_product(w, x)
    return h


def test_custom_vjp_matches_finite_differences():
    check_grads(uses_softplus, (rand(4),), full=True)


def test_custom_vjp_called_normally_runs_the_function():
    x = rand(3)
    np.testing.assert_allclose(softplus(x), np.log1p(np.exp(x)))


def test_custom_vjp_rule_is_the_one_used():
    g = adsrc.grad(lambda x: np.sum(straight_through_round(x) * 3.0))(np.array([0.2, 1.7]))
    np.testing.assert_allclose(g, [3.0, 3.0])     # the true derivative of round is 0: the rule decides


def test_custom_vjp_in_loops_and_branches():
    xs = np.array([0.5, -0.3, 1.2, -0.8])
    check_grads(custom_in_loop_and_branch, (xs, 0.7), argnums=(0, 1), full=True)


def test_custom_rules_appear_by_name_in_source():
    src = adsrc.grad(uses_softplus).source()
    assert "softplus_fwd(" in src and "softplus_bwd" in src


@adsrc.custom_vjp
def bad_structure(x, y):
    return x * y


bad_structure.defvjp(lambda x, y: (x * y, (x, y)), lambda res, g: g * res[1])   # not a tuple


@adsrc.custom_vjp
def no_rule(x):
    return x * 2.0


def test_bwd_returning_the_wrong_structure_is_an_error():
    with pytest.raises(TypeError, match=r"bad_structure.*tuple of 2 cotangents.*returned a ndarray"):
        adsrc.grad(lambda x: np.sum(bad_structure(x, x)))(rand(3))


def test_custom_vjp_without_rule_is_an_error():
    with pytest.raises(adsrc.TransformError, match=r"no_rule.*defvjp"):
        adsrc.grad(lambda x: no_rule(x))(1.0)


def test_custom_vjp_differentiated_directly_uses_its_rule():
    x = np.array([0.2, 1.7])
    assert adsrc.grad(straight_through_round)(1.7) == 1.0      # the rule's, not round's 0
    np.testing.assert_allclose(adsrc.grad(scaled_product, argnums=(0, 1))(1.5, -2.0), (-4.0, 3.0))
    value, g = adsrc.value_and_grad(scaled_product)(1.5, -2.0)
    assert value == pytest.approx(-6.0) and g == pytest.approx(-4.0)
    out, pullback = adsrc.vjp(straight_through_round, x)
    np.testing.assert_allclose(out, [0.0, 2.0])
    np.testing.assert_allclose(pullback(np.array([2.0, -1.0]))[0], [2.0, -1.0])
    assert "straight_through_round_bwd" in adsrc.grad(straight_through_round).source(1.7)
    check_grads(softplus, (0.3,))


def test_custom_vjp_differentiated_directly_without_rule_is_an_error():
    with pytest.raises(adsrc.TransformError, match=r"no_rule.*defvjp"):
        adsrc.grad(no_rule)(1.0)


# -- defvjp: a rule for a function adsrc cannot read -----------------------------------------------

_ns = {"np": np}
exec("def expit(x):\n    return 1.0 / (1.0 + np.exp(-x))\n", _ns)    # a function without source, like C code
expit = _ns["expit"]
adsrc.defvjp(expit, lambda g, ans, x: g * ans * (1.0 - ans))

erf = np.vectorize(math.erf)           # a callable object with no source and no signature
adsrc.defvjp(erf, lambda g, ans, x: g * 2.0 / math.sqrt(math.pi) * np.exp(-x * x), signature="x, /")


def logistic_nll(w, X, y):
    p = expit(X @ w)
    return -np.sum(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def uses_erf(x):
    return np.sum(erf(x) * x)


def test_registered_third_party_function():
    X = rand(6, 3)
    y = (rand(6) > 0).astype(float)
    check_grads(logistic_nll, (rand(3), X, y), full=True)
    check_grads(uses_erf, (rand(4),), full=True)
    assert "expit_vjp_x(" in adsrc.grad(logistic_nll).source()


vec_f = np.vectorize(lambda a, b: a * b + math.sin(a))
adsrc.defvjp(vec_f, lambda g, ans, a, b: g * (b + np.cos(a)), lambda g, ans, a, b: g * a,
             signature="a, b, /", elementwise=True)


def broadcasting_user(a, b):
    return np.sum(vec_f(a, b) * 1.5)


def test_registered_elementwise_rule_with_broadcasting():
    check_grads(broadcasting_user, (rand(3, 1), rand(4)), argnums=(0, 1), full=True)


# -- defvjp on real ufuncs and on functions with defaults, without signature= ------------------------

@pytest.fixture
def own_rules():
    """Rules registered by a test are forgotten afterwards (other tests see the tables unchanged)."""
    from adsrc import rules
    saved = dict(rules.FUNCTIONS)
    yield
    rules.FUNCTIONS.clear()
    rules.FUNCTIONS.update(saved)


def scipy_logistic_nll(w, X, y):
    p = scipy_special.expit(X @ w)
    return -np.sum(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def test_defvjp_on_the_real_scipy_expit_without_signature(own_rules):
    adsrc.defvjp(scipy_special.expit, lambda g, ans, x: g * ans * (1.0 - ans))
    X = rand(6, 3)
    y = (rand(6) > 0).astype(float)
    check_grads(scipy_logistic_nll, (rand(3), X, y), full=True)
    x = rand(4)
    np.testing.assert_allclose(adsrc.grad(lambda v: np.sum(scipy_special.expit(v)))(x),
                               scipy_special.expit(x) * (1.0 - scipy_special.expit(x)), rtol=1e-12)
    assert re.search(r"expit_vjp_x\w*\(", adsrc.grad(scipy_logistic_nll).source())


def xlogy_user(a, b):
    return np.sum(scipy_special.xlogy(a, b) * 1.5)


def test_defvjp_on_a_two_input_scipy_ufunc_broadcasts_like_a_ufunc(own_rules):
    adsrc.defvjp(scipy_special.xlogy, lambda g, ans, x1, x2: g * np.log(x2), lambda g, ans, x1, x2: g * x1 / x2)
    a, b = rand(3, 1), np.abs(rand(4)) + 0.5           # broadcast against each other: (3, 1) and (4,)
    check_grads(xlogy_user, (a, b), argnums=(0, 1), full=True)


def uses_nextafter(x, y):
    return np.sum(np.nextafter(x, y) * x)


def test_defvjp_on_a_numpy_ufunc_without_signature(own_rules):
    adsrc.defvjp(np.nextafter, lambda g, ans, x1, x2: g, None)     # nextafter(x, y) is x to within an ulp
    x, y = rand(4), rand(4)
    np.testing.assert_allclose(adsrc.grad(uses_nextafter)(x, y), 2.0 * x, rtol=1e-12)


def test_ufunc_keywords_are_refused_by_name(own_rules):
    adsrc.defvjp(scipy_special.expit, lambda g, ans, x: g * ans * (1.0 - ans))
    with pytest.raises(adsrc.TransformError, match=r"scipy\.special\.expit does not support the argument `dtype`"):
        adsrc.grad(lambda v: np.sum(scipy_special.expit(v, dtype=np.float64)))(rand(3))


_SENTINEL = object()
_ns = {"np": np, "SENTINEL": _SENTINEL}
exec("def scaled_power(x, scale=2.0, *, power=2, shift=None):\n"          # no source, like C code
     "    return scale * x ** power + (0.0 if shift is None else shift)\n"
     "def optional_factor(x, factor=SENTINEL):\n"
     "    return x * (2.0 if factor is SENTINEL else factor)\n", _ns)
scaled_power, optional_factor = _ns["scaled_power"], _ns["optional_factor"]


def uses_defaults(x, s):
    return np.sum(scaled_power(x)) + np.sum(scaled_power(x, s, power=3)) + np.sum(optional_factor(x)) + \
        np.sum(optional_factor(x, s) * x)


def test_defvjp_keeps_default_arguments_without_signature(own_rules):
    adsrc.defvjp(scaled_power, lambda g, ans, x, scale, power, shift: g * scale * power * x ** (power - 1),
                 lambda g, ans, x, scale, power, shift: np.sum(g * x ** power))
    adsrc.defvjp(optional_factor, lambda g, ans, x, factor=_SENTINEL: g * (2.0 if factor is _SENTINEL else factor),
                 lambda g, ans, x, factor=_SENTINEL: np.sum(g * x))
    check_grads(uses_defaults, (rand(4), 0.7), argnums=(0, 1), full=True)
    src = adsrc.grad(uses_defaults).source()
    assert "scaled_power_vjp_x(" in src and "power=2" in src          # the defaults are passed to the vjp


@adsrc.custom_vjp
def _pair(a, b):
    return {"s": a + b, "p": a * b}


_pair.defvjp(lambda a, b: (_pair(a, b), (a, b)),
             lambda res, g: (g["s"] + g["p"] * res[1], g["s"] + g["p"] * res[0]))


def _through_a_dict_output(x):
    d = _pair(x[0], x[1])
    return d["s"] ** 2 + np.sin(d["p"])


def test_forward_mode_and_hessians_through_a_custom_vjp_with_a_dict_output():
    # jvp and hessian crashed: the cotangent reached bwd as an array, not a dict
    x = np.array([0.3, -0.7])
    g = adsrc.grad(_through_a_dict_output)
    want = np.array([(g(x + 1e-6 * e) - g(x - 1e-6 * e)) / 2e-6 for e in np.eye(2)])
    np.testing.assert_allclose(adsrc.hessian(_through_a_dict_output)(x), want, rtol=1e-6, atol=1e-8)
    _, t = adsrc.jvp(_through_a_dict_output, (x,), (np.array([1.0, 0.0]),))
    np.testing.assert_allclose(t, g(x)[0], rtol=1e-12)


@functools.partial(adsrc.custom_vjp, nondiff_argnums=(1,))
def _clip_by_norm(x, max_norm):
    return x


_clip_by_norm.defvjp(lambda x, max_norm: (x, None),
                     lambda max_norm, res, g: (g * np.minimum(1.0, max_norm / np.linalg.norm(g)),))


@adsrc.custom_vjp
def _product_and_dot(x, y):
    return x * y, x @ y


def _product_and_dot_bwd(res, g):
    x, y = res
    ga, gb = g
    assert np.shape(ga) == np.shape(x) and np.shape(gb) == ()   # cotangents shaped like the outputs
    return ga * y + gb * y, ga * x + gb * x


_product_and_dot.defvjp(lambda x, y: (_product_and_dot(x, y), (x, y)), _product_and_dot_bwd)


def _clipped_sum(x):
    return np.sum(10.0 * _clip_by_norm(x, 1.0))


def _first_output_only(x, y):
    a, _ = _product_and_dot(x, y)
    return np.sum(a ** 2)


def test_custom_vjp_bwd_gets_a_cotangent_of_the_outputs_shape():
    # was wrong: `np.sum(10 * f(x))` handed bwd the scalar 10.0 (adsrc's lazily broadcast cotangent), so a bwd
    # reading the whole cotangent (its norm) computed 1.0 where JAX's gives 10 / sqrt(300) per element
    x = np.array([0.3, -1.2, 0.8])
    g = adsrc.grad(_clipped_sum)(x)
    assert not np.any(np.isnan(g))
    np.testing.assert_allclose(g, np.full(3, 10.0 / np.sqrt(300.0)), rtol=1e-12)
    y = np.array([1.1, -0.4, 0.6])
    x0, y0 = x.copy(), y.copy()
    gx, gy = adsrc.grad(_first_output_only, argnums=(0, 1))(x, y)
    assert np.array_equal(x, x0) and np.array_equal(y, y0)
    np.testing.assert_allclose(gx, central_grad(lambda v: _first_output_only(v, y), x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gy, central_grad(lambda v: _first_output_only(x, v), y), rtol=1e-6, atol=1e-8)


@adsrc.custom_vjp
def _scaled_product(x, y, scale=2.0):
    return x * y * scale


_scaled_product.defvjp(lambda x, y, scale=2.0: (_scaled_product(x, y, scale), (x, y, scale)),
                       lambda res, g: (g * res[1] * res[2], g * res[0] * res[2], None))


def _custom_by_keyword(x, y):
    return np.sum(_scaled_product(x, y=y) ** 2) + np.sum(_scaled_product(y=x, x=y, scale=3.0))


def test_custom_vjp_called_with_keywords_and_defaults():
    # refused ("pass the arguments ... by position"): keywords are moved into their places and defaults
    # filled in, as JAX resolves them, so that bwd still gets one cotangent per positional parameter
    x, y = np.array([0.3, 0.5, -1.1]), np.array([1.2, -0.7, 0.4])
    gx, gy = adsrc.grad(_custom_by_keyword, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gx, central_grad(lambda v: _custom_by_keyword(v, y), x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gy, central_grad(lambda v: _custom_by_keyword(x, v), y), rtol=1e-6, atol=1e-8)
    _, t = adsrc.jvp(_custom_by_keyword, (x, y), (np.ones(3), np.zeros(3)))
    np.testing.assert_allclose(t, np.sum(gx), rtol=1e-10)
