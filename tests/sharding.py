"""How CI splits the suite over the Pythons it tests (ADSRC_TEST_SHARD="k/n", see conftest.py).

Each Python collects every file and runs one share; together the shares run every test once. The shares are
balanced by time: durations.txt holds each file's seconds from one full run (`python tests/sharding.py
--record LOG` reads them off `pytest --durations=0 --durations-min=0`; `--add LOG` adds the files of a
partial run). A file slower than a share's tenth is cut into parts (its tests spread over them by a hash of
their names), unless it says SHARD_AS_ONE (a test there sums up what the file's other tests found in the same
process); the parts, slowest first, each go to the share with the least time so far. A file not in
durations.txt counts as the median file. Every Python computes the same assignment: it depends only on the
file names and durations.txt.
"""

import hashlib
import os
import re
import statistics
import sys

DURATIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "durations.txt")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))     # test paths are relative to it


def read_durations(path=DURATIONS):
    """{test file path: seconds} from durations.txt ('seconds path' per line)."""
    out = {}
    if os.path.exists(path):
        with open(path) as fh:
            for line in fh:
                if line.strip() and not line.startswith("#"):
                    seconds, name = line.split()
                    out[name] = float(seconds)
    return out


def _part(nodeid, parts):
    return int(hashlib.md5(nodeid.encode()).hexdigest()[:8], 16) % parts


def assign(files, whole, n, durations):
    """{(file, part): share} and {file: parts} for the collected files; `whole` holds the SHARD_AS_ONE files."""
    known = [durations[f] for f in files if f in durations]
    default = statistics.median(known) if known else 1.0
    seconds = {f: durations.get(f, default) for f in files}
    target = sum(seconds.values()) / n / 10
    parts = {f: 1 if f in whole else max(1, min(50, round(seconds[f] / target))) if target else 1 for f in files}
    units = sorted(((seconds[f] / parts[f], f, p) for f in files for p in range(parts[f])),
                   key=lambda u: (-u[0], u[1], u[2]))
    load, share_of = [0.0] * n, {}
    for s, f, p in units:
        k = min(range(n), key=lambda i: (load[i], i))
        load[k] += s
        share_of[(f, p)] = k
    return share_of, parts


def says_whole(path):
    """Does the test file say SHARD_AS_ONE? (read from its text, the same on every Python, collected or not)"""
    try:
        with open(os.path.join(ROOT, path)) as fh:
            return "\nSHARD_AS_ONE = True" in fh.read()
    except OSError:
        return False


def select(items, k, n):
    """The items of share k of n."""
    def file_of(item):
        return item.nodeid.split("::")[0]
    durations = read_durations()
    # every file durations.txt names takes part, collected here or not: a file one Python skips whole (a missing
    # optional package) leaves the other files' shares as they are on the other Pythons
    files = sorted({file_of(item) for item in items} | set(durations))
    share_of, parts = assign(files, {f for f in files if says_whole(f)}, n, durations)
    return [item for item in items
            if share_of[(file_of(item), _part(item.nodeid, parts[file_of(item)]))] == k]


def record(log, path=DURATIONS, add=False):
    """Write durations.txt from the output of `pytest --durations=0 --durations-min=0` (add: of some files only,
    kept beside the times already there)."""
    per_file = {}
    pattern = re.compile(r"^\s*([0-9.]+)s (?:call|setup|teardown)\s+(\S+?)::")
    with open(log) as fh:
        for line in fh:
            m = pattern.match(line)
            if m:
                per_file[m.group(2)] = per_file.get(m.group(2), 0.0) + float(m.group(1))
    if add:
        per_file = {**read_durations(path), **per_file}
    with open(path, "w") as fh:
        fh.write("# seconds per test file on Python %d.%d (tests/sharding.py --record LOG of a full run, --add LOG "
                 "of some files)\n" % sys.version_info[:2])
        for name in sorted(per_file):
            fh.write(f"{per_file[name]:.1f} {name}\n")


if __name__ == "__main__":
    if sys.argv[1:2] in (["--record"], ["--add"]):
        record(sys.argv[2], add=sys.argv[1] == "--add")
    else:
        print(__doc__)
