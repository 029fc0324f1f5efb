"""check_grads(modes=("fwd", "rev"), order=1|2): forward mode and second derivatives, as in JAX/autograd.

Each mode must catch a wrong derivative: a custom_vjp with a wrong bwd at
order 1, and at order 2 a rule whose value is right but whose own
derivative is wrong (its bwd stops the gradient of what it reads), which
order 1 cannot see.
"""


import numpy as np
import pytest

import adsrc
from adsrc import check_modes

RNG = np.random.default_rng(7)
X = RNG.normal(size=(20, 4))
Y = RNG.choice([-1.0, 1.0], size=20)


def logistic(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-y * z))) + 0.01 * np.sum(w * w)


def looped(x, n):
    s = 0.0
    for i in range(n):
        if s > 0.5:
            s = s + np.sin(x[i % 3]) * x[0]
        else:
            s = s + x[i % 3] ** 2
    return s * np.sum(np.exp(x))


def params_loss(p, X):
    h = np.tanh(X @ p["W"] + p["b"])
    return np.sum(h ** 2) * p["scale"] + np.sum(p["W"] ** 3)


def vector_out(x):
    return {"a": np.sin(x) * x[0], "b": (np.sum(np.exp(x)), x * x)}


PARAMS = {"W": RNG.normal(size=(4, 3)), "b": RNG.normal(size=3), "scale": 0.7}
BOTH = ("fwd", "rev")


# -- correct derivatives pass -------------------------------------------------------------------------
@pytest.mark.parametrize("order", [1, 2])
def test_logistic_loss_passes_both_modes(order):
    g = adsrc.check_grads(logistic, (RNG.normal(size=4), X, Y), modes=BOTH, order=order)
    assert g.shape == (4,)


@pytest.mark.parametrize("order", [1, 2])
def test_loop_of_run_time_length_with_a_branch_passes_both_modes(order):
    x = np.array([0.3, -0.2, 0.9])
    for n in (1, 4, 9):
        adsrc.check_grads(looped, (x, n), modes=BOTH, order=order)


@pytest.mark.parametrize("order", [1, 2])
def test_pytree_parameters_pass_both_modes(order):
    adsrc.check_grads(params_loss, (PARAMS, X), modes=BOTH, order=order)


def test_several_argnums_and_every_coordinate_at_order_2():
    w = RNG.normal(size=4)
    grads = adsrc.check_grads(logistic, (w, X[:3], Y[:3]), argnums=(0, 1), modes=BOTH, order=2, full=True)
    assert grads[0].shape == (4,) and grads[1].shape == (3, 4)


def test_forward_mode_checks_functions_with_pytree_outputs():
    assert adsrc.check_grads(vector_out, (RNG.normal(size=3),), modes="fwd", full=True) is None


def _elementwise_square_with_bwd(bwd):
    @adsrc.custom_vjp
    def square(x):
        return x * x
    square.defvjp(lambda x: (x * x, x), bwd)
    return lambda x: (np.sin(square(x)), {"twice": 2.0 * square(x)})


def test_any_output_is_checked_in_reverse_mode_through_a_random_pairing():
    # as autograd checks a vector-Jacobian product: x -> <f(x), w> for a random w of the output's structure
    x = np.array([0.2, -0.7, 1.1])
    adsrc.check_grads(lambda v: np.sin(v) * 2.0, (x,), modes=BOTH, order=2)
    adsrc.check_grads(_elementwise_square_with_bwd(lambda x, g: (2.0 * x * g,)), (x,), modes=BOTH, order=2)
    with pytest.raises(adsrc.GradientMismatch, match="gradient of"):
        adsrc.check_grads(_elementwise_square_with_bwd(lambda x, g: (3.0 * x * g,)), (x,), modes="rev")
    assert adsrc.check_grads(lambda v: v[:0] * 2.0, (x,), modes=BOTH) is not None     # an empty output


def test_autograds_argnum_and_positional_modes():
    from adsrc.test_util import check_grads
    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    check_grads(lambda a, b: a * np.sin(b), argnum=(0, 1))(x, y)
    check_grads(lambda a, b: a * np.sin(b), 1, ["rev"])(x, y)
    check_grads(np.sum, 0)(x)
    wrong = _elementwise_square_with_bwd(lambda x, g: (3.0 * x * g,))
    with pytest.raises(AssertionError):
        check_grads(lambda a, b: wrong(a)[0] * b, (0, 1), ["fwd", "rev"], 1)(x, y)


def test_kwargs_and_static_arguments_in_forward_mode():
    def scaled(x, k, power=2.0):
        return np.sum(x ** power) * k
    x = np.array([0.5, 1.5])
    adsrc.check_grads(scaled, (x, 3), modes=BOTH, static_argnums=1, kwargs={"power": 3.0})
    adsrc.check_grads(scaled, (x, 3), modes="fwd", order=2, static_argnums=1, kwargs={"power": 3.0})


