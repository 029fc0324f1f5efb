"""Views of an array that containers hold (dicts, lists, tuples, objects' fields), changed through the container
or through the array: each program's value against NumPy's own (the function run as it is) and its derivatives
against central differences.

In NumPy a dict's `d["r"] = v[0]` shares v's memory: a change through either is seen through the other.
adsrc's functionalized code gives v a new array at each change; the views the containers hold are taken again
from it (rules/held_parts.py, lowering/functionalize.py). A view it cannot follow is refused, naming the line.
"""

import copy

import numpy as np
import pytest

import adsrc

H = 1e-6
RTOL, ATOL = 1e-6, 1e-7          # central differences of step H, on values of order 1 to 100


class Box:
    def __init__(self, r):
        self.r = r


# -- programs of one number ----------------------------------------------------------------------------------------

def d_view_write_then_base_iadd_item(s):
    v = np.ones((3, 2)) * s
    held = {"r": v[0]}
    held["r"][1] *= 0.5
    v[0, 0] += 0.3
    return np.sum(np.cos(held["r"]))


def d_view_setitem_then_base_setitem(s):
    v = np.ones((3, 2)) * s
    d = {"r": v[0]}
    d["r"][...] = np.sin(d["r"]) * s
    v[0] = v[0] * 2.0
    return np.sum(d["r"] ** 2) + np.sum(v)


def d_view_slice_setitem_then_base_iadd(s):
    v = np.arange(6.0).reshape(3, 2) * s
    d = {"r": v[1:]}
    d["r"][0, 1] = s ** 2
    v += 0.5
    return np.sum(np.sin(d["r"])) + np.sum(v * v)


def d_view_iadd_then_base_item(s):
    v = np.ones(4) * s
    d = {"a": v[:2], "b": v[2:]}
    d["a"] += s
    v[3] = v[0] * 3.0
    return np.sum(d["a"] * d["b"])


def d_views_two_keys_then_base_iadd(s):
    v = np.linspace(0.1, 1.0, 6).reshape(2, 3) * s
    d = {"x": v[0], "y": v[1]}
    d["x"][0] *= 2.0
    d["y"][1] = d["x"][0] + 1.0
    v += s
    return np.sum(np.cos(d["x"])) + np.sum(d["y"] ** 2)


def nested_dict_in_list(s):
    v = np.ones((3, 2)) * s
    held = [{"r": v[0]}]
    held[0]["r"][1] *= 0.5
    v[0, 0] += 0.3
    return np.sum(np.cos(held[0]["r"]))


def list_of_dicts_base_setitem(s):
    v = np.ones((2, 2)) * s
    held = [{"r": v[1]}, {"r": v[0]}]
    held[1]["r"][0] = s * 3.0
    v[1, 1] = np.sin(s)
    return np.sum(held[0]["r"]) * np.sum(held[1]["r"]) + np.sum(v)


def dict_in_dict(s):
    v = np.ones((3, 2)) * s
    held = {"o": {"r": v[2]}}
    held["o"]["r"][0] *= s
    v += 1.0
    return np.sum(np.exp(held["o"]["r"])) + np.sum(v)


def d_whole_array(s):
    v = np.ones((3, 2)) * s
    d = {"a": v}
    d["a"][0] *= 2.0
    v[1] += s
    return np.sum(d["a"] ** 2)


def d_transpose_view(s):
    v = np.arange(6.0).reshape(2, 3) * s
    d = {"t": v.T}
    d["t"][0] += s
    v[1, 2] = 7.0 * s
    return np.sum(np.sin(d["t"]))


def d_view_no_write_through_dict(s):
    v = np.ones((3, 2)) * s
    d = {"r": v[0]}
    v[0, 0] += 0.3
    return np.sum(np.cos(d["r"]))


def d_view_write_through_dict_only(s):
    v = np.ones((3, 2)) * s
    d = {"r": v[0]}
    d["r"][1] *= 0.5
    return np.sum(np.cos(d["r"])) + np.sum(v ** 2)


