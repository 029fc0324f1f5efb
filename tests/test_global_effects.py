"""Recording into a global (a loss history, a call counter) inside a differentiated function: the
write runs once per call, with the value as it is, and the gradient is unchanged; refused only when
the function reads that object again (the gradient would have to flow through it)."""

import numpy as np
import pytest

import adsrc

HISTORY = []
COUNTS = {"calls": 0}


def appends_its_loss(x):
    loss = np.sum(np.sin(x) ** 2)
    HISTORY.append(loss)
    return loss


def counts_and_records(x):
    COUNTS["calls"] += 1
    loss = np.sum(x ** 3)
    COUNTS["last"] = loss
    return loss


def records_in_a_loop(x):
    s = 0.0
    for i in range(3):
        s = s + np.sin(x[i]) * (i + 1.0)
        HISTORY.append(s)
    return s


def reads_its_record_back(x):
    HISTORY.append(np.sum(x ** 2))
    return HISTORY[-1] * 2.0


def central(f, x, eps=1e-6):
    return np.array([(f(x + eps * u) - f(x - eps * u)) / (2 * eps) for u in np.eye(x.size)])


@pytest.mark.parametrize("f, writes", [(appends_its_loss, 1), (records_in_a_loop, 3)])
def test_appending_to_a_global_history(f, writes):
    x = np.array([0.3, -0.7, 1.1])
    HISTORY.clear()
    g = adsrc.grad(f)(x)
    assert len(HISTORY) == writes                       # the forward pass ran the appends, once
    assert HISTORY[-1] == pytest.approx(f(x))
    np.testing.assert_allclose(g, central(f, x), rtol=1e-6, atol=1e-9)


def test_counting_and_recording_in_a_global_dict():
    x = np.array([0.3, -0.7])
    COUNTS.clear()
    COUNTS["calls"] = 0
    g = adsrc.grad(counts_and_records)
    for k in range(3):
        np.testing.assert_allclose(g(x), 3 * x ** 2, rtol=1e-12)
    assert COUNTS["calls"] == 3 and COUNTS["last"] == pytest.approx(np.sum(x ** 3))


def test_reading_the_record_back_is_refused():
    with pytest.raises(adsrc.TransformError, match="reads that object again"):
        adsrc.grad(reads_its_record_back)(np.ones(2))


n_evaluations = 0
best_loss = 1e9
last_loss = None


def counts_with_a_global(x):
    global n_evaluations
    n_evaluations += 1
    return np.sum(x ** 2) * (1.0 if n_evaluations > 0 else 2.0)


def keeps_the_best(x):
    global best_loss
    loss = np.sum(np.sin(x) ** 2)
    if loss < best_loss:
        best_loss = float(loss)
    return loss


def reads_its_global_back(x):
    global last_loss
    last_loss = np.sum(x ** 2)
    return last_loss * 2.0


def test_global_declarations_assign_the_module_variable_each_call():
    global n_evaluations, best_loss
    n_evaluations, best_loss = 0, 1e9
    g = adsrc.grad(counts_with_a_global)
    x = np.array([0.5, -1.0])
    for k in range(1, 4):
        np.testing.assert_allclose(g(x), 2.0 * x, rtol=1e-12)
        assert n_evaluations == k                    # read live, written back, one transformation
    assert g.cache_info().misses == 1
    h = adsrc.grad(keeps_the_best)
    np.testing.assert_allclose(h(x), central(keeps_the_best, x), rtol=1e-6, atol=1e-9)
    assert best_loss == pytest.approx(keeps_the_best(x))
    h(x * 0.1)
    assert best_loss == pytest.approx(np.sum(np.sin(x * 0.1) ** 2))


def test_a_differentiated_global_read_back_is_refused():
    with pytest.raises(adsrc.TransformError, match="writes into `last_loss`.*reads that object again"):
        adsrc.grad(reads_its_global_back)(np.ones(2))


def test_assigning_a_declared_global_works():
    import bad_functions as bad
    assert adsrc.grad(bad.assigns_global)(0.5) == 2.0
    assert bad.COUNTER == 1


def declares_a_global_in_a_nested_function(x):
    def inner():
        global n_evaluations
        n_evaluations = 0
    inner()
    return np.sum(x)


def test_a_global_declared_in_a_nested_function_is_refused():
    with pytest.raises(adsrc.TransformError, match="not in a function nested in it"):
        adsrc.grad(declares_a_global_in_a_nested_function)(np.ones(2))


WEIGHTS = np.array([0.94, 0.02, 0.66])


def _set_last(p):
    p[2] = 0.5
    return p


def passes_a_global_array_to_a_helper_that_changes_it(w):
    t = np.sum(WEIGHTS * w)
    _set_last(WEIGHTS)
    return t


def test_a_helper_changing_a_global_array_is_refused_by_name():
    # the generated code bound the global's new value to a local of the same name: an UnboundLocalError
    with pytest.raises(adsrc.TransformError, match=r"WEIGHTS.*does not own"):
        adsrc.grad(passes_a_global_array_to_a_helper_that_changes_it)(np.ones(3))
    np.testing.assert_array_equal(WEIGHTS, [0.94, 0.02, 0.66])


SCALE = 1.3


def _scaled(p, x):
    p *= 0.7                # a number: the helper's own name is rebound, the caller's value stays
    return np.sum(p * x ** 2)


def passes_a_global_number_to_a_helper_that_rebinds_it(x):
    return _scaled(SCALE, x)


def test_a_global_number_passed_to_a_helper_that_rebinds_it_is_differentiated():
    x = np.array([0.3, -0.7])
    np.testing.assert_allclose(adsrc.grad(passes_a_global_number_to_a_helper_that_rebinds_it)(x),
                               0.7 * 1.3 * 2 * x, rtol=1e-12)
    assert SCALE == 1.3


def copies_of_a_global_changed_in_place(w):
    y = WEIGHTS[[2, 0, 1]]           # advanced indexing, arithmetic and masks make new arrays: f owns them
    y *= -0.7
    z = WEIGHTS * 2.0
    z[0] = w[1]
    m = WEIGHTS[WEIGHTS > 0.5]
    m += w[:2]
    return np.sum(y * w) + np.sum(z * w) + np.sum(m ** 2)


def test_new_arrays_made_from_a_global_can_be_changed_in_place():
    # they were refused as objects adsrc does not own
    from casekit import central_grad
    w = np.array([0.3, -0.2, 0.5])
    np.testing.assert_allclose(adsrc.grad(copies_of_a_global_changed_in_place)(w),
                               central_grad(copies_of_a_global_changed_in_place, w), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(WEIGHTS, [0.94, 0.02, 0.66])


def _shift_first_read_second(p, q):
    p += 0.4
    return q * 1.0


def passes_one_array_twice_to_a_helper_that_changes_one(v):
    return np.sum(_shift_first_read_second(v, v) ** 2)


def passes_two_arrays_to_it(v):
    w = v * 1.0
    return np.sum(_shift_first_read_second(w, v) ** 2) + np.sum(w)


def test_one_array_passed_for_two_parameters_of_a_helper_that_changes_one_is_refused():
    # Python's second parameter sees the change through the first; adsrc's did not (a silently wrong gradient)
    v = np.array([0.3, -0.7, 1.2])
    with pytest.raises(adsrc.TransformError, match="same array here"):
        adsrc.grad(passes_one_array_twice_to_a_helper_that_changes_one)(v)
    np.testing.assert_allclose(adsrc.grad(passes_two_arrays_to_it)(v), 2 * v + 1.0, rtol=1e-12)
