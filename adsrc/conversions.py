"""Conversion from ast to gast: what gast.ast_to_gast gives, in a fraction of the time.

(Generated gast is printed directly, without converting it back: emission/source.py.)

gast's converter is an ast.NodeTransformer: for every node they look the
method up by name, and they copy each location attribute with a try/except
that raises for every node without it (most generated nodes). The
subclass here keeps every special case of gast's converter and do the
generic conversion with a method table per node type and without the
exceptions.
"""

import ast

import gast
from gast.ast3 import Ast3ToGAst

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


_ToGast = _fast(Ast3ToGAst, gast)


def ast_to_gast(node):
    return _ToGast().visit(node)
