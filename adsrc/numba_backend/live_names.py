"""The user's globals and closure values a kernel reads, passed in when it runs.

numba freezes the value of every global (and closure value) a compiled
function reads, when it compiles. The NumPy backend reads them when the
gradient runs, so a global array changed in place, or rebound, would give a
stale, wrong gradient under numba. So each value that is not a module or a
function becomes a parameter of the kernel, put first, and the Python function
around the kernel reads it when it is called. A kernel passes on the values
the kernels it calls need (their units' `Live` entries), so a helper of the
user's that reads a global sees its value of now, too.
"""

import ast
import inspect
from collections import namedtuple

# key: what the value is read from (the cell, or the globals dict and name); holder: that cell or dict
Live = namedtuple("Live", "key name holder")


FROZEN = {"UNDEFINED"}      # adsrc's constants in generated code (kernel.py gives numba its own version)


def own_names(tree, ns):
    """The free names of the functions in tree that hold data in ns (not a module, a class or a function), in
    the order they are first read."""
    out = []
    for fdef in tree.body:
        out += [name for name in free_names(fdef) if name in ns and name not in out and _is_data(ns[name])
                and name not in FROZEN]
    return out


def free_names(fdef):
    """The names fdef reads that are not its parameters or locals, in the order they are first read."""
    local = _locals(fdef)
    loads = sorted((n for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)),
                   key=lambda n: (n.lineno, n.col_offset))
    return list(dict.fromkeys(n.id for n in loads if n.id not in local))


def reads(chosen, ns):
    """The expressions the Python function around a kernel passes for its `chosen` parameters, reading each
    value when it runs; the dicts and cells they read from are put in ns."""
    out, names = [], {}
    for live, param in chosen:
        holder = live.holder
        if id(holder) not in names:
            base = f"cell_{param}" if live.key[0] == "cell" else "user_globals"
            name = base if base not in ns else _fresh(base, ns)
            ns[name] = holder
            names[id(holder)] = name
        out.append(f"{names[id(holder)]}[{live.name!r}]" if live.key[0] == "global"
                   else f"{names[id(holder)]}.cell_contents")
    return out


def _is_data(value):
    return not (inspect.ismodule(value) or callable(value))


def _locals(fdef):
    return _params(fdef) | {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}


def _params(fdef):
    a = fdef.args
    return {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if p is not None}


def entry(name, functions):
    """The Live entry of free name `name` of the generated `functions` (a closure cell of theirs, or their
    module's global)."""
    for fn in functions:
        if name in fn.__code__.co_freevars:
            cell = fn.__closure__[fn.__code__.co_freevars.index(name)]
            return Live(("cell", id(cell)), name, cell)
    g = functions[0].__globals__
    return Live(("global", id(g), name), name, g)


def thread(text, tree, own, calls):
    """text with the values read when it runs passed in: (new text, [(Live, parameter name)]).

    own: this unit's Live entries (its free data names); calls: {name the text calls: [Live] its kernel
    takes first}. Every function of text takes the parameters first; each call of a kernel in `calls` passes
    that kernel's."""
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | \
        {p for f in tree.body for p in _params(f)} | {f.name for f in tree.body}
    stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)} | \
        {p for f in tree.body for p in _params(f)}
    own_keys = {e.key for e in own}
    params, renamed, chosen = {}, {}, []
    for live in own + [e for lives in calls.values() for e in lives]:
        if live.key in params:
            continue
        name = live.name
        if name in stored or (live.key not in own_keys and name in taken):
            name = _fresh(live.name, taken)
        taken.add(name)
        params[live.key] = name
        chosen.append((live, name))
        if live.key in own_keys and name != live.name:
            renamed[live.name] = name
    edits = []          # (line, column, old text length, new text): the edits, made from the last
    for fdef in tree.body:
        if params:
            edits.append(_first_parameters(fdef, list(params.values())))
        local = _locals(fdef)
        for n in ast.walk(fdef):
            if isinstance(n, ast.Name) and n.id in renamed and n.id not in local:
                edits.append((n.lineno, n.col_offset, len(n.id), renamed[n.id]))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and calls.get(n.func.id):
                names = ", ".join(params[e.key] for e in calls[n.func.id])
                edits.append((n.func.end_lineno, n.func.end_col_offset + 1, 0,
                              names + (", " if n.args or n.keywords else "")))
    lines = text.splitlines()
    for lineno, col, length, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        line = lines[lineno - 1].encode()
        lines[lineno - 1] = (line[:col] + new.encode() + line[col + length:]).decode()
    return "\n".join(lines) + "\n", chosen


def _first_parameters(fdef, names):
    """The edit that puts `names` first among fdef's parameters."""
    a = fdef.args
    first = (a.posonlyargs + a.args)[:1] or ([a.vararg] if a.vararg else []) or a.kwonlyargs[:1]
    if not first and a.kwarg is None:
        return (fdef.lineno, _open_paren(fdef), 0, ", ".join(names))
    if not first:
        return (fdef.lineno, _open_paren(fdef), 0, ", ".join(names) + ", ")
    p = first[0]
    col = p.col_offset - (1 if p is a.vararg else 0)
    if a.kwonlyargs[:1] == first and a.vararg is None:
        col -= 3                    # before `*, `
    return (p.lineno, col, 0, ", ".join(names) + ", ")


def _open_paren(fdef):
    return len("def " + fdef.name + "(") + fdef.col_offset


def _fresh(name, taken):
    k = 2
    while f"{name}_{k}" in taken:
        k += 1
    return f"{name}_{k}"
