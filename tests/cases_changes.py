"""Programs adsrc once refused, because they change objects in place that other names share.

Python changes the object itself, which every name sharing it then sees; adsrc
now computes new values and brings those names up to date
(lowering/functionalize.py). Each is checked against central finite
differences, and the inputs must come back unchanged.
"""

import copy
import operator

import numpy as np

from casekit import Registry, rand

CASES = Registry()
case = CASES.case
X = (np.array([0.5, -1.0, 2.0]),)


@case(np.array([0.5, -1.0, 2.0]))
def deletes(x):
    y = x * 2.0
    del y
    return np.sum(x * x)


@case(np.array([0.5, -1.0, 2.0]))
def aliased_setitem(x):
    y = x * 1.0
    view = y[:2]
    y[0] = 5.0
    return np.sum(view)


@case(np.array([1.0, 2.0]))
def aliased_inplace_array(x):
    y = x * 1.0
    z = y
    z += 1.0
    return np.sum(y * z)


@case(np.array([0.5, -1.0, 2.0]))
def mutating_method(x):
    y = x * 1.0
    y.sort()
    return np.sum(y)


@case(np.array([0.5, -1.0, 2.0]))
def starred_target(x):
    a, *rest = x
    return a


def fill_first(buf, v):
    buf[0] = v


def fill_first_and_return(buf, v):
    buf[0] = v
    return buf


def append_twice(lst, v):
    lst.append(v * 2.0)


def add_into(a, b):
    a += b
    return a


@case(np.array([0.5, -1.0, 2.0]))
def calls_fill_first(x):
    y = np.zeros(3)
    fill_first(y, x[1])
    return np.sum(y * x)


@case(np.array([0.5, -1.0, 2.0]))
def calls_fill_first_and_return(x):
    y = np.zeros(3)
    z = fill_first_and_return(y, x[1])
    return np.sum(y * x) + np.sum(z)


@case(np.array([0.5, -1.0, 2.0]))
def calls_append_twice(x):
    out = []
    append_twice(out, x[0])
    return out[0] * 3.0


@case(np.array([0.5, -1.0, 2.0]))
def calls_add_into(x):
    return np.sum(add_into(x * 1.0, x))


@case(np.array([0.5, -1.0, 2.0]))
def uses_copyto(x):
    y = np.zeros(3)
    np.copyto(y, x)
    return np.sum(y ** 2)


@case(np.array([0.5, -1.0, 2.0]))
def uses_add_at(x):
    y = np.zeros(3)
    np.add.at(y, [0, 0, 1], x)
    return np.sum(y ** 2)


@case(np.array([0.5, -1.0, 2.0]))
def uses_out_argument(x):
    y = np.zeros(3)
    np.exp(x, out=y)
    return np.sum(y)


@case(np.array([0.5, -1.0, 2.0]))
def appends_to_a_shared_item(x):
    groups = [[], []]
    first = groups[0]
    groups[0].append(x[0])
    return sum(first) + x[1]


@case(np.array([0.5, -1.0, 2.0]))
def scales_an_array_held_in_a_dict(x):
    x = x * 1.0
    d = {"a": x}
    d["a"] *= 2.0
    return np.sum(x)


@case(np.array([0.5, -1.0, 2.0]))
def scales_the_values_of_a_dict(x):
    d = {"a": x * 1.0, "b": x * 2.0}
    for v in d.values():
        v *= 0.5
    return np.sum(d["a"]) + np.sum(d["b"])


@case(np.array([0.5, -1.0, 2.0]))
def nested_sets_an_item_of_its_argument(x):
    y = x * 1.0

    def zero_first(a):
        a[0] = 0.0
        return a * 2.0
    z = zero_first(y)
    return np.sum(y) + np.sum(z)


@case(np.array([0.5, -1.0, 2.0]))
def nested_appends_to_its_argument(x):
    def grow(a):
        a.append(3.0)
    lst = [x[0]]
    grow(lst)
    return sum(lst) * x[1]


@case(np.array([0.5, -1.0, 2.0]))
def nested_fills_an_outer_array(x):
    out = np.zeros(3)

    def put(i, v):
        out[i] = v
    for i in range(3):
        put(i, x[i] ** 2)
    return np.sum(out)


