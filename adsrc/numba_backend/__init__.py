"""backend="numba": gradients compiled with numba (an optional extra: `pip install "adsrc[numba]"`).

kernel.py turns the NumPy backend's generated gradient into a numba kernel and
the Python function around it; helpers.py gives the runtime helpers numba
implementations chosen per kind and rank. numba compiles once per signature
(dtypes and ranks), never per loop length or shape.
"""

import copy

BACKENDS = ("numpy", "numba")


def check_backend(backend):
    """The backend's name, checked (numba must be importable for 'numba')."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, not {backend!r}")
    if backend == "numba":
        try:
            import numba  # noqa: F401
        except ImportError:
            raise ImportError("backend='numba' needs numba: pip install \"adsrc[numba]\"") from None
    return backend


def entry(entry, unit):
    """The cache entry (fn, owner, code, others) with the unit's functions compiled by numba: the same guards,
    and `.source()` shows what numba compiles (`fn.unit.bwd`: the compiled pullback of a vjp)."""
    from .kernel import compile_kernel
    fn, *guards = entry
    forward, backward, shown = compile_kernel(unit, unit.lowered.uf.filename)
    shown_unit = copy.copy(unit)
    shown_unit.text, shown_unit.fn, shown_unit.bwd, shown_unit.callees = shown, forward, backward, []
    forward.unit = shown_unit
    return (forward, *guards)
