"""In-place array and generator methods adsrc used to refuse and now follows (rng.shuffle, partition, resize,
nan_to_num(copy=False), itemset where it runs), against central differences; the ones still refused checked
for their error."""

import numpy as np
import pytest

import adsrc
from liftedkit import POINTS, WEIGHTS, central, check_grad


# -- in-place methods -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("x", POINTS)
def test_generator_shuffle_made_in_the_function(x):
    def f(x):
        rng = np.random.default_rng(7)
        y = x * x
        rng.shuffle(y)
        return np.sum(y * WEIGHTS) + rng.random()        # the state after the shuffle, as Python leaves it
    check_grad(f, x)
    value, _ = adsrc.value_and_grad(f)(x)
    assert value == f(x)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_generator_shuffle_argument_and_axis(seed):
    x = np.arange(12.0).reshape(3, 4) * 0.1 + 0.3
    w = np.cos(np.arange(12.0)).reshape(3, 4)

    def f(x, rng):
        y = np.sin(x)
        rng.shuffle(y, axis=1)
        return np.sum(y * w) * rng.standard_normal()

    def plain(v):
        return f(v, np.random.default_rng(seed))
    g = adsrc.grad(f)(x, np.random.default_rng(seed))
    np.testing.assert_allclose(g, central(plain, x), rtol=1e-6, atol=1e-8)
    rng = np.random.default_rng(seed)
    adsrc.grad(f)(x, rng)
    reference = np.random.default_rng(seed)
    f(x, reference)
    assert rng.random() == reference.random()        # the generator advanced exactly as in Python


def test_global_generator_and_legacy_shuffle():
    R = np.random.RandomState(3)

    def f(x):
        y = 2.0 * x
        R.shuffle(y)
        z = x * x
        np.random.shuffle(z)
        return np.sum(y * WEIGHTS) + np.sum(z * WEIGHTS[::-1])

    x = POINTS[0]
    R.seed(3)
    np.random.seed(5)
    g = adsrc.grad(f)(x)

    def plain(v):
        R.seed(3)
        np.random.seed(5)
        return f(v)
    np.testing.assert_allclose(g, central(plain, x), rtol=1e-6, atol=1e-8)


def test_shuffle_in_a_loop_of_unknown_length():
    def f(x, n):
        rng = np.random.default_rng(11)
        total = 0.0
        y = x * 1.0
        for _ in range(n):
            rng.shuffle(y)
            total = total + np.sum(y * WEIGHTS)
            y = y * y
        return total
    for n in (1, 3):
        x = POINTS[1] * 0.5
        g = adsrc.grad(f)(x, n)
        np.testing.assert_allclose(g, central(lambda v: f(v, n), x), rtol=1e-6, atol=1e-8)


def test_shuffle_of_another_generator_is_refused_when_it_runs():
    import random

    def f(x):
        r = random.Random(0)            # Python's own generator: another algorithm, not followed
        y = x * 1.0
        r.shuffle(y)
        return np.sum(y * WEIGHTS)
    with pytest.raises(TypeError, match=r"NumPy generator(.|\n)*Random \(.*line \d+, in f\)"):
        adsrc.grad(f)(POINTS[0])


def test_str_partition_is_not_an_array_partition():
    def f(x, key):
        head, _, tail = key.partition(":")
        return np.sum(x * x) * len(head) + len(tail)
    np.testing.assert_allclose(adsrc.grad(f)(POINTS[0], "ab:c"), 4.0 * POINTS[0])


@pytest.mark.parametrize("x", POINTS)
def test_partition_method_and_its_aliases(x):
    def f(x):
        y = x * np.array([1.0, 2.0, 3.0, 4.0])
        z = y                   # the same array: it sees the change
        y.partition(2)
        return np.sum(z * WEIGHTS) + y[2] ** 2
    check_grad(f, x)


def test_partition_along_an_axis():
    x = np.array([[0.3, -1.0, 2.0], [1.5, 0.2, -0.7]])

    def f(x):
        y = np.exp(x)
        y.partition(1, axis=0)
        return np.sum(y * np.arange(6.0).reshape(2, 3))
    check_grad(f, x)


@pytest.mark.parametrize("x", POINTS)
def test_resize_method_pads_with_zeros_and_cuts(x):
    def grow(x):
        y = x * x
        y.resize(3, 3, refcheck=False)
        return np.sum(y * np.arange(9.0).reshape(3, 3)) + y[2, 2]
    def shrink(x):
        y = np.sin(x)
        y.resize((3,))
        return np.sum(y * y)
    check_grad(grow, x)
    check_grad(shrink, x)
    y = x * x
    y.resize(3, 3, refcheck=False)
    assert y.shape == (3, 3) and y[2, 2] == 0.0


