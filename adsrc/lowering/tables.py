"""Calls through a table of functions: `ACTIVATIONS[name](x)`, `acts[kind](z)`, `fs[i](x)`.

The table is a dict, list or tuple of functions, either a global (or closure variable) known when
transforming, or a display bound once in the function and never changed:

    acts = {"relu": relu, "tanh": np.tanh}          fs = [np.sin, lambda t: t * t]
    y = acts[kind](x)                               s = s + fs[i](x)

When the key is known when transforming (a constant, a static argument), the call is the call of that entry.
Otherwise it becomes a chain of branches on the key, one per entry, each calling its function (so each is
followed and differentiated), and a last branch that does what Python does with a key the table lacks:

    if kind == "relu": y = relu(x)
    elif kind == "tanh": y = np.tanh(x)
    else: y = table_miss(acts, kind)        # KeyError, as `acts[kind]` raises

A list's entry k also answers the key k - len (Python's negative indices). The arguments are computed once,
before the branches.
"""

import functools
import inspect
import types

import gast

from .. import astutil
from .. import rules as rules_mod
from ..errors import TransformError
from ..frontend.source import load
from ..frontend.static_values import static_sequence
from .object_classes import is_user_function, user_class, user_module

_MOST = 32                      # entries: more would make a long chain of branches
_READING = frozenset({"zip", "enumerate", "reversed", "len", "list", "tuple", "isinstance", "print", "sum", "sorted",
                      "min", "max", "any", "all", "iter"})        # builtins that read their argument only
_CHANGING = frozenset({"append", "extend", "insert", "pop", "clear", "update", "setdefault", "remove",
                       "popitem", "sort", "reverse", "__setitem__", "__delitem__"})


UNRESOLVED_HINT = ("adsrc differentiates calls to functions it can resolve when transforming: module functions, "
                   "closures and functions defined in this function.")
LOCAL_FUNCTION_HINT = UNRESOLVED_HINT + (
    " A function taken from a list is followed when the list is a display of such functions (`fs = [np.sin, "
    "lambda v: v ** 2]`) or a list comprehension of lambdas over a range or constants (`fs = [lambda v, k=k: "
    "v[k] * k for k in range(3)]`), possibly extended by `fs.append(...)` right after it, and is never changed "
    "afterwards.")


