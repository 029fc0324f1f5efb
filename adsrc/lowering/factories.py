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

A factory called with values computed at run time (`make_step(a)(x)`, a
differentiated `a`) is not called early. Instead adsrc makes, once per
factory, a function that runs the factory's body and calls what it returns,
`make_step_then_call(a, *, _arg0)`, whose body is the factory's with
`return R` replaced by `return R(_arg0)`: its source is registered like
any file's, and it is differentiated like any function (the returned lambda
or nested def is inlined there). This also serves a function that computes
before it returns the function it makes (`shape = x.shape; return lambda g:
...`, autograd's vjp makers), which is never called early.
"""

import ast
import builtins
import copy
import functools
import inspect
import types

import gast

from .. import astutil
from ..cache import made_once
from ..frontend.source import _file_tree, _find_def, define
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
    node = _find_def(tree, fun.__code__)
    if node is None or node.decorator_list:
        return False
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if not body or not isinstance(body[-1], (ast.Return, ast.If, ast.Raise)):
        return False
    bound = {n.id for n in _own_nodes(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)} | \
        {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
    return _makes_only(body, set(), fun, bound)


def _makes_only(body, defs, fun, bound):
    """Does body only define functions and return one, maybe chosen by `if` tests that call nothing (`if kind ==
    "tanh": return np.tanh`), or raise? defs: the names of the functions defined so far."""
    for s in body:
        if isinstance(s, ast.FunctionDef) and not s.decorator_list and _no_calls(s.args):
            defs.add(s.name)
        elif isinstance(s, ast.Assign) and isinstance(s.value, ast.Lambda) and _no_calls(s.value.args) and \
                all(isinstance(t, ast.Name) for t in s.targets):
            defs.update(t.id for t in s.targets)
        elif isinstance(s, ast.If):
            if not _no_calls(s.test) or not _makes_only(s.body, set(defs), fun, bound) or \
                    not _makes_only(s.orelse, set(defs), fun, bound):
                return False
        elif isinstance(s, ast.Raise) or isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant):
            continue
        elif isinstance(s, ast.Return) and s.value is not None:
            if not _made_function(s.value, defs, fun, bound):
                return False
        else:
            return False
    return True


def _made_function(value, defs, fun, bound):
    if isinstance(value, ast.Lambda):
        return _no_calls(value.args)            # (default values are computed when it is made)
    if isinstance(value, ast.Name) and value.id in defs:
        return True
    if isinstance(value, (ast.Name, ast.Attribute)):
        return _known_function(value, fun, bound)
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Dict) and _no_calls(value.slice):
        # `return {"relu": lambda z: ..., "tanh": np.tanh}[name]`
        return all(k is not None and _no_calls(k) for k in value.value.keys) and \
            all(_made_function(v, defs, fun, bound) for v in value.value.values)
    return isinstance(value, ast.Call) and _is_maker(value.func, fun) and \
        all(_no_calls(a) for a in list(value.args) + [k.value for k in value.keywords])


def _no_calls(node):
    """Does evaluating node call nothing (names, constants, attributes, lambdas' own defaults)?"""
    return not any(isinstance(n, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr))
                   for n in ast.walk(node))


def _is_maker(func, fun):
    """Is the called expression one of adsrc's derivative makers or functools.partial (in fun's namespace)?"""
    from .. import api, jacobians
    obj = _lookup(func, fun)
    makers = (functools.partial, api.grad, api.value_and_grad, jacobians.jacfwd, jacobians.jacrev,
              jacobians.hessian)
    return any(obj is m for m in makers)


def _lookup(node, fun):
    if isinstance(node, ast.Name):
        for name, cell in zip(fun.__code__.co_freevars, fun.__closure__ or ()):
            if name == node.id:
                try:
                    return cell.cell_contents
                except ValueError:      # an empty cell
                    return None
        return fun.__globals__.get(node.id, getattr(builtins, node.id, None))
    if isinstance(node, ast.Attribute):
        base = _lookup(node.value, fun)
        return getattr(base, node.attr, None) if base is not None else None
    return None


def computes_first(fun):
    """Is fun a function of the user's that makes a function but computes something first (not a factory)?"""
    from .object_classes import is_user_function
    return is_user_function(fun) and not is_factory(fun)


def call_early(fun, args, kwargs):
    """fun(*args, **kwargs) now, if fun is a factory: the function it makes, else NOT_STATIC."""
    if not is_factory(fun):
        return NOT_STATIC
    try:
        made = fun(*args, **kwargs)
    except Exception:
        return NOT_STATIC
    return made if callable(made) else NOT_STATIC


_APPLIED = {}        # (factory code, number of arguments of the call) -> the function made for them


def then_call(fun, nargs):
    """The function `fun_then_call(<fun's parameters>, *, _arg0, ...)` that returns fun(...)(_arg0, ...),
    or None when fun is not a function adsrc can rewrite so (a closure, no source, a return of something
    other than a function it defines)."""
    if not isinstance(fun, types.FunctionType) or fun.__closure__ or fun.__name__ == "<lambda>" or \
            fun.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE):
        return None
    if not is_factory(fun) and not _returns_functions(fun):
        return None
    return made_once(_APPLIED, (fun.__code__, nargs), lambda: _make_then_call(fun, nargs))


