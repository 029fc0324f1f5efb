"""jacrev pulls back all rows in one batched call (batched_jacrev.py): it must equal the row-by-row
Jacobian and central differences, take the batched path for common functions, and fall back (still
right) where batching is not implemented."""

import dataclasses
import functools

import numpy as np
import pytest

import adsrc
from adsrc import batched_jacrev as bj
from adsrc.batching import Batched, BatchingUnsupported

RNG = np.random.default_rng(5)
RTOL, ATOL = 1e-6, 1e-8          # against central differences
EXACT = dict(rtol=1e-12, atol=1e-12)   # batched against row by row (same arithmetic, summed in another order)


# -- functions ------------------------------------------------------------------------------------

def elementwise(x):
    return np.sin(x) * np.exp(-x) + x ** 2 / (1.0 + x * x)


def matmul_chain(x, W, b):
    h = np.tanh(W @ x + b)
    return W.T @ h * x[0]


def reductions(x):
    m = x.reshape(3, 4)
    return np.concatenate([np.sum(m ** 2, axis=0), np.mean(np.cos(m), axis=1), [np.max(m)],
                           np.min(m, axis=0) * np.prod(m[0])])


def broadcasting(x, y):
    return (x[:, None] * y[None, :] + np.sqrt(1.0 + y * y)).ravel() - np.sum(x)


def indexing(x):
    idx = np.array([0, 2, 2, 5])
    out = x[idx] * x[1] + x[::2].sum()
    out = out + x[x > 0.1].sum()
    return np.concatenate([out, x[-3:] * x[:3]])


def run_time_loop(x, n):
    s = np.zeros_like(x)
    for i in range(n):
        s = s + np.sin(x * (i + 1)) * x[i % len(x)]
    return s


def branches(x):
    if np.sum(x) > 0:
        y = np.tanh(x) * 2.0
    else:
        y = x ** 3
    if x[0] > x[1]:
        y = y + np.cumsum(x)
    return y


def while_break(x):
    s, k = x, 0
    while True:
        s = 0.8 * s + np.tanh(s) * x
        k += 1
        if np.max(np.abs(s)) > 3.0 or k >= 6:
            break
    return s


def lists(x):
    parts = []
    for i in range(3):
        parts.append(x[i] * x)
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return np.stack(parts + [total])


def pytree(p):
    return {"y": p["w"] * p["b"] + np.sum(p["w"] ** 2), "s": np.sum(np.sin(p["w"])), "t": (p["b"] ** 2, p["w"][:2])}


def in_place(x):
    y = np.zeros((2, 3))
    y[0] = x[:3] ** 2
    y[1, 1:] = np.sin(x[3:5])
    y[:, 0] += x[5]
    return y


def helper_call(x):
    def inner(v, i):
        return v[i] * np.cos(v)
    return inner(x, 0) + inner(x, 2) * 3.0


def linear_algebra(x):
    A = x.reshape(2, 3)
    return np.einsum("ij,kj->ik", A, A).ravel() + np.dot(A, x[:3]).sum() + np.tensordot(A, A, axes=2) \
        + np.outer(x[:2], x[2:4]).ravel()[:4].sum()


def scalar_output(x):
    return float(np.sum(x ** 3)) if False else np.sum(x ** 3)


def shapes(x):
    m = x.reshape(2, 3)
    t = np.transpose(m)[::-1]
    return np.squeeze(np.expand_dims(t, 0)).T.flatten() * np.swapaxes(m[None], 1, 2).ravel() + np.flip(x)


