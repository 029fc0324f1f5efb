"""Reductions along an axis in numba kernels: `np.mean(x, axis=1)`, `np.max(a, axis=0, keepdims=True)`.

numba's np.mean, np.max and np.min take no `axis`, and no reduction takes `keepdims`. A kernel's calls of
`np.sum`/`np.mean`/`np.max`/`np.min` (and `amax`/`amin`) with either, and the methods `.mean()`, `.max()`,
`.min()` with them, become calls of `axis_sum(a, axis, keepdims)` and its siblings (`rewritten`), whose
numba versions below reduce vectors and matrices by loops. Other ranks are refused by numba (no version).
"""

import ast

import numpy as np
from numba import types

from . import line_edits
from .helper_cache import overload, register_jitable
from .shapes import _array


def axis_sum(a, axis=None, keepdims=False):
    """np.sum(a, axis=axis, keepdims=keepdims) (the Python function numba's version below stands for)."""
    return np.sum(a, axis=axis, keepdims=keepdims)


def axis_mean(a, axis=None, keepdims=False):
    return np.mean(a, axis=axis, keepdims=keepdims)


def axis_max(a, axis=None, keepdims=False):
    return np.max(a, axis=axis, keepdims=keepdims)


def axis_min(a, axis=None, keepdims=False):
    return np.min(a, axis=axis, keepdims=keepdims)


NAMES = {"axis_sum": axis_sum, "axis_mean": axis_mean, "axis_max": axis_max, "axis_min": axis_min}
_FUNCTIONS = {"sum": "axis_sum", "mean": "axis_mean", "max": "axis_max", "amax": "axis_max", "min": "axis_min",
              "amin": "axis_min"}
_METHODS = {"mean": "axis_mean", "max": "axis_max", "min": "axis_min"}
_SUM, _MEAN, _MAX, _MIN = range(4)


@register_jitable
def _matrix(a, axis, kind):
    """A matrix reduced along axis (0 or 1) by kind; NaN propagates through max and min, as in NumPy."""
    m, n = a.shape
    count, size = (m, n) if axis == 0 else (n, m)
    if count == 0 and kind >= _MAX:
        raise ValueError("zero-size array to reduction operation which has no identity")
    out = np.empty(size, a.dtype)
    for j in range(size):
        if kind < _MAX:
            acc = 0.0
            for i in range(count):
                acc += a[i, j] if axis == 0 else a[j, i]
            out[j] = (acc / count if count else np.nan) if kind == _MEAN else acc
        else:
            best = a[0, j] if axis == 0 else a[j, 0]
            for i in range(1, count):
                v = a[i, j] if axis == 0 else a[j, i]
                if best == best and (not (v <= best) if kind == _MAX else not (v >= best)):
                    best = v
            out[j] = best
    return out


@register_jitable
def _vector(a, kind):
    if kind == _SUM:
        return np.sum(a)
    if kind == _MEAN:
        return np.mean(a)
    return np.max(a) if kind == _MAX else np.min(a)


def _overloaded(kind):
    def impl_for(a, axis=None, keepdims=False):
        keep = getattr(keepdims, "literal_value", keepdims if isinstance(keepdims, bool) else None)
        if isinstance(keepdims, (types.Omitted, types.NoneType)) or keepdims is False:
            keep = False
        if not isinstance(keep, bool) or not (_array(a, 1) or _array(a, 2)) or not isinstance(a.dtype, types.Float):
            return None
        whole = isinstance(axis, (types.Omitted, types.NoneType)) or axis is None
        if not whole and not isinstance(axis, types.Integer):
            return None
        if _array(a, 1):
            if keep:
                return lambda a, axis=None, keepdims=False: np.full(1, _vector(a, kind))
            return lambda a, axis=None, keepdims=False: _vector(a, kind)
        if whole:
            if keep:
                return lambda a, axis=None, keepdims=False: np.full((1, 1), _vector(a.ravel(), kind))
            return lambda a, axis=None, keepdims=False: _vector(a.ravel(), kind)

        def impl(a, axis=None, keepdims=False):
            ax = axis + 2 if axis < 0 else axis
            if ax != 0 and ax != 1:
                raise ValueError("axis out of bounds for a two-dimensional array")
            out = _matrix(a, ax, kind)
            if keep:
                return out.reshape((1, out.shape[0])) if ax == 0 else out.reshape((out.shape[0], 1))
            return out
        return impl
    return impl_for


for _fn, _kind in ((axis_sum, _SUM), (axis_mean, _MEAN), (axis_max, _MAX), (axis_min, _MIN)):
    overload(_fn, prefer_literal=True)(_overloaded(_kind))


def _reduction(node, ns):
    """The axis_* name a reduction call with `axis` or `keepdims` becomes, else None."""
    f = node.func
    given = len(node.args) > 1 or any(k.arg in ("axis", "keepdims") for k in node.keywords)
    if not given or any(k.arg not in ("axis", "keepdims") for k in node.keywords):
        return None
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and ns.get(f.value.id) is np and \
            f.attr in _FUNCTIONS and len(node.args) <= 3:
        return _FUNCTIONS[f.attr]
    on_module = isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and ns.get(f.value.id) is np
    if isinstance(f, ast.Attribute) and f.attr in _METHODS and not on_module and len(node.args) <= 2:
        return _METHODS[f.attr]
    return None


class _Reductions(ast.NodeTransformer):
    def __init__(self, ns):
        self.ns = ns

    def visit_Call(self, node):
        self.generic_visit(node)
        name = _reduction(node, self.ns)
        if name is None:
            return node
        f = node.func
        args = list(node.args) if isinstance(f.value, ast.Name) and self.ns.get(f.value.id) is np else \
            [f.value] + list(node.args)
        return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=args, keywords=node.keywords)


def rewritten(lines, tree, ns):
    """lines (of tree) with reductions along an axis computed by the functions above."""
    if line_edits.uses_any(tree, NAMES):
        return lines
    for stmt in line_edits.one_line_statements(tree):
        if any(isinstance(c, ast.Call) and _reduction(c, ns) for c in ast.walk(stmt)):
            line_edits.replace(lines, stmt, _Reductions(ns).visit(stmt))
    return lines