def test_defaults_are_unchanged_reverse_mode_at_order_1_only(monkeypatch):
    def no_forward_mode(*args, **kwargs):
        raise AssertionError("the default check must not run forward mode")
    monkeypatch.setattr(check_modes, "jvp", no_forward_mode)
    monkeypatch.setattr(check_modes, "_check_rev", no_forward_mode)     # nor a second-order check
    g = adsrc.check_grads(logistic, (np.zeros(4), X, Y))
    np.testing.assert_allclose(g, adsrc.grad(logistic)(np.zeros(4), X, Y), rtol=1e-12)
    with pytest.raises(AssertionError, match="must not run forward mode"):
        adsrc.check_grads(logistic, (np.zeros(4), X, Y), modes="fwd")


@pytest.mark.parametrize("modes, order", [((), 1), (("rev", "backward"), 1), ("rev", 2.5), ("fwd", 0),
                                          ("rev", True)])
def test_bad_modes_or_order_are_refused(modes, order):
    with pytest.raises(ValueError, match="modes|order"):
        adsrc.check_grads(logistic, (np.zeros(4), X, Y), modes=modes, order=order)


# -- wrong derivatives are caught, in each mode -------------------------------------------------------
def _square_with_bwd(bwd):
    @adsrc.custom_vjp
    def square(x):
        return x * x
    square.defvjp(lambda x: (x * x, x), bwd)
    return lambda x: np.sum(np.sin(square(x)))


@pytest.mark.parametrize("mode, message", [("rev", "gradient of"), ("fwd", "jvp of")])
def test_a_wrong_bwd_is_caught_in_each_mode(mode, message):
    wrong = _square_with_bwd(lambda x, g: (3.0 * x * g,))          # d(x*x) is 2x, not 3x
    right = _square_with_bwd(lambda x, g: (2.0 * x * g,))
    x = np.array([0.2, -0.7, 1.1])
    adsrc.check_grads(right, (x,), modes=mode)
    with pytest.raises(adsrc.GradientMismatch, match=message):
        adsrc.check_grads(wrong, (x,), modes=mode)


@pytest.mark.filterwarnings("ignore:invalid value encountered")      # inf * 0 in the jvp's basis vectors
@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_a_non_finite_derivative_is_caught_in_each_mode(mode):
    f = _square_with_bwd(lambda x, g: (np.where(x > 0, np.inf, 2.0 * x) * g,))
    with pytest.raises(adsrc.GradientMismatch, match="not finite"):
        adsrc.check_grads(f, (np.array([0.5, -0.5]),), modes=mode)


def _cube_root(vjp):
    def cube_root(x):
        return np.cbrt(x)
    adsrc.defvjp(cube_root, vjp)
    return lambda x: np.sum(cube_root(x) * x)


def _right_vjp(g, ans, x):
    return g / (3.0 * ans ** 2)


def _stopped_vjp(g, ans, x):
    """Right value, wrong derivative: the second derivative of cbrt loses the term through ans."""
    return g / (3.0 * adsrc.stop_gradient(ans) ** 2)


@pytest.mark.parametrize("mode, message", [("rev", "reverse over reverse"), ("fwd", "forward over reverse")])
def test_a_wrong_second_derivative_passes_order_1_and_is_caught_at_order_2(mode, message):
    x = np.array([0.5, 1.5, 2.0])
    right, wrong = _cube_root(_right_vjp), _cube_root(_stopped_vjp)
    adsrc.check_grads(right, (x,), modes=mode, order=2)
    adsrc.check_grads(wrong, (x,), modes=mode, order=1)
    with pytest.raises(adsrc.GradientMismatch, match=message):
        adsrc.check_grads(wrong, (x,), modes=mode, order=2)


def test_the_mismatch_names_the_output_leaf_and_direction():
    f = _square_with_bwd(lambda x, g: (3.0 * x * g,))
    with pytest.raises(adsrc.GradientMismatch) as info:
        adsrc.check_grads(lambda x: {"out": np.sin(x) + f(x)}, (np.array([0.4, 0.9]),), modes="fwd", full=True)
    message = str(info.value)
    assert "output['out'][" in message and "x[" in message, message


# -- a bug check_grads found (adsrc/rules: the transpose of unbroadcast) -------------------------------
def scalar_times_array(w, b):
    return np.sum(w * b)


def test_scalar_broadcast_second_derivative_is_right_in_forward_mode():
    adsrc.check_grads(scalar_times_array, (np.ones(5), 2.0), argnums=(0, 1), modes="fwd", order=2)


def test_scalar_broadcast_second_derivative_in_reverse_mode():
    # `unbroadcast(1.0 * b, w, mul)` passes the scalar b through: its transpose must not sum over w's shape
    adsrc.check_grads(scalar_times_array, (np.ones(5), 2.0), argnums=(0, 1), modes="rev", order=2)