@case(np.array([0.5, -1.0, 2.0]))
def nested_scales_its_argument(x):
    y = x * 1.0

    def scale(a):
        a *= 2.0
        return a
    z = scale(y)
    return np.sum(y) + np.sum(z)


@case(np.array([0.5, -1.0, 2.0]))
def closure_returns_an_outer_array(x):
    y = x * 1.0
    get = lambda: y                      # noqa: E731
    z = get()
    z[0] = 0.0
    return np.sum(y)


@case(np.array([0.5, -1.0, 2.0]))
def nested_calls_a_nested_function_that_changes_its_argument(x):
    y = x * 1.0

    def zero_first(a):
        a[0] = 0.0
        return a

    def through(b):
        return zero_first(b)
    z = through(y)
    return np.sum(y) + np.sum(z)


@case(np.array([0.5, -1.0, 2.0]))
def repeated_fancy_assignment(x):
    y = np.zeros(3)
    y[np.array([0, 0])] = x[:2]          # NumPy keeps the last write: y[0] = x[1]
    return np.sum(y * x)


@case(np.array([0.5, -1.0, 2.0]))
def repeated_fancy_augmented_assignment(x):
    y = x.copy()
    y[[0, 0, 1]] += x[2]                 # each position is written once with its old value plus x[2]
    return np.sum(y ** 2)


@case(np.array([0.5, -1.0, 2.0]))
def view_written_in_a_loop(x):
    buf = np.zeros(4)
    view = buf[1:]
    for i in range(3):
        view[i] = x[i] * (i + 2)
    return np.sum(buf ** 2)


@case(np.array([0.5, -1.0, 2.0]))
def rows_of_a_list_changed_while_iterating(x):
    rows = [x * i for i in range(3)]
    for r in rows:
        r[0] = r[0] * 2.0
    return np.sum(np.stack(rows) ** 2)


@case(np.array([0.5, -1.0, 2.0]))
def old_row_of_a_rebound_array(x):
    a = np.ones((2, 3)) * x
    row = a[1]
    a = a * 2.0
    row[0] = 9.0                         # changes the first a, not the new one
    return np.sum(a) + np.sum(row)


@case(np.array([0.5, -1.0, 2.0]))
def closure_changing_an_outer_array(x):
    y = x * 1.0

    def bump():
        y[0] += 1.0
    bump()
    bump()
    return np.sum(y ** 2)



# -- found by the random programs (each was a silent wrong gradient or a refusal) ------------------------------------

@case(np.array([-0.23, -0.815, -1.23]))
def halving_a_view_while_iterating_its_base(xs):
    xs = xs * xs
    for t in xs:
        w = xs[None]
        w[0] *= 0.5
        last = t
    return np.sum(xs) + last


@case(np.array([[0.56, -0.43, 0.37], [0.66, 0.32, -0.29]]))
def a_copy_by_astype_changed_through_a_second_name(w):
    c = w.astype(float)
    alias = c
    alias[[0]] -= alias[[0]]
    return np.sum(w) + np.sum(c ** 2)


@case(0.633)
def a_view_changed_through_a_second_name_then_its_base(s):
    a = np.array([0.4, -0.1, 0.9, 0.2]) * 0.3
    w = a[-3:]
    v = np.sum(np.sin(w) * s)
    alias = w
    alias += np.stack([v ** 2, s, v])
    a -= np.abs(v)
    return np.sum(np.tanh(w) * w)


@case(np.array([1.234, 0.026, 1.219]),
      np.array([[0.599, 1.404, 0.482], [-0.256, -0.71, -1.318], [1.12, 0.033, -1.101], [-0.377, -0.507, -1.299]]),
      argnums=1)
def a_masked_update_of_a_row_minimum_view(xs, W):
    # (the names matter: W sorts before v4, the order adsrc once followed them in)
    v4 = np.min(W, axis=1, keepdims=True)
    if np.linalg.norm(v4) < 1.819:
        other = sum(map(lambda t: np.sin(t) * 0.5, xs))
    else:
        tail = v4[1:]
        tail[tail > -1.2] += np.sum(v4)
    return np.sum(np.tanh(W) * W) + np.mean(np.sin(v4))


