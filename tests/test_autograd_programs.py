"""What autograd's published examples use, with their imports pointed at adsrc: `argnum`, `flatten_func`
and a differentiable `unflatten`, `adsrc.test_util.check_grads`, `adsrc.extend.defjvp`, SciPy functions
handed straight to `grad`/`jacobian`/`hessian`, and Jacobians of Jacobians. Checked against central
differences or closed forms."""

import types

import numpy as np
import pytest
import scipy.stats as st
from scipy.special import logsumexp

import adsrc
from adsrc.misc.flatten import flatten, flatten_func
from casekit import central_grad


def central(f, x, eps=1e-6):
    """Central differences of a scalar (or one-element) f at a vector x."""
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        out[i] = np.sum(f(x + e) - f(x - e)) / (2 * eps)
    return out


def loss(w, x, y):
    return np.sum((np.tanh(x @ w) - y) ** 2)


X = np.array([[0.3, -0.2], [1.1, 0.4], [-0.5, 0.9]])
Y = np.array([0.1, -0.4, 0.6])
W = np.array([0.2, -0.7])


def test_argnum_is_autograds_name_for_argnums():
    expected = adsrc.grad(loss, argnums=1)(W, X, Y)
    np.testing.assert_allclose(adsrc.grad(loss, argnum=1)(W, X, Y), expected, rtol=1e-12)
    np.testing.assert_allclose(adsrc.value_and_grad(loss, argnum=1)(W, X, Y)[1], expected, rtol=1e-12)
    np.testing.assert_allclose(adsrc.jacobian(loss, argnum=1)(W, X, Y), expected, rtol=1e-12)
    assert adsrc.hessian(loss, argnum=0)(W, X, Y).shape == (2, 2)
    with pytest.raises(TypeError, match="not both"):
        adsrc.grad(loss, argnums=1, argnum=2)


PARAMS = {"layers": [(np.full((2, 2), 0.3), np.arange(2.0)), (np.full(2, 0.5), 0.2)], "scale": 1.5}


def objective(p, x):
    (W1, b1), (w2, b2) = p["layers"]
    return (np.sum(np.tanh(x @ W1 + b1) * w2) + b2) * p["scale"]


def test_flatten_func_gives_a_function_of_one_vector_adsrc_differentiates():
    x = np.array([0.3, -0.4])
    flat_objective, unflatten, flat = flatten_func(objective, PARAMS)
    assert flat.shape == (10,) and flat_objective(flat, x).shape == (1,)
    g = adsrc.grad(flat_objective)(flat, x)
    np.testing.assert_allclose(g, central(lambda v: flat_objective(v, x), flat), rtol=1e-6, atol=1e-8)
    tangent = np.linspace(-1.0, 1.0, 10)
    np.testing.assert_allclose(adsrc.jvp(flat_objective, (flat, x), (tangent, np.zeros(2)))[1], [g @ tangent],
                               rtol=1e-10)


FLAT, UNFLATTEN = flatten({"a": np.array([1.0, 2.0]), "b": np.array([[0.5, -1.0], [2.0, 3.0]])})


def uses_a_global_unflatten(v):
    p = UNFLATTEN(v)
    return np.sum(p["a"] ** 2) + np.sum(np.sin(p["b"]) * p["a"])


def unflattens_what_it_flattened(p):
    flat, unflat = flatten(p)
    q = unflat(flat * flat)
    return np.sum(q["a"] * q["b"][0])


def test_unflatten_is_differentiable_where_it_was_made_and_where_it_is_called():
    np.testing.assert_allclose(adsrc.grad(uses_a_global_unflatten)(FLAT), central(uses_a_global_unflatten, FLAT),
                               rtol=1e-6, atol=1e-8)
    p = UNFLATTEN(FLAT)
    g = adsrc.grad(unflattens_what_it_flattened)(p)
    expected = central(lambda v: unflattens_what_it_flattened(UNFLATTEN(v)), FLAT)
    np.testing.assert_allclose(flatten(g)[0], expected, rtol=1e-6, atol=1e-8)
    second = adsrc.hessian(uses_a_global_unflatten)(FLAT)
    np.testing.assert_allclose(second, second.T, atol=1e-12)
    np.testing.assert_allclose(second[0], central(lambda v: adsrc.grad(uses_a_global_unflatten)(v)[0], FLAT),
                               rtol=1e-5, atol=1e-7)