class Tables:
    """Mixin of the Normalizer (calls.py)."""

    def note_table(self, target, value):
        """Remember `acts = {"relu": relu, ...}`: a name bound once to a display of functions, never changed."""
        fdef = self.fdefs[-1]       # (a nested def's own table is its local)
        if not isinstance(target, str) or not isinstance(value, (gast.Dict, gast.List, gast.Tuple)) or \
                (target not in self.single or len(self.fdefs) > 1) and _bindings(fdef, target) != 1:
            return                  # (bound once: once per iteration too)
        if isinstance(value, gast.Dict):
            if any(k is None or not isinstance(k, gast.Constant) for k in value.keys):
                return
            keys, items = [k.value for k in value.keys], value.values
        else:
            if any(isinstance(v, gast.Starred) for v in value.elts):
                return
            keys, items = list(range(len(value.elts))), value.elts
        if not items or len(items) > _MOST or not all(self.function_entry(v) for v in items) or \
                not _never_changed(fdef, target, self.static):
            return
        self.tables[target] = (type(value) is gast.Dict, list(zip(keys, items)), len(items))

    def function_entry(self, node):
        """Is node, an item of a display, a function adsrc can follow (known, a lambda, a nested def)?"""
        if isinstance(node, gast.Lambda):
            return True
        if isinstance(node, gast.Name) and (node.id in self.def_names or node.id in self.local_defs):
            return True
        if isinstance(node, gast.Call):         # functools.partial(f, 2.0, p=3.0): its arguments known here
            return self.static(node.func) is functools.partial and bool(node.args) and \
                self.function_entry(node.args[0]) and \
                all(not isinstance(a, gast.Starred) and self.fixed_value(a) for a in node.args[1:]) and \
                all(k.arg is not None and self.fixed_value(k.value) for k in node.keywords)
        value = self.static(node) if isinstance(node, (gast.Name, gast.Attribute)) else rules_mod.NOT_STATIC
        return value is not rules_mod.NOT_STATIC and callable(value)

    def fixed_value(self, node):
        """Is node a literal or a name (or attribute) of a value known when transforming, not a local?"""
        if astutil.is_constant_literal(node):
            return True
        root = node
        while isinstance(root, gast.Attribute):
            root = root.value
        return isinstance(root, gast.Name) and not self.is_local(root.id) and \
            self.static(node) is not rules_mod.NOT_STATIC

    def table_entries(self, node):
        """(is a dict, [(key, the expression of its function)], length) of the table node names, or None."""
        if isinstance(node, gast.Name) and node.id in self.tables:     # (a local hiding it is not: function())
            return self.tables[node.id]
        if not isinstance(node, (gast.Name, gast.Attribute)) or \
                isinstance(node, gast.Name) and self.is_local(node.id):
            return None
        table = static_sequence(node, self.uf, self.is_local, kinds=(dict, list, tuple))
        if table is None or not table or len(table) > _MOST:
            return None
        pairs = list(table.items()) if type(table) is dict else list(enumerate(table))
        if not all(callable(v) for _, v in pairs):
            return None
        return (type(table) is dict, [(k, astutil.name(self.bind(_stem(v), v))) for k, v in pairs], len(pairs))

    def chosen_entry(self, value):
        """`act = acts[cfg["act"]]` (or `= {"tanh": np.tanh, ...}[mode]`) with the key known when transforming
        (a constant, a static argument or an item of one): the expression of that entry, bound as if written
        there (`act = np.tanh`, `act = lambda z: ...`), so that `act(h)` is followed; else value itself."""
        if not isinstance(value, gast.Subscript) or isinstance(value.slice, gast.Slice):
            return value
        key = self.known_key(value.slice)
        if key is rules_mod.NOT_STATIC:
            return value
        base = value.value
        if isinstance(base, gast.Dict) and all(isinstance(k, gast.Constant) for k in base.keys) and \
                all(self.function_entry(v) for v in base.values):
            entries = [(k.value, v) for k, v in zip(base.keys, base.values)]
        elif isinstance(base, (gast.List, gast.Tuple)) and base.elts and \
                all(not isinstance(v, gast.Starred) and self.function_entry(v) for v in base.elts):
            n = len(base.elts)
            entries = list(enumerate(base.elts)) + [(k - n, v) for k, v in enumerate(base.elts)]
        else:
            found = self.table_entries(base)
            if found is None:
                return value
            entries = found[1] if found[0] else [(k, v) for k, v in found[1]] + \
                [(k - found[2], v) for k, v in found[1]]
        for k, v in entries:
            if type(k) is type(key) and k == key and not _defaults_read_variables(v):
                return astutil.clone(v)
        return value

    def chosen_later(self, target, value):
        """`act = acts[kind]` with the key known only when the code runs and acts a table of functions: the key
        is computed once into a name of its own, and each call `act(x)` is the call `acts[key](x)` (table_call:
        a branch per entry, each followed). Returns the value to bind target to (the same entry)."""
        if not isinstance(target, str) or not isinstance(value, gast.Subscript) or \
                isinstance(value.slice, gast.Slice) or \
                (target not in self.single or len(self.fdefs) > 1) and _bindings(self.fdefs[-1], target) != 1:
            return value
        if self.table_entries(value.value) is None:
            return value
        key = self.held_value(value.slice)
        self.functions[target] = ("entry", astutil.clone(value.value), key)
        return gast.copy_location(gast.Subscript(value=value.value, slice=astutil.clone(key), ctx=gast.Load()),
                                  value)

    def note_unknown_length(self, target, value):
        """Remember `fs = [lambda v, k=k: v * k for k in range(n)]` (or fs built by appending in such a loop),
        with the items known only when the code runs, and the names bound to it or to its items (`for f in
        fs`): the hint of a refused call of one of its functions says why and what to do."""
        if not isinstance(target, gast.Name):
            return
        self.unknown_lengths.pop(target.id, None)
        if isinstance(value, gast.Name) and value.id in self.unknown_lengths:
            self.unknown_lengths[target.id] = self.unknown_lengths[value.id]
            return
        parts = []
        while isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add):
            parts.append(value.right)
            value = value.left
        made = [p for p in parts + [value] if isinstance(p, gast.ListComp) and isinstance(p.elt, gast.Lambda)]
        if made:
            over = astutil.unparse(made[0].generators[0].iter).strip()
            self.unknown_lengths[target.id] = (
                f"`{target.id}` (line {getattr(made[0], 'lineno', self.stmt.lineno)}) is a list of lambdas made "
                f"over `{over}`, which adsrc does not know when transforming; it follows a call of an item of "
                "a list of functions when it knows which function each item is. Make the length known when "
                "transforming (a constant, as in `fs = [lambda v, k=k: v[k] * k for k in range(3)]`, or a "
                "static argument: static_argnums/static_argnames), or write "
                "one function taking the loop's variable as an argument (`def f(z, i): ...`, called as "
                "`f(x, i)` in a loop over the same range).")

    def known_key(self, node):
        """The value of a table's key known when transforming (a literal, a static name, an item of one)."""
        if astutil.is_constant_literal(node):
            return astutil.literal_value(node)
        if isinstance(node, (gast.Name, gast.Attribute)):
            return self.static(node)
        if isinstance(node, gast.Subscript) and not isinstance(node.slice, gast.Slice):
            base, index = self.known_key(node.value), self.known_key(node.slice)
            if base is rules_mod.NOT_STATIC or index is rules_mod.NOT_STATIC or \
                    not isinstance(base, (dict, list, tuple)):
                return rules_mod.NOT_STATIC
            try:
                return base[index]
            except (KeyError, IndexError, TypeError):
                return rules_mod.NOT_STATIC
        return rules_mod.NOT_STATIC

    def shadowed(self, name):
        return len(self.scopes) > 1 and name in self.scopes[-1]

    def table_call(self, e, target):
        """Emit `table[key](args)` as the call of each entry on its own branch; False if e is not such a call."""
        f = e.func
        if not isinstance(f, gast.Subscript) or isinstance(f.slice, gast.Slice) or \
                not (target is None or isinstance(target, str)) or \
                any(isinstance(a, gast.Starred) for a in e.args) or any(k.arg is None for k in e.keywords):
            return False
        found = self.table_entries(f.value)
        if found is None:
            return False
        is_dict, entries, length = found
        args = [self.atom(a) for a in e.args]
        keywords = [gast.keyword(arg=k.arg, value=self.atom(k.value)) for k in e.keywords]
        key = self.atom(f.slice)

        local = isinstance(f.value, gast.Name) and f.value.id in self.tables
        # a local display never changes: a stand-in with its keys raises Python's error (and leaves the display
        # itself unread: its lambdas are only called)
        table = astutil.name(self.bind("keys", dict.fromkeys(k for k, _ in entries) if is_dict else
                                       [None] * length)) if local else self.atom(f.value)
        miss = astutil.call(astutil.name(self.namer.helper("table_miss")), [table, astutil.clone(key)])
        last = [gast.Expr(value=miss)] + ([_assign(target, astutil.const(None))] if target is not None else [])
        cases = [(_equals(key, k) if is_dict else _among(key, (k, k - length)), func) for k, func in entries]
        self.statement(_chain(e, target, cases, last, args, keywords))
        return True

    def entry_arguments(self, e, target):
        """`apply(fs[i], y)` (or `apply(f, y)` with `f = fs[i]`): a call of a nested function or a function of
        the user's given an entry of a table of functions chosen when the code runs, written as a branch per
        entry calling it with that entry (`if i == 0: t = apply(np.sin, y) elif ...`), so that the function each
        branch passes is followed; False if e is not such a call."""
        f = e.func
        if not (target is None or isinstance(target, str)) or not isinstance(f, gast.Name) or \
                any(isinstance(a, gast.Starred) for a in e.args) or any(k.arg is None for k in e.keywords):
            return False
        if not (f.id in self.def_names or f.id in self.local_defs or is_user_function(self.static(f))):
            return False
        slots = [a for a in e.args] + [k.value for k in e.keywords]
        which = next((i for i, a in enumerate(slots) if _entry_argument(self, a) is not None), None)
        if which is None:
            return False
        table, key = _entry_argument(self, slots[which])
        is_dict, entries, length = self.table_entries(table)
        if any(_defaults_read_variables(v) for _, v in entries):
            return False
        values = []
        for i, a in enumerate(slots):       # in order, each once, before the branches
            values.append(None if i == which else self.atom(a))
        key = self.atom(key)
        local = isinstance(table, gast.Name) and table.id in self.tables
        stand_in = astutil.name(self.bind("keys", dict.fromkeys(k for k, _ in entries) if is_dict else
                                          [None] * length)) if local else self.atom(table)
        chain = [gast.Expr(value=astutil.call(astutil.name(self.namer.helper("table_miss")),
                                              [stand_in, astutil.clone(key)]))] + \
            ([_assign(target, astutil.const(None))] if target is not None else [])
        n = len(e.args)
        for k, entry in reversed(entries):
            given = [astutil.clone(entry) if i == which else astutil.clone(v) for i, v in enumerate(values)]
            call = gast.Call(func=astutil.clone(f), args=given[:n],
                             keywords=[gast.keyword(arg=kw.arg, value=v) for kw, v in zip(e.keywords, given[n:])])
            test = _equals(key, k) if is_dict else _among(key, (k, k - length))
            chain = [gast.If(test=test, body=[_assign(target, call)], orelse=chain)]
        stmt = gast.copy_location(chain[0], e)
        gast.fix_missing_locations(stmt)
        self.statement(stmt)
        return True

    def method_dispatch(self, e, target):
        """`getattr(obj, name)(args)` with a name computed when the code runs and obj of a class known when
        transforming: a branch per method of the class (`if name == "relu": y = obj.relu(x) elif ...`), each
        followed, and a last branch calling what getattr returns (refused when it runs). False if e is not
        such a call."""
        f = e.func
        if len(f.args) != 2 or f.keywords or not isinstance(f.args[0], gast.Name) or \
                getattr(f, "adsrc_dispatched", False) or not (target is None or isinstance(target, str)) or \
                any(isinstance(a, gast.Starred) for a in e.args) or any(k.arg is None for k in e.keywords):
            return False
        cls = self.known_class(f.args[0])
        names = sorted({n for k in getattr(cls, "__mro__", ())[:-1] for n in vars(k)
                        if not n.startswith("__") and is_user_function(inspect.getattr_static(cls, n))})
        if cls is None:         # getattr(Acts, name)(x), getattr(my_module, name)(x): the class or module itself
            names = _functions_of(self.static(f.args[0]))
        if not names or len(names) > _MOST:
            return False
        args = [self.atom(a) for a in e.args]
        keywords = [gast.keyword(arg=k.arg, value=self.atom(k.value)) for k in e.keywords]
        key = self.atom(f.args[1])
        other = gast.Call(func=astutil.name("getattr"), args=[astutil.clone(f.args[0]), astutil.clone(key)],
                          keywords=[])
        other.adsrc_dispatched = True
        cases = [(_equals(key, n), gast.Attribute(value=astutil.clone(f.args[0]), attr=n, ctx=gast.Load()))
                 for n in names]
        self.statement(_chain(e, target, cases, [_assign(target, _call_of(other, args, keywords))], args,
                              keywords))
        return True


