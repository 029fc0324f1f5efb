"""Conversions between gast and ast: what gast.gast_to_ast and gast.ast_to_gast give, in a fraction of the time.

gast's converters are ast.NodeTransformers: for every node they look the
method up by name, and they copy each location attribute with a try/except
that raises for every node without it (most generated nodes). The
subclasses here keep every special case of gast's converters and do the
generic conversion with a method table per node type and without the
exceptions. Printing a 5,000-statement gradient spent three quarters of its
time converting.
"""

import ast

import gast
from gast.ast3 import Ast3ToGAst, GAstToAst3

_MISSING = object()
_GENERIC = object()


# ast.NodeVisitor.visit_Constant calls these deprecated methods if a visitor has them, else generic_visit
_CONSTANT_METHODS = ("visit_Num", "visit_Str", "visit_Bytes", "visit_NameConstant", "visit_Ellipsis")


def _method(cls, node_type):
    """cls's visit_ method for node_type, or _GENERIC for its generic_visit."""
    method = getattr(cls, "visit_" + node_type.__name__, _GENERIC)
    if method is getattr(ast.NodeVisitor, "visit_Constant", None) and \
            not any(hasattr(cls, m) for m in _CONSTANT_METHODS):
        return _GENERIC
    return method


def _fast(base, target):
    class Fast(base):
        _methods = {}       # node type -> the base converter's visit_ method, or _GENERIC
        _classes = {}       # node type -> the target class of the same name (None: none)

        def visit(self, node):
            t = type(node)
            method = self._methods.get(t)
            if method is None:
                method = self._methods[t] = _method(type(self), t)
            if method is _GENERIC:
                return self.generic_visit(node)
            return method(self, node)

        def _visit(self, node):
            if isinstance(node, ast.AST):
                return self.visit(node)
            if isinstance(node, list):
                return [self._visit(n) for n in node]
            return node

        def generic_visit(self, node):
            t = type(node)
            cls = self._classes.get(t, _MISSING)
            if cls is _MISSING:
                cls = self._classes[t] = getattr(target, t.__name__, None)
            if cls is None:
                return None             # not part of the target's syntax trees (as gast's converter)
            if not node._fields and not node._attributes:
                return cls()            # Load, Store, Add, ...
            visit = self._visit
            new_node = cls(**{field: visit(getattr(node, field)) for field in node._fields
                              if hasattr(node, field)})
            for attr in node._attributes:
                value = getattr(node, attr, _MISSING)
                if value is not _MISSING:
                    try:
                        setattr(new_node, attr, value)
                    except AttributeError:
                        pass
            return new_node

    Fast.__name__ = Fast.__qualname__ = "Fast" + base.__name__
    return Fast


_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")
_SHARED = {}        # (old type, new type) -> the location attributes both have


def _copy_location(new_node, old_node):
    """ast.copy_location, with the attributes both node types have looked up once per pair of types."""
    key = (type(old_node), type(new_node))
    attrs = _SHARED.get(key)
    if attrs is None:
        attrs = _SHARED[key] = tuple(a for a in _LOCATION
                                     if a in old_node._attributes and a in new_node._attributes)
    for attr in attrs:
        value = getattr(old_node, attr, None)
        if value is not None or (hasattr(old_node, attr) and attr.startswith("end_")):
            setattr(new_node, attr, value)
    return new_node


class _ToAst(_fast(GAstToAst3, ast)):
    # the two most frequent nodes of generated code, as GAstToAst3 converts them
    def visit_Name(self, node):
        return _copy_location(ast.Name(self._visit(node.id), self._visit(node.ctx)), node)

    def visit_Assign(self, node):
        return _copy_location(ast.Assign(self._visit(node.targets), self._visit(node.value)), node)


_ToGast = _fast(Ast3ToGAst, gast)


def gast_to_ast(node):
    return _ToAst().visit(node)


def ast_to_gast(node):
    return _ToGast().visit(node)
