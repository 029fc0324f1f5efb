"""Names resolved when transforming: the object a chain like `np.linalg.norm`, `self.layers[0].forward` or
`ACTIVATIONS[kind]` rooted at a non-local name means now, with the lookups the transformation depends on
recorded in the function's guards (checked before its generated code is reused)."""

import types

import gast

from ..guards import depends_on


# Modules whose attributes are taken as fixed (lookups through them are not guarded).
_FIXED_MODULES = frozenset({"numpy", "math", "builtins", "cmath", "operator", "functools", "scipy"})


def static_value(node, uf, local):
    """The object a Name/Attribute chain rooted at a non-local name means now.

    `local` is a predicate telling whether a name is local at this point.
    Raises LookupError if the expression is not such a chain. When the
    object is one the transformation depends on (a function, a module), the
    lookup is recorded in `uf.guards`, to be checked before the generated code
    is reused.
    """
    keys = []       # lookups of names used as constant indices on the way
    value, chain = _resolve(node, uf, local, keys)
    if depends_on(value):
        for (kind, namespace, name, path), found in [(chain, value)] + keys:
            if kind is not None:
                uf.guards.record(kind, namespace, name, path, found)
    return value


def static_sequence(node, uf, local, kinds=(list, tuple)):
    """A list or tuple (or, in kinds, a dict) a Name/Attribute/Subscript chain means now, guarded item by item,
    or None.

    The guards notice when an item is replaced or the sequence grows or shrinks (a key added to a dict is not
    noticed). A slice with constant bounds of such a sequence is one too (`layers[:-1]`).
    """
    if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice):
        bounds = [_int_constant(b) for b in (node.slice.lower, node.slice.upper, node.slice.step)]
        if LookupError in bounds:
            return None
        base = static_sequence(node.value, uf, local)
        return None if base is None else base[slice(*bounds)]
    try:
        value, (kind, namespace, name, path) = _resolve(node, uf, local, [], final=False)
    except LookupError:
        return None
    if type(value) not in kinds or kind is None:
        return None
    for k, item in (value.items() if type(value) is dict else enumerate(value)):
        uf.guards.record(kind, namespace, name, path + [(False, k)], item)
    if type(value) is not dict:
        from ..guards import _MISSING
        uf.guards.record(kind, namespace, name, path + [(False, len(value))], _MISSING)
    return value


def _int_constant(node):
    """The int a slice bound spells (None if absent), else LookupError."""
    if node is None:
        return None
    sign = 1
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        node, sign = node.operand, -1
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return sign * node.value
    return LookupError


def _resolve(node, uf, local, keys, final=True):
    """(value, chain): chain is (root kind, namespace, root name, path) for Guards.record.

    final: node is the whole expression (an item of a table must then be a function;
    inside a chain, `layers[0].forward`, it may be any object).
    """
    if isinstance(node, gast.Name):
        if local(node.id):
            raise LookupError(node.id)
        kind, value = uf.lookup(node.id)
        if kind == "missing":
            raise LookupError(node.id)
        namespace = {"global": uf.globals, "closure": uf.cells.get(node.id), "static": value}.get(kind)
        return value, (kind if namespace is not None else None, namespace, node.id, [])
    if isinstance(node, gast.Attribute):
        base, (kind, namespace, name, path) = _resolve(node.value, uf, local, keys, final=False)
        try:
            value = getattr(base, node.attr)
        except AttributeError:
            raise LookupError(node.attr) from None
        if isinstance(base, types.ModuleType) and base.__name__.partition(".")[0] in _FIXED_MODULES:
            kind = None      # nobody rebinds np.tanh: not worth a check on every call
        return value, (kind, namespace, name, path + [(True, node.attr)])
    if isinstance(node, gast.Subscript) and isinstance(node.slice, (gast.Constant, gast.Name, gast.Attribute)):
        # a table of functions: ACTIVATIONS["tanh"], or ACTIVATIONS[kind] with a static `kind`
        base, (kind, namespace, name, path) = _resolve(node.value, uf, local, keys)
        if isinstance(node.slice, gast.Constant):
            key = node.slice.value
        else:
            key, key_chain = _resolve(node.slice, uf, local, keys)
            keys.append((key_chain, key))
        if not isinstance(base, (dict, tuple, list)):
            raise LookupError("subscript")
        try:
            value = base[key]
        except (KeyError, IndexError, TypeError):
            raise LookupError("subscript") from None
        if final and not callable(value):
            raise LookupError("subscript")      # data stays data: read when the code runs
        return value, (kind, namespace, name, path + [(False, key)])
    raise LookupError(type(node).__name__)
