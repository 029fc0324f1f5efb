"""Derivative rules for np.linalg."""

import numpy as np  # noqa: F401

from . import general, nondiff  # noqa: F401
