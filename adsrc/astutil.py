"""Small helpers to build and inspect gast trees."""

import ast
import functools
import operator

import gast


_ATOMIC = frozenset({int, float, complex, str, bytes, bool, type(None), type(Ellipsis)})
# what clone shares rather than copies: atoms, and the nodes without fields (Load, Store, Add, ...)
_SHARED = _ATOMIC | {c for c in vars(gast).values() if isinstance(c, type) and
                     issubclass(c, (gast.expr_context, gast.operator, gast.boolop, gast.cmpop, gast.unaryop))}


def clone(x, memo=None):
    """A deep copy of gast trees, IR statements, lists, tuples and dicts of them (shared parts stay shared).

    Much faster than copy.deepcopy on syntax trees; rules, functions and other
    objects the trees refer to are shared, not copied.
    """
    return _clone(x, {} if memo is None else memo)


def _clone(x, memo):
    t = type(x)
    if t in _SHARED:
        return x
    i = id(x)
    if i in memo:
        return memo[i]
    if isinstance(x, gast.AST):
        new = t.__new__(t)
        memo[i] = new
        d = x.__dict__.copy()
        for k, v in d.items():                  # atoms (most fields) stay as copied
            if type(v) not in _SHARED:
                d[k] = _clone(v, memo)
        new.__dict__ = d
        return new
    if t is list:
        new = []
        memo[i] = new
        new.extend([v if type(v) in _SHARED else _clone(v, memo) for v in x])
        return new
    if t is tuple:
        return tuple(_clone(v, memo) for v in x)
    if t is dict:
        new = {}
        memo[i] = new
        new.update((k, _clone(v, memo)) for k, v in x.items())
        return new
    copier = getattr(x, "__clone__", None)
    if copier is not None:
        return copier(memo)
    return x


def name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def store(id_):
    return name(id_, gast.Store())


def param(id_):
    return name(id_, gast.Param())


def const(value):
    return gast.Constant(value=value, kind=None)


def attr(value, attribute):
    if isinstance(value, str):
        value = name(value)
    return gast.Attribute(value=value, attr=attribute, ctx=gast.Load())


def call(func, args=(), keywords=None):
    if isinstance(func, str):
        func = name(func)
    kws = [gast.keyword(arg=k, value=v) for k, v in (keywords or {}).items()]
    return gast.Call(func=func, args=list(args), keywords=kws)


def tuple_(elts, ctx=None):
    return gast.Tuple(elts=list(elts), ctx=ctx or gast.Load())


def target(t):
    """A store target from a name or a (nested) tuple of names."""
    if isinstance(t, str):
        return store(t)
    return tuple_([target(e) for e in t], gast.Store())


def load(t):
    """A load expression from a name or a (nested) tuple of names."""
    if isinstance(t, str):
        return name(t)
    return tuple_([load(e) for e in t])


def assign(targets, value, lineno=None):
    node = gast.Assign(targets=[target(targets) if isinstance(targets, (str, tuple)) else targets],
                       value=value, type_comment=None)
    if lineno is not None:
        node.lineno = lineno
    return node


def expr_stmt(value, lineno=None):
    node = gast.Expr(value=value)
    if lineno is not None:
        node.lineno = lineno
    return node


def ret(value):
    return gast.Return(value=value)


def arguments(params, defaults=()):
    return gast.arguments(args=[param(p) for p in params], posonlyargs=[], vararg=None,
                          kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=list(defaults))


def function_def(fname, args, body, lineno=None):
    if not isinstance(args, gast.arguments):
        args = arguments(args)
    node = gast.FunctionDef(name=fname, args=args, body=body, decorator_list=[], returns=None,
                            type_comment=None, type_params=[])
    if lineno is not None:
        node.lineno = lineno
    return node


@functools.lru_cache(maxsize=None)
def _parse_expr_cached(text):
    return gast.parse(text, mode="eval").body


def parse_expr(text):
    """A fresh gast expression node parsed from text."""
    return clone(_parse_expr_cached(text))


def dotted(node):
    """`a.b.c` of a chain of attributes of a name (for messages); '<expression>' for anything else."""
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        return dotted(node.value) + "." + node.attr
    return "<expression>"


