"""Could a lowered function make complex values from real arguments? (Then its gradient's seed is checked,
and cotangents added in place into a real value's adjoint drop their imaginary parts first.)"""

import re

import gast

from .. import astutil
from ..ir import nodes as ir
from ..ir.walk import walk

_COMPLEX_NAMES = frozenset({"complex", "complex64", "complex128", "complexfloating", "csingle", "cdouble",
                            "clongdouble", "cmath", "emath", "scimath"})
_COMPLEX_RULES = re.compile(r"fft|eig|roots|emath|scimath|cmath|complex|hilbert|hankel|sph_harm|wofz")


def may_be_complex(fn, seen=None):
    """Could fn's result be complex although its arguments are real? Its statements, and those of the user's
    functions it calls, are scanned for complex literals, names of complex types and modules, and rules that
    make complex values; other calls (custom rules, calls adsrc cannot see into) may."""
    seen = set() if seen is None else seen
    for s in walk(fn.body):
        if isinstance(s, ir.CallUser):
            if s.callee in seen:
                continue
            seen.add(s.callee)
            from .. import pipeline
            try:
                callee = pipeline.front(s.callee).fn
            except Exception:       # (its own refusal comes where it is transformed)
                return True
            if may_be_complex(callee, seen):
                return True
            continue
        if isinstance(s, (ir.CallLocal, ir.CallCustom, ir.Opaque)):
            return True
        if isinstance(s, ir.Apply) and _COMPLEX_RULES.search(s.rule.name):
            return True
        if any(_complex_node(node) for node in astutil.walk(getattr(s, "expr", None) or gast.Pass())):
            return True
    return False


def _complex_node(node):
    if isinstance(node, gast.Constant):         # 1j, or a dtype's name: x.astype("complex128")
        return isinstance(node.value, complex) or isinstance(node.value, str) and "complex" in node.value
    return isinstance(node, gast.Name) and node.id in _COMPLEX_NAMES or \
        isinstance(node, gast.Attribute) and node.attr in _COMPLEX_NAMES