def test_test_util_and_extend_have_autograds_names():
    from adsrc.extend import defjvp, defvjp, primitive
    from adsrc.test_util import check_grads
    assert defjvp is adsrc.defjvp and callable(defvjp) and callable(primitive)
    check_grads(loss, modes=["rev"], order=1)(W, X, Y)


def test_a_scipy_function_handed_to_grad_uses_adsrc_rule():
    z = np.array([0.1, -0.3, 0.7])
    softmax = np.exp(z) / np.sum(np.exp(z))
    np.testing.assert_allclose(adsrc.grad(logsumexp)(z), softmax, rtol=1e-12)
    np.testing.assert_allclose(adsrc.hessian(logsumexp)(z), np.diag(softmax) - np.outer(softmax, softmax),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(adsrc.jacobian(logsumexp)(z), softmax, rtol=1e-12)
    np.testing.assert_allclose(adsrc.vjp(logsumexp, z)[1](2.0)[0], 2.0 * softmax, rtol=1e-12)
    np.testing.assert_allclose(adsrc.jvp(logsumexp, (z,), (z,))[1], softmax @ z, rtol=1e-12)
    np.testing.assert_allclose(adsrc.grad(logsumexp)(z, b=np.full(3, 2.0)), softmax, rtol=1e-12)
    np.testing.assert_allclose(adsrc.jacobian(st.norm.logpdf)(z), np.diag(-z), atol=1e-12)
    assert adsrc.grad(st.norm.logpdf)(0.3, 1.0, 2.0) == pytest.approx((1.0 - 0.3) / 4.0, rel=1e-12)


def constraints(x):
    return np.array([x[0] ** 2 - (x[1] - 1.0) ** 2, x[0] * x[1] ** 3])


def one_constraint(x):
    return np.array([x[0] ** 2 - (x[1] - 1.0) ** 2])


def second_derivatives_by_hand(x):
    return np.array([[[2.0, 0.0], [0.0, -2.0]],
                     [[0.0, 3.0 * x[1] ** 2], [3.0 * x[1] ** 2, 6.0 * x[0] * x[1]]]])


@pytest.mark.parametrize("make", [
    lambda f: adsrc.hessian(f),
    lambda f: adsrc.jacobian(adsrc.jacobian(f)),
    lambda f: adsrc.jacfwd(adsrc.jacrev(f)),
    lambda f: adsrc.jacrev(adsrc.jacfwd(f)),
    lambda f: adsrc.jacfwd(adsrc.jacfwd(f)),
], ids=["hessian", "jacobian-jacobian", "jacfwd-jacrev", "jacrev-jacfwd", "jacfwd-jacfwd"])
def test_second_derivatives_of_a_vector_function(make):
    x = np.array([1.3, -0.4])
    np.testing.assert_allclose(make(constraints)(x), second_derivatives_by_hand(x), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(make(one_constraint)(x), second_derivatives_by_hand(x)[:1], rtol=1e-10, atol=1e-12)


def test_a_one_element_array_output_has_a_gradient():
    x = np.array([1.3, -0.4])
    np.testing.assert_allclose(adsrc.grad(one_constraint)(x), [2.6, 2.8], rtol=1e-12)


# -- define_gradient.py: a vjp maker that computes before it returns the vjp --------------------------------

@adsrc.extend.primitive
def logsumexp_prim(x):
    return np.log(np.sum(np.exp(x)))


def logsumexp_vjp(ans, x):
    x_shape = x.shape                       # a statement before `return lambda g: ...`
    return lambda g: np.full(x_shape, g) * np.exp(x - ans)


adsrc.extend.defvjp(logsumexp_prim, logsumexp_vjp)


def test_second_derivative_through_a_vjp_maker_that_computes_first():
    def f(y):
        return logsumexp_prim(y ** 2)

    def sum_of_grad(y):
        return np.sum(adsrc.grad(f)(y))

    y = np.array([0.3, -0.7, 1.1])
    np.testing.assert_allclose(adsrc.grad(sum_of_grad)(y), central(sum_of_grad, y), rtol=1e-6, atol=1e-8)


# -- optimizers.py: a gradient function handed to a helper that calls it ------------------------------------

def energy(x):
    return np.sum(np.sin(x) * x)


energy_grad = adsrc.grad(energy)


def descend(g, x, step=0.1):
    return x - step * g(x)


def test_a_gradient_passed_to_a_helper_is_differentiated_through():
    def final(x):
        return np.sum(descend(energy_grad, x) ** 2)
    x = np.array([0.3, 1.2])
    np.testing.assert_allclose(adsrc.grad(final)(x), central(final, x), rtol=1e-6, atol=1e-8)


# -- fluidsim.py / wing.py: `if ax: plot_matrix(...)`, never taken, calls code adsrc cannot follow ----------

class _Settings(dict):          # like matplotlib's rcParams, a dict subclass in a global
    pass


_SETTINGS = _Settings()


def _draw(m):
    _SETTINGS["backend"] = "agg"         # item assignment on a global: adsrc refuses to follow it


def simulate(x, ax=None, steps=3):
    for _ in range(steps):
        if ax:
            _draw(x)
        x = x + 0.1 * np.sin(x)
    if ax:
        _draw(x)
    return np.sum(x ** 2)


def test_a_branch_adsrc_refuses_is_refused_only_when_it_runs():
    x = np.array([0.5, -1.2])
    for mode in (lambda f: adsrc.grad(f)(x), lambda f: adsrc.jvp(f, (x,), (np.ones(2),))[1]):
        mode(simulate)
    np.testing.assert_allclose(adsrc.grad(simulate)(x), central(simulate, x), rtol=1e-6, atol=1e-8)
    with pytest.raises(adsrc.TransformError, match="_draw"):
        adsrc.grad(simulate)(x, ax=True)
    g = adsrc.grad(simulate)
    g(x)
    assert "refuse_now(" in g.source()


def _evaluated(v):
    return eval("v * 2.0")               # adsrc refuses eval: it cannot read what the string computes


def _either_way(x, flag):
    if flag:
        y = _evaluated(x)
    else:
        y = _evaluated(x + 1.0)
    return y


def _times_either_way(x, flag):
    return _either_way(x, flag) * x


def _either_way_of_a_constant(x, flag):
    return _either_way(2.0, flag) * x


def test_a_callee_whose_every_branch_is_refused_is_not_taken_for_a_constant():
    # the caller took the refused calls' values for constants: d/dx (2x * x) came back as 2x, not 4x
    for flag in (False, True):
        with pytest.raises(adsrc.TransformError, match="_either_way|_evaluated"):
            adsrc.grad(_times_either_way)(1.5, flag)
    # nothing is differentiated through the refused calls here: they run as they are
    assert adsrc.grad(_either_way_of_a_constant)(1.5, True) == 4.0


def _draws(mean, rs):
    return rs.randn(3, mean.shape[0]) + mean


def mixture_draws(params, rs):
    total = 0.0
    for p in params:                      # an item of the differentiated list: an array (its shape a constant)
        total = total + np.mean(_draws(p, rs) ** 2) + np.mean((rs.randn(2, p.shape[0]) * p) ** 2)
    return total


def test_random_draws_shaped_by_an_item_of_a_differentiated_list():
    # `rs.randn(n, p.shape[0])` with p a loop item over the differentiated list: adsrc took p.shape for a field
    # of an object it could not tell the kind of, differentiated it, and refused randn (mixture VI example)
    params = [np.array([0.5, -1.0]), np.array([1.5, 0.25])]
    got = adsrc.grad(mixture_draws)(params, np.random.RandomState(0))
    for k in range(2):
        def along(v, k=k):
            changed = [v if j == k else q for j, q in enumerate(params)]
            return mixture_draws(changed, np.random.RandomState(0))
        np.testing.assert_allclose(got[k], central_grad(along, params[k]), rtol=1e-6, atol=1e-8)


# -- a helper's optional `ax=None` / `out=None`, not passed: decided when transforming ------------------------

class _Canvas:
    """Stands for a plotting axis: a method adsrc cannot see into, handed an array."""

    def __init__(self):
        self.shown = []

    def show(self, m):
        self.shown.append(np.array(m))


DENSITY = np.array([0.2, 0.9, -0.4])       # a module-level array, as the smoke field the examples advect


def advance(v, field, n, canvas=None):
    for _ in range(n):
        if canvas:
            canvas.show(field)               # the only place the field could be changed in place
        field = field * np.cos(v) + 0.1 * v
    return field


def blur(v, scale=None, into=None):
    if into is None:
        into = np.zeros_like(v)
    if scale is not None:
        v = v * scale
    return into + np.tanh(v)


def plume(v):
    return np.sum(advance(v, DENSITY, 2) ** 2) + np.sum(advance(v, DENSITY, 1, None) * v)


def plume_blurred(v):
    return np.sum(blur(v) * DENSITY) + np.sum(blur(v, 2.0) ** 2) + np.sum(blur(v, None, DENSITY) * v)


def plume_drawn(v, canvas):
    return np.sum(advance(v, DENSITY, 2, canvas))


def test_a_default_none_not_passed_decides_the_helpers_branches_when_transforming():
    # advance(v, DENSITY, 2): its `if canvas:` branch hands the global array to a method adsrc cannot see
    # into; with canvas=None that branch never runs, but the call was refused for changing DENSITY
    v = np.array([0.3, -1.1, 0.7])
    for f in (plume, plume_blurred):
        np.testing.assert_allclose(adsrc.grad(f)(v), central_grad(f, v), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(adsrc.jvp(f, (v,), (np.ones(3),))[1], central_grad(f, v).sum(), rtol=1e-6)
    np.testing.assert_array_equal(DENSITY, [0.2, 0.9, -0.4])


def test_a_canvas_that_is_passed_is_followed_or_refused_as_before():
    # a canvas of a class of the user's: its method is followed (it copies the array it is shown, and the
    # canvas, an input, is not changed: README, "Your inputs are never changed")
    v = np.array([0.3, -1.1, 0.7])
    np.testing.assert_allclose(adsrc.grad(plume_drawn)(v, _Canvas()),
                               central_grad(lambda u: plume_drawn(u, _Canvas()), v), rtol=1e-6, atol=1e-8)
    # an object of an installed library's class: its method may keep or change DENSITY, which adsrc does not own
    opaque = types.SimpleNamespace(show=lambda m: None)
    with pytest.raises(adsrc.TransformError, match="DENSITY"):
        adsrc.grad(plume_drawn)(v, opaque)


def relay(v, field, canvas):
    if canvas is not None:
        canvas.show(field)
    return np.sin(v) * field


def relayed(v, canvas=None):
    return relay(v, DENSITY, canvas) + v


def test_a_static_none_is_passed_on_to_the_next_helper():
    def f(v):
        return np.sum(relayed(v) ** 2)
    v = np.array([0.5, -0.2, 1.3])
    np.testing.assert_allclose(adsrc.grad(f)(v), central_grad(f, v), rtol=1e-6, atol=1e-8)


# -- names of autograd's own: builtins, and what has no counterpart ------------------------------------------

def test_autograds_builtins_are_pythons_containers():
    from adsrc.builtins import dict as adict, isinstance as ainstance, list as alist, tuple as atuple
    assert (atuple, alist, adict, ainstance) == (tuple, list, dict, isinstance)

    def f(w):
        pair = atuple((w, w * 2.0))
        return np.sum(pair[0] * pair[1]) + np.sum(alist([w])[0])
    w = np.array([0.4, -1.5])
    np.testing.assert_allclose(adsrc.grad(f)(w), central_grad(f, w), rtol=1e-6, atol=1e-8)


def test_autograds_tracing_machinery_is_refused_by_name_at_the_import():
    with pytest.raises(ImportError, match="adsrc.extend has no `VSpace`.*register it as a pytree"):
        from adsrc.extend import VSpace  # noqa: F401
    with pytest.raises(ImportError, match="adsrc.extend has no `Box`"):
        from adsrc.extend import primitive, Box  # noqa: F401
    with pytest.raises(ImportError, match="adsrc.tracer has no `trace`.*adsrc has no tracer.*source"):
        from adsrc.tracer import trace  # noqa: F401
    from adsrc.tracer import getval, primitive      # (these two exist: autograd's tests mark rules with them)
    from adsrc.custom import primitive as extend_primitive
    assert primitive is extend_primitive and getval(3.5) == 3.5
    import adsrc.extend
    assert not hasattr(adsrc.extend, "no_such_name")


def shade(v, field, verbose=False, canvas=None):
    if verbose:
        canvas.show(field)               # `verbose` alone guards the call (a canvas passed or not)
    return np.cos(v) * field


def test_a_false_flag_default_or_literal_decides_the_helpers_branch_when_transforming():
    def f(v):
        return np.sum(shade(v, DENSITY)) + np.sum(shade(v, DENSITY, False) ** 2)
    v = np.array([1.5, -0.3, 0.4])
    np.testing.assert_allclose(adsrc.grad(f)(v), central_grad(f, v), rtol=1e-6, atol=1e-8)
