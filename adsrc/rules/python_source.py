"""Python's own functions without rules (`min`/`max` with a key, itertools, math, statistics, `next`), written
in plain Python that adsrc differentiates like the user's code (rules/by_source.py calls them)."""

import heapq
import itertools
import math
import operator
import statistics

from . import nondiff


def best_position(keys, larger):
    """The position of the first largest (larger) or smallest key (a constant: keys are only compared)."""
    best = 0
    for i in range(1, len(keys)):
        if keys[i] > keys[best] if larger else keys[i] < keys[best]:
            best = i
    return best


nondiff(best_position, "best_position")


def _first_best(items, key, default, has_default, larger):
    """max/min(items, key=key, default=default): the first item whose key is largest (smallest)."""
    if not items:
        if has_default:
            return default
        raise ValueError(f"{'max' if larger else 'min'}() iterable argument is empty")
    if key is None:
        return items[best_position(items, larger)]
    return items[best_position([key(v) for v in items], larger)]


def max_by(items, key, default=None, has_default=False):
    return _first_best(list(items), key, default, has_default, True)


def min_by(items, key, default=None, has_default=False):
    return _first_best(list(items), key, default, has_default, False)


def max_of(items, default=None, has_default=False):
    return _first_best(list(items), None, default, has_default, True)


def min_of(items, default=None, has_default=False):
    return _first_best(list(items), None, default, has_default, False)


def fsum_correction(items, total):
    """math.fsum(items) - total: what exact summation changes of a plain sum (a constant)."""
    return math.fsum(items) - total


nondiff(fsum_correction, "fsum_correction")


def fsum(seq):
    items = list(seq)
    total = sum(items)
    return total + fsum_correction(items, total)


def prod(iterable, *, start=1):
    out = start
    for v in iterable:
        out = out * v
    return out


def dist(p, q):
    return math.sqrt(sum((a - b) ** 2 for a, b in zip(p, q)))


def hypot(*coordinates):
    """math.hypot of any number of coordinates, scaled by the largest so that squares neither overflow nor vanish."""
    m = max([abs(c) for c in coordinates], default=0.0)
    if m == 0.0 or m == math.inf:
        return float(m)
    return m * math.sqrt(sum((c / m) ** 2 for c in coordinates))


def divmod_(a, b):
    return a // b, a % b


def mean(data):
    items = list(data)
    if not items:
        raise ValueError("mean requires at least one data point")
    return sum(items) / len(items)


