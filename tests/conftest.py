import os
import sys
import zlib

sys.path.insert(0, os.path.dirname(__file__))

from adsrc import pipeline  # noqa: E402

pipeline.VERIFY = True      # the IR verifier runs after every pass in the tests


def pytest_collection_modifyitems(config, items):
    """ADSRC_TEST_SHARD="k/n" runs the tests whose id hashes to k modulo n (CI splits the suite over the Pythons it
    tests, so that together they run every test; each still collects every file). Unset: every test."""
    shard = os.environ.get("ADSRC_TEST_SHARD")
    if not shard:
        return
    k, n = map(int, shard.split("/"))
    keep = [item for item in items if zlib.crc32(item.nodeid.encode()) % n == k]
    config.hook.pytest_deselected(items=[item for item in items if zlib.crc32(item.nodeid.encode()) % n != k])
    items[:] = keep
