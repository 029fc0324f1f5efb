"""A container holding a view of an array that changes in place: the view is taken again from the new array.

    v = np.ones((3, 2)) * s
    held = {"r": v[0]}              # held["r"] is a view of v
    v[0, 0] += 0.3                  # so it sees this change

lowering/functionalize.py gives v a new value (`v_1 = index_update(v, (0, 0), ...)`)
and brings held up to date with `held_1 = replace_part(held, v, v_1, paths, message)`:
every item of held (in lists, tuples, dicts and the fields of objects, at any depth)
that is the part of the old v that one of the paths takes (each a tuple of steps,
`lambda view_of: view_of[0]`) becomes that part of the new v, a view of it again, as
in NumPy. Anything held that still shares memory with the old array afterwards (a
view adsrc did not know of) is refused with message, which names the user's line.
"""

import numpy as np

from ..runtime import add_cot, helper, is_zero
from . import general
from .sharing import _cot_get, _cot_set, _set_path, _shares, _taken, part_along, positions_where

_nd = np.ndarray


def part_positions(m, old, paths):
    """[(position, steps)]: the positions (tuples of keys) at which m holds an array that is the part of old
    that steps (one of paths) take."""
    if type(old) is not _nd:
        return []               # (a list's or dict's parts are its items: a change to it leaves them as they were)
    out = []
    for steps in paths:
        hit = (lambda x, steps=steps: type(x) is _nd and part_along(x, old, steps))
        out += [(p, steps) for p in positions_where(m, hit)]
    return out


@helper
def replace_part(m, old, new, paths, message):
    """m with each array it holds that is the part of old along one of paths replaced by that part of new (old
    was changed in place, new is its value now); raises message if m still shares memory with old after that."""
    out = m
    for position, steps in part_positions(m, old, paths):
        out = _set_path(out, position, _taken(new, steps))
    if type(old) is _nd and _shares(out, old, fields=True):
        from ..errors import TransformError
        raise TransformError(message)
    return out


@helper
def replace_part_cot(g, m, old, new, paths, k):
    """Cotangents of m (k=0) and new (k=1) in replace_part(m, old, new, paths, message)."""
    if is_zero(g):
        return g if k == 0 else 0.0
    found = part_positions(m, old, paths)
    if k == 0:
        for position, _ in found:
            g = _cot_set(g, position, 0.0, m)
        return g
    total = 0.0
    for position, steps in found:
        part = _cot_get(g, position)
        if not is_zero(part):
            total = add_cot(total, _embedded(part, new, steps))
    return total


def _embedded(part, new, steps):
    """An array shaped as new, zero but for its part along steps, which is part (a cotangent of that part)."""
    out = np.zeros(np.shape(new), np.result_type(new, part, float))
    view = _taken(out, steps)
    if type(view) is not _nd or not np.shares_memory(view, out):
        raise NotImplementedError("replace_part_cot: the steps do not take a view of the array")
    view[...] += part
    return out


def install():
    general(replace_part, "replace_part", "m, old, new, paths, message", container=True,
            m="replace_part_cot(g, m, old, new, paths, 0)", new="replace_part_cot(g, m, old, new, paths, 1)")
