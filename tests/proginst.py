"""Instances of generated programs: inputs, thresholds, and a check that the test is fair.

The generator (progen.py) writes comparison thresholds as names T0, T1, ...
`calibrate` runs the program at both inputs with every comparison and every
non-smooth call instrumented (an AST rewrite of the generated program; adsrc is
not involved), and sets each threshold, in the order they are first reached,
in a gap between the values compared against it, at least MARGIN from all of
them, preferring a gap that separates the two inputs' values: the branch,
the boolean mask or the loop exit then differs between the two inputs.

`validate` decides whether a program (thresholds written as numbers) is a
fair test at the inputs: it runs, returns a finite scalar, never writes into
its inputs (they are made read-only), and every comparison between floats and every non-smooth function
(maximum, minimum, abs, max/min/argmax reductions, sort, norm, std, clip,
builtin max/min) is at least MARGIN from its kink or tie, at both inputs.
Central differences move values by about 1e-6 (times a derivative of order
one), far less than MARGIN, so they never cross a branch or a kink: a test can
only fail because of adsrc. When the random inputs land too close to a kink,
`make_case` draws other inputs (and, rarely, another program).
"""

import ast
import contextlib
import copy
import operator
import random
import re
import signal
import threading
import warnings

import numpy as np

from progen import Gen

MARGIN = 5e-4
RUN_SECONDS = 2
THRESH = re.compile(r"\bT(\d+)\b")
OPS = {"Lt": operator.lt, "Gt": operator.gt, "LtE": operator.le, "GtE": operator.ge}
NP_KINKS = {"maximum", "minimum", "abs", "absolute", "fabs", "clip", "max", "min", "amax", "amin", "sort",
            "argmax", "argmin", "median", "std"}


class Timeout(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds):
    """Raise Timeout in the block after `seconds` (main thread with SIGALRM only; else no limit)."""
    if not seconds or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGALRM"):
        yield
        return

    def handler(signum, frame):
        raise Timeout(f"no result within {seconds} s")
    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id] + parts[::-1])
    return None


