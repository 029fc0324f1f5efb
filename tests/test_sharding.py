"""CI's shares (sharding.py) run every test exactly once, keep a SHARD_AS_ONE file whole and balance time."""

import sharding


class Item:
    def __init__(self, nodeid):
        self.nodeid = nodeid


def _items():
    out = [Item(f"tests/test_big.py::test_{i}") for i in range(400)]
    out += [Item(f"tests/test_whole.py::test_{i}") for i in range(50)]
    out += [Item(f"tests/test_small_{j}.py::test_{i}") for j in range(20) for i in range(5)]
    out += [Item("tests/test_unknown.py::test_0")]
    return out


DURATIONS = {"tests/test_big.py": 400.0, "tests/test_whole.py": 60.0,
             **{f"tests/test_small_{j}.py": 5.0 for j in range(20)}}


def _shares(n, monkeypatch):
    monkeypatch.setattr(sharding, "read_durations", lambda: DURATIONS)
    monkeypatch.setattr(sharding, "says_whole", lambda path: path == "tests/test_whole.py")
    items = _items()
    return items, [sharding.select(items, k, n) for k in range(n)]


def test_every_test_runs_once(monkeypatch):
    for n in (1, 2, 3, 4):
        items, shares = _shares(n, monkeypatch)
        ids = [item.nodeid for share in shares for item in share]
        assert sorted(ids) == sorted(item.nodeid for item in items)


def test_a_file_marked_whole_stays_in_one_share(monkeypatch):
    _, shares = _shares(4, monkeypatch)
    holding = [k for k, share in enumerate(shares) if any("test_whole" in item.nodeid for item in share)]
    assert len(holding) == 1


def test_shares_are_balanced_by_time(monkeypatch):
    _, shares = _shares(4, monkeypatch)

    def seconds(share):
        per_test = {"tests/test_big.py": 1.0, "tests/test_whole.py": 60.0 / 50}
        return sum(per_test.get(item.nodeid.split("::")[0], 1.0) for item in share)
    times = [seconds(share) for share in shares]
    assert max(times) < 1.25 * min(times), times       # a hash split of 400 tests: within a quarter


def test_record_reads_pytest_durations(tmp_path):
    log = tmp_path / "log.txt"
    log.write_text("============ slowest durations ============\n"
                   "2.50s call     tests/test_a.py::test_x[1]\n"
                   "0.50s setup    tests/test_a.py::test_y\n"
                   "1.00s call     tests/test_b.py::TestC::test_z\n")
    out = tmp_path / "durations.txt"
    sharding.record(str(log), str(out))
    assert sharding.read_durations(str(out)) == {"tests/test_a.py": 3.0, "tests/test_b.py": 1.0}
    more = tmp_path / "more.txt"
    more.write_text("4.00s call     tests/test_c.py::test_w\n0.50s call     tests/test_a.py::test_x[1]\n")
    sharding.record(str(more), str(out), add=True)
    assert sharding.read_durations(str(out)) == {"tests/test_a.py": 0.5, "tests/test_b.py": 1.0,
                                                 "tests/test_c.py": 4.0}


def test_the_marked_files_are_read_from_their_text():
    assert sharding.says_whole("tests/test_complex.py") and sharding.says_whole("tests/test_dask.py")
    assert not sharding.says_whole("tests/test_rules.py") and not sharding.says_whole("tests/no_such_file.py")


def test_a_file_one_python_does_not_collect_leaves_the_others_in_their_shares(monkeypatch):
    items, shares = _shares(4, monkeypatch)
    fewer = [item for item in items if "test_small_3" not in item.nodeid]
    for k in range(4):
        assert [i.nodeid for i in sharding.select(fewer, k, 4)] == \
            [i.nodeid for i in shares[k] if "test_small_3" not in i.nodeid]