def d_view_named_row(s):
    v = np.ones((3, 2)) * s
    row = v[0]
    d = {"r": row}
    d["r"][1] *= 0.5
    v[0, 0] += 0.3
    return np.sum(np.cos(d["r"])) + np.sum(row)


def d_view_write_then_base_then_write(s):
    v = np.ones((3, 2)) * s
    d = {"r": v[0]}
    d["r"][1] *= 0.5
    v[0, 0] += 0.3
    d["r"][0] *= s
    return np.sum(np.cos(d["r"])) + np.sum(v)


def d_view_in_loop(s):
    v = np.ones((3, 2)) * s
    d = {"r": v[1]}
    for i in range(2):
        d["r"][i] *= s
        v[1, 1 - i] += 0.1
    return np.sum(np.cos(d["r"])) + np.sum(v)


def d_get_view(s):
    v = np.ones((3, 2)) * s
    d = {"r": v[0]}
    d.get("r")[1] *= 0.5
    v[0, 0] += 0.3
    return np.sum(np.cos(d["r"]))


def list_view_write_then_base(s):
    v = np.ones((3, 2)) * s
    held = [v[0]]
    held[0][1] *= 0.5
    v[0, 0] += 0.3
    return np.sum(np.cos(held[0]))


def tuple_view_write_then_base(s):
    v = np.ones((3, 2)) * s
    held = (v[0], v[1])
    held[0][1] *= 0.5
    v[0, 0] += 0.3
    return np.sum(np.cos(held[0])) + np.sum(held[1])


def obj_field_view(s):
    v = np.ones((3, 2)) * s
    b = Box(v[0])
    v[0, 1] = s * s
    return np.sum(np.sin(b.r)) + np.sum(v)


def view_of_view_in_dict(s):
    v = np.arange(6.0).reshape(2, 3) * s
    d = {"r": v[0][1:]}
    v[0, 1] = np.cos(s)
    return np.sum(d["r"] ** 2)


def fill_base(s):
    v = np.ones((3, 2)) * s
    d = {"r": v[1]}
    v.fill(2.0)
    return np.sum(d["r"] * s)


def whole_assign_base(s):
    v = np.ones((3, 2)) * s
    d = {"r": v[1]}
    v[...] = np.sin(s)
    return np.sum(d["r"] * s)


def imul_base(s):
    v = np.ones((3, 2)) * s
    d = {"r": v[2]}
    v *= s
    return np.sum(d["r"] ** 2)


def dict_item_replaced_then_base(s):
    v = np.ones((3, 2)) * s
    d = {"r": v[0]}
    d["r"] = np.sin(v[1])
    v[1, 0] = 5.0 * s
    v[0, 0] = 7.0 * s
    return np.sum(d["r"]) + np.sum(v)


def list_append_view_then_base(s):
    v = np.ones((3, 2)) * s
    held = [v[0]]
    held.append(v[1])
    v[1] += s
    v[0, 1] = s ** 3
    return np.sum(np.cos(held[0])) + np.sum(np.sin(held[1]))


def overlapping_views(s):
    v = np.ones((3, 3)) * s
    d = {"a": v[0], "b": v[:, 0]}
    v[0, 0] = 5.0 * s
    d["b"][1] = s ** 2
    return np.sum(d["a"] * 2.0) + np.sum(d["b"] ** 2) + np.sum(v)


def tuple_in_dict(s):
    v = np.ones((3, 2)) * s
    d = {"t": (v[0], v[1])}
    v[:, 0] = np.exp(s)
    return np.sum(d["t"][0]) * np.sum(d["t"][1])


def branch_view_or_copy(s):
    v = np.ones((3, 2)) * s
    if s > 0.5:
        d = {"r": v[0]}
    else:
        d = {"r": v[1].copy()}
    v[0, 0] += 1.0
    v[1, 0] += 2.0
    return np.sum(np.sin(d["r"]))


