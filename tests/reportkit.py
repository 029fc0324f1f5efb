"""The command line of the random-program reports (second_order_report.py, numba_report.py).

`report(outcome, description, argv)` runs `outcome(case) -> (kind, message)` on the
programs of a range of seeds, prints the count of each kind and the first messages of
each kind other than "pass" (and, with `tally`, the most frequent messages of that kind),
and returns 1 if any program gave a mismatch or a crash.
"""

import argparse
import collections
import sys
import warnings

from proginst import make_case


def report(outcome, description, argv=None, tally=None):
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--show", type=int, default=5, help="messages shown per kind")
    args = ap.parse_args(argv)
    counts, examples, frequent = collections.Counter(), collections.defaultdict(list), collections.Counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(args.start, args.start + args.count):
            kind, line = outcome(make_case(seed))
            counts[kind] += 1
            if kind == tally:
                frequent[line[:110]] += 1
            if kind != "pass" and len(examples[kind]) < args.show:
                examples[kind].append(f"seed {seed}: {line}")
    print(", ".join(f"{k}: {v}" for k, v in counts.most_common()))
    if frequent:
        print(f"\nmost frequent ({tally}):")
        print("\n".join(f"  {n} {line}" for line, n in frequent.most_common(15)))
    for kind, lines in examples.items():
        print(f"\n{kind}:")
        print("\n".join("  " + x for x in lines))
    return 1 if counts["mismatch"] or counts["crash"] else 0


def first_line(e):
    return str(e).splitlines()[0] if str(e) else ""


def guarded(case, check, refusals, seconds):
    """check(f, case) -> (kind, message) on the case's program f, within `seconds`; an exception of a class in
    `refusals` ([(class, kind, message of the exception)], in order) is that kind, any other a crash."""
    from progcheck import load
    from proginst import Timeout, time_limit
    module = load(case.src)
    try:
        with time_limit(seconds):
            return check(module.f, case)
    except Timeout:
        return "timeout", f"no result within {seconds} s"
    except Exception as e:      # noqa: BLE001
        for cls, kind, message in refusals:
            if isinstance(e, cls):
                return kind, message(e)
        return "crash", f"{type(e).__name__}: {first_line(e)}"
    finally:
        sys.modules.pop(module.__name__, None)
