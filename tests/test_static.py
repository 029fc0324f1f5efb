"""static_argnums / static_argnames: specializations cached by static values."""

import logging
import threading

import numpy as np
import pytest

import adsrc
from adsrc.checks import check_grads


def power_plus(x, n, mode="fast"):
    y = x
    for _ in range(n - 1):
        y = y * x
    if n > 2:
        y = y + 1.0
    if mode == "slow":
        y = y * 2.0
    return y


def test_issue_example_counts_hits_and_misses():
    f = adsrc.grad(power_plus, static_argnums=(1,))
    assert f(1.5, 3) == pytest.approx(3 * 1.5 ** 2)
    assert f(1.5, 4) == pytest.approx(4 * 1.5 ** 3)
    assert f(1.5, 3) == pytest.approx(3 * 1.5 ** 2)
    info = f.cache_info()
    assert (info.hits, info.misses, info.currsize) == (1, 2, 2)


def test_static_argnums_and_argnames_complete_each_other():
    by_num = adsrc.grad(power_plus, static_argnums=1)
    by_name = adsrc.grad(power_plus, static_argnames="n")
    assert by_num.static_argnames == ("n",) and by_name.static_argnums == (1,)
    for f in (by_num, by_name):
        assert f(1.5, 3) == pytest.approx(f(1.5, n=3))
        assert f.cache_info().misses == 1            # positional and keyword give one key


def test_keyword_only_static_with_default():
    f = adsrc.grad(power_plus, static_argnames=("n", "mode"))
    assert f(1.5, 3) == pytest.approx(3 * 1.5 ** 2)
    assert f(1.5, 3, mode="slow") == pytest.approx(2 * 3 * 1.5 ** 2)
    assert f.cache_info().misses == 2


@pytest.mark.parametrize("n", [1, 2, 3, 5])
@pytest.mark.parametrize("mode", ["fast", "slow"])
def test_specialized_gradients_match_finite_differences(n, mode):
    check_grads(lambda x: power_plus(x, n, mode), (0.8,))
    g = adsrc.grad(power_plus, static_argnames=("n", "mode"))(0.8, n, mode=mode)
    eps = 1e-6
    fd = (power_plus(0.8 + eps, n, mode) - power_plus(0.8 - eps, n, mode)) / (2 * eps)
    assert g == pytest.approx(fd, rel=1e-7)


def test_key_includes_the_type():
    f = adsrc.grad(lambda x, k: x * k if k else x, static_argnums=1)
    f(2.0, 3)
    f(2.0, 3.0)
    f(2.0, True)
    f(2.0, 3)
    assert f.cache_info().misses == 3 and f.cache_info().hits == 1


def test_unhashable_static_argument_is_an_error():
    f = adsrc.grad(lambda x, shape: np.sum(np.reshape(x, shape)), static_argnums=1)
    with pytest.raises(TypeError, match=r"static argument `shape`.*list.*hashable"):
        f(np.ones(4), [np.ones(2), 2])
    assert f(np.ones(4), (2, 2)).shape == (4,)
    assert f(np.ones(4), [2, 2]).shape == (4,)          # a list of numbers: keyed by its contents


def _configured(w, cfg):
    h = np.tanh(w) if cfg["act"] == "tanh" else np.sin(w)
    for _ in range(cfg["depth"]):
        h = h * cfg["scales"][0]
    return np.sum(h ** 2)


def test_a_dict_or_list_configuration_is_a_static_argument():
    # was a TypeError (a dict is not hashable); keyed by its contents, and the code made for it keeps a copy,
    # so a configuration changed in place afterwards gets code of its own
    from casekit import central_grad
    g = adsrc.grad(_configured, static_argnames="cfg")
    w = np.array([0.3, -0.8, 1.1])
    cfg = {"act": "sin", "depth": 2, "scales": [1.5]}
    for change in (None, ("depth", 1), ("act", "tanh"), ("scales", [0.5])):
        if change is not None:
            cfg[change[0]] = change[1]
        got = g(w, cfg=cfg)
        assert not np.any(np.isnan(got))
        np.testing.assert_allclose(got, central_grad(lambda v: _configured(v, cfg), w), rtol=1e-6, atol=1e-8)
    assert g.cache_info().misses == 4
    assert g(w, cfg={"act": "tanh", "depth": 1, "scales": [0.5]}).shape == (3,) and g.cache_info().hits == 1