def loop_changes_base(s):
    v = np.ones((3, 2)) * s
    d = {"r": v[0], "q": v[2]}
    for i in range(3):
        v[i % 3, 0] += s * i
        d["r"][1] *= 1.1
    return np.sum(np.cos(d["r"])) + np.sum(d["q"] ** 2)


def rebound_name_of_view(s):
    v = np.ones((3, 2)) * s
    r = v[0]
    d = {"r": r}
    r = r * 2.0
    v[0, 0] = 1.5 * s
    return np.sum(d["r"] ** 2) + np.sum(r)


def pop_then_base(s):
    v = np.ones((3, 2)) * s
    d = {"r": v[0], "q": v[1]}
    q = d.pop("q")
    v[1, 1] = s ** 2
    v[0, 1] = 3.0 * s
    return np.sum(q ** 2) + np.sum(d["r"] ** 3)


def reshape_view(s):
    v = np.ones((2, 3)) * s
    d = {"flat": v.reshape(-1)}
    v[1, 2] = np.sin(s)
    return np.sum(d["flat"] ** 2)


def dict_values_view(s):
    v = np.ones((3, 2)) * s
    d = {"a": v[0], "b": v[1]}
    for r in d.values():
        r[0] = r[0] * s
    v[:, 1] = 2.0
    return np.sum(d["a"] ** 2) + np.sum(d["b"] ** 3)


def dict_view_then_other_dict_change(s):
    v = np.ones((3, 2)) * s
    d = {"r": v[0]}
    d["k"] = np.ones(2) * s
    v[0, 0] = 4.0 * s
    return np.sum(d["r"] ** 2) + np.sum(d["k"])


def view_stored_after_change(s):
    v = np.ones((3, 2)) * s
    d = {}
    v[0, 0] = 3.0 * s
    d["r"] = v[0]
    v[0, 1] = s ** 2
    return np.sum(d["r"] ** 2)


def nested_list_dict_views(s):
    v = np.ones((4, 2)) * s
    held = {"rows": [v[0], v[1]], "more": {"x": v[2]}}
    held["rows"][0][0] = s ** 2
    v[2] += 1.0
    v[1, 1] = np.sin(s)
    return np.sum(held["rows"][0]) + np.sum(held["rows"][1] ** 2) + np.sum(held["more"]["x"] ** 2)


def rows_swapped_in_one_assignment(s):
    a = np.arange(6.0).reshape(3, 2) * s
    a[0], a[1] = a[1], a[0]           # (the right side holds views: both rows end as the old a[1], as in NumPy)
    return np.sum(a ** 2 * np.arange(6.0).reshape(3, 2))


SCALAR = [rows_swapped_in_one_assignment, d_view_write_then_base_iadd_item, d_view_setitem_then_base_setitem,
          d_view_slice_setitem_then_base_iadd, d_view_iadd_then_base_item, d_views_two_keys_then_base_iadd,
          nested_dict_in_list, list_of_dicts_base_setitem, dict_in_dict, d_whole_array, d_transpose_view,
          d_view_no_write_through_dict, d_view_write_through_dict_only, d_view_named_row,
          d_view_write_then_base_then_write, d_view_in_loop, d_get_view, list_view_write_then_base,
          tuple_view_write_then_base, obj_field_view, view_of_view_in_dict, fill_base, whole_assign_base, imul_base,
          dict_item_replaced_then_base, list_append_view_then_base, overlapping_views, tuple_in_dict,
          branch_view_or_copy, loop_changes_base, rebound_name_of_view, pop_then_base, reshape_view,
          dict_values_view, dict_view_then_other_dict_change, view_stored_after_change, nested_list_dict_views]


def _finite(*values):
    for v in values:
        assert np.all(np.isfinite(v)), v


