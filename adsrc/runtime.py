"""The few helpers generated code calls.

Cotangents in generated code follow one convention: the cotangent of a value
is any array *broadcastable* to the value's shape (so the scalar `0.0` is the
zero cotangent of anything, and `1.0` seeds a scalar output). Cotangents of
tuples, lists and dicts are tuples, lists and dicts of cotangents (or `0.0`).
The helpers bring cotangents back to exact shapes when needed, sum them over
broadcast axes, accumulate them, and scatter them into indexed arrays.

Every helper that generated code may call is registered in `HELPERS` by the
name the code uses for it. They live in modules by kind (runtime_core.py: the
registry and shapes; runtime_accumulate.py: sums, scatters and the returned
gradients; runtime_updates.py: functional updates and iterables;
runtime_scan.py: scans, objects' fields and run-time checks); this module
gathers their public names (`runtime.unbroadcast`).
"""

from .runtime_accumulate import *  # noqa: F401,F403
from .runtime_core import *  # noqa: F401,F403
from .runtime_scan import *  # noqa: F401,F403
from .runtime_updates import *  # noqa: F401,F403
