"""Editing a kernel's text statement by statement (products_rewrite.py, reductions.py): the line numbers of
the statements above an edited one stay valid, and the user's lines as comments stay where they are."""

import ast


def one_line_statements(tree):
    """The statements of tree written on one line and holding no statements, from the last."""
    return sorted((n for n in ast.walk(tree) if isinstance(n, ast.stmt) and n.lineno == n.end_lineno
                   and not any(isinstance(c, ast.stmt) for c in ast.iter_child_nodes(n))),
                  key=lambda n: -n.lineno)


def replace(lines, stmt, new):
    """lines with stmt's line written as the statement new, at stmt's indentation."""
    line = lines[stmt.lineno - 1]
    lines[stmt.lineno - 1] = line[:len(line) - len(line.lstrip())] + ast.unparse(new)


def uses_any(tree, names):
    """Does tree read any of names (a text that already calls them is left as it is)?"""
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(tree))
