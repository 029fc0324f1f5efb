"""The finite-difference check of tests/test_rules.py, for case lists of other test files.

A case's function is wrapped as np.sum(f(...)) and as np.sum(f(...) * W) for a
fixed random W (once per output for tuple outputs); every coordinate of every
argument is checked against central differences, NaN and inf fail, and the
inputs must not be mutated.
"""

import numpy as np
import pytest

from adsrc.checks import check_grads

_W_RNG = np.random.default_rng(7)


def reduce_output(out, k, W):
    if k is None:
        return np.sum(out * W)
    return np.sum(out[k] * W)


def objective(fn, nargs, k, W):
    if nargs == 1:
        def obj1(a):
            return reduce_output(fn(a), k, W)
        return obj1
    if nargs == 2:
        def obj2(a, b):
            return reduce_output(fn(a, b), k, W)
        return obj2
    if nargs == 3:
        def obj3(a, b, c):
            return reduce_output(fn(a, b, c), k, W)
        return obj3
    if nargs == 4:
        def obj4(a, b, c, d):
            return reduce_output(fn(a, b, c, d), k, W)
        return obj4
    if nargs == 5:
        def obj5(a, b, c, d, e):
            return reduce_output(fn(a, b, c, d, e), k, W)
        return obj5
    if nargs == 6:
        def obj6(a, b, c, d, e, f):
            return reduce_output(fn(a, b, c, d, e, f), k, W)
        return obj6
    raise ValueError(f"no objective for {nargs} arguments")


def variants(cases):
    params = []
    for c in cases:
        ks = list(range(len(c.out_shapes))) if c.tuple_output else [None]
        for k in ks:
            shape = c.out_shapes[k if k is not None else 0]
            tag = "" if k is None else f"out{k}-"
            params.append(pytest.param(c, k, None, id=f"{c.id}-{tag}sum"))
            W = _W_RNG.standard_normal(shape) if shape else float(_W_RNG.standard_normal())
            params.append(pytest.param(c, k, W, id=f"{c.id}-{tag}weighted"))
    return params


def check_case(case, k, W):
    weight = 1.0 if W is None else W
    f = objective(case.fn, len(case.args), k, weight)
    before = [np.array(a, copy=True) for a in case.args]
    grads = check_grads(f, case.args, argnums=tuple(range(len(case.args))), rtol=case.rtol, atol=case.atol,
                        full=True)
    assert len(grads) == len(case.args)
    for g, a in zip(grads, case.args):
        assert np.shape(g) == np.shape(a)
        assert np.all(np.isfinite(g)), "a gradient is not finite"
    for a, b in zip(case.args, before):
        assert np.array_equal(np.asarray(a), b, equal_nan=True), "an input was mutated"
