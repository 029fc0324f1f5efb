"""The gradient of a function defined in the function being differentiated: `adsrc.grad(inner)(w)`.

A nested def (or lambda) reads the enclosing function's variables, which exist
only when the code runs, so adsrc cannot make its gradient object when
transforming. Instead the nested function is lifted: adsrc makes, once, a
module-level copy of it whose free variables are keyword-only parameters,
`inner_lifted(w, *, data)`, takes that copy's gradient, and calls it with the
variables' values at the call (a closure's late binding):

    def outer(w0):
        data = np.linspace(-1, 1, 5)
        def inner(w):
            return np.sum((np.tanh(w * data) - data) ** 2)
        return w0 - 0.1 * adsrc.grad(inner)(w0)
        # is  w0 - 0.1 * adsrc.grad(inner_lifted)(w0, data=data)

The outer transformation then differentiates through that call like through
any gradient (higher order), the lifted variables included. The copy's source
is registered like a file's, so its generated code and errors can be read.

A nested function that calls itself cannot be inlined; it is lifted the same
way, its calls of itself becoming calls of the copy that pass the lifted
variables on, and adsrc differentiates calls of the copy as it does calls of
a recursive module function.
"""

import ast
import builtins
import copy

import gast

from .. import astutil
from ..cache import made_once
from ..frontend.source import define, define_made, lambda_to_def, local_names

_LIFTED = {}      # (outer code, the def's text, parameters) -> the lifted function (bounded)
_GRADIENTS = {}   # (maker, lifted function, options) -> its gradient object


def nested_def(root, name):
    """The one nested def (or lambda assigned once) named `name` in root, as a FunctionDef, or None."""
    found = []
    for n in astutil.walk(root):
        if isinstance(n, gast.FunctionDef) and n.name == name and n is not root:
            found.append(n)
        elif isinstance(n, gast.Assign) and isinstance(n.value, gast.Lambda) and \
                any(isinstance(t, gast.Name) and t.id == name for t in n.targets):
            found.append(lambda_to_def(copy.deepcopy(n.value), name))
    return found[0] if len(found) == 1 else None


def free_names(fdef, global_default=None):
    """Names fdef reads and does not bind itself, in order; None if it declares `global`/`nonlocal`, has
    decorators, or has default values that are not constants (they would be computed in the wrong scope) or,
    with global_default, reads of the module's globals (`act=np.tanh`) that global_default accepts."""
    defaults = list(fdef.args.defaults) + [d for d in fdef.args.kw_defaults if d is not None]
    if fdef.decorator_list or any(not astutil.is_constant_literal(d) and
                                  not (global_default is not None and global_default(d)) for d in defaults):
        return None
    bound, loaded = set(), {}
    for n in astutil.walk(fdef):
        if isinstance(n, (gast.Global, gast.Nonlocal)):
            return None
        if isinstance(n, gast.Name):
            if isinstance(n.ctx, gast.Load):
                loaded.setdefault(n.id)
            else:
                bound.add(n.id)
        elif isinstance(n, (gast.FunctionDef, gast.ClassDef)):
            bound.add(n.name)
    return [n for n in loaded if n not in bound]


def calls_itself(fdef):
    """Does a nested def call itself, and use its own name only to call itself?"""
    uses = [n for n in astutil.walk(fdef) if isinstance(n, gast.Name) and n.id == fdef.name]
    calls = [n for n in astutil.walk(fdef) if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and
             n.func.id == fdef.name]
    inner = any(isinstance(n, (gast.FunctionDef, gast.Lambda)) and n is not fdef for n in astutil.walk(fdef))
    return bool(calls) and len(calls) == len(uses) and not inner and fdef.name not in local_names(fdef)


def lift(fdef, uf, is_local, recursive=False):
    """(the lifted function, the names of its added keyword-only parameters), or None.

    A free name becomes a parameter when it is a local of the enclosing function, one of its closure's
    variables, or nothing the module or builtins define; other free names stay the module's globals.
    recursive: fdef calls itself (calls_itself), and the copy calls the copy."""
    def global_default(d):          # a global's value or attribute (`act=np.tanh`, `act=relu`): the same there
        base = d
        while isinstance(base, gast.Attribute):
            base = base.value
        return isinstance(base, gast.Name) and not is_local(base.id) and base.id not in uf.cells and \
            (base.id in uf.globals or hasattr(builtins, base.id))
    free = free_names(fdef, global_default)
    if free is None:
        return None
    free = [n for n in free if not (recursive and n == fdef.name)]
    params = [n for n in free if is_local(n) or n in uf.cells or (n not in uf.globals and not hasattr(builtins, n))]
    key = (uf.fun.__code__, gast.dump(fdef), tuple(params), recursive)   # (two lambdas on a line differ in text)
    return made_once(_LIFTED, key, lambda: _make(fdef, uf, params, recursive)), params


