"""gast -> ast for printing: what gast.gast_to_ast gives, in a fraction of its time.

gast's converter is an ast.NodeTransformer: for every node it looks its
method up by name, and it copies each location attribute with a
try/except that raises for most generated nodes (they have no location).
This subclass keeps every special case of gast's converter and does the
generic conversion with a method table per node type and without the
exceptions. Printing a 5,000-statement gradient spent three quarters of its
time converting.
"""

import ast

from gast.ast3 import GAstToAst3

_MISSING = object()
_GENERIC = object()


class _ToAst(GAstToAst3):
    _methods = {}       # gast node type -> its visit_ method of gast's converter, or _GENERIC
    _classes = {}       # gast node type -> the ast class of the same name (None: none)

    def visit(self, node):
        t = type(node)
        method = self._methods.get(t)
        if method is None:
            method = self._methods[t] = getattr(type(self), "visit_" + t.__name__, _GENERIC)
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
            cls = self._classes[t] = getattr(ast, t.__name__, None)
        if cls is None:
            return None             # not part of the AST (as gast's converter)
        visit = self._visit
        new_node = cls(**{field: visit(getattr(node, field)) for field in node._fields if hasattr(node, field)})
        for attr in node._attributes:
            value = getattr(node, attr, _MISSING)
            if value is not _MISSING:
                try:
                    setattr(new_node, attr, value)
                except AttributeError:
                    pass
        return new_node


def gast_to_ast(node):
    return _ToAst().visit(node)
