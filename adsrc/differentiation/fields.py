"""Attributes named like an array's (`c.size`, `c.shape`, `c.T`) read from objects that are not arrays.

Normalization reads `x.shape`, `x.size`, `x.dtype`... as constants and `x.T`, `x.real`... with
array rules, because that is what they are on an array. A namedtuple, dataclass or object may have
fields with those names, and a field carries a derivative. Once the abstract values are known, this
pass turns such a read into a field read (`ir.GetAttr`):
- a constant attribute whenever its object is not known to be a number or an array; the field-read
  helpers (`runtime.add_attr`, `tangents.attr_tangent`) give an array's attribute no derivative, so
  a value of unknown kind is right either way;
- the same for a ruled attribute (`.T`, `.real`); the helpers then apply the array rule when the
  object turns out to be an array.
"""

import gast

from ..analysis import values as values_mod
from ..analysis.activity import array_attribute_read
from ..ir import nodes as ir
from ..ir.walk import blocks
from ..rules import ATTRIBUTES

_NUMERIC = (values_mod.SCALAR, values_mod.ARRAY)


def as_fields(body, values):
    """Turn attribute reads of objects that may have such fields into field reads, in place.

    values: the function's `analysis.values.Values`. Returns True if anything changed."""
    changed = False
    for k, s in enumerate(body):
        for b in blocks(s):
            changed |= as_fields(b, values)
        if _field_read(s, values):
            body[k] = ir.GetAttr(s.target, s.expr, loc=s.loc)
            changed = True
    return changed


def _field_read(s, values):
    if not isinstance(s, (ir.Const, ir.Apply)):
        return False
    base = array_attribute_read(s)
    if base is not None:
        return values[base].kind not in _NUMERIC
    e = s.expr
    if isinstance(s, ir.Apply) and isinstance(e, gast.Attribute) and ATTRIBUTES.get(e.attr) is s.rule and \
            isinstance(e.value, gast.Name):
        return values[e.value.id].kind not in _NUMERIC
    return False
