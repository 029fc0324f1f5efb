"""What the normalizer learns of the names of the function before it lowers a statement: which names are bound
once, which only at the top level with lengths nothing changes, and which a `global` or `nonlocal` declares."""

import builtins

import gast

from .. import astutil


_LENGTH_KEEPING = (builtins.list, builtins.tuple, builtins.len, builtins.sorted, builtins.reversed, builtins.enumerate,
                   builtins.zip, builtins.sum, builtins.min, builtins.max)


def straight_names(fdef):
    """Names bound only by statements at the top level of fdef's body (not in a branch or loop) and whose
    objects' lengths nothing changes (no slice written or item deleted, no method that changes a list (an item
    written, `args[k] = v`, keeps it), passed to no call but `list`,
    `len` and the like): at each point of the body, the last binding before it holds, with its length."""
    blocks = (gast.If, gast.For, gast.While, gast.Try, gast.With, gast.FunctionDef, gast.ClassDef, gast.Match)
    top = {n for s in fdef.body if not isinstance(s, blocks) for n in astutil.names_stored(s)}
    nested = {n for s in fdef.body if isinstance(s, blocks) for n in astutil.names_stored(s)}
    # a name read other than by `*name`, an index, a for loop or an argument of a call that keeps lengths
    # (`ys = name`, `[name]`, `return name`, `h(name)`) may reach code that changes its list: not straight
    plain, nodes = set(), astutil.walk(fdef)
    for n in nodes:
        if isinstance(n, (gast.Starred, gast.Subscript)) and isinstance(n.value, gast.Name):
            plain.add(id(n.value))
        elif isinstance(n, gast.For) and isinstance(n.iter, gast.Name):
            plain.add(id(n.iter))
        elif isinstance(n, gast.Call) and _keeps_lengths(n.func):
            plain.update(id(a) for a in list(n.args) + [k.value for k in n.keywords] if isinstance(a, gast.Name))
    changed = set()
    for n in nodes:
        if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and isinstance(n.value, gast.Name) and \
                not isinstance(n.slice, gast.Slice):
            continue                # `args[k] = v`: an item replaced, the length kept (or IndexError)
        if isinstance(n, (gast.Subscript, gast.Attribute)) and not isinstance(n.ctx, gast.Load) and \
                isinstance(n.value, gast.Name):
            changed.add(n.value.id)
        elif isinstance(n, gast.Attribute) and isinstance(n.value, gast.Name):
            changed.add(n.value.id)         # (a method: it may change the list)
        elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
            changed.add(n.target.id)
        elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and id(n) not in plain:
            changed.add(n.id)
    return top - nested - changed


def _keeps_lengths(func):
    """A call that changes no list it is given: `list`, `len` and the like, or a NumPy or math function."""
    if isinstance(func, gast.Name):
        return getattr(builtins, func.id, None) in _LENGTH_KEEPING
    while isinstance(func, gast.Attribute):
        func = func.value
    return isinstance(func, gast.Name) and func.id in ("np", "numpy", "math")


def declared_globals(fdef, kind=gast.Global):
    """Names a `global` (or `nonlocal`) statement of fdef itself declares (not one of a function nested in it)."""
    out, stack = set(), list(fdef.body)
    while stack:
        node = stack.pop()
        if isinstance(node, kind):
            out.update(node.names)
        elif not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)):
            stack.extend(astutil.children(node))
    return out


def assigned_once(fdef):
    """Names bound exactly once in the function (one assignment or def, not inside a loop)."""
    counts = {}

    def add(name, weight):
        counts[name] = counts.get(name, 0) + weight

    def visit(node, weight):
        for child in astutil.children(node):
            if isinstance(child, gast.FunctionDef):
                add(child.name, weight)
                for name in (n for d in astutil.walk(child) if isinstance(d, gast.Nonlocal) for n in d.names):
                    add(name, 2)      # assigned where the nested function is called
                continue
            if isinstance(child, gast.ClassDef):
                add(child.name, weight)
                continue
            if isinstance(child, (gast.Lambda, gast.ListComp, gast.GeneratorExp, gast.DictComp, gast.SetComp)):
                continue
            if isinstance(child, gast.Name) and isinstance(child.ctx, (gast.Store, gast.Del)):
                add(child.id, weight)
            if isinstance(child, gast.AugAssign) and isinstance(child.target, gast.Name):
                add(child.target.id, 2)
            if isinstance(child, (gast.Import, gast.ImportFrom)):
                for alias in child.names:
                    add(alias.asname or alias.name.split(".")[0], weight)
            visit(child, 2 if isinstance(child, (gast.For, gast.While)) else weight)

    visit(fdef, 1)
    return {n for n, c in counts.items() if c == 1}
