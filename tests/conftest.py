import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import sharding  # noqa: E402
from adsrc import pipeline  # noqa: E402

pipeline.VERIFY = True      # the IR verifier runs after every pass in the tests


def pytest_collection_modifyitems(config, items):
    """ADSRC_TEST_SHARD="k/n" runs share k of n (CI splits the suite over the Pythons it tests, so that together
    they run every test; each still collects every file; sharding.py says how the shares are made). Unset:
    every test."""
    shard = os.environ.get("ADSRC_TEST_SHARD")
    if not shard:
        return
    k, n = map(int, shard.split("/"))
    mine = set(map(id, sharding.select(items, k, n)))
    config.hook.pytest_deselected(items=[item for item in items if id(item) not in mine])
    items[:] = [item for item in items if id(item) in mine]