@case(0.7, np.array([0.2, 0.5, -0.3]), argnums=(0, 1))
def rows_unpacked_from_an_array_then_changed(s, xs):
    grid = np.linspace(0.5, 1.0, 12).reshape(4, 3) * s
    r0, r1, r2, r3 = grid
    grid[..., 0] = 0.25 * s
    w = r2.reshape(1, 3)
    w[0] += xs
    return np.sum(r0 * r2) + np.sum(grid ** 2)


@case(np.array([0.3, -1.2]), {"w0": np.array([1.5, 0.5])})
def dict_displays_with_unpacking_and_update_keywords(x, p):
    d = {**p, "a": x * 2.0}
    e = {"c": x, **d, "b": np.sin(x)}
    e.update(z=x * x, b=e["b"] * 3.0)
    q = dict(e)
    q.update(p, w=x)
    return np.sum(d["a"] * e["w0"]) + np.sum(e["b"]) + np.sum(e["z"]) + np.sum(q["w"] * p["w0"]) + np.sum(q["c"])


@case(np.array([-0.916, -1.37, 0.617]))
def a_list_concatenation_holds_an_array_changed_later(xs):
    hs = []
    h = np.linspace(0.1, 0.7, 4)
    hs.append(h)
    y = np.mean(hs, axis=0)
    hs = hs + [y]
    y += np.concatenate([[xs.sum()]])
    return np.sum(hs)


@case(np.array([-1.462, 0.712, -0.851]), -0.643, np.array([[-1.332, 1.166, 0.832], [-0.658, -1.332, 0.743]]),
      argnums=(0, 1, 2))
def a_view_of_a_view_changed_twice_in_a_while_loop(xs, s, W):
    c = 0
    while c < 1:
        xs = xs * 0.6
        whole = xs[:]
        every_other = whole[::2]
        every_other += s
        every_other[1] *= np.sum(W)
        also = whole
        break
    return np.mean(xs)


@case(np.array([-0.877, 0.082, 0.144]))
def a_view_of_the_iterated_array_leaves_the_loop(xs):
    xs = xs * 1.0
    for t in xs:
        xs[1:] *= t
        column = xs[:, None]
    return np.sum(column)


@case(np.array([0.546, 0.272, -0.07]))
def a_negative_constant_folded_into_an_augmented_assignment(xs):
    y = np.array(xs)
    y -= 0.5 * -1.2
    return np.sum(xs * y)


@case(np.array([-0.087, 0.136, -0.385]), -0.927, argnums=(0, 1))
def a_closure_called_in_a_condition_reads_the_variable_as_rebound(xs, s):
    def scaled(t):
        return t * s
    for t in xs:
        s = s * 0.6 + t
    if scaled(1.0) > -0.7:         # Python reads s after the loop (late binding): -0.53, not -0.93
        return s * 2.0
    return s * 3.0


@case(np.array([-0.4, -0.963, 0.01]), np.array([[-0.91, -0.689], [0.737, -0.004]]), argnums=(0, 1))
def dict_items_are_read_live_while_the_loop_changes_a_later_value(xs, W):
    d = dict(a=W * 2.0, c=W)
    for k, val in d.items():
        xs = xs * 0.6 + np.sum(np.sin(val))
        d["c"] = 0.5 * d["c"] + 1.0           # the iteration of "c" sees this value, as in Python
    tot = 0.0
    for v in d.values():
        tot = tot + np.sum(v * v)
    for pair in d.items():
        tot = tot + np.sum(pair[1])
    return np.sum(xs ** 2) + tot


@case(np.array([0.827, -0.548, -0.239]), 0.633, argnums=(0, 1))
def a_list_minus_a_number_rebinds_rather_than_changes(xs, s):
    a = [0.2, float(xs[0])]
    alias = a
    a -= np.sum(s * xs)          # lists have no -=: a = a - v, a new array; alias is still the list
    b = [xs[1]]
    b_alias = b
    b += [s]                     # lists do have +=: b_alias sees it
    return np.sum(alias) * 2.0 + np.sum(a) + np.sum(b_alias) * 3.0


