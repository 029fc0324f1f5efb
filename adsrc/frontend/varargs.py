"""Functions taking *args/**kwargs, specialized to the shape of a call.

A call passes a known number of positional arguments and known keyword
names, so for that call

    def timed(*args, **kwargs):                 def timed(args_0, args_1, *, scale):
        return f(*args, **kwargs) * 2.0   ->        args = (args_0, args_1)
                                                    kwargs = {'scale': scale}
                                                    return f(args_0, args_1, scale=scale) * 2.0

Each parameter is then an ordinary one (bound, differentiated and analysed
like any other), and `f(*args, **kwargs)` is an ordinary call. The shape
(`SHAPE` among the callee's static values) selects the specialization.
`**kwargs` is forwarded only while the function does not change or rebind
it; a keyword whose name the function also uses for something else keeps
the call unexpanded (and refused where it is differentiated).
"""

import copy
import inspect

import gast

from .. import astutil

SHAPE = "*"      # key of a call's shape among a callee's static values: (extra positional count, keyword names)
_DICT_WRITERS = {"pop", "popitem", "update", "setdefault", "clear", "__setitem__", "__delitem__"}


def _signature(callee):
    try:
        return inspect.signature(callee, follow_wrapped=False)
    except (TypeError, ValueError):
        return None


def call_shape(callee, n_args, keywords):
    """The shape of a call of callee with n_args positional arguments and these keyword names,
    or None if callee takes no *args/**kwargs (or they cannot be read)."""
    sig = _signature(callee)
    if sig is None:
        return None
    ps = list(sig.parameters.values())
    var = any(p.kind == p.VAR_POSITIONAL for p in ps)
    kwvar = any(p.kind == p.VAR_KEYWORD for p in ps)
    if not (var or kwvar):
        return None
    pos = [p for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    named = {p.name for p in ps if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    extra = max(0, n_args - len(pos)) if var else 0
    keys = tuple(k for k in keywords if k not in named) if kwvar else ()
    return extra, keys


_GLOBAL_OPS = frozenset({"LOAD_GLOBAL", "STORE_GLOBAL", "DELETE_GLOBAL", "LOAD_NAME", "STORE_NAME", "DELETE_NAME",
                         "LOAD_FROM_DICT_OR_GLOBALS"})


def _code_names(code):
    """The names code (and the code nested in it) uses as variables: its locals, cells and globals, not the
    names of attributes it reads (`np.clip` leaves `clip` free for a keyword)."""
    import dis
    out = set(code.co_varnames) | set(code.co_cellvars) | set(code.co_freevars)
    out |= {i.argval for i in dis.get_instructions(code) if i.opname in _GLOBAL_OPS and isinstance(i.argval, str)}
    for c in code.co_consts:
        if inspect.iscode(c):
            out |= _code_names(c)
    return out


def parameters(callee, shape):
    """Parameter names of callee specialized to shape, in order, or None if it cannot be."""
    sig = _signature(callee)
    if sig is None:
        return None
    ps = list(sig.parameters.values())
    var = next((p.name for p in ps if p.kind == p.VAR_POSITIONAL), None)
    extra, keys = shape if shape is not None else (0, ())
    if (extra and var is None) or (keys and not any(p.kind == p.VAR_KEYWORD for p in ps)):
        return None
    taken = _code_names(callee.__code__) if hasattr(callee, "__code__") else set()
    if any(k in taken for k in keys):
        return None           # the keyword's name means something else in the function
    names = []
    for i in range(extra):
        name = f"{var}_{i}"
        while name in taken:
            name += "_"
        taken.add(name)
        names.append(name)
    pos = [p.name for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    kwonly = [p.name for p in ps if p.kind == p.KEYWORD_ONLY]
    return pos + names + kwonly + list(keys)


def specialize_signature(uf, shape):
    """A copy of the UserFunction uf whose *args/**kwargs are the parameters of shape."""
    from .source import local_names
    params = parameters(uf.fun, shape)
    if params is None:
        return uf
    node = astutil.clone(uf.node)
    a = node.args
    var = a.vararg.id if a.vararg is not None else None
    kwvar = a.kwarg.id if a.kwarg is not None else None
    extra, keys = shape
    n_pos = len(a.posonlyargs) + len(a.args)
    extra_names = params[n_pos:n_pos + extra]
    prelude = []
    if var is not None:
        if extra:
            a.defaults = []          # every named positional parameter is given by the call
        a.args += [astutil.name(n, gast.Param()) for n in extra_names]
        a.vararg = None
        prelude.append(_assign(var, gast.Tuple(elts=[astutil.name(n) for n in extra_names], ctx=gast.Load())))
    if kwvar is not None:
        a.kwonlyargs += [astutil.name(k, gast.Param()) for k in keys]
        a.kw_defaults += [None] * len(keys)
        a.kwarg = None
        prelude.append(_assign(kwvar, gast.Dict(keys=[astutil.const(k) for k in keys],
                                                values=[astutil.name(k) for k in keys])))
    stored = astutil.names_stored(gast.Module(body=node.body, type_ignores=[]))
    forward_kwargs = kwvar is not None and kwvar not in stored and _only_read(node, kwvar)
    for call in _own_calls(node):
        if var is not None and var not in stored:
            call.args = [x for arg in call.args for x in (
                [astutil.name(n) for n in extra_names]
                if isinstance(arg, gast.Starred) and _is_name(arg.value, var) else [arg])]
        if forward_kwargs:
            call.keywords = [x for k in call.keywords for x in (
                [gast.keyword(arg=key, value=astutil.name(key)) for key in keys]
                if k.arg is None and _is_name(k.value, kwvar) else [k])]
    for s in prelude:
        gast.copy_location(s, node.body[0] if node.body else node)
    node.body = prelude + node.body
    gast.fix_missing_locations(node)
    out = copy.copy(uf)
    out.node = node
    out.locals = local_names(node)
    return out


def _assign(name, value):
    return gast.Assign(targets=[astutil.name(name, gast.Store())], value=value, type_comment=None)


def _is_name(node, name):
    return isinstance(node, gast.Name) and node.id == name


def _own_calls(fdef):
    from .generators import own_nodes
    return [n for n in own_nodes(fdef) if isinstance(n, gast.Call)]


def _only_read(fdef, name):
    """Is the dict `name` never changed in place or handed to other code as itself?"""
    from .generators import own_nodes
    parents = {}
    for n in astutil.walk(fdef):
        for child in astutil.children(n):
            parents[id(child)] = n
    own = {id(m) for m in own_nodes(fdef)}
    for n in astutil.walk(fdef):
        if not _is_name(n, name) or isinstance(n.ctx, gast.Param):
            continue
        if id(n) not in own:
            return False                      # used by a nested function
        up = parents.get(id(n))
        if isinstance(up, gast.keyword) and up.arg is None:
            continue                          # **kwargs
        if isinstance(up, gast.Subscript) and isinstance(up.ctx, gast.Load):
            continue
        if isinstance(up, gast.Attribute) and up.attr not in _DICT_WRITERS:
            continue
        if isinstance(up, gast.Compare):
            continue
        return False
    return True
