"""Matrix products in a kernel's text computed by products.py's loops.

* `a @ b` -> `mat_product(a, b)` (numba's `@` calls BLAS: slow to compile, and
  to call on the small matrices of a loop's step), and `np.matmul(a, b)` too
  (numba has no np.matmul);
* `dW += matmul_dx(g, W, h)` (a weight's cotangent summed over a loop's steps)
  -> `dW = add_matmul_dx(dW, g, W, h)`, which adds the outer product of two
  vectors in place instead of making it first. An array `dW` is changed in
  place, as `+=` does; a number is added to.

A text that already uses one of these names is left as it is.
"""

import ast

import numpy as np
from .helper_cache import overload, register_jitable

from ..rules import helpers as rule_helpers
from . import line_edits, products
from .shapes import _array


def add_matmul_dx(acc, g, x, y):
    """acc += matmul_dx(g, x, y); acc (the Python function numba's version below stands for)."""
    acc += rule_helpers.matmul_dx(g, x, y)
    return acc


def add_matmul_dy(acc, g, x, y):
    acc += rule_helpers.matmul_dy(g, x, y)
    return acc


NAMES = {"mat_product": products.matmul, "add_matmul_dx": add_matmul_dx, "add_matmul_dy": add_matmul_dy}


@register_jitable(fastmath=products.LOOPS)
def _add_outer(acc, u, v, dtype):
    """acc += the outer product of u and v, in place."""
    if acc.shape[0] != u.shape[0] or acc.shape[1] != v.shape[0]:
        acc += products.outer(u, v, dtype)         # (broadcasting, or NumPy's error)
        return acc
    for i in range(u.shape[0]):
        ui = u[i]
        for j in range(v.shape[0]):
            acc[i, j] += ui * v[j]
    return acc


@overload(add_matmul_dx)
def _add_matmul_dx(acc, g, x, y):
    if _array(acc, 2) and _array(x, 2) and _array(y, 1) and products.floats(acc, g, x, y):
        dtype = products.result(g, y)
        return lambda acc, g, x, y: _add_outer(acc, g, y, dtype)
    return _adding(rule_helpers.matmul_dx)


@overload(add_matmul_dy)
def _add_matmul_dy(acc, g, x, y):
    if _array(acc, 2) and _array(x, 1) and _array(y, 2) and products.floats(acc, g, x, y):
        dtype = products.result(x, g)
        return lambda acc, g, x, y: _add_outer(acc, x, g, dtype)
    return _adding(rule_helpers.matmul_dy)


def _adding(cot):
    """`acc += cot(g, x, y)` as numba does it (in place for an array acc), then acc."""
    def impl(acc, g, x, y):
        acc += cot(g, x, y)
        return acc
    return impl


class _Products(ast.NodeTransformer):
    """`a @ b` and `np.matmul(a, b)` (which numba does not have) as `mat_product(a, b)`."""

    def __init__(self, ns):
        self.ns = ns

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, ast.MatMult):
            return node
        return _call("mat_product", [node.left, node.right])

    def visit_Call(self, node):
        self.generic_visit(node)
        if _is_np_matmul(node, self.ns):
            return _call("mat_product", node.args)
        return node


def _is_np_matmul(node, ns):
    f = getattr(node, "func", None)
    return (isinstance(node, ast.Call) and isinstance(f, ast.Attribute) and f.attr == "matmul"
            and isinstance(f.value, ast.Name) and ns.get(f.value.id) is np and len(node.args) == 2
            and not node.keywords)


def _call(name, args):
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=args, keywords=[])


def _accumulated(stmt):
    """`x += matmul_dx(...)` (or matmul_dy) as `x = add_matmul_dx(x, ...)`, or None."""
    if not (isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Name)
            and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name)
            and stmt.value.func.id in ("matmul_dx", "matmul_dy") and not stmt.value.keywords):
        return None
    name = stmt.target.id
    value = _call("add_" + stmt.value.func.id, [ast.Name(id=name, ctx=ast.Load())] + stmt.value.args)
    return ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value, lineno=stmt.lineno)


def rewritten(lines, tree, ns):
    """lines (of tree) with the products computed by loops, where ns's helpers are adsrc's."""
    if line_edits.uses_any(tree, NAMES):
        return lines
    for stmt in line_edits.one_line_statements(tree):
        new = _accumulated(stmt) if ns.get(getattr(getattr(getattr(stmt, "value", None), "func", None), "id", None)) \
            in (rule_helpers.matmul_dx, rule_helpers.matmul_dy) else None
        if new is None and any(isinstance(b, ast.BinOp) and isinstance(b.op, ast.MatMult) or _is_np_matmul(b, ns)
                               for b in ast.walk(stmt)):
            new = _Products(ns).visit(stmt)
        if new is not None:
            line_edits.replace(lines, stmt, new)
    return lines
