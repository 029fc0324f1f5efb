"""Registering test functions with their inputs, for parametrized gradient checks."""

import numpy as np


class Case:
    def __init__(self, fn, args, argnums, rtol, atol, full, kwargs, label=None):
        self.fn = fn
        self.args = args
        self.argnums = argnums
        self.rtol = rtol
        self.atol = atol
        self.full = full
        self.kwargs = kwargs
        self.label = label

    @property
    def id(self):
        return self.fn.__name__ + (f"[{self.label}]" if self.label else "")


class Registry(list):
    def case(self, *args, argnums=0, rtol=1e-5, atol=1e-7, full=True, kwargs=None, label=None):
        def deco(fn):
            self.append(Case(fn, args, argnums, rtol, atol, full, kwargs or {}, label))
            return fn
        return deco


_RNG = np.random.default_rng(20261122)


def central_grad(f, x, eps=1e-6):
    """The gradient of a scalar function of one array (or float) by central differences."""
    x = np.array(x, dtype=float)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        out[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


def assert_matches_differences(fn, args, grads, rtol=1e-6, atol=1e-8):
    """Each argument's gradient (grads: one per argument) against central differences of fn in that argument."""
    for k, g in enumerate(grads):
        def moved(v, k=k):
            new = list(args)
            new[k] = v
            return fn(*new)
        assert not np.any(np.isnan(g)), f"argument {k}: the gradient has NaN"
        np.testing.assert_allclose(g, central_grad(moved, args[k]), rtol=rtol, atol=atol)


def rand(*shape, low=-1.0, high=1.0):
    """Random test input (a new draw at every call, deterministic per module order)."""
    return _RNG.uniform(low, high, size=shape)


def pos(*shape):
    return rand(*shape, low=0.5, high=2.0)


def _same(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and np.array_equal(a, b)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if hasattr(type(a), "__dataclass_fields__"):
        return type(a) is type(b) and all(_same(getattr(a, k), getattr(b, k)) for k in type(a).__dataclass_fields__)
    return a == b


def check_case(case):
    """check_grads on a case, and check that its inputs (arrays, lists, dicts of them) were not changed."""
    import copy

    from adsrc.checks import check_grads

    before = copy.deepcopy(case.args)
    check_grads(case.fn, case.args, case.argnums, rtol=case.rtol, atol=case.atol, full=case.full,
                kwargs=case.kwargs)
    for a, b in zip(case.args, before):
        assert _same(a, b), "an input was changed"
