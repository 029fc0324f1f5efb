"""Helper functions that derivative rules call (registered for generated code).

Rules whose adjoint is more than one expression call one of these. Each takes
the output cotangent `g` (exactly the output's shape unless noted) and the
primal values it needs, and returns the argument's cotangent. They live in
modules by kind; this one gathers their public names (`helpers.sum_like`),
and importing it registers them all.
"""

import math

from ..runtime import HELPERS
from .helpers_linalg import *  # noqa: F401,F403
from .helpers_products import *  # noqa: F401,F403
from .helpers_reductions import *  # noqa: F401,F403
from .helpers_series import *  # noqa: F401,F403
from .helpers_shapes import *  # noqa: F401,F403

HELPERS["math"] = math
