"""`try` statements: what adsrc refuses (a partial run Python would show and adsrc would not), how the
generated code reads, and that a `try` block's statements run for their exceptions even when their values
are not needed. (Gradients of ordinary `try` programs are checked in cases_try.py, in every mode.)"""

import math

import numpy as np
import pytest

import adsrc


def handler_reads_a_partial_value(x):
    try:
        a = np.log(x)
        y = np.sqrt(a)
    except ValueError:
        y = a
    return np.sum(y)


def later_code_reads_a_partial_value(x):
    s = x
    try:
        s = s * 2.0
        t = math.sqrt(s)
    except ValueError:
        t = 0.0
    return s + t


def changes_an_array_before_the_last_statement(x):
    out = np.zeros(2)
    try:
        out[0] = x * 2.0
        y = math.log(x)
    except ValueError:
        y = 0.0
    return np.sum(out) + y


def appends_before_the_last_statement(x):
    seen = []
    try:
        seen.append(x)
        y = math.log(x)
    except ValueError:
        y = x
    return y + len(seen)


EXCEPTIONS = {"math": ValueError}


def catches_a_computed_class(x):
    try:
        y = math.log(x)
    except EXCEPTIONS[type(x).__name__]:
        y = x
    return y


def read_again_in_the_next_iteration(x):
    s, t = 0.0, 1.0
    for i in range(3):
        s = s + t
        try:
            t = t * x
            u = math.log(t)
        except ValueError:
            u = 0.0
        s = s + u
    return s


def finally_after_a_return(x):
    try:
        return math.log(x)
    except ValueError:
        y = x
    finally:
        print("done")
    return y


@pytest.mark.parametrize("fn,line,what", [
    (handler_reads_a_partial_value, "try:", "assigns `a` before its last statement, and the `except` clause reads it"),
    (later_code_reads_a_partial_value, "try:", "assigns `s` before its last statement, and code after the `try` reads"),
    (changes_an_array_before_the_last_statement, "out[0] = x * 2.0", "changes an object in place"),
    (appends_before_the_last_statement, "seen.append(x)", "changes an object in place"),
    (read_again_in_the_next_iteration, "try:", "assigns `t` before its last statement, and code after the `try`"),
    (catches_a_computed_class, "except EXCEPTIONS", "needs the exceptions an `except` clause catches"),
    (finally_after_a_return, "try:", "`finally` after a `try` block, `except` clause or `else` that returns"),
])
def test_refused_naming_the_line(fn, line, what):
    with pytest.raises(adsrc.TransformError) as info:
        adsrc.grad(fn)(2.0)
    text = str(info.value)
    assert what in text and line in text and "test_try.py" in text, text


def test_python_agrees_that_the_refused_programs_are_ambiguous():
    # the values adsrc would compute without the block's partial writes differ from Python's
    assert later_code_reads_a_partial_value(-1.0) == -2.0       # s was doubled before math.sqrt raised


def cholesky_or_jitter(A):
    K = A @ A.T - 4.0 * np.eye(2)
    try:
        L = np.linalg.cholesky(K)
    except np.linalg.LinAlgError:
        L = np.linalg.cholesky(K + 10.0 * np.eye(2))
    return np.sum(np.log(np.diag(L)))


def test_generated_code_runs_the_block_in_a_python_try_and_replays_the_branch():
    text = adsrc.grad(cholesky_or_jitter).source(np.eye(2))
    assert "tried = True\n    try:\n" in text and "except LinAlgError:\n        tried = False" in text
    assert "if not tried:" in text and "if tried:" in text


def raises_only_when_run(x):
    ok = 1.0
    try:
        np.linalg.cholesky(-np.eye(2))       # its value is not used: it runs for the exception it raises
    except np.linalg.LinAlgError:
        ok = 3.0
    return x * x * ok


def test_a_statement_whose_value_is_unused_still_runs_in_every_order():
    assert adsrc.grad(raises_only_when_run)(2.0) == pytest.approx(12.0, rel=1e-12)
    assert adsrc.grad(adsrc.grad(raises_only_when_run))(2.0) == pytest.approx(6.0, rel=1e-12)
    assert adsrc.jvp(raises_only_when_run, (2.0,), (1.0,))[1] == pytest.approx(12.0, rel=1e-12)


def log_or_square(x):
    try:
        return math.log(x)
    except ValueError:
        return -x * x


@pytest.mark.parametrize("x,second", [(2.0, -0.25), (-2.0, -2.0)])
def test_second_derivatives_follow_the_branch_taken(x, second):
    assert adsrc.grad(adsrc.grad(log_or_square))(x) == pytest.approx(second, rel=1e-12)
    assert adsrc.hessian(log_or_square)(x) == pytest.approx(second, rel=1e-12)


def test_the_numba_backend_refuses_a_try_by_name():
    pytest.importorskip("numba")
    from adsrc.numba_backend.kernel import BackendError
    with pytest.raises(BackendError, match="cannot compile a `try` statement"):
        adsrc.grad(log_or_square, backend="numba")(2.0)


def log_under_errstate(x):
    with np.errstate(divide="raise"):
        y = np.log(x)               # its value is not needed for the gradient: it still runs, and raises
    return np.sum(y)


def test_an_errstate_that_raises_applies_to_its_block_and_is_put_back():
    before = np.geterr()
    with pytest.raises(FloatingPointError):
        adsrc.grad(log_under_errstate)(np.array([0.0, 1.0]))
    assert np.geterr() == before
    np.testing.assert_allclose(adsrc.grad(log_under_errstate)(np.array([0.5, 2.0])), [2.0, 0.5], rtol=1e-12)
    assert np.geterr() == before


class Multiplies:
    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        return Multiplies(self.v * other)       # not an addition


def _either(a, k):
    return a if k > 0 else None


def catches_everything(x):
    o = _either(Multiplies(x), 1)
    try:
        r = np.sum((o + 3.0).v)
    except Exception:
        r = np.sum(x) * 100.0
    return r


def test_adsrcs_own_refusal_is_not_taken_for_the_programs_exception():
    with pytest.raises(adsrc.TransformError, match="its own `__add__`"):
        adsrc.grad(catches_everything)(np.ones(2))


def test_a_function_that_wraps_a_jacobian_is_not_taken_for_it():
    # functools.wraps copies the Jacobian function's attributes: jacfwd must not then differentiate J itself
    # (the factor 2 would be lost); it differentiates `twice`, or says it cannot
    import functools

    def f(x):
        return x ** 3

    J = adsrc.jacobian(f)

    @functools.wraps(J)
    def twice(x):
        return 2.0 * J(x)

    x = np.array([0.5, -1.0])
    try:
        second = adsrc.jacfwd(twice)(x)
    except adsrc.TransformError:
        return
    np.testing.assert_allclose(second[0, 0], [12.0 * 0.5, 0.0], rtol=1e-12)


def finally_after_a_handler_that_returns(x):
    try:
        y = math.log(x)
    except ValueError:
        return x * x
    finally:
        print("done")
    return y


def finally_without_except_after_a_return(x):
    try:
        return x * 2.0
    finally:
        print("done")


@pytest.mark.parametrize("fn", [finally_after_a_handler_that_returns, finally_without_except_after_a_return])
def test_finally_after_any_jump_is_refused(fn):
    with pytest.raises(adsrc.TransformError, match="`finally` after a `try` block, `except` clause or `else`"):
        adsrc.grad(fn)(2.0)
