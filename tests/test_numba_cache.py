"""backend="numba" with ADSRC_CACHE_DIR: compiled kernels are loaded by a later process instead of compiled
again, and never when anything they depend on changed (a function they call, adsrc, a global's value)."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from adsrc.numba_backend import disk_cache  # noqa: E402  (needs numba)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROGRAM = '''
import json, os, sys
import numpy as np
import adsrc

SCALE = np.array(json.loads(os.environ["SCALE"]))


def layer(W, h):
    return np.{activation}(W @ h)


def loss(W, xs):
    h = np.zeros(W.shape[0])
    for x in xs:
        h = layer(W, h + SCALE * x)
    return np.sum(h ** 2)


r = np.random.default_rng(0)
W, xs = r.normal(size=(3, 3)) * 0.5, r.normal(size=(5, 3))
g = adsrc.grad(loss, backend="numba")
got = g(W, xs)
expected = adsrc.grad(loss)(W, xs)
kernel = g._data[next(iter(g._data))][0].__globals__["loss_grad_kernel"]
print(json.dumps({{"agree": bool(np.allclose(got, expected, rtol=1e-9, atol=1e-12)),
                  "hits": sum(kernel.stats.cache_hits.values()), "misses": sum(kernel.stats.cache_misses.values()),
                  "grad": got.tolist()}}))
'''


def _run(tmp_path, activation, scale, cache):
    module = tmp_path / "program.py"
    module.write_text(PROGRAM.format(activation=activation))
    env = dict(os.environ, SCALE=str(scale), PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop(disk_cache.ENV, None)
    if cache:
        env[disk_cache.ENV] = str(tmp_path / "cache")
    out = subprocess.run([sys.executable, str(module)], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    import json
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_later_process_loads_the_kernels_and_sees_what_changed(tmp_path):
    first = _run(tmp_path, "tanh", [1.0, 2.0, 3.0], cache=True)
    assert first["agree"] and first["hits"] == 0 and first["misses"] == 1
    assert any(p.name.startswith("adsrc_") for p in (tmp_path / "cache").iterdir())

    again = _run(tmp_path, "tanh", [1.0, 2.0, 3.0], cache=True)
    assert again["agree"] and again["hits"] == 1 and again["misses"] == 0      # loaded, not compiled
    np.testing.assert_array_equal(again["grad"], first["grad"])

    rescaled = _run(tmp_path, "tanh", [-1.0, 0.5, 2.0], cache=True)            # a global's value: passed in
    assert rescaled["agree"] and rescaled["hits"] == 1
    assert not np.allclose(rescaled["grad"], first["grad"])

    changed = _run(tmp_path, "sin", [1.0, 2.0, 3.0], cache=True)               # a function it calls changed
    assert changed["agree"] and changed["hits"] == 0 and changed["misses"] == 1


def test_without_the_variable_nothing_is_written(tmp_path):
    out = _run(tmp_path, "tanh", [1.0, 2.0, 3.0], cache=False)
    assert out["agree"] and out["hits"] == 0 and not (tmp_path / "cache").exists()


def test_a_kernel_reading_what_cannot_be_told_apart_across_processes_is_not_cached():
    text = textwrap.dedent('''
        @numba.njit
        def k(x):
            return helper(x) + np.sin(x)
    ''')
    assert disk_cache.fingerprint(text, {"np": np, "numba": numba, "helper": lambda x: x}) is None
    assert disk_cache.fingerprint(text, {"np": np, "numba": numba, "helper": np.cos}) is not None
    a = disk_cache.fingerprint(text, {"np": np, "numba": numba, "helper": np.cos})
    assert a != disk_cache.fingerprint(text, {"np": np, "numba": numba, "helper": np.tan})