def unparse(node):
    """Python source of a gast expression (for messages)."""
    return ast.unparse(gast.gast_to_ast(clone(node)))


def walk(node, AST=gast.AST):
    """The nodes in node, itself first, in gast.walk's (breadth-first) order, as a list.

    Several times faster than gast.walk, which makes a generator for each node's
    children. The list is made before it is returned: changes to the tree while
    going through it are not seen.
    """
    out = [node]
    append, getter = out.append, _GETTERS.get
    for n in out:               # goes on through the nodes appended meanwhile
        get = getter(type(n), _UNSEEN)
        if get is _UNSEEN:
            get = _getter(type(n))
        if get is None:         # a node type without children (a context, an operator)
            continue
        try:
            values = get(n)
        except AttributeError:  # (a node made without one of its fields)
            _add_children(n, out)
            continue
        for v in values:
            if isinstance(v, AST):
                append(v)
            elif isinstance(v, list):
                for x in v:
                    if isinstance(x, AST):
                        append(x)
    return out


def preorder(node, enter=lambda n: True, AST=gast.AST):
    """The nodes below node (not itself), each before its children, children in order, as a list; the
    children of a node for which enter(node) is false are left out."""
    out, stack, getter = [], [node], _GETTERS.get
    while stack:
        n = stack.pop()
        if n is not node:
            out.append(n)
            if not enter(n):
                continue
        get = getter(type(n), _UNSEEN)
        if get is _UNSEEN:
            get = _getter(type(n))
        if get is None:
            continue
        try:
            values = get(n)
        except AttributeError:  # (a node made without one of its fields)
            stack.extend(reversed(children(n)))
            continue
        kids = []
        for v in values:
            if isinstance(v, AST):
                kids.append(v)
            elif isinstance(v, list):
                kids.extend(x for x in v if isinstance(x, AST))
        stack.extend(reversed(kids))
    return out


def children(node):
    """node's child nodes in gast.iter_child_nodes' order, as a list."""
    out = []
    _add_children(node, out)
    return out


# fields that never hold a node in gast (names, operators' spellings, flags); `name` is a node only in
# ExceptHandler, and Constant's value never is
_NEVER_NODES = frozenset({"id", "attr", "arg", "asname", "conversion", "is_async", "kind", "level", "lineno",
                          "module", "simple", "tag", "type_comment", "nl", "kwd_attrs"})
_CHILD_FIELDS = {}


def child_fields(t):
    """The fields of node type t that may hold child nodes, in _fields order (cached per type)."""
    fields = _CHILD_FIELDS.get(t)
    if fields is None:
        skip = _NEVER_NODES | ({"value"} if t is gast.Constant else set()) | \
            (set() if t is gast.ExceptHandler else {"name"})
        fields = _CHILD_FIELDS[t] = tuple(f for f in t._fields if f not in skip)
    return fields


_GETTERS = {}
_UNSEEN = object()


def _getter(t):
    """A function from a node of type t to the values of its child fields, as a tuple (None: t has none)."""
    fields = child_fields(t)
    if not fields:
        get = None
    elif len(fields) == 1:
        one = operator.attrgetter(fields[0])
        get = lambda node: (one(node),)     # noqa: E731
    else:
        get = operator.attrgetter(*fields)
    _GETTERS[t] = get
    return get


def _add_children(node, out, AST=gast.AST):
    fields = _CHILD_FIELDS.get(type(node))
    for f in child_fields(type(node)) if fields is None else fields:
        v = getattr(node, f, None)
        if isinstance(v, AST):
            out.append(v)
        elif isinstance(v, list):
            for x in v:
                if isinstance(x, AST):
                    out.append(x)


def names_loaded(node):
    """Names read anywhere in node (including nested functions' free reads)."""
    return {n.id for n in walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def names_stored(node):
    """Names node binds, not counting a comprehension's variables (its own, as in Python 3)."""
    out, stack = set(), [node]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.comprehension):
            stack.append(n.iter)            # (its target is its own; a `:=` in its element or tests binds here)
            stack.extend(n.ifs)
            continue
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param)):
            out.add(n.id)
        stack.extend(children(n))
    return out


