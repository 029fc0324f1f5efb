"""Lists of functions built by `append`, read as the displays and comprehensions they amount to.

    fs = []                                         fs = [lambda v, k=k: v[k] * k for k in range(3)]
    for k in range(3):                      ->
        fs.append(lambda v, k=k: v[k] * k)

    fs = [np.cos]                                   fs = [np.cos, np.sin] + [lambda v, k=k: v * k for k in K]
    fs.append(np.sin)                       ->
    for k in K:
        def h(v, k=k):
            return v * k
        fs.append(h)

A table of functions (lowering/tables.py) is a display or a comprehension of lambdas bound once and never
changed; these statements build the same list, in the same order, evaluating the same expressions. Only the
statements right after `fs = [...]` are read so: a loop whose body is `fs.append(<a lambda>)` or a one-line
`def` appended, or `fs.append(f)` of a lambda, a function of this function or a module's. The rewrite keeps
Python's meaning:

- the loop's variable, if the function reads it elsewhere, is bound again by a loop of its own (`for k in K:
  pass`) over the same iterable, which must then be names, constants and calls of range/len/zip/enumerate;
- a lambda reading the loop's variable itself (late binding) reads its last value in both, and the rewrite is
  not made if anything else binds that variable;
- an appended `def`'s name must not be read elsewhere (the comprehension does not bind it).
"""

import inspect

import gast

from .. import astutil

_PURE_CALLS = frozenset({"range", "len", "zip", "enumerate", "reversed"})
_BLOCKS = ("body", "orelse", "finalbody")


def rewrite_appended_functions(fdef, lookup):
    """Rewrite, in place, the lists of functions fdef builds by appending (see the module's docstring).
    lookup(name) -> (kind, value) resolves a free name (UserFunction.lookup). Returns whether it rewrote any."""
    changed = False
    for node in astutil.walk(fdef):
        for field in _BLOCKS:
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], gast.stmt):
                changed |= _rewrite_block(stmts, fdef, lookup)
    return changed


def _rewrite_block(stmts, fdef, lookup):
    changed = False
    i = 0
    while i < len(stmts):
        name = _started_list(stmts[i])
        if name is None:
            i += 1
            continue
        j, parts, before, after = _appended(stmts, i, name, fdef, lookup)
        if j > i + 1:
            stmts[i].value = gast.copy_location(_joined(parts), stmts[i].value)
            gast.fix_missing_locations(stmts[i])
            stmts[i:j] = before + [stmts[i]] + after
            changed = True
            i += len(before)
        i += 1
    return changed


def _started_list(s):
    """`fs = [...]` (a list display without `*`): the name, else None."""
    if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and \
            isinstance(s.value, gast.List) and not any(isinstance(e, gast.Starred) for e in s.value.elts):
        return s.targets[0].id
    return None


def _appended(stmts, i, name, fdef, lookup):
    """(the index after the statements that append functions to `name`, the parts of the list, the statements
    that rebind loop variables)."""
    parts, before, after = [list(stmts[i].value.elts)], [], []
    j = i + 1
    while j < len(stmts):
        s = stmts[j]
        item = _append_of(s, name)
        if item is not None and _function_like(item, fdef, lookup):
            _last_display(parts).append(item)
        elif isinstance(s, gast.For):
            comp = _comprehension(s, name, fdef, lookup)
            if comp is None:
                break
            parts.append(comp[0])
            before.extend(comp[1])
            after.extend(comp[2])
        else:
            break
        j += 1
    return j, parts, before, after


def _last_display(parts):
    if not isinstance(parts[-1], list):
        parts.append([])
    return parts[-1]


def _joined(parts):
    """The list expression of the parts (lists of items, comprehensions), joined by `+`."""
    exprs = [gast.List(elts=p, ctx=gast.Load()) if isinstance(p, list) else p for p in parts
             if not (isinstance(p, list) and not p)]
    out = exprs[0]
    for e in exprs[1:]:
        out = gast.BinOp(left=out, op=gast.Add(), right=e)
    return out


def _append_of(s, name):
    """`name.append(v)` as a statement: v, else None."""
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and isinstance(s.value.func, gast.Attribute) \
            and s.value.func.attr == "append" and isinstance(s.value.func.value, gast.Name) and \
            s.value.func.value.id == name and len(s.value.args) == 1 and not s.value.keywords and \
            not isinstance(s.value.args[0], gast.Starred):
        return s.value.args[0]
    return None