@pytest.mark.parametrize("f", SCALAR, ids=[f.__name__ for f in SCALAR])
def test_value_and_gradient_match_numpy_and_differences(f):
    for s in (0.8, 0.3):
        value, g = adsrc.value_and_grad(f)(s)
        _finite(value, g)
        np.testing.assert_allclose(value, f(s), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(g, (f(s + H) - f(s - H)) / (2 * H), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("f", SCALAR, ids=[f.__name__ for f in SCALAR])
def test_forward_and_second_derivatives_match_differences(f):
    s = 0.8
    out, dot = adsrc.jvp(f, (s,), (1.0,))
    _finite(out, dot)
    np.testing.assert_allclose(out, f(s), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dot, (f(s + H) - f(s - H)) / (2 * H), rtol=RTOL, atol=ATOL)
    g = adsrc.grad(f)
    h = 1e-5
    second = (g(s + h) - g(s - h)) / (2 * h)        # (g itself is checked against differences above)
    for got in (adsrc.grad(g)(s), adsrc.jvp(g, (s,), (1.0,))[1]):
        _finite(got)
        np.testing.assert_allclose(got, second, rtol=1e-5, atol=1e-6)


# -- the array changed is a parameter (the caller's array stays as it was) ------------------------------------------

def d_view_param(x):
    d = {"r": x[0]}
    d["r"][1] *= 0.5
    x[0, 0] += 0.3
    return np.sum(np.cos(d["r"])) + np.sum(x)


def d_view_param_dict(p):
    v = p["w"]
    d = {"r": v[0]}
    d["r"][1] *= 0.5
    v[0, 0] += 0.3
    return np.sum(np.cos(d["r"])) + np.sum(p["w"])


def view_in_dict_base_param_changed_twice(x):
    d = {"r": x[1]}
    x[1, 0] *= 3.0
    x += 1.0
    return np.sum(np.sin(d["r"])) + np.sum(x ** 2)



def _wrapped(p):
    return p["w"] if isinstance(p, dict) else p


def _differences(f, x):
    g = np.zeros_like(_wrapped(x))
    for i in np.ndindex(g.shape):
        up, down = copy.deepcopy(x), copy.deepcopy(x)
        _wrapped(up)[i] += H
        _wrapped(down)[i] -= H
        g[i] = (f(up) - f(down)) / (2 * H)
    return g


@pytest.mark.parametrize("f, dict_param", [(d_view_param, False), (d_view_param_dict, True),
                                           (view_in_dict_base_param_changed_twice, False)])
def test_a_parameter_changed_while_a_dict_holds_a_view_of_it(f, dict_param):
    x = np.array([[0.8, 0.6], [0.3, -0.2]])
    arg = {"w": x.copy()} if dict_param else x.copy()
    value, g = adsrc.value_and_grad(f)(arg)
    g = _wrapped(g)
    _finite(value, g)
    np.testing.assert_array_equal(_wrapped(arg), x)          # not changed: copy-on-write
    np.testing.assert_allclose(value, f(copy.deepcopy(arg)), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, _differences(f, arg), rtol=RTOL, atol=ATOL)
    if not dict_param:
        t = np.array([[0.5, -1.0], [0.25, 2.0]])
        _, dot = adsrc.jvp(f, (x.copy(),), (t,))
        np.testing.assert_allclose(dot, (f(x + H * t) - f(x - H * t)) / (2 * H), rtol=RTOL, atol=ATOL)


def rows_of_a_comprehension(s):
    v = np.ones((3, 2)) * s
    rows = [v[i] for i in range(3)]
    v[1, 1] = s ** 2
    return sum(np.sum(r ** 2) for r in rows)


def rows_of_a_comprehension_reshaped(s):
    v = np.ones((3, 2)) * s
    rows = [v[i].reshape(2, 1) for i in range(3)]
    v[1, 1] = s ** 2
    return sum(np.sum(r ** 2) for r in rows)


def test_views_adsrc_cannot_follow_are_refused_naming_the_line():
    # (a view that is no basic index of the array: refused when the code runs, not a wrong value)
    with pytest.raises(adsrc.TransformError) as info:
        adsrc.grad(rows_of_a_comprehension_reshaped)(0.8)
    assert "holds a view" in str(info.value)
    assert any("v[1, 1] = s ** 2" in note for note in getattr(info.value, "__notes__", []))