def _entry_argument(norm, a):
    """(table, key) of an argument `fs[i]` (or a name bound to it, `f = fs[i]`) with fs a table of functions
    and the key known only when the code runs, else None."""
    if isinstance(a, gast.Subscript) and not isinstance(a.slice, gast.Slice) and \
            norm.known_key(a.slice) is rules_mod.NOT_STATIC and norm.table_entries(a.value) is not None:
        return a.value, a.slice
    if isinstance(a, gast.Name) and norm.functions.get(a.id, (None,))[0] == "entry" and not norm.shadowed(a.id):
        return norm.functions[a.id][1], norm.functions[a.id][2]
    return None


def _functions_of(obj):
    """The names of the functions of the user's that a class of the user's (its own and inherited attributes:
    functions, staticmethods, classmethods) or a module of the user's (the functions defined in it) holds."""
    if isinstance(obj, type) and user_class(obj):
        found = set()
        for k in obj.__mro__[:-1]:
            for n, raw in vars(k).items():
                raw = inspect.getattr_static(obj, n)
                fn = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
                if not n.startswith("__") and is_user_function(fn):
                    found.add(n)
        return sorted(found)
    if isinstance(obj, types.ModuleType) and user_module(obj):
        return sorted(n for n, v in vars(obj).items()
                      if not n.startswith("__") and is_user_function(v) and v.__module__ == obj.__name__)
    return []