def _function_like(v, fdef, lookup):
    """A lambda, a function defined in fdef, or a name or attribute of a callable known now."""
    if isinstance(v, gast.Lambda):
        return True
    if isinstance(v, gast.Name) and any(isinstance(n, gast.FunctionDef) and n.name == v.id
                                        for n in astutil.walk(fdef)):
        return True
    root = v
    while isinstance(root, gast.Attribute):
        root = root.value
    if not isinstance(root, gast.Name) or root.id in astutil.names_stored(fdef) or \
            root.id in {n.name for n in astutil.walk(fdef) if isinstance(n, gast.FunctionDef)}:
        return False
    kind, value = lookup(root.id)
    if kind == "missing":
        return False
    for part in reversed(_attributes(v)):
        value = getattr(value, part, None)
    return callable(value)


def _attributes(v):
    out = []
    while isinstance(v, gast.Attribute):
        out.append(v.attr)
        v = v.value
    return out


def _comprehension(loop, name, fdef, lookup):
    """`for T in it: name.append(<lambda>)` (or a def appended), after `s = <value>` statements the function
    reads in its defaults only: ([<lambda> for T in it], the statements to put before the list (a def of more
    than one line, shared), those that rebind T (and s) after), else None."""
    if loop.orelse or astutil.target_spec(loop.target) is None:
        return None
    body = [s for s in loop.body if not _docstring(s)]
    item = _append_of(body[-1], name) if body else None
    if item is None or any(isinstance(n, gast.NamedExpr) for n in astutil.walk(loop)):
        return None
    prefix = _prefix(body[:-1], loop, lookup)
    if prefix is None:
        return None
    body = body[len(prefix):]
    shared = None
    if len(body) == 2:
        if not _appendable_def(body[0], item, loop, fdef):
            return None
        late = _late(body[0].args, body[0].body, loop)
        read_late = _late(body[0].args, body[0].body, None, set(prefix))
        item, shared = _def_as_lambda(body[0])
    elif len(body) == 1 and isinstance(item, gast.Lambda):
        late = _late(item.args, item.body, loop)
        read_late = _late(item.args, item.body, None, set(prefix))
    else:
        return None
    if late and _stored_outside(fdef, loop) & late:
        return None             # (a function reading the variable late would read another binding of it)
    item = _given_defaults(item, prefix)
    after = []
    rebound = set(astutil.names_stored(loop.target)) | set(prefix)
    # (a function reading s itself reads the function's s when called: its last value, bound again after)
    if rebound & (_names_outside(fdef, loop) | (late if shared else set()) | read_late):
        if not _pure(loop.iter):
            return None
        again = [astutil.clone(s) for s in prefix.values()] or [gast.Pass()]
        after = [gast.copy_location(gast.For(target=astutil.clone(loop.target), iter=astutil.clone(loop.iter),
                                             body=again, orelse=[], type_comment=None), loop)]
    gen = gast.comprehension(target=astutil.clone(loop.target), iter=loop.iter, ifs=[], is_async=0)
    return gast.copy_location(gast.ListComp(elt=item, generators=[gen]), loop), [shared] if shared else [], after


def _late(args, body, loop, names=None):
    """The loop's variables (or names) a function's body reads itself (late binding), not as parameters."""
    params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    params |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
    loaded = set().union(*(astutil.names_loaded(b) for b in (body if isinstance(body, list) else [body])))
    return (set(astutil.names_stored(loop.target)) if names is None else names) & (loaded - params)


def _prefix(stmts, loop, lookup):
    """The statements before the append, each `s = <value>` computing a value from the loop's variable and
    names the loop does not bind, with no effect (arithmetic, indexing, calls of NumPy's and math's functions):
    {s: its statement} in order, or None if a statement is not one. (Read again where a default reads s, they
    compute the same values.) Stops at a def."""
    out = {}
    bound = set(astutil.names_stored(loop.target))
    for s in stmts:
        if isinstance(s, gast.FunctionDef) and s is stmts[-1]:
            break
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)) or \
                not _effectless(s.value, lookup):
            return None
        target = s.targets[0].id
        later = set(astutil.names_stored(gast.Module(body=stmts[len(out):], type_ignores=[]))) - set(out)
        if target in bound or target in out or astutil.names_loaded(s.value) & later:
            return None         # (reading a value of the last iteration, or binding the loop's variable)
        out[target] = s
    return out


def _given_defaults(item, prefix):
    """The lambda with each default's reads of a prefix's name replaced by the value it was bound to."""
    if not prefix:
        return item
    values = {}
    for target, s in prefix.items():
        values[target] = _substituted(astutil.clone(s.value), values)
    args = item.args
    args.defaults = [_substituted(d, values) for d in args.defaults]
    args.kw_defaults = [d if d is None else _substituted(d, values) for d in args.kw_defaults]
    return item