CASES = [
    (elementwise, lambda: (RNG.normal(size=5),), {}),
    (matmul_chain, lambda: (RNG.normal(size=4), RNG.normal(size=(4, 4)), RNG.normal(size=4)), {}),
    (matmul_chain, lambda: (RNG.normal(size=4), RNG.normal(size=(4, 4)), RNG.normal(size=4)),
     {"argnums": (0, 1, 2)}),
    (reductions, lambda: (RNG.uniform(0.5, 1.5, size=12),), {}),
    (broadcasting, lambda: (RNG.normal(size=3), RNG.normal(size=4)), {"argnums": (0, 1)}),
    (indexing, lambda: (RNG.normal(size=6),), {}),
    (run_time_loop, lambda: (RNG.normal(size=4), 5), {}),
    (run_time_loop, lambda: (RNG.normal(size=4), 0), {}),
    (branches, lambda: (np.array([0.5, 0.2, 0.3]),), {}),
    (branches, lambda: (np.array([-0.5, 0.2, -0.3]),), {}),
    (while_break, lambda: (RNG.normal(size=3),), {}),
    (lists, lambda: (RNG.normal(size=3),), {}),
    (in_place, lambda: (RNG.normal(size=6),), {}),
    (helper_call, lambda: (RNG.normal(size=4),), {}),
    (linear_algebra, lambda: (RNG.normal(size=6),), {}),
    (scalar_output, lambda: (RNG.normal(size=4),), {}),
    (shapes, lambda: (RNG.normal(size=6),), {}),
]


@pytest.fixture(autouse=True)
def every_size(monkeypatch):
    """Batch from one row up (jacrev batches from MIN_ROWS rows), and never give up on a function."""
    monkeypatch.setattr(bj, "MIN_ROWS", 1)
    monkeypatch.setattr(bj, "GIVE_UP", 10 ** 9)


# -- checks ---------------------------------------------------------------------------------------

def row_by_row(f, args, **kw):
    bj.ENABLED = False
    try:
        return adsrc.jacrev(f, **kw)(*args)
    finally:
        bj.ENABLED = True


def batched(f, args, **kw):
    before = bj.STATS["batched"]
    jac = adsrc.jacrev(f, **kw)(*args)
    assert bj.STATS["batched"] == before + 1, f"{f.__name__} fell back: {bj.STATS['reason']}"
    return jac


def differences(f, args, argnum, eps=1e-6):
    """d f / d args[argnum] by central differences (float array argument), out.shape + x.shape."""
    x = np.asarray(args[argnum], dtype=float)

    def at(v):
        a = list(args)
        a[argnum] = v
        return np.asarray(f(*a), dtype=float)
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        cols.append((at(x + e.reshape(x.shape)) - at(x - e.reshape(x.shape))) / (2 * eps))
    return np.stack(cols, axis=-1).reshape(np.shape(at(x)) + x.shape)


def assert_close(a, b, **tol):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    assert not np.isnan(a).any() and not np.isnan(b).any()
    np.testing.assert_allclose(a, b, **tol)


def assert_trees_close(a, b, **tol):
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b)
        for k in a:
            assert_trees_close(a[k], b[k], **tol)
    elif isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_trees_close(x, y, **tol)
    else:
        assert_close(a, b, **tol)
        assert np.asarray(a).dtype == np.asarray(b).dtype