def all_and_loaded_names(node):
    """(every name in node, the names read in it), from one walk."""
    every, loaded = set(), set()
    for n in walk(node):
        if isinstance(n, gast.Name):
            every.add(n.id)
            if isinstance(n.ctx, gast.Load):
                loaded.add(n.id)
    return every, loaded


def all_names(node):
    return {n.id for n in walk(node) if isinstance(n, gast.Name)}


def target_names(t):
    """Flat list of names in a target spec (a name or nested tuple of names)."""
    if isinstance(t, str):
        return [t]
    out = []
    for e in t:
        out.extend(target_names(e))
    return out


def target_spec(node):
    """A Name/Tuple store target as a name or nested tuple of names (or None)."""
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, (gast.Tuple, gast.List)):
        parts = [target_spec(e) for e in node.elts]
        if any(p is None for p in parts):
            return None
        return tuple(parts)
    return None


def is_atom(node):
    """A name or a constant: what one-operation-per-statement code computes with."""
    return isinstance(node, (gast.Name, gast.Constant))


def is_constant_literal(node):
    """A constant, or a tuple/list of constant literals (like an axis tuple)."""
    if isinstance(node, gast.Constant):
        return True
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return isinstance(node.operand, gast.Constant)
    if isinstance(node, (gast.Tuple, gast.List)):
        return all(is_constant_literal(e) for e in node.elts)
    return False


def literal_value(node):
    """The Python value of a constant literal node."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.UnaryOp):
        v = literal_value(node.operand)
        return -v if isinstance(node.op, gast.USub) else +v
    if isinstance(node, gast.Tuple):
        return tuple(literal_value(e) for e in node.elts)
    if isinstance(node, gast.List):
        return [literal_value(e) for e in node.elts]
    raise ValueError("not a literal")


def rename(node, mapping):
    """Rename Name nodes in place according to mapping; returns node."""
    if not mapping:
        return node
    for n in walk(node):
        if isinstance(n, gast.Name) and n.id in mapping:
            n.id = mapping[n.id]
    return node


def substitute(node, mapping):
    """A copy of node whose loaded Names in mapping are copies of the expressions they map to.

    One pass that copies and replaces (each occurrence gets its own copy of
    the expression; the parts of node itself that are shared stay shared).
    """
    return _substitute(node, mapping, {})


def _substitute(x, mapping, memo):
    if isinstance(x, gast.Name) and isinstance(x.ctx, gast.Load) and x.id in mapping:
        return clone(mapping[x.id])
    t = type(x)
    if isinstance(x, gast.AST):
        i = id(x)
        if i in memo:
            return memo[i]
        new = t.__new__(t)
        memo[i] = new
        fields = t._fields
        d = new.__dict__
        for k, v in x.__dict__.items():
            d[k] = v if type(v) in _ATOMIC else _substitute(v, mapping, memo) if k in fields else _clone(v, memo)
        return new
    if t is list:
        i = id(x)
        if i in memo:
            return memo[i]
        new = memo[i] = []
        new.extend(_substitute(v, mapping, memo) for v in x)
        return new
    return _clone(x, memo)


def located(node, like):
    """node with the user location of `like` (line for comments, column and line for carets)."""
    node.lineno = getattr(like, "lineno", None)
    node.col_offset = getattr(like, "col_offset", 0)
    node.op_lineno = getattr(like, "op_lineno", node.lineno)
    return node


def set_lineno(node, lineno):
    for n in walk(node):
        if isinstance(n, (gast.stmt, gast.expr)):
            n.lineno = lineno
    return node


def index_value(idx):
    """An index node as a value expression: slices become slice(...) calls."""
    if isinstance(idx, gast.Slice):
        return call("slice", [idx.lower or const(None), idx.upper or const(None), idx.step or const(None)])
    if isinstance(idx, gast.Tuple):
        return tuple_([index_value(e) for e in idx.elts])
    return idx


def fresh_name(stem, taken):
    """stem, or stem_1, stem_2, ... : the first not in the set taken, which it is added to."""
    name, k = stem, 0
    while name in taken:
        k += 1
        name = f"{stem}_{k}"
    taken.add(name)
    return name


def spelled_out(call):
    """The call's arguments are written one by one (no `*args` or `**kwargs`)."""
    return not any(isinstance(a, gast.Starred) for a in call.args) and all(k.arg for k in call.keywords)