def test_static_argument_cannot_be_differentiated():
    with pytest.raises(ValueError, match="`n`.*static.*cannot be differentiated"):
        adsrc.grad(power_plus, argnums=(0, 1), static_argnums=1)
    with pytest.raises(ValueError, match="not a parameter"):
        adsrc.grad(power_plus, static_argnames="k")


def test_static_values_are_constants_in_the_lowered_program():
    f = adsrc.grad(power_plus, static_argnames=("n", "mode"))
    lowered = f.source(1.5, 9, stage="lowered")
    assert "range(8)" in lowered            # n - 1 computed when transforming; a long loop stays a loop
    assert "cond(" not in lowered           # `if n > 2` and `if mode == ...` resolved
    assert "y_3 + 1.0" in lowered or "+ 1.0" in lowered
    assert "* 2.0" not in lowered
    assert f.source(1.5, 9, mode="slow") != f.source(1.5, 9)


def test_short_constant_loops_are_unrolled():
    f = adsrc.grad(power_plus, static_argnames=("n", "mode"))
    lowered = f.source(1.5, 4, stage="lowered")
    code = [line for line in lowered.splitlines() if not line.strip().startswith("#")]
    assert "scan(" not in lowered and sum("* x" in line for line in code) == 3
    adjoint = f.source(1.5, 4)
    assert "for " not in adjoint and "tape" not in adjoint


def test_lru_bound_and_clear():
    f = adsrc.grad(power_plus, static_argnums=1, cache_size=2)
    for n in (1, 2, 3, 1):
        f(1.1, n)
    info = f.cache_info()
    assert info.currsize == 2 and info.maxsize == 2 and info.misses == 4
    f.cache_clear()
    assert f.cache_info() == adsrc.CacheInfo(0, 0, 2, 0)
    with pytest.raises(ValueError, match="cache_size"):
        adsrc.grad(power_plus, cache_size=0)


def test_many_threads_transform_each_key_once():
    f = adsrc.grad(power_plus, static_argnums=1)
    keys = [1, 2, 3, 4, 5, 6]
    results = {}
    errors = []
    barrier = threading.Barrier(24)

    def worker(t):
        try:
            barrier.wait()
            for i in range(20):
                n = keys[(t + i) % len(keys)]
                results[(t, i)] = (n, f(0.9, n))
        except Exception as e:   # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    info = f.cache_info()
    assert info.misses == len(keys)
    assert info.hits + info.misses == 24 * 20
    for n, g in results.values():
        assert g == pytest.approx(adsrc.grad(power_plus, static_argnums=1)(0.9, n))


def test_miss_logging_says_what_changed(caplog):
    f = adsrc.grad(power_plus, static_argnums=1)
    with caplog.at_level(logging.DEBUG, logger="adsrc.cache"):
        f(1.5, 3)
        f(1.5, 4)
        f(1.5, 4)
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 2
    assert "first call" in messages[0] and "n=3 (int)" in messages[0]
    assert "static argument `n` changed from 3 (int) to 4 (int)" in messages[1]


def test_cli_static_option():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "adsrc", "show", f"{__file__}:power_plus", "--static", "n=9",
                          "--stage", "lowered"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "range(8)" in out.stdout


def _activation_from_config(w, cfg):
    act = {"tanh": np.tanh, "relu": lambda z: np.maximum(z, 0.0)}[cfg["act"]]
    return np.sum(act(w) * w)


def test_an_activation_chosen_by_a_static_configuration():
    # refused: the function taken from the dict display by cfg["act"] was a call of an unknown `act`
    from casekit import central_grad
    g = adsrc.grad(_activation_from_config, static_argnames="cfg")
    w = np.array([0.3, -0.8, 1.1])
    for name in ("tanh", "relu"):
        cfg = {"act": name}
        got = g(w, cfg=cfg)
        np.testing.assert_allclose(got, central_grad(lambda v: _activation_from_config(v, cfg), w), rtol=1e-6,
                                   atol=1e-8)
