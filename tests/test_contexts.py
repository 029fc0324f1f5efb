"""`with` statements of context managers of the user's and of libraries (lowering/contexts.py): gradients
against central differences, the managers' __enter__/__exit__ run in Python's order (also when a return,
break or exception leaves the block), and the refusals that remain, naming the line."""

import contextlib
import time

import numpy as np
import pytest

import adsrc
from bad_functions import Doubled
from casekit import assert_matches_differences

LOG = []


class Recorder:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        LOG.append(("enter", self.name))
        return self

    def __exit__(self, kind, exc, tb):
        LOG.append(("exit", self.name, None if kind is None else kind.__name__))
        return False


class Timer:
    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start


class Swallows:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


@contextlib.contextmanager
def scope(name):
    LOG.append(("enter", name))
    try:
        yield name.upper()
    finally:
        LOG.append(("exit", name, None))


def timed(x):
    with Timer() as t:
        y = np.sin(x) * 2.0
    return np.sum(y * x) + 0.0 * (t.seconds > -1.0)


def timed_without_as(x):
    with Timer():
        y = np.exp(x)
    return np.sum(y)


def generator_manager_and_return(x):
    with scope("a") as tag, Recorder("b"):
        y = np.sin(x)
        if tag == "A":
            return np.sum(y * 3.0)
    return np.sum(y)


def break_out_of_a_loop(x):
    s = 0.0
    for i in range(3):
        with Recorder("loop"):
            if i == 2:
                break
            s = s + np.sum(x ** (i + 1))
    return s


def loop_inside_the_block(x):
    s = 0.0
    with Recorder("outer"):
        for i in range(4):
            if i == 1:
                continue
            if i == 3:
                break
            s = s + np.sum(np.cos(x * i))
    return s


def nested_with_errstate(x):
    with np.errstate(divide="ignore"), Recorder("c"):
        y = np.log(np.abs(x) + 1.0)
    return np.sum(y * y)


CASES = [(timed, []), (timed_without_as, []),
         (generator_manager_and_return, [("enter", "a"), ("enter", "b"), ("exit", "b", None), ("exit", "a", None)]),
         (break_out_of_a_loop, [("enter", "loop"), ("exit", "loop", None)] * 3),
         (loop_inside_the_block, [("enter", "outer"), ("exit", "outer", None)]),
         (nested_with_errstate, [("enter", "c"), ("exit", "c", None)])]


@pytest.mark.parametrize("fn, order", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_and_order_of_enter_and_exit(fn, order):
    x = np.array([0.4, -1.3, 0.8])
    before = x.copy()
    LOG.clear()
    g = adsrc.grad(fn)(x)
    assert LOG == order          # once, in Python's order: the gradient runs the function's code once
    np.testing.assert_array_equal(x, before)
    assert_matches_differences(fn, (x,), (g,), 1e-6, 1e-8)
    direction = np.array([1.0, 0.5, -0.25])
    _, tangent = adsrc.jvp(fn, (x,), (direction,))
    np.testing.assert_allclose(tangent, g @ direction, rtol=1e-9, atol=1e-12)


def test_an_exception_reaches_exit_and_goes_on():
    def raises(x):
        with Recorder("d"):
            y = np.log(x)
            if np.any(x < 0):
                raise ValueError("negative")
        return np.sum(y)
    LOG.clear()
    with pytest.raises(ValueError, match="negative"):
        with np.errstate(invalid="ignore"):
            adsrc.grad(raises)(np.array([-1.0, 1.0]))
    assert LOG == [("enter", "d"), ("exit", "d", "ValueError")]


def test_a_manager_that_swallows_an_exception_is_an_error_naming_the_line():
    def swallowed(x):
        with Swallows():
            y = np.sin(x)
            raise KeyError("k")
        return np.sum(y)
    with pytest.raises(RuntimeError, match=r"test_contexts.py:\d+ swallowed a KeyError"):
        adsrc.grad(swallowed)(np.ones(2))


def test_a_differentiated_as_value_is_refused_naming_the_line():
    def doubled(x):
        with Doubled(x) as d:
            return np.sum(d * x)
    with pytest.raises(adsrc.TransformError, match="context manager's __enter__") as info:
        adsrc.grad(doubled)(np.ones(2))
    assert "test_contexts.py" in str(info.value) and "with Doubled(x) as d" in str(info.value)


def test_unpacking_after_as_unpacks_what_enter_returns():
    # (it was refused: "one name"); scope("ef") enters with "EF", unpacked into its two letters
    def unpacked(x):
        with scope("ef") as (a, b):
            return np.sum(x ** 2) * len(a + b + b)
    del LOG[:]
    x = np.array([1.0, -2.0])
    np.testing.assert_allclose(adsrc.grad(unpacked)(x), 6.0 * x)
    assert LOG == [("enter", "ef"), ("exit", "ef", None)]
