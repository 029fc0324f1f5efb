"""A function given to a SciPy integrator that reads the caller's local values takes them through `args`.

    quad(lambda t: np.exp(-a * t), 0.0, b)          ->  quad(lambda t, a: np.exp(-a * t), 0.0, b, args=(a,))

    def rhs(y, t):                                      def rhs(y, t): ...
        return -k * y                      ->           def rhs_args(y, t, k):
    odeint(rhs, y0, ts)                                     return -k * y
                                                        odeint(rhs_args, y0, ts, args=(k,))

The integrators' rules differentiate what reaches the function through `args` (scipy_quad.py, scipy_ode.py,
scipy_ivp.py), not what it captures, which they refuse. Python computes the same either way: the integrator
calls the function while it runs, when a closure reads the caller's values, and `args` holds those same
values (the same objects). Only a lambda written in the call, or a def of the function's own (bound once,
without decorators, defaults, *args, `nonlocal` or `global`), is rewritten, and only where `args` is absent
or written as a tuple display; the caller's own functions are left as the closure reads them.
"""

import sys

import gast

from .. import astutil
from .generators import own_nodes
from .source import local_names

# (module, function): the position of its `args` parameter
INTEGRATORS = {("scipy.integrate", "quad"): 3, ("scipy.integrate", "odeint"): 3,
               ("scipy.integrate", "solve_ivp"): 8}


def rewrite_closure_args(uf):
    """Rewrite, in place, the integrator calls of uf's own scope whose function reads uf's locals; returns
    whether any."""
    if "scipy.integrate" not in sys.modules:
        return False
    nodes = own_nodes(uf.node)
    calls = [(n, _args_position(uf, n.func)) for n in nodes if isinstance(n, gast.Call)]
    calls = [(n, pos) for n, pos in calls if pos is not None and n.args and
             not any(isinstance(a, gast.Starred) for a in n.args) and all(k.arg for k in n.keywords)]
    if not calls:
        return False
    enclosing = local_names(uf.node)
    functions = _own_functions(nodes)
    values = enclosing - set(functions) - {n.targets[0].id for n in nodes if isinstance(n, gast.Assign) and
                                           len(n.targets) == 1 and isinstance(n.targets[0], gast.Name) and
                                           isinstance(n.value, gast.Lambda)}
    changed = False
    for call, pos in calls:
        changed |= _rewrite_call(uf, call, pos, values, functions, enclosing)
    return changed


def _args_position(uf, func):
    """The position of `args` if func is one of the INTEGRATORS (read from the function's globals), else None."""
    chain = []
    while isinstance(func, gast.Attribute):
        chain.append(func.attr)
        func = func.value
    if not isinstance(func, gast.Name) or func.id in uf.locals:
        return None
    kind, value = uf.lookup(func.id)
    if kind not in ("global", "closure", "static"):
        return None
    for attr in reversed(chain):
        value = getattr(value, attr, None)
    module = sys.modules.get("scipy.integrate")
    for (_, name), pos in INTEGRATORS.items():
        if value is getattr(module, name, None) and value is not None:
            return pos
    return None


def _own_functions(nodes):
    """{name: def} of the nested defs of the scope bound once (by their def alone)."""
    defs, stored = {}, {}
    for n in nodes:
        if isinstance(n, gast.FunctionDef):
            defs.setdefault(n.name, []).append(n)
        elif isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            stored[n.id] = True
    return {name: ds[0] for name, ds in defs.items() if len(ds) == 1 and name not in stored}


def _free_values(fn, params, values):
    """The caller's values fn reads (a name fn itself binds anywhere is left out, to be safe), in order of
    first reading."""
    inner = astutil.walk(fn)
    bound = set(params) | {n.id for n in inner if isinstance(n, gast.Name) and
                           isinstance(n.ctx, (gast.Store, gast.Del, gast.Param))}
    bound |= {n.name for n in inner if isinstance(n, gast.FunctionDef)}
    out = []
    for n in inner:
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in values and n.id not in bound and \
                n.id not in out:
            out.append(n.id)
    if any(isinstance(n, (gast.Nonlocal, gast.Global)) for n in inner):
        return []
    return out


def _plain(args):
    return not (args.vararg or args.kwarg or args.kwonlyargs or args.defaults or args.posonlyargs)


def _args_slot(call, pos):
    """('keyword', keyword) or ('position', index) of the call's `args`, ('absent', None), or None where it is
    not a tuple display."""
    for k in call.keywords:
        if k.arg == "args":
            return ("keyword", k) if isinstance(k.value, gast.Tuple) else None
    if len(call.args) > pos:
        return ("position", pos) if isinstance(call.args[pos], gast.Tuple) else None
    return ("absent", None)


def _rewrite_call(uf, call, pos, values, functions, enclosing):
    slot = _args_slot(call, pos)
    given = call.args[0]
    if slot is None:
        return False
    if isinstance(given, gast.Lambda):
        if not _plain(given.args):
            return False
        free = _free_values(given, [p.id for p in given.args.args], values)
        if not free:
            return False
        call.args[0] = gast.copy_location(gast.Lambda(args=_with_params(given.args, free), body=given.body), given)
    elif isinstance(given, gast.Name) and given.id in functions:
        fdef = functions[given.id]
        if not _plain(fdef.args) or fdef.decorator_list:
            return False
        free = _free_values(fdef, local_names(fdef), values)
        if not free:
            return False
        lifted = astutil.fresh_name(f"{fdef.name}_args", enclosing)
        uf.locals.add(lifted)
        copy = astutil.clone(fdef)
        copy.name, copy.args = lifted, _with_params(copy.args, free)
        _insert_after(uf.node, fdef, copy)
        call.args[0] = astutil.name(lifted)
    else:
        return False
    extra = [astutil.name(v) for v in free]
    kind, where = slot
    if kind == "keyword":
        where.value = gast.Tuple(elts=list(where.value.elts) + extra, ctx=gast.Load())
    elif kind == "position":
        call.args[where] = gast.Tuple(elts=list(call.args[where].elts) + extra, ctx=gast.Load())
    else:
        call.keywords.append(gast.keyword(arg="args", value=gast.Tuple(elts=extra, ctx=gast.Load())))
    gast.fix_missing_locations(call)
    return True


def _with_params(args, names):
    out = astutil.clone(args)
    out.args = list(out.args) + [gast.Name(id=v, ctx=gast.Param(), annotation=None, type_comment=None)
                                 for v in names]
    return out


def _insert_after(root, fdef, new):
    """Put new right after fdef in the statement list holding it."""
    for holder in astutil.walk(root):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(holder, field, None)
            if isinstance(stmts, list) and any(s is fdef for s in stmts):
                i = next(i for i, s in enumerate(stmts) if s is fdef)
                stmts.insert(i + 1, new)
                return
        for handler in getattr(holder, "handlers", ()) or ():
            if any(s is fdef for s in handler.body):
                i = next(i for i, s in enumerate(handler.body) if s is fdef)
                handler.body.insert(i + 1, new)
                return