def test_resize_where_numpy_raises_is_refused():
    def shared(x):
        y = x * 1.0
        z = y
        y.resize(6)
        return np.sum(z)
    with pytest.raises(adsrc.TransformError, match=r"`z` may refer to the same array(.|\n)*y\.resize\(6\)"
                                                   r"(.|\n)*refcheck=False"):
        adsrc.grad(shared)(POINTS[0])
    with pytest.raises(ValueError, match="cannot resize"):
        shared(POINTS[0].copy())

    def view(x):
        y = x[1:]
        y.resize(6, refcheck=False)
        return np.sum(y)
    with pytest.raises(adsrc.TransformError, match=r"may be a view of `x`(.|\n)*y\.resize\(6, refcheck=False\)"):
        adsrc.grad(view)(POINTS[0])
    with pytest.raises(ValueError, match="does not own its data"):
        view(POINTS[0].copy())

    def shared_unchecked(x):        # refcheck=False: the other name sees the new array, as in NumPy
        y = x * 2.0
        z = y
        y.resize(6, refcheck=False)
        return np.sum(z * np.arange(6.0))
    check_grad(shared_unchecked, POINTS[1])


@pytest.mark.parametrize("x", POINTS)
def test_nan_to_num_without_a_copy(x):
    def f(x):
        y = np.log(x)                         # NaN where x < 0
        z = np.nan_to_num(y, copy=False, nan=0.5)
        return np.sum(y * WEIGHTS) + np.sum(z)      # y was changed in place: z is y
    with np.errstate(invalid="ignore"):
        check_grad(f, np.abs(x) + 0.1)
        g = adsrc.grad(f)(x)
        assert not np.any(np.isnan(g))
        np.testing.assert_allclose(g, np.where(x > 0, (WEIGHTS + 1.0) / x, 0.0), rtol=1e-12)


def test_nan_to_num_without_a_copy_positional_and_on_numbers():
    def positional(x):
        y = x * 1.0
        np.nan_to_num(y, False)
        return np.sum(y * WEIGHTS)
    check_grad(positional, POINTS[0])

    def number(x):                          # NumPy 2: ValueError, a number cannot be changed in place
        y = float(x[0]) * 2.0
        return np.nan_to_num(y, copy=False) + y
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        number(POINTS[0])
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        adsrc.grad(number)(POINTS[0])


def test_generator_shuffle_of_a_list():
    def f(x):
        rng = np.random.default_rng(0)
        items = [x[0], x[1] * 2.0, x[2] * 3.0, x[3] * x[3]]
        rng.shuffle(items)
        return items[0] + items[1] * 10.0 + items[2] * 100.0 + items[3] * 1000.0
    check_grad(f, POINTS[0])


def test_itemset_in_a_branch_not_taken():
    def f(x, flag):
        y = x * 2.0
        if flag:
            y.itemset(0, 3.0)
        return np.sum(y * y)
    g = adsrc.grad(f)(POINTS[0], False)
    np.testing.assert_allclose(g, 8.0 * POINTS[0])
    if not hasattr(np.ndarray, "itemset"):        # NumPy 2: Python's AttributeError when the line runs
        with pytest.raises(AttributeError, match="itemset"):
            adsrc.grad(f)(POINTS[0], True)


def test_itemset_as_numpy_1_has_it(monkeypatch):
    from adsrc.lowering import inplace_methods
    monkeypatch.setattr(inplace_methods, "HAS_ITEMSET", True)      # (the generated code does not call itemset)

    def f(x):
        y = x * 2.0
        y.itemset(1, 5.0)                   # a flat index
        z = y.reshape(2, 2)                 # a view of y: y sees z's change
        z.itemset(0, 1, x[0] ** 2)          # one index per axis
        return np.sum(y * np.arange(4.0))
    x = POINTS[0]
    np.testing.assert_allclose(adsrc.grad(f)(x), [2.0 * x[0], 0.0, 4.0, 6.0])


def test_itemset_run_unconditionally_is_refused_on_numpy_2():
    if hasattr(np.ndarray, "itemset"):
        pytest.skip("NumPy 1 has ndarray.itemset")

    def f(x):
        y = x * 2.0
        y.itemset(0, 3.0)
        return np.sum(y)
    with pytest.raises(adsrc.TransformError, match=r"itemset(.|\n)*y\.itemset\(0, 3\.0\)(.|\n)*x\[index\] = value"):
        adsrc.grad(f)(POINTS[0])