@pytest.mark.parametrize("f,make,kw", CASES, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_batched_equals_rows_and_differences(f, make, kw):
    args = make()
    jac = batched(f, args, **kw)
    assert_trees_close(jac, row_by_row(f, args, **kw), **EXACT)
    argnums = kw.get("argnums", 0)
    for k, i in enumerate((argnums,) if isinstance(argnums, int) else argnums):
        got = jac if isinstance(argnums, int) else jac[k]
        assert_close(got, differences(f, args, i), rtol=RTOL, atol=ATOL)


def test_pytrees_in_and_out():
    p = {"w": RNG.normal(size=3), "b": 1.3}
    jac = batched(pytree, (p,))
    assert_trees_close(jac, row_by_row(pytree, (p,)), **EXACT)
    assert jac["y"]["w"].shape == (3, 3) and jac["y"]["b"].shape == (3,) and jac["s"]["w"].shape == (3,)
    assert jac["t"][0]["b"].shape == () and jac["t"][1]["w"].shape == (2, 3)
    np.testing.assert_allclose(jac["t"][1]["w"], np.eye(3)[:2], **EXACT)
    wdiff = differences(lambda w: pytree({"w": w, "b": p["b"]})["y"], (p["w"],), 0)
    assert_close(jac["y"]["w"], wdiff, rtol=RTOL, atol=ATOL)


def test_dataclass_input():
    @dataclasses.dataclass
    class P:
        a: np.ndarray
        c: float

    def f(p):
        return np.sin(p.a) * p.c

    p = P(RNG.normal(size=3), 0.7)
    jac = batched(f, (p,))
    ref = row_by_row(f, (p,))
    assert_close(jac.a, ref.a, **EXACT)
    assert_close(jac.c, ref.c, **EXACT)
    assert_close(jac.a, np.diag(np.cos(p.a) * p.c), **EXACT)


def test_has_aux_argnums_and_fixed_arguments():
    def f(x, y, n, scale):
        out = x * y
        for _ in range(n):
            out = np.sin(out) * scale
        return out, {"n": n}
    x, y = RNG.normal(size=3), RNG.normal(size=3)
    jac, aux = batched(f, (x, y, 2, 1.5), argnums=(0, 1), has_aux=True)
    assert aux == {"n": 2}
    ref, _ = row_by_row(f, (x, y, 2, 1.5), argnums=(0, 1), has_aux=True)
    assert_trees_close(jac, ref, **EXACT)
    assert_close(jac[1], differences(lambda *a: f(*a)[0], (x, y, 2, 1.5), 1), rtol=RTOL, atol=ATOL)
    g = functools.partial(f, n=3, scale=0.5)            # static values fixed by a partial
    jac = batched(g, (x, y), argnums=1, has_aux=True)[0]
    assert_close(jac, differences(lambda *a: g(*a)[0], (x, y), 1), rtol=RTOL, atol=ATOL)


def test_scalar_input_and_output_shapes():
    def f(t):
        return np.array([np.sin(t), t ** 2, 3.0 * t])
    jac = batched(f, (0.4,))
    assert jac.shape == (3,) and jac.dtype == np.float64
    assert_close(jac, [np.cos(0.4), 0.8, 3.0], **EXACT)
    jac = batched(lambda t: t ** 3, (0.5,))
    assert np.shape(jac) == () and jac == pytest.approx(0.75)


def test_many_outputs_are_chunked(monkeypatch):
    monkeypatch.setattr(bj, "BUDGET", 50)
    x = RNG.normal(size=20)
    jac = batched(elementwise, (x,))
    assert_close(jac, row_by_row(elementwise, (x,)), **EXACT)


def test_one_backward_call_for_all_rows():
    calls = []
    original = bj._jacobian

    def counting(pullback, *a):
        fn, with_ = pullback._adsrc_backward

        def counted(bwd, ct):
            calls.append(type(ct).__name__)
            return with_(bwd, ct)
        pullback._adsrc_backward = (fn, counted)
        return original(pullback, *a)
    bj._jacobian = counting
    try:
        x = RNG.normal(size=7)
        adsrc.jacrev(elementwise)(x)
    finally:
        bj._jacobian = original
    assert calls == ["Batched"]


def test_unsupported_function_falls_back_and_is_right():
    def f(x):
        return np.sort(x) * x[0]        # sort's pullback writes the rows into a NumPy buffer: not batched
    x = RNG.normal(size=3)
    before = dict(bj.STATS)
    jac = adsrc.jacrev(f)(x)
    assert bj.STATS["fallback"] == before["fallback"] + 1 and bj.STATS["batched"] == before["batched"]
    assert "BatchingUnsupported" in bj.STATS["reason"]
    assert_close(jac, differences(f, (x,), 0), rtol=RTOL, atol=ATOL)


def test_custom_vjp_rule_sees_the_batch_or_falls_back():
    @adsrc.custom_vjp
    def clipped(x):
        return np.clip(x, -1.0, 1.0)

    def fwd(x):
        return clipped(x), x

    def bwd(x, g):
        return (np.where(np.abs(x) < 1.0, g, 0.0),)
    clipped.defvjp(fwd, bwd)

    def f(x):
        return clipped(x * 2.0) * x
    x = RNG.normal(size=4) * 0.4
    assert_close(adsrc.jacrev(f)(x), row_by_row(f, (x,)), **EXACT)

    def bwd_float(x, g):
        return (float(np.sum(g)) * np.ones_like(x) * 0.0 + g,)    # float() of a batch: falls back
    clipped.defvjp(fwd, bwd_float)
    assert_close(adsrc.jacrev(f)(x), row_by_row(f, (x,)), **EXACT)


def test_the_batch_refuses_what_would_differ_between_rows():
    b = Batched(np.arange(6.0).reshape(2, 3))
    for op in (float, bool, np.asarray, lambda v: v.item(), lambda v: np.zeros(3).__iadd__(v),
               lambda v: np.linalg.norm(v), lambda v: v.flags, lambda v: np.zeros(3).__setitem__(slice(None), v),
               lambda v: np.matmul(v, v), lambda v: v[np.array([0, 1]), None, np.array([0, 1])]):
        with pytest.raises(BatchingUnsupported):
            op(b)
    with pytest.raises(ValueError) as info:       # NumPy turns float()'s error into its own: still an error
        np.zeros(3)[0] = b[0]
    assert isinstance(info.value.__cause__, BatchingUnsupported)
    assert b.shape == (3,) and len(b) == 3 and np.shape(b) == (3,) and np.ndim(b) == 1
    assert b[1].base is None and b[1:].base is not None        # a scalar read is a copy, as in NumPy
    np.testing.assert_array_equal((b @ np.ones(3)).data, [3.0, 12.0])
    np.testing.assert_array_equal((np.ones((2, 3)) @ b).data, [[3.0, 3.0], [12.0, 12.0]])


def test_few_rows_go_one_at_a_time_and_failing_functions_are_given_up(monkeypatch):
    monkeypatch.setattr(bj, "MIN_ROWS", 5)
    before = dict(bj.STATS)
    x = RNG.normal(size=3)
    assert_close(adsrc.jacrev(elementwise)(x), row_by_row(elementwise, (x,)), **EXACT)
    assert bj.STATS["batched"] == before["batched"] and bj.STATS["fallback"] == before["fallback"]
    monkeypatch.setattr(bj, "GIVE_UP", 2)

    def f(x):
        return np.sort(x) * x[1]
    x = RNG.normal(size=6)
    for _ in range(3):
        assert_close(adsrc.jacrev(f)(x), differences(f, (x,), 0), rtol=RTOL, atol=ATOL)
    assert bj.STATS["reason"].startswith("gave up after 2 failures")


def _per_example(op, args, n):
    """op applied to each example of the batched arguments, stacked (what a batch must equal)."""
    return np.stack([np.asarray(op(*[a.data[i] if isinstance(a, Batched) else a for a in args]))
                     for i in range(n)])


def test_batched_operations_equal_one_example_at_a_time():
    n = 3
    r = lambda *s: RNG.normal(size=s)                 # noqa: E731
    b = lambda *s: Batched(RNG.normal(size=(n,) + s))  # noqa: E731
    cases = []
    for sa in [(3,), (2, 3), (5, 2, 3), (4, 1, 2, 3)]:
        for sb in [(3,), (3, 2), (5, 3, 2), (4, 1, 3, 2), (1, 5, 3, 2)]:
            try:
                np.matmul(np.ones(sa), np.ones(sb))
            except ValueError:
                continue
            cases += [(np.matmul, (b(*sa), r(*sb))), (np.matmul, (r(*sa), b(*sb)))]
    cases += [
        (lambda x, y: x * y + 1.0, (b(2, 3), r(3))), (lambda x, y: x - y, (r(4, 2, 3), b(2, 1))),
        (lambda x, y: np.where(y > 0, x, 0.0), (b(3), r(2, 3))),
        (lambda x: np.sum(x, axis=(0, 2), keepdims=True), (b(2, 3, 4),)), (lambda x: np.mean(x, axis=-1), (b(2, 3),)),
        (lambda x: np.sum(x), (b(2, 3),)), (lambda x: x.sum(axis=1), (b(2, 3),)),
        (lambda x: np.cumsum(x), (b(2, 3),)), (lambda x: np.cumsum(x, axis=0), (b(2, 3),)),
        (lambda x: np.reshape(x, (3, -1)), (b(2, 3),)), (lambda x: x.reshape(6), (b(2, 3),)),
        (lambda x: np.transpose(x, (2, 0, 1)), (b(2, 3, 4),)), (lambda x: x.T, (b(2, 3),)),
        (lambda x: np.swapaxes(x, 0, -1), (b(2, 3, 4),)), (lambda x: np.moveaxis(x, 0, -1), (b(2, 3, 4),)),
        (lambda x: np.expand_dims(x, (0, -1)), (b(2, 3),)), (lambda x: np.squeeze(x), (b(1, 3, 1),)),
        (lambda x: np.broadcast_to(x, (4, 2, 3)), (b(1, 3),)), (lambda x: np.ravel(x), (b(2, 3),)),
        (lambda x, y: np.concatenate([x, y], axis=1), (b(2, 3), r(2, 2))),
        (lambda x, y: np.concatenate([x, y], axis=None), (b(2, 3), r(2, 2))),
        (lambda x, y: np.stack([x, y], axis=-1), (b(2, 3), r(2, 3))),
        (lambda x, y: np.tensordot(x, y, axes=([0, 2], [1, 0])), (b(2, 3, 4), r(4, 2))),
        (lambda x, y: np.tensordot(x, y, axes=1), (r(2, 3), b(3, 4))),
        (lambda x, y: np.tensordot(x, y, axes=0), (r(2), b(3))),
        (lambda x, y: np.dot(x, y), (r(2, 3), b(4, 3, 2))), (lambda x, y: np.dot(x, y), (b(3), r(3))),
        (lambda x, y: np.inner(x, y), (b(2, 3), r(4, 3))), (lambda x, y: np.outer(x, y), (r(2, 2), b(3))),
        (lambda x, y: np.einsum("ij,jk", x, y), (r(2, 3), b(3, 4))),
        (lambda x, y: np.einsum("...i,i->...", x, y), (b(2, 3), r(3))),
        (lambda x: np.flip(x), (b(2, 3),)), (lambda x: np.roll(x, 2), (b(2, 3),)),
        (lambda x: np.roll(x, 1, axis=0), (b(2, 3),)), (lambda x: np.diff(x, axis=0), (b(3, 2),)),
        (lambda x: np.trace(x), (b(3, 3),)), (lambda x: np.diagonal(x, 1), (b(3, 3),)),
        (lambda x: np.triu(x, 1), (b(3, 3),)), (lambda x: np.take(x, [2, 0, 0]), (b(2, 3),)),
        (lambda x: np.take(x, [1, 0], axis=1), (b(2, 3),)), (lambda x: np.bincount([0, 2, 2], x), (b(3),)),
        (lambda x: np.pad(x, ((1, 0), (0, 2))), (b(2, 3),)), (lambda x: np.fft.fft(x, axis=0), (b(4, 2),)),
        (lambda x: np.fft.rfftn(x), (b(4, 2),)), (lambda x, y: np.linalg.solve(x, y), (r(3, 3) + 3 * np.eye(3), b(3))),
        (lambda x, y: np.linalg.solve(x, y), (r(3, 3) + 3 * np.eye(3), b(3, 2))),
        (lambda x: x[1:, [0, 2]], (b(3, 3),)), (lambda x: x[..., 0], (b(2, 3),)), (lambda x: x[None, 1], (b(2, 3),)),
        (lambda x: x[np.array([[0, 1]]), np.array([2, 0])], (b(2, 3),)),
        (lambda x: x[np.array([True, False, True])], (b(3, 2),)),
    ]
    for op, args in cases:
        got = op(*args)
        assert isinstance(got, Batched)
        np.testing.assert_allclose(got.data, _per_example(op, args, n), rtol=1e-12, atol=1e-12)


def test_batched_updates_equal_one_example_at_a_time():
    n = 3
    g = Batched(RNG.normal(size=(n, 2)))
    idx = np.array([0, 2, 2])
    dx = Batched(np.zeros((n, 4)))
    np.add.at(dx, idx[1:], g)
    expected = np.zeros((n, 4))
    for i in range(n):
        np.add.at(expected[i], idx[1:], g.data[i])
    np.testing.assert_allclose(dx.data, expected, **EXACT)
    dx[1:3] += g
    dx[0] = 1.0
    expected[:, 1:3] += g.data
    expected[:, 0] = 1.0
    np.testing.assert_allclose(dx.data, expected, **EXACT)
    g = Batched(RNG.normal(size=(n, 3)))
    out = bj.add_at(Batched(np.zeros((n, 4))), None, idx, g)      # repeated indices accumulate
    expected = np.zeros((n, 4))
    for i in range(n):
        np.add.at(expected[i], idx, g.data[i])
    assert out.shape == (4,)
    np.testing.assert_allclose(out.data, expected, **EXACT)


def _float_argnums(args):
    return tuple(i for i, a in enumerate(args) if isinstance(a, float) or
                 isinstance(a, np.ndarray) and a.dtype.kind == "f")


def _flat(tree):
    if isinstance(tree, dict):
        return [v for k in sorted(tree, key=str) for v in _flat(tree[k])]
    if isinstance(tree, (tuple, list)):
        return [v for x in tree for v in _flat(x)]
    if hasattr(type(tree), "__dataclass_fields__"):
        return [v for k in type(tree).__dataclass_fields__ for v in _flat(getattr(tree, k))]
    return [np.asarray(tree)]


def _sweep(cases):
    """(batched, fell back) over (function, args, argnums, kwargs): batched Jacobians must equal row by row."""
    import copy
    taken = fell = 0
    for fn, args, argnums, kwargs in cases:
        f = functools.partial(fn, **kwargs) if kwargs else fn
        try:
            expected = row_by_row(f, copy.deepcopy(args), argnums=argnums)
        except Exception:
            continue
        before = bj.STATS["batched"]
        got = adsrc.jacrev(f, argnums=argnums)(*copy.deepcopy(args))
        if bj.STATS["batched"] == before:
            fell += 1
            continue
        taken += 1
        a, b = _flat(got), _flat(expected)
        assert len(a) == len(b), fn.__name__
        for x, y in zip(a, b):
            assert x.shape == y.shape and x.dtype == y.dtype, fn.__name__
            np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12, err_msg=fn.__name__)
    return taken, fell


def test_rule_cases_batched_equal_row_by_row():
    import rule_cases
    import rule_cases_more
    cases = [(c.fn, c.args, _float_argnums(c.args), {})
             for c in list(rule_cases.CASES) + list(rule_cases_more.OTHER_CASES) if _float_argnums(c.args)]
    taken, fell = _sweep(cases)
    assert taken >= 0.8 * (taken + fell), (taken, fell)


def test_program_cases_batched_equal_row_by_row():
    import cases_changes
    import cases_control
    import cases_core
    import cases_methods
    import cases_ordinary
    cases = [(c.fn, c.args, c.argnums, c.kwargs)
             for m in (cases_core, cases_control, cases_changes, cases_methods, cases_ordinary) for c in m.CASES]
    taken, fell = _sweep(cases)
    assert taken >= 0.9 * (taken + fell), (taken, fell)
