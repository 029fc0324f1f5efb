"""Functions that make functions, called with values known when transforming: `make_step(2.0)(x)`.

A factory is a user function whose body only defines functions and returns
one: a lambda, a nested `def`, or a function adsrc makes (`adsrc.grad(f)`,
`functools.partial(g, ...)`). Called with arguments all known when
transforming (constants, globals, closures, static arguments), it is called
then, once, and the function it returns is differentiated like any other
known function (its closure's values are constants):

    def make_step(a):
        return lambda x: x - 0.05 * (x ** 2 - a)

    def loss(x):
        step = make_step(2.0)          # called when transforming
        return step(step(x))           # the lambda, transformed from its source

A factory whose arguments are values computed at run time is not called
early (its result may depend on them); calling what it returns is then
refused as before, with the hint to pass the values to the returned
function instead.
"""

import ast
import builtins
import functools
import inspect
import types

from ..frontend.source import _file_tree
from ..rules import NOT_STATIC

HINT = ("adsrc calls a function that makes functions (`return lambda x: ...`) when transforming if its "
        "arguments are known then (constants, globals, static arguments); here they are computed when the code "
        "runs. Pass those values to the function it makes as arguments instead.")
_SEEN = {}       # code object -> is_factory's answer (bounded)


def is_factory(fun):
    """Does fun's body only define and return a function (so calling it early changes nothing)?"""
    if not isinstance(fun, types.FunctionType) or fun.__name__ == "<lambda>" or \
            fun.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE):
        return False
    answer = _SEEN.get(fun.__code__)
    if answer is None:
        if len(_SEEN) > 1024:
            _SEEN.clear()
        answer = _SEEN[fun.__code__] = _only_makes_a_function(fun)
    return answer


def _only_makes_a_function(fun):
    try:
        _, tree = _file_tree(fun)
    except Exception:       # no source: not something adsrc reads
        return False
    node = _def_of(tree, fun)
    if node is None or node.decorator_list:
        return False
    defs = set()
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
        return False
    for s in body[:-1]:
        if isinstance(s, ast.FunctionDef) and not s.decorator_list:
            defs.add(s.name)
        elif isinstance(s, ast.Assign) and isinstance(s.value, ast.Lambda) and \
                all(isinstance(t, ast.Name) for t in s.targets):
            defs.update(t.id for t in s.targets)
        else:
            return False
    value = body[-1].value
    if isinstance(value, ast.Lambda) or isinstance(value, ast.Name) and value.id in defs:
        return True
    return isinstance(value, ast.Call) and _is_maker(value.func, fun)


def _def_of(tree, fun):
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef) and n.name == fun.__name__ and \
                getattr(n, "lineno", None) == fun.__code__.co_firstlineno:
            return n
    for n in ast.walk(tree):       # decorators shift co_firstlineno on some Pythons
        if isinstance(n, ast.FunctionDef) and n.name == fun.__name__:
            return n
    return None


def _is_maker(func, fun):
    """Is the called expression one of adsrc's derivative makers or functools.partial (in fun's namespace)?"""
    from .. import api, jacobians
    obj = _lookup(func, fun)
    makers = (functools.partial, api.grad, api.value_and_grad, jacobians.jacfwd, jacobians.jacrev,
              jacobians.hessian)
    return any(obj is m for m in makers)


def _lookup(node, fun):
    if isinstance(node, ast.Name):
        closure = dict(zip(fun.__code__.co_freevars, (c.cell_contents for c in fun.__closure__ or ())))
        if node.id in closure:
            return closure[node.id]
        return fun.__globals__.get(node.id, getattr(builtins, node.id, None))
    if isinstance(node, ast.Attribute):
        base = _lookup(node.value, fun)
        return getattr(base, node.attr, None) if base is not None else None
    return None


def call_early(fun, args, kwargs):
    """fun(*args, **kwargs) now, if fun is a factory: the function it makes, else NOT_STATIC."""
    if not is_factory(fun):
        return NOT_STATIC
    try:
        made = fun(*args, **kwargs)
    except Exception:
        return NOT_STATIC
    return made if callable(made) else NOT_STATIC