@case(np.array([-0.859, -0.591, -0.174]))
def views_read_backward_of_an_array_changed_in_place_after_a_loop(xs):
    # random program 21: the update was made in place although the backward pass reads views of the
    # old array (their name had changed under copy propagation), so d/dxs[0] came out with the wrong sign
    hs = [np.array([0.2]), np.array([0.2])]
    y = hs[1] * 0.5
    for t in xs:
        w = y
        w[w > 0.02] += t
    y[:1] *= y[:1]
    return np.sum(y) + sum(np.sum(e) for e in hs)


@case(np.array([-0.293, 0.614, -0.796]), 0.877)
@case(np.array([-0.293, 1.614, -0.796]), 0.877)
def a_view_or_a_converted_copy_then_changed_in_place(xs, s):
    # random program 921: `astype` was taken for a possible view, and the array the view came from was
    # not brought up to date (the value itself was wrong)
    a = np.cos(np.array([0.3, 0.2, 0.7]) * s)
    w = a.reshape(1, 3)
    a[1] -= np.max(xs)
    if np.sum(a) > 1.8:
        pass
    else:
        w = w.astype(float)
    w2 = np.squeeze(w)
    w2[1:] -= w2[1:] * xs[1:]
    return np.sum(a * xs) + np.sum(w * s)


class _Holder:
    def __init__(self, v):
        self.v = v


@case(rand(3))
def loop_over_an_item_the_body_replaces(x):
    # Python iterates over the objects the items held when the loops began; replacing an item (not changing
    # it in place) leaves them as they were (adsrc took the new items: value and gradient were wrong)
    d = {"b": x * 1.0}
    for e in d["b"]:
        d["b"] = d["b"] + e
    lst = [x * 1.0, x * 2.0]
    for i, e in enumerate(lst[0]):
        lst[0] = lst[0] * e
    box = _Holder(x * 1.0)
    for e in box.v:
        box.v = box.v + e
    t = d["b"]
    d["b"] = x * 3.0
    t[0] = 7.0 * x[1]           # into the old array only
    return np.sum(d["b"]) + np.sum(t) + np.sum(lst[0]) + np.sum(lst[1]) + np.sum(box.v)


def _shifted_in_place(p):
    p += 0.3
    return np.sum(p)


def _shrunk_in_place(p):
    p /= 1.5


@case(rand(3))
def helpers_changing_arguments_inside_tests(x):
    # in a test (if, elif, while, a conditional expression, assert, np.where's condition) the call ran as
    # written: the caller's arrays changed without adsrc knowing (the input too), and the gradient was wrong
    a = x * 1.0
    if x[0] > 5.0:
        a = a * 2.0
    elif _shrunk_in_place(a):
        pass
    b = x * 2.0
    k = 0
    while _shifted_in_place(b) < 2.0 and k < 3:
        k += 1
    c = x * 3.0
    y = x[0] if _shifted_in_place(c) > -10.0 else x[1]
    assert _shifted_in_place(c) > -100.0
    w = np.where(_shifted_in_place(a) > 0.0, np.mean(a), 0.0)
    return np.sum(a * a) + np.sum(b ** 2) + np.sum(c * x) + y + w


@case(1.5)
def nested_call_compared_with_a_conditional_expression(s):
    def inner(u):
        return u * 2.0
    if 0.0 < inner(s) < (s if s > 0 else 0.0) + 10.0:
        s = 3.0 * s
    return 2.0 * s


def _doubled_then_shifted(p):
    p *= 2.0            # changes the caller's array
    return p + 1.0      # and returns another one


@case(rand(3))
def name_rebound_to_what_a_changing_helper_returns(x):
    # `x = h(x)`: x takes the returned array; adsrc gave it the changed argument (value and gradient wrong)
    y = x * 1.0
    z = y
    y = _doubled_then_shifted(y)
    w = x[1:] * 1.0
    w = _doubled_then_shifted(w[:1])
    return np.sum(y * y) + np.sum(z * x) + np.sum(w)


_ROW_WEIGHTS = np.array([1.0, 2.0, 3.0])


@case(rand(2, 3))
def write_through_a_flat_view_then_a_broadcasting_product(a):
    # the cotangent of the write was taken on a copy laid out in another order: the write's zero was lost
    b = a * 1.0
    v = b.ravel()
    v[1] = 0.56
    c = a * 2.0
    u = c.reshape(-1)
    u[u > 0.5] = 0.0
    return np.sum(b * _ROW_WEIGHTS) + np.sum(c * _ROW_WEIGHTS[:, None].T)


