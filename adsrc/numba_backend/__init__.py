"""backend="numba": gradients compiled with numba (an optional extra: `pip install "adsrc[numba]"`).

kernel.py turns the NumPy backend's generated gradient into a numba kernel and
the Python function around it; helpers.py gives the runtime helpers numba
implementations chosen per kind and rank. numba compiles once per signature
(dtypes and ranks), never per loop length or shape. backend="auto" compiles
what numba can and runs the rest with NumPy, saying which at DEBUG on the
`adsrc` logger.
"""

import copy
import logging

BACKENDS = ("numpy", "numba", "auto")
LOG = logging.getLogger("adsrc")


def check_backend(backend):
    """The backend's name, checked (numba must be importable for 'numba')."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, not {backend!r}")
    if backend in ("numba", "auto"):
        try:
            import numba  # noqa: F401
        except ImportError:
            raise ImportError("backend='numba' needs numba: pip install \"adsrc[numba]\"") from None
    return backend


def entry(entry, unit, auto=False):
    """The cache entry (fn, owner, code, others) with the unit's functions compiled by numba: the same guards,
    and `.source()` shows what numba compiles (`fn.unit.bwd`: the compiled pullback of a vjp).

    auto: what numba refuses runs with NumPy instead (the whole unit), logged at DEBUG."""
    from .kernel import BackendError, compile_kernel
    fn, *guards = entry
    try:
        forward, backward, text, texts = compile_kernel(unit, unit.lowered.uf.filename)
    except BackendError as e:
        if not auto:
            raise
        LOG.debug("adsrc backend='auto': %s runs with NumPy: %s", unit.name, e)
        return entry
    if auto:
        forward = _falling_back(forward, unit.fn, unit.name, BackendError)
        backward = _falling_back(backward, unit.bwd, unit.name, BackendError) if backward is not None else None
    shown = _shown(unit, text, texts, {})
    shown.fn, shown.bwd = forward, backward
    forward.unit = shown
    return (forward, *guards)


def _shown(unit, text, texts, made):
    """A copy of unit (and of the units it calls) holding the source numba compiles: `.source()` shows it,
    and the guards of every unit stay (their `lowered`)."""
    out = made[unit] = copy.copy(unit)
    out.text = text
    out.callees = [made[c] if c in made else _shown(c, texts[c], texts, made) for c in unit.callees]
    return out


def _falling_back(compiled, numpy_fn, name, refusal):
    """compiled, or from its first refusal by numba (when it compiles for these arguments' types) on,
    numpy_fn: the code numba compiles has no effects, so running it again with NumPy is safe."""
    current = [compiled]

    def call(*args, **kwargs):
        fn = current[0]
        try:
            return fn(*args, **kwargs)
        except refusal as e:
            if fn is numpy_fn:
                raise
            LOG.debug("adsrc backend='auto': %s runs with NumPy: %s", name, e)
            current[0] = numpy_fn
            return numpy_fn(*args, **kwargs)
    call.__name__ = call.__qualname__ = compiled.__name__
    return call
