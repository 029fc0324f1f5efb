"""A function defined in the differentiated function, passed to a module function: `integrate(lambda t: k * t,
0.0, 1.0)`, `rk4(rhs, y0, dt)` with `rhs` a nested def reading the enclosing function's variables.

The callee cannot know when it is transformed what its parameter `f` reads: the lambda's variables (`k`) exist
only when the code runs. So the callee gets a copy, made once per function passed, in which `f` is no longer a
parameter but the lifted function (lifting.py) with its variables bound, and those variables are keyword-only
parameters the call passes:

    def integrate(f, a, b):                    def integrate_with_f(a, b, *, f_k):
        ...                           ->           f = partial(inner_lifted, k=f_k)
                                                   ...
    integrate(lambda t: k * t, 0.0, 1.0)   ->  integrate_with_f(0.0, 1.0, f_k=k)

Inside the copy `f(t)` is a call of the lifted function (function_values.py), and adsrc differentiates
through the variables like through any argument. A name bound to `functools.partial(g, a)` is passed the same
way, so the copy can hand `f` on to the next function.
"""

import ast
import functools
import inspect

import gast

from .. import astutil
from ..cache import made_once
from .. import rules as rules_mod
from ..frontend.source import define_made, lambda_to_def, load
from . import lifting
from .object_classes import _LIBRARY_PATHS

_COPIES = {}      # (callee, what is passed for each parameter) -> (copy, {parameter: its variables' names})


def passing_closures(norm, e, callee):
    """The call e of the module function callee, rewritten to pass the functions defined in the caller that it
    passes as arguments (a call of callee's copy, or of callee with their lifted copies), or None."""
    if any(isinstance(a, gast.Starred) for a in e.args) or any(k.arg is None for k in e.keywords) or \
            not _copyable(callee):
        return None
    try:
        sig = inspect.signature(callee, follow_wrapped=False)
        bound = sig.bind(*e.args, **{k.arg: k.value for k in e.keywords}).arguments
    except (TypeError, ValueError):
        return None
    params = sig.parameters
    passed = {}
    for pname, node in bound.items():
        if params[pname].kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        value = _function_value(norm, node)
        if value is not None:
            passed[pname] = value
    if not passed:
        return None
    copy_fn, env = _copy(callee, passed)
    drop = {id(bound[p]) for p in passed}
    args = [a for a in e.args if id(a) not in drop]
    keywords = [k for k in e.keywords if id(k.value) not in drop]
    for pname, (_, pos, kws) in passed.items():
        values = list(pos) + [v for _, v in kws]
        keywords += [gast.keyword(arg=name, value=v) for name, v in zip(env[pname], values)]
    return gast.Call(func=astutil.name(norm.bind(copy_fn.__name__, copy_fn)), args=args, keywords=keywords)


def _function_value(norm, node):
    """(the function, its bound positional values, its bound (keyword, value) pairs) for a lambda, a nested
    def or a name bound to functools.partial of one, defined in the caller; else None."""
    if isinstance(node, gast.Lambda):
        return _lifted(norm, lambda_to_def(astutil.clone(node), "fn"))
    if not isinstance(node, gast.Name):
        return None
    what = norm.functions.get(node.id)
    if what is not None:
        if what[0] != "partial":
            return None
        _, func, args, keywords = what
        inner = _function_value(norm, func) if isinstance(func, gast.Name) else None
        if inner is not None:           # functools.partial(g, ...) of a nested def g
            fn, pos, kws = inner
            if pos:
                return None
            return fn, list(args), [(k.arg, k.value) for k in keywords] + kws
        target = norm.static(func)
        if target is rules_mod.NOT_STATIC or not callable(target):
            return None
        return target, list(args), [(k.arg, k.value) for k in keywords]
    if node.id in norm.def_names or node.id in norm.local_defs:
        fdef = lifting.nested_def(norm.uf.node, node.id)
        defs = sum(1 for n in astutil.walk(norm.uf.node) if isinstance(n, gast.FunctionDef) and n.name == node.id)
        if fdef is None or lifting.calls_itself(fdef) or norm.store_counts.get(node.id, 0) + defs != 1:
            return None         # (a name bound to something else too may not hold this function here)
        return _lifted(norm, fdef)
    return None


def _lifted(norm, fdef):
    lifted = lifting.lift(fdef, norm.uf, norm.is_local)
    return None if lifted is None else with_functions(norm, *lifted)


