"""What the specialization caches hold: a compiled function and what its reuse assumes.

An entry is `(fn, owner, code, others)`: the compiled function; the function
whose source was transformed and the code it had then; and the compiled check
of the other names the transformation resolved (None when there are none,
see guards.py). Every transformation depends on its function's code (IPython's
autoreload replaces it in place), so that check is kept apart and made inline
by Gradient.__call__: for a function that calls nothing of the user's, a
cache hit then calls no check at all.
"""

import types

from . import frontend
from .transform import collector_paused, unit_guards

NO_CODE = types.SimpleNamespace(__code__=None)    # the owner of an entry without a code chain


def make(unit, function):
    """The cache entry for the compiled unit of `function`."""
    fn = unit.fn
    fn.unit = unit            # its unit holds the source
    owner = frontend.source_function(function)
    code, others = unit_guards(unit).split_code(owner)
    return fn, owner if code is not None else NO_CODE, code, others.compile()


def up_to_date(owner, code, others):
    """Do the names an entry's transformation resolved still mean the same objects?"""
    return owner.__code__ is code and (others is None or others())


def compiled(cache, key, build, describe=None):
    """The cached function for key, built if missing or out of date (a name it resolved was rebound)."""
    def paused_build():         # one pause for every stage (each stage's own pause then does nothing)
        with collector_paused():
            return build()

    fn, *guards = cache.get(key, paused_build, describe)
    if not up_to_date(*guards):
        cache.discard(key, f"{unit_guards(fn.unit).changed()} changed since it was transformed")
        fn = cache.get(key, paused_build, describe)[0]
    return fn
