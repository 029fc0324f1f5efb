import os
import sys
import zlib

sys.path.insert(0, os.path.dirname(__file__))

from adsrc import pipeline  # noqa: E402

pipeline.VERIFY = True      # the IR verifier runs after every pass in the tests


def _shard_key(item):
    """What a shard takes whole: a test, or its whole file where the file says SHARD_AS_ONE (a test there sums up
    what the file's other tests found in the same process)."""
    whole = getattr(getattr(item, "module", None), "SHARD_AS_ONE", False)
    return item.nodeid.split("::")[0] if whole else item.nodeid


def pytest_collection_modifyitems(config, items):
    """ADSRC_TEST_SHARD="k/n" runs the tests whose key hashes to k modulo n (CI splits the suite over the Pythons
    it tests, so that together they run every test; each still collects every file). Unset: every test."""
    shard = os.environ.get("ADSRC_TEST_SHARD")
    if not shard:
        return
    k, n = map(int, shard.split("/"))
    mine = [zlib.crc32(_shard_key(item).encode()) % n == k for item in items]
    config.hook.pytest_deselected(items=[item for item, m in zip(items, mine) if not m])
    items[:] = [item for item, m in zip(items, mine) if m]