def _shift_both(p0, p1):
    p1 -= 1.0
    p0 += 0.5


@case(rand(2))
def helper_changes_two_items_of_one_dict(b):
    # only the first argument's change reached the dict (the second's was dropped: a wrong value)
    d = {"a": b * 1.0, "b": b * 2.0}
    _shift_both(d["b"], d["a"])
    t = b * b
    e = {"a": t, "b": np.array([0.5])}
    _shift_both(e["b"], t)
    return np.mean(d["a"] * b) + np.mean(d["b"] ** 2) + np.mean(e["a"] * b) + np.sum(e["b"])


class _Wrapper:
    def __init__(self, w):
        self.w = w


@case(np.array([1.0, -2.0, 0.5]))
def shallow_copies_share_what_they_hold(x):
    # list.copy(), dict.copy() and copy.copy(obj) are shallow: a change in place through the copy reaches the
    # original (adsrc took them for new objects: the change was dropped, and value and gradient were wrong)
    a = [x * 1.0]
    b = a.copy()
    b[0] *= 3.0
    d = {"w": x * 2.0, "k": [x]}
    d2 = d.copy()
    d2["w"] *= 0.5
    d2["k"].append(x * x)
    m = _Wrapper(x + 1.0)
    m2 = copy.copy(m)
    m2.w *= 2.0
    m2.w[0] = 0.25
    n = _Wrapper([x * 1.0])
    n2 = copy.copy(n)
    n2.w.append(x)
    n2.w[0][0] = 10.0
    total = np.sum(a[0] * x) + np.sum(d["w"] * x) + sum(np.sum(v) for v in d["k"]) + np.sum(m.w * x)
    return total + sum(np.sum(v * x) for v in n.w)


@case(np.array([1.0, -2.0, 0.5]))
def augmented_assignment_through_operator_and_dunder_calls(x):
    # operator.iadd(a, x) and a.__imul__(2.0) change an array in place (adsrc computed a new value and left
    # a unchanged: the gradient was wrong); on a number they make a new value and leave the name as it was
    a = x * 1.0
    b = operator.iadd(a, x)
    a.__imul__(2.0)
    s = x[0]
    t = operator.imul(s, 3.0)
    lst = [x[1]]
    operator.iadd(lst, [x[2]])
    return np.sum(a * x) + np.sum(b) + s * t + sum(lst)


@case(np.array([0.3, -0.7, 1.2, 0.5]))
def views_in_a_tuple_changed_through_its_names(x):
    # a view held in a tuple, changed through the loop variable: the tuple was turned into an array when the
    # change was written back into it
    a = x * 1.0
    v1, v2 = a[:2], a[2:]
    for v in (v1,):
        v *= 2.0
    v2 *= 3.0
    return np.sum(a * x) + np.sum(v1) + np.sum(v2)


@case(np.arange(1.0, 7.0))
def an_arrays_shape_assigned(x):
    # `a.shape = (2, 3)` reshapes the array in place (it crashed inside adsrc); a name sharing it sees it
    a = x * 1.0
    b = a
    a.shape = (2, 3)
    return np.sum(b[0] * 2.0) + np.sum(a[1] * x[:3]) + np.sum(a[0] * a[1])


class _Cell:
    """A state kept in a field, changed in place by some methods and replaced by others."""

    def __init__(self, h):
        self.h = h

    def state(self):
        return self.h

    def step_in_place(self, x):
        self.h[:] = np.tanh(self.h + x)

    def add_in_place(self, x):
        self.h += x

    def step_new(self, x):
        self.h = np.tanh(self.h + x)

    def step_then(self, x):
        self.add_in_place(x)        # through a method it calls: changed in place


@case(np.array([0.3, -0.2, 0.5]))
def a_field_kept_across_a_method_that_replaces_it(x):
    # `prev = cell.h; cell.step(x)` with step putting a new array in the field: prev is the old array (adsrc
    # followed the field, so prev was the new state: value and gradient wrong)
    cell = _Cell(x * 2.0)
    prev = cell.h
    cell.step_new(x)
    also = cell.state()
    cell.step_new(x * 0.5)
    return np.sum((cell.h - prev) ** 2) + np.sum(also * x)