def test_autograds_curried_form_checks_both_modes_to_order_2(monkeypatch):
    from adsrc.test_util import check_grads
    check_grads(logistic, modes=["rev"])(np.zeros(4), X, Y)           # autograd's spelling
    seen = []
    real = check_modes.check_modes
    monkeypatch.setattr(check_modes, "check_modes", lambda *a: seen.append(a[4:6]) or real(*a))
    check_grads(logistic)(np.zeros(4), X, Y)
    assert seen == [(("fwd", "rev"), 2)]


@adsrc.custom_vjp
def square_with_a_wrong_rule(x):
    return x * x


square_with_a_wrong_rule.defvjp(lambda x: (x * x, x), lambda x, g: (g * 3.0 * x,))     # (should be 2.0)


def sum_of_squares(x):
    return np.sum(square_with_a_wrong_rule(x))


def test_autograds_curried_form_fails_loudly():
    with pytest.raises(AssertionError):
        adsrc.check_grads(sum_of_squares, modes=["rev"], order=1)(np.array([0.3, 0.4]))


# -- complex arguments: numbers and arrays are leaves, checked along complex directions ------------------------
def _abs_squared_with_bwd(bwd):
    @adsrc.custom_vjp
    def abs_squared(z):
        return np.abs(z) ** 2
    abs_squared.defvjp(lambda z: (np.abs(z) ** 2, z), bwd)
    return lambda z: np.sum(abs_squared(z))


def mixed_complex(z):
    return np.real(z * np.conj(z) * 0.5) + np.angle(z + 2.0) * np.abs(z) + np.imag(np.exp(z))


@pytest.mark.parametrize("z", [0.4 + 0.3j, np.complex128(-0.2 + 0.9j), np.array([0.4 + 0.3j, -1.1 + 0.2j])],
                         ids=["python complex", "np.complex128", "complex array"])
def test_complex_arguments_are_checked_not_skipped(z):
    right = _abs_squared_with_bwd(lambda z, g: (2.0 * np.conj(z) * g,))     # d/dx - i d/dy of x^2 + y^2
    wrong = _abs_squared_with_bwd(lambda z, g: (2.0 * z * g,))              # the conjugate: wrong
    adsrc.check_grads(right, (z,), modes=BOTH)
    with pytest.raises(adsrc.GradientMismatch, match="gradient of"):
        adsrc.check_grads(wrong, (z,), modes="rev")
    scalar = mixed_complex if np.ndim(z) == 0 else (lambda v: np.sum(mixed_complex(v)))
    adsrc.check_grads(scalar, (z,), modes=BOTH, order=2)
    adsrc.check_grads(scalar, (z,), modes=BOTH, order=2, full=True)


def test_autograds_combo_check_checks_every_combination(monkeypatch):
    from adsrc import test_util
    seen = []
    real = test_util.check_grads
    monkeypatch.setattr(test_util, "check_grads", lambda *a, **k: (lambda *x, **kw: seen.append((x, kw)) or
                                                                   real(*a, **k)(*x, **kw)))
    A, B = np.array([[0.3, 1.2], [0.5, -0.4]]), np.array([0.2, 0.7])
    test_util.combo_check(lambda a, axis=0: np.sum(np.tanh(a), axis=axis), [0], modes=["rev"], order=1)(
        [A, B], axis=[0, -1])
    assert len(seen) == 4 and {id(x[0]) for x, _ in seen} == {id(A), id(B)}
    assert sorted(kw["axis"] for _, kw in seen) == [-1, -1, 0, 0]


# -- third and higher orders (autograd's check_grads recursion) --------------------------------------------------

X0 = 0.7


@adsrc.custom_jvp
def cube_wrong_third(x):
    return x ** 3


@cube_wrong_third.defjvp
def _cube_wrong_third_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    # at X0 the first and second derivatives are 3x^2 and 6x, the third 6 + 2 * 0.5 = 7 (not 6)
    return x ** 3, t * (3.0 * x ** 2 + 0.5 * (x - X0) ** 2)


def test_order_three_checks_the_third_derivative():
    adsrc.check_grads(np.outer, (np.array([0.3, -1.2]), np.array([0.5, 0.8, -0.1])), argnums=(0, 1),
                modes=("rev", "fwd"), order=3)
    adsrc.check_grads(lambda x: np.sum(np.tanh(x) ** 2 * x[::-1]), (np.array([0.4, -0.9, 0.2]),), modes=("rev", "fwd"),
                order=3)
    adsrc.check_grads(cube_wrong_third, (X0,), modes=("rev",), order=2)        # right to the second order
    with pytest.raises(adsrc.GradientMismatch):
        adsrc.check_grads(cube_wrong_third, (X0,), modes=("rev",), order=3)


def test_arguments_of_no_elements_are_checked():
    adsrc.check_grads(np.einsum, ("...ij,...jk->...ik", np.zeros((0, 2, 3)), np.zeros((0, 3, 4))), argnums=(1, 2))
