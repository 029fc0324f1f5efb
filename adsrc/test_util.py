"""`from adsrc.test_util import check_grads, combo_check`, as autograd's `autograd.test_util` (see adsrc/checks.py)."""

import itertools

from .checks import check_grads

__all__ = ["check_grads", "combo_check"]


def combo_check(fun, *args, **kwargs):
    """autograd's `combo_check(fun, argnum[, modes][, order])(*arg_lists, **kwarg_lists)`: check_grads(fun,
    *args, **kwargs) at every combination of one value from each list of arguments and of keyword values."""
    def check(*arg_lists, **kwarg_lists):
        names = list(kwarg_lists)
        for call_args in itertools.product(*arg_lists):
            for values in itertools.product(*(kwarg_lists[k] for k in names)):
                check_grads(fun, *args, **kwargs)(*call_args, **dict(zip(names, values)))
    return check
