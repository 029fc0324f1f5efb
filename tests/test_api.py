"""The public API: decorator forms, argnums, value_and_grad, source(), dtypes, errors on inputs."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import adsrc
from adsrc.checks import GradientMismatch, check_grads


def quad(x, y):
    return np.sum(x * x * y)


@adsrc.grad
def decorated(x):
    return np.sum(np.sin(x))


@adsrc.grad(argnums=1)
def decorated_argnums(x, y):
    return np.sum(x * np.exp(y))


def test_decorator_forms():
    x = np.array([0.1, 0.2])
    np.testing.assert_allclose(decorated(x), np.cos(x), rtol=1e-12)
    np.testing.assert_allclose(decorated_argnums(x, x), x * np.exp(x), rtol=1e-12)
    np.testing.assert_allclose(adsrc.grad(quad)(x, x), 2 * x * x, rtol=1e-12)


def test_tuple_argnums_and_value_and_grad():
    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    gx, gy = adsrc.grad(quad, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gx, 2 * x * y)
    np.testing.assert_allclose(gy, x * x)
    value, g = adsrc.value_and_grad(quad)(x, y)
    assert value == pytest.approx(quad(x, y))
    np.testing.assert_allclose(g, 2 * x * y)
    value, (gx2, gy2) = adsrc.value_and_grad(quad, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gy2, x * x)


def test_keyword_arguments_are_accepted():
    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    np.testing.assert_allclose(adsrc.grad(quad)(x, y=y), 2 * x * y)
    np.testing.assert_allclose(adsrc.grad(quad, argnums=1)(x=x, y=y), x * x)


def scalar_fn(x):
    return x * x * 3.0


def test_gradient_types_follow_inputs():
    assert type(adsrc.grad(scalar_fn)(2.0)) is float
    assert adsrc.grad(scalar_fn)(2.0) == pytest.approx(12.0)
    g64 = adsrc.grad(scalar_fn)(np.float64(2.0))
    assert isinstance(g64, np.float64)
    x32 = np.array([1.0, 2.0], dtype=np.float32)
    g = adsrc.grad(lambda x: np.sum(x * x))(x32)
    assert g.dtype == np.float32 and g.shape == (2,)
    zero_d = adsrc.grad(scalar_fn)(np.array(2.0))
    assert isinstance(zero_d, np.ndarray) and zero_d.shape == () and float(zero_d) == pytest.approx(12.0)


def test_gradient_is_a_fresh_array():
    w = np.array([1.0, 2.0])
    x = np.array([3.0, 4.0])
    g = adsrc.grad(quad, argnums=1)(x, w)
    assert g is not x and g is not w and not np.shares_memory(g, x)
    g[:] = 0.0
    assert np.array_equal(x, [3.0, 4.0])


def vector_out(x):
    return x * 2.0


def test_non_scalar_output_is_an_error():
    with pytest.raises(TypeError, match=r"real scalar.*shape \(3,\)"):
        adsrc.grad(vector_out)(np.ones(3))


def one_element(x, W):
    return np.tanh(W @ x)[:1] * 3.0


def test_one_element_array_output_is_differentiated_as_autograd_and_pytorch_do():
    x, W = np.array([0.3, -0.2]), np.array([[1.0, 2.0], [0.5, -1.0]])
    value, g = adsrc.value_and_grad(one_element)(x, W)
    assert np.shape(value) == (1,)
    eps = 1e-6
    want = [(one_element(x + eps * e, W)[0] - one_element(x - eps * e, W)[0]) / (2 * eps) for e in np.eye(2)]
    assert not np.any(np.isnan(g))
    np.testing.assert_allclose(g, want, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(adsrc.grad(vector_out)(np.ones(1)), adsrc.grad(lambda v: vector_out(v)[0])(np.ones(1)))


def test_integer_inputs_are_an_error():
    with pytest.raises(TypeError, match=r"floating-point.*is an int \(3\)\. Pass a float"):
        adsrc.grad(scalar_fn)(3)
    with pytest.raises(TypeError, match=r"dtype int64"):
        adsrc.grad(lambda x: np.sum(x))(np.arange(3))
    with pytest.raises(TypeError, match="floating-point"):
        adsrc.grad(scalar_fn)(True)


def test_argnums_validation():
    with pytest.raises(ValueError, match="out of range"):
        adsrc.grad(quad, argnums=2)
    with pytest.raises(ValueError, match="repeats"):
        adsrc.grad(quad, argnums=(0, 0))
    with pytest.raises(TypeError, match="integers"):
        adsrc.grad(quad, argnums="x")


def test_source_is_deterministic_within_a_process():
    a = adsrc.grad(quad, argnums=(0, 1)).source()
    b = adsrc.grad(quad, argnums=(0, 1)).source()
    assert a == b
    assert "def quad_grad(x, y):" in a


def test_source_is_byte_identical_across_runs(tmp_path):
    mod = tmp_path / "loss_mod.py"
    mod.write_text(textwrap.dedent("""
        import numpy as np

        def helper(z):
            return np.log1p(np.exp(z))

        def loss(w, X, y):
            z = X @ w
            for i in range(3):
                if i > 0:
                    z = z * 0.5
            return np.mean(helper(-y * z)) + 0.01 * np.sum(w * w)
    """))
    code = ("import sys; sys.path.insert(0, %r); import adsrc, loss_mod; "
            "print(adsrc.grad(loss_mod.loss, argnums=(0, 1)).source())" % str(tmp_path))
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
            for _ in range(2)]
    assert outs[0] == outs[1]
    assert "def helper_vjp" in outs[0]


def horner(x):
    y = 0.0
    for k in range(5):
        y = y * x + 0.1 * k
    return y


def test_source_without_arguments_shows_the_specialization_used_last():
    shown = adsrc.grad(horner)
    for_floats, for_arrays = shown.source(0.7), shown.source(np.zeros(1))
    assert for_floats != for_arrays                      # a float's needs no summing over broadcast axes
    g = adsrc.grad(horner)
    assert g.source() == for_arrays                      # before any call: the one for float arrays
    assert g(0.7) == pytest.approx(sum(0.1 * k * (4 - k) * 0.7 ** (3 - k) for k in range(4)), rel=1e-12)
    assert g.source() == for_floats
    g(np.array([0.7]))
    assert g.source() == for_arrays
    g(0.3)
    assert g.source() == for_floats


def test_generated_source_has_user_lines():
    src = adsrc.grad(quad).source()
    assert "# line" in src and "return np.sum(x * x * y)" in src


def test_check_grads_reports_a_wrong_gradient():
    def f(x):
        return np.sum(np.floor(x * 3.0) * x)   # floor is piecewise constant, but FD across a step is not
    with pytest.raises(GradientMismatch, match="finite differences"):
        check_grads(f, (np.array([1.0 / 3.0]),), full=True)


def test_inputs_are_never_mutated():
    def f(x):
        y = x
        x = x * 2.0
        z = y + x
        return np.sum(z * z)
    x = np.array([1.0, 2.0])
    before = x.copy()
    adsrc.grad(f)(x)
    assert np.array_equal(x, before)


def looped(x, n):
    s = x
    for i in range(n):
        s = np.sin(s) * x
    return s


def test_one_transformation_serves_every_loop_length():
    g = adsrc.grad(looped)
    for n in range(30):
        got = g(0.7, n)
        e = 1e-6
        fd = (looped(0.7 + e, n) - looped(0.7 - e, n)) / (2 * e)
        assert got == pytest.approx(fd, rel=1e-6, abs=1e-9)
    info = g.cache_info()
    assert info.misses == 1 and info.hits == 29 and info.currsize == 1


def branchy(x):
    if x > 0:
        return x * x
    return -3.0 * x


def test_one_transformation_serves_both_branches():
    g = adsrc.grad(branchy)
    assert g(2.0) == pytest.approx(4.0)
    assert g(-2.0) == pytest.approx(-3.0)
    assert g.cache_info().misses == 1


def test_cache_clear():
    g = adsrc.grad(branchy)
    g(1.0)
    g.cache_clear()
    assert g.cache_info().currsize == 0
    g(1.0)
    assert g.cache_info().misses == 1


def test_repr_names_the_function():
    assert "quad" in repr(adsrc.grad(quad))


def weighted_sum(x, w):
    return np.sum(x * w)


def identity_sum(x):
    y = x
    return np.sum(y)


def test_gradient_never_is_an_argument():
    x, w = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    gw = adsrc.grad(weighted_sum, argnums=1)(x, w)       # d/dw sum(x * w) is x itself
    np.testing.assert_allclose(gw, x)
    assert gw is not x and not np.shares_memory(gw, x)
    out, pullback = adsrc.vjp(lambda v: v, x)
    ct = np.array([5.0, 6.0])
    (dx,) = pullback(ct)
    assert dx is not ct and not np.shares_memory(dx, ct)
    np.testing.assert_allclose(adsrc.grad(identity_sum)(x), [1.0, 1.0])


def branch_weighted(x, w):
    if np.sum(x) > 0:
        s = np.sum(x * w)
    else:
        s = np.sum(w) * 2.0
    return s


def loop_weighted(x, w, n):
    s = 0.0
    for _ in range(n):
        s = s + np.sum(x * w)
    return s


def test_gradient_never_is_an_argument_through_branches_and_loops():
    x, w = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    gw = adsrc.grad(branch_weighted, argnums=1)(x, w)
    np.testing.assert_allclose(gw, x)
    assert not np.shares_memory(gw, x)
    gw = adsrc.grad(loop_weighted, argnums=1)(x, w, 1)
    np.testing.assert_allclose(gw, x)
    assert not np.shares_memory(gw, x)


def tagged(x):
    return x ** 2


tagged.fun = "user metadata"        # attributes of the user's function do not shadow adsrc's own
tagged.argnums = 5


def test_function_attributes_do_not_shadow_the_gradient():
    g = adsrc.grad(tagged)
    assert g(3.0) == pytest.approx(6.0)
    assert g.__name__ == "tagged" and g.argnums == 0


def test_the_package_shows_only_its_public_api():
    listed = set(dir(adsrc))
    assert set(adsrc.__all__) <= listed
    assert not {"api", "transform", "frontend", "runtime", "rules", "lower", "ir", "normalize", "checks",
                "custom", "cache", "keys", "errors"} & listed
    assert {n for n in listed if not n.startswith("__")} == set(adsrc.__all__)
    for name in adsrc.__all__:
        assert getattr(adsrc, name) is not None
    assert issubclass(adsrc.GradientMismatch, AssertionError)
    from adsrc import transform          # the internal modules stay importable for debugging
    assert transform is not None


def two_knobs(x, a=1, b=1):
    return np.sum(x) * a + np.sum(x * x) * b


def test_same_static_value_for_different_static_parameters_is_a_different_program():
    x = np.ones(2)
    np.testing.assert_allclose(adsrc.grad(two_knobs, static_argnames="a")(x, a=3), [5.0, 5.0])
    np.testing.assert_allclose(adsrc.grad(two_knobs, static_argnames="b")(x, b=3), [7.0, 7.0])   # was 9: a=3