class _Instrument(ast.NodeTransformer):
    def __init__(self):
        self.n = 0

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) != 1 or type(node.ops[0]).__name__ not in OPS:
            return node
        right = node.comparators[0]
        key = right.id if isinstance(right, ast.Name) and THRESH.fullmatch(right.id) else f"c{self.n}"
        self.n += 1
        args = [ast.Constant(key), ast.Constant(type(node.ops[0]).__name__), node.left, right]
        return ast.copy_location(ast.Call(ast.Name("_cmp", ast.Load()), args, []), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        name = _dotted(node.func)
        if name in ("max", "min"):
            kind = "builtin"
        elif name == "np.linalg.norm":
            kind = "norm"
        elif name and name.startswith("np.") and name[3:] in NP_KINKS:
            kind = name[3:]
        else:
            return node
        args = [ast.Constant(kind), node.func] + node.args
        return ast.copy_location(ast.Call(ast.Name("_kink", ast.Load()), args, node.keywords), node)


def _floaty(x):
    return isinstance(x, (float, np.floating)) or isinstance(x, np.ndarray) and x.dtype.kind == "f"


def _top_gap(a, axis, smallest):
    """Smallest gap between the two largest (or smallest) values along axis."""
    a = np.asarray(a, dtype=float)
    if axis is None:
        a, axis = a.ravel(), 0
    if a.shape[axis] < 2:
        return np.inf
    s = np.sort(a, axis=axis)
    lo, hi = (0, 1) if smallest else (-2, -1)
    return float(np.min(np.take(s, hi, axis=axis) - np.take(s, lo, axis=axis)))


def kink_margin(kind, args, kw, out):
    if kind in ("maximum", "minimum"):
        return float(np.min(np.abs(np.asarray(args[0], float) - np.asarray(args[1], float))))
    if kind in ("abs", "absolute", "fabs"):
        return float(np.min(np.abs(args[0])))
    if kind == "clip":
        a = np.asarray(args[0], float)
        bounds = [b for b in list(args[1:3]) + [kw.get("a_min"), kw.get("a_max")] if b is not None]
        return min((float(np.min(np.abs(a - b))) for b in bounds), default=np.inf)
    if kind in ("norm", "std"):
        return float(np.min(np.abs(out)))
    axis = kw.get("axis", args[1] if len(args) > 1 else (-1 if kind == "sort" else None))
    if kind in ("sort", "median"):
        a = np.asarray(args[0], float)
        a, axis = (a.ravel(), 0) if axis is None else (a, axis)
        return float(np.min(np.diff(np.sort(a, axis=axis), axis=axis), initial=np.inf))
    return _top_gap(args[0], axis, kind in ("min", "amin", "argmin"))


class Recorder:
    """What one instrumented run saw: values compared with each threshold, margins, outcomes."""

    def __init__(self):
        self.values = {}     # threshold name -> [arrays of the values compared with it]
        self.order = []      # threshold names in the order first reached
        self.outcomes = {}   # comparison -> [outcome bytes]
        self.margin, self.worst = np.inf, None

    def note(self, m, what):
        if m < self.margin:
            self.margin, self.worst = m, what

    def cmp(self, key, op, a, b):
        res = OPS[op](a, b)
        if _floaty(a) or _floaty(b):
            left = np.asarray(a, dtype=float)
            if THRESH.fullmatch(key):
                if key not in self.values:
                    self.values[key] = []
                    self.order.append(key)
                self.values[key].append(left.ravel())
            else:
                d = np.abs(left - np.asarray(b, dtype=float))
                if d.size:
                    self.note(float(d.min()), f"a comparison ({key})")
            self.outcomes.setdefault(key, []).append(np.asarray(res).tobytes())
        return res

    def kink(self, kind, fn, *args, **kw):
        if kind == "builtin":
            items = list(args[0]) if len(args) == 1 else list(args)
            out = fn(items, **kw)
            self.note(_top_gap([float(x) for x in items], None, fn is min), f"builtin {fn.__name__}")
            return out
        out = fn(*args, **kw)
        self.note(kink_margin(kind, args, kw, out), f"np.{kind}")
        return out


class Probe:
    """A program compiled with its comparisons and non-smooth calls instrumented."""

    def __init__(self, src):
        tree = _Instrument().visit(ast.parse(src))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # SyntaxWarnings of shrunk programs
            self.code = compile(ast.fix_missing_locations(tree), "<instrumented>", "exec")

    def run(self, args, thresholds=None):
        rec = Recorder()
        ns = {"__name__": "instrumented", "_cmp": rec.cmp, "_kink": rec.kink}
        ns.update(thresholds or {})
        exec(self.code, ns)
        with np.errstate(all="raise", under="ignore"):
            out = ns["f"](*args)
        return rec, out


def _fmt(t):
    return repr(float(round(t, 3)))


def choose(a, b, rng):
    """A threshold at least MARGIN (after rounding) from every value; one that splits a from b if possible."""
    allv = np.unique(np.concatenate([a, b]))
    if not allv.size:
        return 0.0
    cands = []
    for lo, hi in zip(allv[:-1], allv[1:]):
        t = round((lo + hi) / 2, 3)
        if min(t - lo, hi - t) >= MARGIN:
            split = a.size and b.size and np.mean(a > t) != np.mean(b > t)
            cands.append((bool(split), t))
    splits = [t for s, t in cands if s]
    if splits:
        return rng.choice(splits)
    if cands and rng.random() < 0.7:
        return rng.choice([t for _, t in cands])
    return round(allv[-1] + 0.1 if rng.random() < 0.5 else allv[0] - 0.1, 3)


def calibrate(src, inputs, rng):
    """src with its thresholds written as numbers; None if they do not settle."""
    names = sorted({f"T{k}" for k in THRESH.findall(src)}, key=lambda n: int(n[1:]))
    probe = Probe(src)
    default = {n: round(rng.uniform(-0.5, 0.5), 3) for n in names}     # for thresholds never reached
    fixed = {}
    for _ in range(3 * len(names) + 3):
        recs = [probe.run(copy.deepcopy(a), dict(default, **fixed))[0] for a in inputs]
        order = list(dict.fromkeys(k for rec in recs for k in rec.order))
        bad = None
        for key in order:
            vals = [np.concatenate(rec.values.get(key, [np.empty(0)])) for rec in recs]
            if key not in fixed or any(v.size and np.min(np.abs(v - fixed[key])) < MARGIN for v in vals):
                bad = key
                break
        if bad is None:
            final = dict(default, **fixed)
            return THRESH.sub(lambda m: _fmt(final[m.group(0)]), src)
        fixed[bad] = choose(vals[0], vals[-1], rng)
    return None


def same(a, b):
    """Deep equality of inputs (arrays by shape, dtype and values; lists, tuples, dicts by structure)."""
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return type(a) is type(b) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def leaves(x, path=()):
    """(path, leaf) for each leaf of nested dicts, lists and tuples."""
    if isinstance(x, dict):
        for k in x:
            yield from leaves(x[k], path + (k,))
    elif isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            yield from leaves(v, path + (i,))
    else:
        yield path, x


def validate(src, inputs):
    """(None, flipped comparisons) when src is a fair test at the inputs, else (why not, None)."""
    try:
        probe = Probe(src)
    except SyntaxError as e:
        return f"SyntaxError: {e}", None
    recs = []
    for args in inputs:
        mine = copy.deepcopy(args)
        for _, leaf in leaves(mine):
            if isinstance(leaf, np.ndarray):
                leaf.flags.writeable = False        # a write into an input's memory raises
        try:
            with time_limit(RUN_SECONDS):   # a shrunk program may loop forever
                rec, out = probe.run(mine)
        except Exception as e:          # noqa: BLE001 -- any error makes the program unusable
            return f"{type(e).__name__}: {e}", None
        if not same(mine, args):
            return "f changes its inputs", None
        if not isinstance(out, (float, int, np.floating, np.integer)) or not abs(float(out)) < 1e6:
            return f"f returns {out!r}", None
        if rec.margin < MARGIN:
            return f"kink: {rec.worst} is {rec.margin:.2g} from a tie", None
        recs.append(rec)
    keys = set().union(*(r.outcomes for r in recs))
    flips = sorted(k for k in keys if len({tuple(r.outcomes.get(k, ())) for r in recs}) > 1)
    return None, flips


def draw(params, rng, variant):
    """Inputs rounded to 3 decimals; the second variant has larger values and s < 0."""
    lo = 1.0 if variant == 0 else 1.5

    def u(*shape):
        return np.round(rng.uniform(-lo, lo, shape), 3)
    s = round(float(rng.uniform(0.2, 1.0)) * (1 if variant == 0 else -1), 3)
    values = {"xs": u(3), "s": s, "W": u(4, 3), "p": {"w": u(3), "b": round(float(rng.uniform(-lo, lo)), 3)},
              "zs": [u(3), u(3)]}
    return tuple(values[p] for p in params)


class Case:
    def __init__(self, seed, src, params, inputs, flips, tries):
        self.seed, self.src, self.params, self.inputs = seed, src, params, inputs
        self.flips, self.tries = flips, tries
        self.argnums = tuple(range(len(params)))


def make_case(seed, programs=12, draws=4):
    """The program for a seed, calibrated and validated at two inputs (other draws if needed)."""
    why = None
    for k in range(programs):
        src, params = Gen(seed if k == 0 else f"{seed}/{k}").program()
        for j in range(draws):
            rng = np.random.default_rng([seed, k, j])
            inputs = [draw(params, rng, 0), draw(params, rng, 1)]
            try:
                final = calibrate(src, inputs, random.Random(f"{seed}/{k}/{j}"))
            except Exception as e:      # noqa: BLE001
                why = f"{type(e).__name__}: {e}"
                break
            if final is None:
                why = "thresholds did not settle"
                continue
            why, flips = validate(final, inputs)
            if why is None:
                return Case(seed, final, params, inputs, flips, (k, j))
            if not why.startswith("kink"):
                break
    raise RuntimeError(f"no valid program for seed {seed}: {why}")
