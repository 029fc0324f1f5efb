"""`from adsrc.test_util import check_grads`, as autograd's `autograd.test_util` (see adsrc/checks.py)."""

from .checks import check_grads

__all__ = ["check_grads"]
