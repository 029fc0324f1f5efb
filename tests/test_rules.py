"""Every NumPy derivative rule agrees with central finite differences.

Each case of tests/rule_cases.py is checked twice per output: under
np.sum(f(...)) (the output cotangent arrives as a broadcast scalar) and under
np.sum(f(...) * W) for a fixed random W of the output's shape (the cotangent
is exact and non-uniform). Every coordinate of every input is checked
(`full=True`). A coverage test makes sure every differentiable NumPy rule in
the tables has a case.
"""

import numpy as np
import pytest

from adsrc import rules, rule_table
from adsrc.checks import check_grads

from rule_cases import CASES

_W_RNG = np.random.default_rng(99)


# -- objectives: np.sum(f(...)[k] * W) for each arity (adsrc needs real source, so one def per arity) --------

def _objective(fn, nargs, k, W):
    """The scalar objective: output k of fn (all outputs when k is None), weighted by W, summed."""
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
    raise ValueError(f"no objective for {nargs} arguments")


def reduce_output(out, k, W):
    if k is None:
        return np.sum(out * W)
    return np.sum(out[k] * W)


def _variants():
    params = []
    for c in CASES:
        ks = list(range(len(c.out_shapes))) if c.tuple_output else [None]
        for k in ks:
            shape = c.out_shapes[k if k is not None else 0]
            tag = "" if k is None else f"out{k}-"
            params.append(pytest.param(c, k, None, id=f"{c.id}-{tag}sum"))
            W = _W_RNG.standard_normal(shape) if shape else float(_W_RNG.standard_normal())
            params.append(pytest.param(c, k, W, id=f"{c.id}-{tag}weighted"))
    return params


@pytest.mark.parametrize("case, k, W", _variants())
def test_rule_matches_finite_differences(case, k, W):
    weight = 1.0 if W is None else W
    f = _objective(case.fn, len(case.args), k, weight)
    before = [np.array(a, copy=True) for a in case.args]
    grads = check_grads(f, case.args, argnums=tuple(range(len(case.args))), rtol=case.rtol, atol=case.atol,
                        full=True)
    assert len(grads) == len(case.args)
    for g, a in zip(grads, case.args):
        assert np.shape(g) == np.shape(a)
    for a, b in zip(case.args, before):
        assert np.array_equal(np.asarray(a), b, equal_nan=True), "an input was mutated"


# -- coverage of the tables --------------------------------------------------------------------------------

def _table_names(differentiable):
    names = {r.name for r in rules.FUNCTIONS.values() if r.nondiff != differentiable and r.name.startswith("np.")}
    names |= {f"ndarray.{k}()" for k, r in rules.METHODS.items() if r.nondiff != differentiable}
    if differentiable:
        names |= {f"ndarray.{k}" for k in rules.ATTRIBUTES}
    return names


def test_every_differentiable_numpy_rule_has_a_case():
    covered = {name for c in CASES for name in c.rules}
    missing = sorted(_table_names(True) - covered)
    assert not missing, f"rules without a finite-difference case: {missing}"


def test_case_rule_names_exist_in_the_tables():
    known = _table_names(True) | _table_names(False)
    unknown = sorted({name for c in CASES for name in c.rules} - known)
    assert not unknown, f"cases name rules the tables do not have: {unknown}"


def test_at_least_120_differentiable_numpy_callables():
    assert len(_table_names(True)) >= 120
    listed = {name for group, name, kind in rule_table.entries()
              if group != "constant" and (name.startswith("np.") or name.startswith("ndarray."))}
    assert len(listed) >= 120
    assert rule_table.counts()["differentiable numpy callables"] >= 120


def test_required_functions_have_rules():
    required = [
        np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.sinh, np.cosh, np.tanh, np.arcsinh,
        np.arccosh, np.arctanh, np.exp, np.exp2, np.expm1, np.log, np.log2, np.log10, np.log1p, np.sqrt, np.cbrt,
        np.square, np.reciprocal, np.power, np.abs, np.hypot, np.arctan2, np.logaddexp, np.sinc,
        np.sum, np.mean, np.prod, np.var, np.std, np.max, np.min, np.amax, np.amin, np.cumsum, np.cumprod,
        np.nansum, np.nanmean, np.reshape, np.ravel, np.squeeze, np.expand_dims, np.transpose, np.swapaxes,
        np.moveaxis, np.concatenate, np.stack, np.hstack, np.vstack, np.split, np.tile, np.repeat, np.flip,
        np.roll, np.pad, np.take, np.diag, np.diagonal, np.trace, np.triu, np.tril, np.sort, np.where, np.select,
        np.einsum, np.dot, np.vdot, np.matmul, np.inner, np.outer, np.tensordot, np.kron, np.linalg.inv,
        np.linalg.solve, np.linalg.det, np.linalg.slogdet, np.linalg.cholesky, np.linalg.eigh, np.linalg.norm,
        np.linalg.pinv, np.linalg.qr,
    ]
    missing = [f for f in required if rules.lookup(f) is None or rules.lookup(f).nondiff]
    assert not missing, missing
    constants = [np.floor, np.ceil, np.round, np.argmax, np.argsort, np.greater, np.equal, np.less,
                 np.zeros_like, np.ones_like, np.empty_like]
    assert all(rules.lookup(f) is not None and rules.lookup(f).nondiff for f in constants)
    for name in ("swapaxes", "transpose", "take", "diagonal", "trace", "repeat", "cumsum"):
        assert name in rules.METHODS and not rules.METHODS[name].nondiff
