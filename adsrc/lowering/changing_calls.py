"""Calls of the user's own functions that change their arguments in place, inside an expression adsrc keeps as
written (an `if`'s or `while`'s test, an `assert`, an argument nothing is differentiated through, such as
np.where's condition): computed first, as statements, so that the change is followed like any other call's.
Kept as written, they ran the user's function itself, which changed the caller's arrays (the differentiated
input too) without adsrc knowing: the rest of the function saw the old values.

Which functions change their arguments is read from their source: an augmented assignment to a parameter, an
item or attribute of it assigned or deleted, a method that changes a list, dict or array called on it, or the
parameter passed as `out=`.
"""

import ast
import functools
import inspect
import textwrap

_CHANGING_METHODS = frozenset({"append", "extend", "insert", "pop", "clear", "update", "setdefault", "sort",
                               "reverse", "fill", "remove", "popitem", "resize", "put", "itemset", "partition",
                               "__setitem__", "__delitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__"})


def changes_its_arguments(fun):
    """Does the Python function fun change one of its parameters' objects in place (as its source reads)?"""
    try:
        return _changes(fun)
    except TypeError:            # not hashable
        return False


@functools.lru_cache(maxsize=1024)
def _changes(fun):
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fun)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return False
    fdef = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.Lambda))), None)
    if fdef is None:
        return False
    a = fdef.args
    params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
    return any(_changes_param(n, params) for n in ast.walk(fdef))


def _base(node):
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _changes_param(n, params):
    if isinstance(n, ast.AugAssign):
        return _base(n.target) in params
    if isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, (ast.Store, ast.Del)):
        return _base(n.value) in params
    if isinstance(n, ast.Call):
        if isinstance(n.func, ast.Attribute) and n.func.attr in _CHANGING_METHODS and _base(n.func.value) in params:
            return True
        return any(k.arg == "out" and _base(k.value) in params for k in n.keywords)
    return False
