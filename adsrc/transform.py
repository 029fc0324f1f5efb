"""The API's entry points into the pipeline: lowered functions, generated units, caches.

`lowered(fun, statics)` runs every lowering pass (pipeline.py) once per
function and static values; `build(...)` differentiates a lowered function
into a `Unit` (differentiation/units.py): the generated source, the compiled
function, and the other units it calls.
"""

import contextlib
import gc

from . import pipeline
from .differentiation import units
from .ir import nodes as ir
from .ir.walk import walk

LOCK = pipeline.LOCK
Unit = units.Unit
unit_guards = units.unit_guards


@contextlib.contextmanager
def collector_paused():
    """No cyclic garbage collection while transforming.

    A transformation allocates many small, long-lived syntax-tree objects;
    the collector's passes over them made its cost grow faster than the
    program (a third of the time at 5,000 statements). Freed objects are
    still freed at once; cycles wait until the transformation ends.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def lowered(fun, statics=None, static_key=()):
    """The Lowered form of fun for static values `statics`."""
    with collector_paused():
        return pipeline.lowered(fun, statics)


def build(lw, unit, wrt, kinds, mode, options=None):
    """Generate, print and compile `unit` from a lowered function (kinds: the wrt arguments' key entries)."""
    with collector_paused():
        return units.build(pipeline, lw, unit, wrt, kinds, mode, options)


def vjp_unit(fun, wrt, vals, statics=None, returns=()):
    with collector_paused():
        return units.vjp_unit(pipeline, fun, wrt, vals, statics, returns)


def called_functions(lw):
    """The user functions a lowered function calls (for showing the lowered program of each)."""
    return [s.callee for s in walk(lw.fn.body) if isinstance(s, ir.CallUser)]


CLEAR_HOOKS = []     # the API modules' own caches (forward_api.py, jacobians.py)


def clear_caches():
    """Forget every lowered function and generated unit (for measuring first-call latency)."""
    with LOCK:
        pipeline.clear_caches()
        units.clear_caches()
        for hook in CLEAR_HOOKS:
            hook()