def _defaults_read_variables(fn):
    """A lambda with a default that is not a literal (`lambda v, k=k: ...`) takes it where the table is made,
    not where the entry is chosen: not moved there."""
    return isinstance(fn, gast.Lambda) and any(not astutil.is_constant_literal(d)
                                               for d in fn.args.defaults + [d for d in fn.args.kw_defaults if d])


def _call_of(func, args, keywords):
    return gast.Call(func=astutil.clone(func), args=[astutil.clone(a) for a in args],
                     keywords=[gast.keyword(arg=k.arg, value=astutil.clone(k.value)) for k in keywords])


def _assign(target, value):
    if target is None:
        return gast.Expr(value=value)
    return gast.Assign(targets=[astutil.store(target)], value=value, type_comment=None)


def _chain(e, target, cases, last, args, keywords):
    """if test_1: target = func_1(args) elif ...: else: <last>, placed at e."""
    chain = last
    for test, func in reversed(cases):
        chain = [gast.If(test=test, body=[_assign(target, _call_of(func, args, keywords))], orelse=chain)]
    stmt = gast.copy_location(chain[0], e)
    gast.fix_missing_locations(stmt)
    return stmt


def _among(key, keys):
    return gast.Compare(left=astutil.clone(key), ops=[gast.In()], comparators=[astutil.const(keys)])