def with_functions(norm, fn, params):
    """(fn, [], [(keyword, value)]) calling the lifted function fn with its variables `params` from here;
    those that hold functions defined here are passed on as their own variables (a copy of fn takes
    them), or None when that cannot be done."""
    kws = [(p, astutil.name(p)) for p in params]
    passed = {p: v for p, v in ((p, _function_value(norm, node)) for p, node in kws) if v is not None}
    if not passed:
        return fn, [], kws
    if not _copyable(fn):
        return None
    fn, env = _copy(fn, passed)     # it reads a function of the caller's too: pass that one's variables on
    kws = [(p, node) for p, node in kws if p not in passed]
    for p, (_, pos, inner) in passed.items():
        kws += list(zip(env[p], list(pos) + [v for _, v in inner]))
    return fn, [], kws


def _copyable(callee):
    """A plain function of the user's (or of adsrc's NumPy versions) whose source adsrc can copy (its closure's
    values are the copy's: a closure variable the function assigns would not be shared, but a function whose
    source adsrc reads assigns none). An installed library's functions are not copied."""
    if not inspect.isfunction(callee) or callee.__name__ == "<lambda>":
        return False
    try:
        [c.cell_contents for c in callee.__closure__ or ()]
    except ValueError:          # an empty cell: the copy could not have its value
        return False
    library = any(part in callee.__code__.co_filename for part in _LIBRARY_PATHS)
    return not library or (callee.__module__ or "").startswith("adsrc.rules.")


def _copy(callee, closures):
    key = (callee, tuple((p, fn, len(pos), tuple(k for k, _ in kws)) for p, (fn, pos, kws) in closures.items()))
    return made_once(_COPIES, key, lambda: _make(callee, closures))


def _make(callee, closures):
    uf = load(callee)
    node = gast.gast_to_ast(gast.Module(body=[astutil.clone(uf.node)], type_ignores=[])).body[0]
    taken = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    taken |= {a.arg for a in ast.walk(node) if isinstance(a, ast.arg)}
    node.decorator_list = []
    node.name = f"{callee.__name__}_with_{'_'.join(closures)}"
    # its own closure's values (a lifted recursive copy reads itself so) stay its copy's closure values
    values = {name: cell.cell_contents for name, cell in zip(callee.__code__.co_freevars, callee.__closure__ or ())}
    taken |= set(values)
    partial_name = _fresh("partial", taken)
    values[partial_name] = functools.partial
    env = {}
    prologue = []
    for pname, (fn, pos, kws) in closures.items():
        _remove_parameter(node.args, pname)
        names = [_fresh(f"{pname}_{k}", taken) for k in list(range(len(pos))) + [k for k, _ in kws]]
        env[pname] = names
        node.args.kwonlyargs += [ast.arg(arg=n) for n in names]
        node.args.kw_defaults += [None] * len(names)
        fn_name = _fresh(f"{pname}_fn", taken)
        values[fn_name] = fn
        call = ast.Call(func=ast.Name(id=partial_name, ctx=ast.Load()),
                        args=[ast.Name(id=fn_name, ctx=ast.Load())] +
                        [ast.Name(id=n, ctx=ast.Load()) for n in names[:len(pos)]],
                        keywords=[ast.keyword(arg=k, value=ast.Name(id=n, ctx=ast.Load()))
                                  for (k, _), n in zip(kws, names[len(pos):])])
        prologue.append(ast.Assign(targets=[ast.Name(id=pname, ctx=ast.Store())], value=call,
                                   lineno=node.lineno))
    docstring = node.body[:1] if node.body and isinstance(node.body[0], ast.Expr) and \
        isinstance(getattr(node.body[0], "value", None), ast.Constant) else []
    node.body = docstring + prologue + node.body[len(docstring):]
    label = f"{node.name}, {callee.__name__} from {uf.filename} with the function passed as {', '.join(closures)}"
    made = define_made(node, values, callee.__globals__, label)
    made.__qualname__ = f"{callee.__qualname__}_with_{'_'.join(closures)}"
    made.__module__ = callee.__module__
    return made, env


def _remove_parameter(args, pname):
    for field in ("posonlyargs", "args"):
        params = getattr(args, field)
        for i, a in enumerate(params):
            if a.arg == pname:
                n_positional = len(args.posonlyargs) + len(args.args)
                k = (len(args.posonlyargs) if field == "args" else 0) + i
                first_default = n_positional - len(args.defaults)
                if k >= first_default:
                    del args.defaults[k - first_default]
                del params[i]
                return
    for i, a in enumerate(args.kwonlyargs):
        if a.arg == pname:
            del args.kwonlyargs[i]
            del args.kw_defaults[i]
            return


def _fresh(base, taken):
    name, k = base, 1
    while name in taken:
        name, k = f"{base}_{k}", k + 1
    taken.add(name)
    return name