def _substituted(e, values):
    if isinstance(e, gast.Name) and isinstance(e.ctx, gast.Load) and e.id in values:
        return astutil.clone(values[e.id])
    for field, old in gast.iter_fields(e):
        if isinstance(old, gast.AST):
            setattr(e, field, _substituted(old, values))
        elif isinstance(old, list):
            setattr(e, field, [_substituted(v, values) if isinstance(v, gast.AST) else v for v in old])
    return e


_EFFECTLESS_MODULES = ("numpy", "math")


def _effectless(e, lookup):
    """Is e arithmetic, comparisons, indexing and calls of range/len/abs/min/max/float/int and of NumPy's and
    math's functions (not numpy.random's) on names and constants?"""
    for n in astutil.walk(e):
        if isinstance(n, (gast.Lambda, gast.NamedExpr, gast.Yield, gast.Await, gast.ListComp, gast.GeneratorExp,
                          gast.DictComp, gast.SetComp)):
            return False
        if isinstance(n, gast.Call) and not _effectless_function(n.func, lookup):
            return False
    return True


def _effectless_function(func, lookup):
    if isinstance(func, gast.Name):
        kind, value = lookup(func.id)
        return kind == "builtin" and func.id in _PURE_CALLS | {"abs", "min", "max", "float", "int", "round"}
    parts = _attributes(func)
    root = func
    while isinstance(root, gast.Attribute):
        root = root.value
    if not isinstance(root, gast.Name) or "random" in parts:
        return False
    kind, value = lookup(root.id)
    name = getattr(value, "__name__", "") if kind in ("global", "closure") and inspect.ismodule(value) else ""
    return name.split(".")[0] in _EFFECTLESS_MODULES and "random" not in name


def _appendable_def(d, item, loop, fdef):
    """Is d `def h(...)` appended by `fs.append(h)`, h read nowhere else (nor by itself) and defined once?"""
    return isinstance(d, gast.FunctionDef) and not d.decorator_list and isinstance(item, gast.Name) and \
        item.id == d.name and d.name not in astutil.all_names(gast.Module(body=d.body, type_ignores=[])) and \
        d.name not in _names_outside(fdef, loop) and \
        sum(1 for n in astutil.walk(fdef) if isinstance(n, gast.FunctionDef) and n.name == d.name) == 1


def _def_as_lambda(d):
    """`def h(v, k=k): return e`: (`lambda v, k=k: e`, None). A longer body: (`lambda v, k=k: h(v, k)`, the def
    without its defaults, put before the list: each lambda keeps its own defaults)."""
    args = astutil.clone(d.args)
    for a in args.posonlyargs + args.args + args.kwonlyargs + [x for x in (args.vararg, args.kwarg) if x]:
        a.annotation = None
    body = [s for s in d.body if not _docstring(s)]
    if len(body) == 1 and isinstance(body[0], gast.Return) and body[0].value is not None:
        return gast.copy_location(gast.Lambda(args=args, body=body[0].value), d), None
    shared = astutil.clone(d)
    shared.args.defaults, shared.args.kw_defaults = [], [None] * len(shared.args.kwonlyargs)
    passed = [astutil.name(a.id) for a in args.posonlyargs + args.args]
    if args.vararg is not None:
        passed.append(gast.Starred(value=astutil.name(args.vararg.id), ctx=gast.Load()))
    keywords = [gast.keyword(arg=a.id, value=astutil.name(a.id)) for a in args.kwonlyargs]
    if args.kwarg is not None:
        keywords.append(gast.keyword(arg=None, value=astutil.name(args.kwarg.id)))
    call = gast.copy_location(gast.Call(func=astutil.name(d.name), args=passed, keywords=keywords), d)
    return gast.copy_location(gast.Lambda(args=args, body=call), d), shared


def _docstring(s):
    return isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant) and isinstance(s.value.value, str)


def _names_outside(fdef, loop):
    """Names fdef reads or binds outside the statement loop."""
    inside = set(map(id, astutil.walk(loop)))
    return {n.id for n in astutil.walk(fdef) if isinstance(n, gast.Name) and id(n) not in inside}


def _stored_outside(fdef, loop):
    inside = set(map(id, astutil.walk(loop)))
    return {n.id for n in astutil.walk(fdef) if isinstance(n, gast.Name) and id(n) not in inside and
            isinstance(n.ctx, (gast.Store, gast.Param, gast.Del))}


def _pure(e):
    """Is e names, constants, attributes, subscripts and calls of range/len/zip/enumerate/reversed of them?"""
    for n in astutil.walk(e):
        if isinstance(n, gast.Call) and not (isinstance(n.func, gast.Name) and n.func.id in _PURE_CALLS):
            return False
        if isinstance(n, (gast.Lambda, gast.NamedExpr, gast.Yield, gast.Await, gast.ListComp, gast.GeneratorExp,
                          gast.DictComp, gast.SetComp)):
            return False
    return True