@case(np.array([0.3, -0.2, 0.5]))
def a_field_returned_by_a_method_then_changed_in_place(x):
    # `s = cell.state()` returns the field itself: a later change in place is seen through s (it was not)
    cell = _Cell(x * 1.0)
    s = cell.state()
    cell.step_in_place(x)
    t = cell.h
    cell.add_in_place(x * 0.5)
    u = cell.state()
    cell.step_then(x)
    return np.sum(s * x) + np.sum(t * t) + np.sum(u)


def _set_first(lst, v):
    lst[0] = v


@case(np.array([0.3, -0.2, 0.5]))
def a_list_item_replaced_by_a_helper(x):
    # the old item is no longer the list's: `a` keeps it (adsrc gave `a` the new item)
    lst = [x * 1.0, x * 2.0]
    a = lst[0]
    _set_first(lst, x * 5.0)
    return np.sum(a * x) + np.sum(lst[0] * x)


@case(np.array([[0.3, -0.2], [0.5, 1.1]]))
def a_row_of_an_array_item_written_by_a_helper(x):
    # writing into an array's row is seen through a view of that row taken before
    a = x * 1.0
    row = a[0]
    _set_first(a, x[1] * 3.0)
    return np.sum(row * x[0]) + np.sum(a * a)


class _CountingCell:
    """A cell that replaces its state and counts its steps (`self.steps += 1` next to `self.h = ...`)."""

    def __init__(self, U):
        self.U = U
        self.h = np.zeros(2)
        self.steps = 0

    def __call__(self, x):
        self.h = np.tanh(self.U @ self.h + x)
        self.steps += 1
        return self.h


@case(np.array([[0.1, 0.2], [0.3, -0.4], [0.5, 0.1]]), np.array([[0.9, -0.2], [0.3, 0.8]]), argnums=(0, 1))
def a_cells_returned_state_kept_across_its_next_steps(xs, U):
    # each step's returned state is the array the step made; the next step replaces the field (no change in
    # place), so `h` keeps its value; the counter changes in place next to it
    cell = _CountingCell(U)
    total = 0.0
    prev = cell.h
    for x in xs:
        h = cell(x)
        total = total + np.sum(h * prev) + np.sum(h)
        prev = h
    return total + cell.steps * 0.1


def _drop_first(lst):
    lst.pop(0)


class _Queue:
    def __init__(self, items):
        self.items = items

    def take(self):
        return self.items.pop(0)

    def put(self, v):
        self.items.append(v)


@case(np.array([0.3, -0.5, 0.7]))
def items_taken_before_a_list_or_dict_changes(x):
    # `a = lst[0]` then `lst.pop(0)` (here or in a helper), `d.update(...)`, `d |= {...}`, `lst.reverse()`:
    # the items move or are replaced, and `a` keeps its object (adsrc gave it the new first item)
    lst = [x * 1.0, x * 2.0, x * 3.0]
    a = lst[0]
    lst.pop(0)
    b = lst[0]
    _drop_first(lst)
    d = {"a": x * 1.0}
    c = d["a"]
    d.update({"a": x * x})
    e = d["a"]
    d |= {"a": x * 4.0}
    q = _Queue([x * 5.0, x * 6.0])
    head = q.items[0]
    q.take()
    q.put(x * 7.0)
    return np.sum(a * x) + np.sum(b * x) + np.sum(lst[0]) + np.sum(c * e) + np.sum(d["a"] * x) + \
        np.sum(head * q.items[0] * q.items[-1])


@case(np.array([0.3, -0.5, 0.7]))
def a_dicts_values_merged_with_or(x):
    # `d | e` and `d |= e` of dicts (the gradient was dropped: `|` was read as a bitwise operator)
    d = {"a": x * 1.0, "b": x * 2.0}
    merged = d | {"a": x * x}
    d |= {"b": x * 3.0, "c": x}
    return np.sum(merged["a"] * merged["b"]) + np.sum(d["b"] * d["c"]) + np.sum(d["a"])