def _equals(key, k):
    return gast.Compare(left=astutil.clone(key), ops=[gast.Eq()], comparators=[astutil.const(k)])


def _stem(fn):
    name = getattr(fn, "__name__", "fn")
    return name if name.isidentifier() and not name.startswith("<") else "fn"


def _bindings(fdef, name):
    return sum(1 for n in astutil.walk(fdef)
               if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store))


def _never_changed(fdef, name, static=None):
    """Is the local `name` only read in fdef (never written into, nor handed to a call that could change it)?
    static (the Normalizer's): a call of a function of the user's that only reads the parameter it is passed
    as (changing, say, the attributes of the objects a list holds, not the list) does not change it."""
    for node in astutil.walk(fdef):
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and node.value.id == name and \
                not isinstance(node.ctx, gast.Load):
            return False
        if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and node.value.id == name and \
                node.attr in _CHANGING:
            return False
        passed = list(node.args) + [k.value for k in node.keywords] if isinstance(node, gast.Call) else []
        if passed and not (isinstance(node.func, gast.Name) and node.func.id in _READING) and \
                not (static is not None and _static_reading(static, node.func)) and \
                any(isinstance(a, gast.Name) and a.id == name for a in passed) and \
                not (static is not None and _reads_only(node, name, static)):
            return False
        if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) and node.target.id == name:
            return False
    return True


def _static_reading(static, func):
    """Is func functools.reduce, map or filter (which only read the list they are given)?"""
    import functools
    try:
        return static(func) in (functools.reduce, map, filter)
    except TypeError:
        return False


def _reads_only(call, name, static):
    """Is `call` a call of a function of the user's (known when transforming) whose parameters that get `name`
    only read it (in its own body: a call there that gets it counts as a change)?"""
    fn = static(call.func)
    if not is_user_function(fn) or any(isinstance(a, gast.Starred) for a in call.args) or \
            any(k.arg is None for k in call.keywords):
        return False
    try:
        params = list(inspect.signature(fn).parameters.values())
        bound = inspect.signature(fn).bind(*call.args, **{k.arg: k.value for k in call.keywords}).arguments
        node = load(fn).node
    except (TypeError, ValueError, TransformError):
        return False
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return False
    getting = [p for p, a in bound.items() if isinstance(a, gast.Name) and a.id == name]
    return all(_never_changed(node, p) for p in getting)