def median(data):
    items = sorted(data)
    n = len(items)
    if n == 0:
        raise ValueError("no median for empty data")
    if n % 2 == 1:
        return items[n // 2]
    return (items[n // 2 - 1] + items[n // 2]) / 2


def variance(data, xbar=None):
    items = list(data)
    if len(items) < 2:
        raise ValueError("variance requires at least two data points")
    centre = mean(items) if xbar is None else xbar
    return sum((v - centre) ** 2 for v in items) / (len(items) - 1)


def pvariance(data, mu=None):
    items = list(data)
    if not items:
        raise ValueError("pvariance requires at least one data point")
    centre = mean(items) if mu is None else mu
    return sum((v - centre) ** 2 for v in items) / len(items)


def geometric_mean(data):
    items = list(data)
    if not items:
        raise statistics.StatisticsError("geometric_mean requires a non-empty dataset containing positive numbers")
    return math.exp(sum(math.log(v) for v in items) / len(items))


def harmonic_mean(data, weights=None):
    items = list(data)
    if not items:
        raise statistics.StatisticsError("harmonic_mean requires at least one data point")
    ws = [1.0] * len(items) if weights is None else list(weights)
    if any(v == 0 for v in items):
        return 0.0
    return sum(ws) / sum(w / v for w, v in zip(ws, items))


def stdev(data, xbar=None):
    return math.sqrt(variance(data, xbar))


def pstdev(data, mu=None):
    return math.sqrt(pvariance(data, mu))


def accumulate(iterable, func=operator.add, *, initial=None):
    items = list(iterable)
    if initial is None:
        if not items:
            return []
        total = items[0]
        out = [total]
        rest = items[1:]
    else:
        total = initial
        out = [total]
        rest = items
    for v in rest:
        total = func(total, v)
        out.append(total)
    return out


def pairwise(iterable):
    items = list(iterable)
    return [(items[i], items[i + 1]) for i in range(len(items) - 1)]


def combination_positions(n, r):
    return list(itertools.combinations(range(n), r))


def permutation_positions(n, r):
    return list(itertools.permutations(range(n), r))


def product_positions(sizes):
    return list(itertools.product(*[range(n) for n in sizes]))


def combination_with_replacement_positions(n, r):
    return list(itertools.combinations_with_replacement(range(n), r))


for _fn in (combination_positions, permutation_positions, product_positions, combination_with_replacement_positions):
    nondiff(_fn, _fn.__name__)


def combinations(iterable, r):
    items = list(iterable)
    return [tuple([items[i] for i in pos]) for pos in combination_positions(len(items), r)]


def combinations_with_replacement(iterable, r):
    items = list(iterable)
    return [tuple([items[i] for i in pos]) for pos in combination_with_replacement_positions(len(items), r)]


def permutations(iterable, r=None):
    items = list(iterable)
    return [tuple([items[i] for i in pos]) for pos in permutation_positions(len(items), r)]


def product(*iterables, repeat=1):
    pools = [list(it) for it in iterables] * repeat
    return [tuple([pools[k][i] for k, i in enumerate(pos)]) for pos in product_positions([len(p) for p in pools])]


def chain(*iterables):
    out = []
    for it in iterables:
        out = out + list(it)
    return out


def chain_from_iterable(iterables):
    out = []
    for it in iterables:
        out = out + list(it)
    return out


def next_item(items):
    """next(it) of an iterator read as the list of its items (frontend/next_calls.py)."""
    if len(items) == 0:
        raise StopIteration
    return items[0]


def next_item_or(items, default):
    return items[0] if len(items) else default


def next_split(items):
    """(next(it), what is left of it) for an iterator read as the list of its items."""
    if len(items) == 0:
        raise StopIteration
    return items[0], items[1:]


def next_split_or(items, default):
    return (items[0], items[1:]) if len(items) else (default, items)


def islice(iterable, *args):
    items = list(iterable)
    if len(args) == 1:
        return items[:args[0]]
    if len(args) == 2:
        return items[args[0]:args[1]]
    return items[args[0]:args[1]:args[2]]


# -- heapq: CPython's algorithms (the same order of the heap's items, so ties go where Python puts them) ----------

def _sift_toward_root(heap, start, pos):
    """Move heap[pos] up toward `start` past the parents larger than it."""
    item = heap[pos]
    while pos > start:
        parent = (pos - 1) // 2
        if item < heap[parent]:
            heap[pos] = heap[parent]
            pos = parent
        else:
            break
    heap[pos] = item


def _sift_to_leaf(heap, pos):
    """Move the smaller child up until a leaf, put heap[pos] there, then move it back up where it belongs."""
    end = len(heap)
    start = pos
    item = heap[pos]
    child = 2 * pos + 1
    while child < end:
        if child + 1 < end and not heap[child] < heap[child + 1]:
            child = child + 1
        heap[pos] = heap[child]
        pos = child
        child = 2 * pos + 1
    heap[pos] = item
    _sift_toward_root(heap, start, pos)


def heappush(heap, item):
    heap.append(item)
    _sift_toward_root(heap, 0, len(heap) - 1)


def heappop(heap):
    last = heap.pop()
    if not heap:
        return last
    top = heap[0]
    heap[0] = last
    _sift_to_leaf(heap, 0)
    return top


def heapify(x):
    for i in range(len(x) // 2 - 1, -1, -1):
        _sift_to_leaf(x, i)


def heapreplace(heap, item):
    top = heap[0]
    heap[0] = item
    _sift_to_leaf(heap, 0)
    return top


def heappushpop(heap, item):
    if heap and heap[0] < item:
        top = heap[0]
        heap[0] = item
        _sift_to_leaf(heap, 0)
        return top
    return item


PYTHON_IMPLEMENTATIONS = {
    math.fsum: fsum, math.prod: prod, math.dist: dist, math.hypot: hypot, divmod: divmod_, statistics.mean: mean,
    statistics.fmean: mean, statistics.median: median, statistics.variance: variance,
    statistics.pvariance: pvariance, statistics.stdev: stdev, statistics.pstdev: pstdev,
    statistics.geometric_mean: geometric_mean, statistics.harmonic_mean: harmonic_mean,
    itertools.accumulate: accumulate, itertools.chain: chain, itertools.chain.from_iterable: chain_from_iterable,
    itertools.islice: islice, itertools.combinations: combinations, itertools.permutations: permutations,
    itertools.product: product, itertools.combinations_with_replacement: combinations_with_replacement,
    heapq.heappush: heappush, heapq.heappop: heappop,
    heapq.heapify: heapify, heapq.heapreplace: heapreplace, heapq.heappushpop: heappushpop,
}
if hasattr(itertools, "pairwise"):
    PYTHON_IMPLEMENTATIONS[itertools.pairwise] = pairwise
