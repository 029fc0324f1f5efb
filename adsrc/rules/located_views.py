"""Views of an array found when the code runs: which basic index of the array a view held in a container takes.

    vs = [v[i] for i in range(3)]       # vs[k] is v[k], k known only when the code runs
    v[0] += 1.0                         # so vs[0] sees this change

lowering/functionalize.py gives v a new value v_1 and brings vs up to date with replace_obj(vs, v, v_1)
(sharing.py), which puts v_1[k] where vs holds the view v[k], as NumPy's vs[0] sees the change. `located`
finds k from the view's memory (the address of its first element, its shape and its strides) and checks
that v[k] is that same view; a view it cannot write as a basic index of v (a reshape of a transposed
array, ...) is still refused.
"""

import itertools

import numpy as np

from ..runtime_core import helper

_nd = np.ndarray


@helper
def located_index(part, base):
    """The basic index idx with base[idx] the very view part is (both arrays), else None: a change in place of
    part is then written back into base at idx (lowering/functionalize.py)."""
    return located(part, base)


def located(x, old):
    """A basic index (a tuple of ints and slices) idx with old[idx] the very view x is (the same first element,
    shape, strides and dtype), or None."""
    if type(x) is not _nd or type(old) is not _nd or x is old or x.base is None or x.dtype != old.dtype or x.ndim > old.ndim or \
            x.size == 0 or not np.may_share_memory(x, old):       # (the view is checked exactly below)
        return None
    offset = _address(x) - _address(old)
    for axes in itertools.combinations(range(old.ndim), x.ndim):
        idx = _index(x, old, axes, offset)
        if idx is not None and _same_view(old[idx], x):
            return idx
    return None


def located_positions(m, old, positions_where):
    """[(position, idx)]: the positions in container m of the arrays that are views old[idx] of old (not old)."""
    if type(old) is not _nd or type(m) is _nd:
        return []
    out = []
    for p in positions_where(m, lambda x: type(x) is _nd and x is not old and located(x, old) is not None):
        out.append((p, located(_at(m, p), old)))
    return out


def embedded(part, like, idx):
    """An array shaped as like, zero but for like[idx], which is part (a cotangent of that view)."""
    out = np.zeros(np.shape(like), np.result_type(like, part, float))
    out[idx] += part
    return out


def _at(m, path):
    from .sharing import _part
    for k in path:
        m = _part(m, k)
    return m


def _address(a):
    return a.__array_interface__["data"][0]


def _same_view(a, b):
    return type(a) is _nd and _address(a) == _address(b) and a.shape == b.shape and a.strides == b.strides and \
        a.dtype == b.dtype


def _index(x, old, axes, offset):
    """The index taking x from old if x's axes are old's axes `axes` (in order) and old's other axes are indexed
    by integers, from the offset of x's first element; None if the strides do not fit."""
    steps = {}
    for j, k in enumerate(axes):
        if x.shape[j] == 1:
            steps[k] = 1
        elif old.strides[k] == 0 or x.strides[j] % old.strides[k]:
            return None
        else:
            steps[k] = x.strides[j] // old.strides[k]
    starts = [0] * old.ndim
    rest = offset
    for k in sorted(range(old.ndim), key=lambda k: -abs(old.strides[k])):
        s = old.strides[k]
        if s == 0 or old.shape[k] == 1:
            continue
        starts[k] = max(0, min(old.shape[k] - 1, rest // s))
        rest -= starts[k] * s
    if rest:
        return None
    idx = []
    for k in range(old.ndim):
        if k not in steps:
            idx.append(starts[k])
            continue
        n, step = x.shape[axes.index(k)], steps[k]
        stop = starts[k] + step * n
        idx.append(slice(starts[k], None if stop < 0 else stop, step))
    return tuple(idx)