def _make(fdef, uf, params, recursive):
    node = gast.gast_to_ast(gast.Module(body=[copy.deepcopy(fdef)], type_ignores=[])).body[0]
    name = node.name = f"{fdef.name}_lifted"
    node.args.kwonlyargs = list(node.args.kwonlyargs) + [ast.arg(arg=p) for p in params]
    node.args.kw_defaults = list(node.args.kw_defaults) + [None] * len(params)
    label = f"{name}, lifted from {uf.filename}:{getattr(fdef, 'lineno', '?')}"
    if recursive:
        for call in ast.walk(node):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == fdef.name:
                call.func.id = name
                call.keywords += [ast.keyword(arg=p, value=ast.Name(id=p, ctx=ast.Load())) for p in params]
        # made inside a function, so that the copy reads itself as a closure variable, not a global
        made = define_made(node, {}, uf.fun.__globals__, label)
    else:
        module = ast.fix_missing_locations(ast.Module(body=[node], type_ignores=[]))
        made = define(ast.unparse(module) + "\n", name, uf.fun.__globals__, label)
    made.__qualname__ = f"{uf.fun.__qualname__}.<locals>.{name}"
    return made


def gradient(maker, fn, options, keywords):
    """maker(fn, *options, **keywords) (adsrc.grad or value_and_grad), made once; None if the options are
    not accepted or not hashable."""
    try:
        key = (maker, fn, tuple(options), tuple(sorted(keywords.items())))
        return made_once(_GRADIENTS, key, lambda: maker(fn, *options, **keywords))
    except TypeError:
        return None


def _known_function(obj):
    """Is obj a function known when transforming that adsrc can follow as a static argument (a module
    function, a NumPy function, a builtin, a bound method), not a class or an array?"""
    import numpy as np
    from ..rules import NOT_STATIC
    return obj is not NOT_STATIC and callable(obj) and not isinstance(obj, (type, np.ndarray, np.generic))


def called_with_functions(norm, e):
    """A call of a nested def passing a function known when transforming to a parameter the def calls
    (`layer(x, W, activation=np.tanh)`, `def layer(x, W, activation=None): ... activation(h)`): the call of
    the def's lifted copy (a gast.Call), where that function is an argument known when transforming as in a
    call of a module function, or None (the def is inlined as before)."""
    from . import closures
    fdef = nested_def(norm.uf.node, e.func.id)
    if fdef is None or not isinstance(getattr(fdef, "body", None), list) or calls_itself(fdef) or \
            any(isinstance(a, gast.Starred) for a in e.args) or any(k.arg is None for k in e.keywords):
        return None
    a = fdef.args
    names = [p.id for p in list(a.posonlyargs) + list(a.args)]
    given = dict(zip(names, e.args))
    given.update((k.arg, k.value) for k in e.keywords)
    called = {n.func.id for n in astutil.walk(fdef) if isinstance(n, gast.Call) and isinstance(n.func, gast.Name)}
    rebound = {n.id for n in astutil.walk(fdef) if isinstance(n, gast.Name) and
               isinstance(n.ctx, (gast.Store, gast.Del))}
    pos = names[len(names) - len(a.defaults):] if a.defaults else []
    defaults = dict(zip(pos, a.defaults))
    defaults.update((p.id, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None)
    for p, d in defaults.items():
        given.setdefault(p, d)          # (a default function, `act=np.tanh`, is passed as one)
    passed = [p for p, v in given.items() if p in called and p not in rebound and
              not astutil.is_constant_literal(v) and _known_function(norm.static(v))]
    if not passed:
        return None
    lifted = lift(fdef, norm.uf, norm.is_local)
    made = closures.with_functions(norm, *lifted) if lifted is not None else None
    if made is None:
        return None
    fn, _, kws = made
    return gast.Call(func=astutil.name(norm.bind(fn.__name__, fn)), args=list(e.args),
                     keywords=list(e.keywords) + [gast.keyword(arg=k, value=v) for k, v in kws])