class _Layer:
    def __init__(self, w):
        self.w = w
        self.h = np.zeros(3)

    def step(self):
        self.h = self.w * 2.0


@case(np.array([0.3, -0.5, 0.7]))
def a_field_kept_across_a_step_in_a_loop_over_layers(x):
    # `for L in layers: prev = L.h; L.step()` with step replacing L.h: prev keeps the old array (adsrc followed
    # L's new field through the list)
    layers = [_Layer(x), _Layer(x * 2.0)]
    total = 0.0
    for L in layers:
        prev = L.h
        L.step()
        total = total + np.sum(prev * x) + np.sum(L.h * x)
    return total


@case(np.array([0.3, -0.5, 0.7]))
def an_array_in_a_dict_changed_through_the_dict_with_another_name_holding_it(x):
    # `a` is the dict's array; the dict also got a new key before: the change must reach both names
    d = {"q": x * 0.5}
    d["first"] = d["q"][0]
    a = d["q"]
    d["q"][0] -= 0.2 * d["q"][1]
    return np.sum(a * a) + np.sum(d["q"]) + d["first"]


@case(np.array([[0.3, -0.5], [0.7, 0.2]]))
def a_row_of_a_dicts_matrix_changed_after_the_dict_grew(x):
    d = {"m": x * 1.0}
    d["n"] = 2.0
    m = d["m"]
    d["m"][0] *= d["m"][1]
    return np.sum(m * d["m"]) + d["n"]


@case(np.array([0.274, -0.46, 0.31]))
@case(np.array([-1.377, -1.45, 0.2]))
def two_views_of_a_name_that_is_the_input_or_a_new_array(x):
    # z is x or a new array, as the branch goes: the second view's change must reach the first view through z
    # too, not only through x (the first view kept its old value: wrong gradient, random program)
    z = x
    if x[0] > -10.0:
        z = 0.5 * np.tanh(z)
    flat = z.reshape(1, -1)
    flat[-1] += 1.0
    tail = z[1:]
    tail[0] += 0.5
    return np.sum(np.sin(flat)) + np.sum(np.sin(x)) + np.sum(np.sin(z))


@case(np.array([[-0.5, -0.7, 0.6], [0.6, 0.9, 0.6]]))
def one_array_twice_in_a_list_changed_through_the_loop_variable(A):
    # both items are v: each step changes v, and the list read afterwards holds v twice (the loop read its second
    # item as the old v: wrong gradient, random program)
    v = np.linspace(0.1, 0.9, 4)[None, :] + 0.0
    held = [v, v]
    for a in held:
        a *= np.sum(A)
    return np.sum(v ** 2) + sum(np.sum(e) for e in held)


@case(rand(4))
def astype_without_a_copy_shares_the_array(x):
    z = x * 1.0
    same = z.astype(float, copy=False)          # z itself: the write below changes z
    same[0] = 3.0 * same[1]
    counts = np.arange(4).astype(dtype=float, copy=False)      # a converted copy of integers
    counts[1] = 5.0
    return np.sum(z ** 2) + np.sum(counts * x)


@case(rand(3, 4))
def putmask_and_place_on_a_copy(x):
    # (np.putmask and np.place were refused as writers adsrc cannot follow)
    y = x.copy()
    np.putmask(y, y > 0, y * 2.0)
    z = x * 1.5
    np.place(z, z < 0, [0.5, x[0, 0]])
    return np.sum(y ** 2) + np.sum(z ** 3)


@case(rand(3, 4))
def shape_assigned_then_a_broadcast_weight(x):
    # (`y.shape = (4, 3)` and a cotangent broadcast over the new shape: NumPy's reshape error)
    y = x.copy()
    y.shape = (4, 3)
    return np.sum(y * np.arange(3.0)) + np.sum(y[0] ** 2)


@case(rand(4))
def array_without_a_copy_is_the_array_itself(x):
    # np.array(y, copy=False) (and copy=None) is y itself when no copy is needed: a change through it reaches y
    # (was refused: np.array's rule took copy=True only)
    y = x * 1.0
    z = np.array(y, copy=False)
    z *= 2.0
    w = np.array(y, dtype=float, copy=None)
    return np.sum(y * x) + np.sum(w ** 2)
