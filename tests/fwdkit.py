"""Forward-mode and higher-order checks for the gradient case files (tests/cases_*.py).

A case's function f(*args) with differentiated argument(s) argnums is checked:
* `check_jvp`: adsrc.jvp along a random tangent v against central finite
  differences of f, and against the reverse mode <grad f, v>;
* `check_hvp`: jvp(grad f) (forward over reverse, a Hessian-vector product)
  along v against central finite differences of adsrc's own gradient.
"""

import copy
import dataclasses
import functools
import importlib

import numpy as np

import adsrc

CASE_FILES = ["cases_core", "cases_control", "cases_methods", "cases_ordinary", "cases_programs", "cases_changes",
              "cases_nested", "cases_passed", "cases_numpy_written", "cases_python_features", "cases_try",
              "cases_syntax", "cases_composed", "cases_user_programs", "cases_idioms",
              "cases_user_programs_more", "cases_science", "cases_ml"]


def all_cases():
    return [c for m in CASE_FILES for c in importlib.import_module(m).CASES]


def nums_of(case):
    n = len(case.args)
    return tuple(i + n if i < 0 else i for i in ((case.argnums,) if isinstance(case.argnums, int) else case.argnums))


def random_like(x, rng):
    """A random tangent with x's structure (None where x has no floating-point values)."""
    if isinstance(x, float):
        return float(rng.normal())
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return rng.normal(size=x.shape)
    if isinstance(x, np.ndarray) and x.dtype.kind == "c":
        return rng.normal(size=x.shape) + 1j * rng.normal(size=x.shape)
    if isinstance(x, complex):
        return complex(rng.normal(), rng.normal())
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*[random_like(v, rng) for v in x])
    if isinstance(x, (list, tuple)):
        return type(x)(random_like(v, rng) for v in x)
    if isinstance(x, dict):
        return {k: random_like(v, rng) for k, v in x.items()}
    if hasattr(type(x), "__dataclass_fields__"):
        return dataclasses.replace(x, **{k: random_like(getattr(x, k), rng) for k in type(x).__dataclass_fields__})
    return None


def dot(a, b):
    """Real part of sum(a * b) over matching structures (None is zero)."""
    if a is None or b is None:
        return 0.0
    if isinstance(a, dict):
        return sum(dot(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return sum(dot(x, y) for x, y in zip(a, b))
    if hasattr(a, "__dataclass_fields__"):
        return sum(dot(getattr(a, k), getattr(b, k)) for k in a.__dataclass_fields__)
    return float(np.real(np.sum(np.asarray(a) * np.asarray(b))))


def shift(x, v, h):
    if v is None:
        return x
    if isinstance(x, dict):
        return {k: shift(x[k], v[k], h) for k in x}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*[shift(a, b, h) for a, b in zip(x, v)])
    if isinstance(x, (list, tuple)):
        return type(x)(shift(a, b, h) for a, b in zip(x, v))
    if hasattr(type(x), "__dataclass_fields__"):
        fields = type(x).__dataclass_fields__
        return dataclasses.replace(x, **{k: shift(getattr(x, k), getattr(v, k), h) for k in fields})
    return x + h * v


def shifted_args(case, tangents, h):
    return [shift(a, t, h) for a, t in zip(case.args, tangents)]


def tangents_for(case, seed=0):
    rng = np.random.default_rng(seed)
    nums = nums_of(case)
    return [random_like(a, rng) if i in nums else None for i, a in enumerate(case.args)]


def check_jvp(case, rtol=1e-5, atol=1e-6, h=1e-6):
    f = functools.partial(case.fn, **case.kwargs) if case.kwargs else case.fn
    tangents = tangents_for(case)
    before = copy.deepcopy(case.args)
    tangents_before = copy.deepcopy(tangents)
    out, t = adsrc.jvp(f, tuple(case.args), tuple(tangents))
    for a, b in zip(tangents, tangents_before):
        assert _same(a, b), "a tangent was changed"
    assert np.all(np.isfinite(t)), f"the tangent is not finite: {t}"
    assert np.allclose(out, f(*copy.deepcopy(case.args))), "jvp's value is not the function's"
    fd = (np.asarray(f(*shifted_args(case, tangents, h))) - np.asarray(f(*shifted_args(case, tangents, -h)))) / (2 * h)
    g = adsrc.grad(case.fn, argnums=case.argnums)(*case.args, **case.kwargs)
    gs = (g,) if isinstance(case.argnums, int) else g
    rev = sum(dot(gi, tangents[i]) for gi, i in zip(gs, nums_of(case)))
    np.testing.assert_allclose(np.real(t), rev, rtol=rtol, atol=atol, err_msg="jvp against the reverse mode")
    np.testing.assert_allclose(np.real(t), np.real(fd), rtol=max(rtol, 1e-4), atol=max(atol, 1e-5),
                               err_msg="jvp against finite differences")
    for a, b in zip(case.args, before):
        assert _same(a, b), "an input was changed"


def check_hvp(case, rtol=1e-4, atol=1e-5, h=1e-5):
    """jvp of adsrc.grad(f) against central differences of adsrc.grad(f) (one differentiated argument)."""
    g = adsrc.grad(case.fn, argnums=case.argnums)
    x = case.args[case.argnums]
    v = tangents_for(case)[case.argnums]
    tangents = [None] * len(case.args)
    tangents[case.argnums] = v
    _, hv = adsrc.jvp(g, tuple(case.args), tuple(tangents))
    assert np.all(np.isfinite(hv)), f"the Hessian-vector product is not finite: {hv}"

    def at(step):
        a = list(case.args)
        a[case.argnums] = x + step * v
        return np.asarray(g(*a))
    np.testing.assert_allclose(hv, (at(h) - at(-h)) / (2 * h), rtol=rtol, atol=atol)


def _same(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and np.array_equal(a, b, equal_nan=True)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if hasattr(type(a), "__dataclass_fields__"):
        return type(a) is type(b) and all(_same(getattr(a, k), getattr(b, k)) for k in type(a).__dataclass_fields__)
    return a == b or (a != a and b != b)