def _returns_functions(fun):
    """Does every `return` of fun (it may compute first: `shape = x.shape; return lambda g: ...`) give a
    lambda or a function it defines, with the body ending in one?"""
    try:
        _, tree = _file_tree(fun)
    except Exception:
        return False
    node = _find_def(tree, fun.__code__)
    if node is None or node.decorator_list or not node.body or not isinstance(node.body[-1], ast.Return):
        return False
    own = _own_nodes(node)
    defs = {n.name for n in own if isinstance(n, ast.FunctionDef)}
    bound = {n.id for n in own if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)} | \
        {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
    returns = [n for n in own if isinstance(n, ast.Return)]
    return all(isinstance(r.value, ast.Lambda) or isinstance(r.value, ast.Name) and r.value.id in defs or
               _known_function(r.value, fun, bound) for r in returns)


def _known_function(value, fun, bound):
    """Is value (a returned expression) a module's function, a global name or attribute (`np.tanh`, `relu`) that
    the factory does not bind itself?"""
    root = value
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name) or root.id in bound:
        return False
    return callable(_lookup(value, fun)) and not isinstance(_lookup(value, fun), type)


def _own_nodes(fdef):
    """The nodes of fdef's own scope (not of the functions and lambdas defined in it)."""
    out, todo = [], list(ast.iter_child_nodes(fdef))
    while todo:
        n = todo.pop()
        out.append(n)
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))
    return out


def _make_then_call(fun, nargs):
    _, tree = _file_tree(fun)
    node = copy.deepcopy(_find_def(tree, fun.__code__))
    node.name = f"{fun.__name__}_then_call"
    names = [f"_arg{i}" for i in range(nargs)]
    node.args.kwonlyargs = list(node.args.kwonlyargs) + [ast.arg(arg=n) for n in names]
    node.args.kw_defaults = list(node.args.kw_defaults) + [None] * nargs
    def applied(value):
        return ast.Call(func=value, args=[ast.Name(id=n, ctx=ast.Load()) for n in names], keywords=[])
    for ret in [n for n in _own_nodes(node) if isinstance(n, ast.Return)]:
        if isinstance(ret.value, ast.Subscript) and isinstance(ret.value.value, ast.Dict) and \
                None not in ret.value.value.keys:
            ret.value = _chosen(ret.value, applied)       # {"relu": ..., "tanh": ...}[name]: a chain of ifs
        else:
            ret.value = applied(ret.value)
    module = ast.fix_missing_locations(ast.Module(body=[node], type_ignores=[]))
    source = ast.unparse(module) + "\n"
    made = define(source, node.name, fun.__globals__, f"{node.name} from {fun.__code__.co_filename}")
    made.__qualname__ = f"{fun.__qualname__}_then_call"
    return made


def _chosen(sub, applied):
    """`{k1: f1, k2: f2}[key](args)` as the expression `f1(args) if key == k1 else f2(args) if key == k2 else
    <KeyError>` (the dict's entries compared in order; a key not there raises KeyError, as the lookup does)."""
    missing = ast.Call(func=ast.Attribute(value=ast.Dict(keys=[], values=[]), attr="__getitem__", ctx=ast.Load()),
                       args=[copy.deepcopy(sub.slice)], keywords=[])
    out = missing
    entries = list(zip(sub.value.keys, sub.value.values))
    later = [ast.dump(k) for k, _ in entries]
    entries = [(k, v) for i, (k, v) in enumerate(entries) if ast.dump(k) not in later[i + 1:]]   # (the last wins)
    for k, v in reversed(entries):
        test = ast.Compare(left=copy.deepcopy(sub.slice), ops=[ast.Eq()], comparators=[copy.deepcopy(k)])
        out = ast.IfExp(test=test, body=applied(copy.deepcopy(v)), orelse=out)
    return out


def lifted_call(e, static, bind):
    """`fac(a)(x)` as `fac_then_call(a, _arg0=x)` (a gast.Call), or None if that cannot be done."""
    f = e.func
    if e.keywords or any(isinstance(a, gast.Starred) for a in e.args):
        return None
    fac = static(f.func)
    if not isinstance(fac, types.FunctionType):
        return None
    made = then_call(fac, len(e.args))
    if made is None:
        return None
    return gast.Call(func=astutil.name(bind(made.__name__, made)), args=list(f.args),
                     keywords=list(f.keywords) + [gast.keyword(arg=f"_arg{i}", value=a) for i, a in enumerate(e.args)])


def fixed_arguments(call, single, fdef, held=()):
    """Are a factory call's arguments values that cannot change later in fdef (constants, names bound once,
    parameters never bound again, names in `held`), so that calling what it makes may pass them again?"""
    params = {a.id for a in astutil.walk(fdef.args) if isinstance(a, gast.Name)}
    for a in list(call.args) + [k.value for k in call.keywords]:
        if astutil.is_constant_literal(a) or isinstance(a, gast.Name) and a.id in held:
            continue

        if not isinstance(a, gast.Name) or isinstance(a, gast.Starred):
            return False
        if a.id in params and a.id in single or a.id not in params and a.id not in single:
            return False
    return isinstance(call.func, (gast.Name, gast.Attribute)) and not any(k.arg is None for k in call.keywords)
