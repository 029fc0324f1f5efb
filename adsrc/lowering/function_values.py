"""Calls of names bound to functions: `act = np.tanh; act(x)`, `f = functools.partial(g, a); f(x)`,
`step = make_step(2.0); step(x)` (factories.py), and functools.partial objects known when transforming."""

import builtins
import functools
import operator

import gast

from .. import astutil
from .. import rules as rules_mod
from ..ir import nodes as ir
from . import factories


class FunctionValues:
    """Mixin of the Normalizer (calls.py)."""

    def local_function(self, e, what, target):
        kind = what[0]
        if kind == "vectorized":            # v = np.vectorize(f); v(x)
            if len(what) > 3 and what[3] != len(e.args):       # u = np.frompyfunc(f, nin, 1)
                raise self.error(e, f"this function made by np.frompyfunc takes {what[3]} argument(s), and "
                                    f"{len(e.args)} are given here (Python raises ValueError).", None)
            if not self.vectorized(what[1], e, target, what[2]):
                raise self.error(e, "adsrc follows a function made by np.vectorize when it is called with one "
                                    "to three arguments (one or two with signature=), by position.",
                                 "Pass the arguments by position.")
            return
        if kind == "chosen":                      # act = np.tanh if c else relu; act(x)  is  np.tanh(x) if c else relu(x)
            out = target if target is not None else self.temp("chosen")
            return self.value(gast.copy_location(_distributed(what[1], e), e), out)
        if kind == "entry":                 # act = acts[kind]; act(x)  is  acts[kind](x) (tables.py)
            table, key = what[1], what[2]
            func = gast.Subscript(value=astutil.clone(table), slice=astutil.clone(key), ctx=gast.Load())
            return self.call(gast.copy_location(gast.Call(func=func, args=e.args, keywords=e.keywords), e), target)
        if kind in ("alias", "applied"):          # act = np.tanh; act(x)   step = make_step(a); step(x)
            call = gast.Call(func=astutil.clone(what[1]), args=e.args, keywords=e.keywords)
            return self.call(gast.fix_missing_locations(gast.copy_location(call, e)), target)
        # partial: f = functools.partial(g, a, k=b); f(x)  is  g(a, x, k=b)
        _, func, args, keywords = what
        call = gast.Call(func=func, args=list(args) + list(e.args), keywords=list(keywords) + list(e.keywords))
        return self.call(call, target)

    def chosen_function(self, target, value):
        """`act = np.tanh if cfg.act == "tanh" else relu`: a name bound once to one of functions adsrc can follow
        (known, lambdas, nested defs, names bound to them), chosen by conditions known when the code runs.
        Each condition is computed once, here, into a name of its own, and each call `act(h)` is written
        `np.tanh(h) if chosen else relu(h)` (local_function), so that both functions are followed. Returns value
        with its conditions read from those names (what `act` is bound to), or value itself."""
        if not isinstance(value, gast.IfExp) or target not in self.single or not self.function_arm(value):
            return value
        value = self.held_tests(value)
        self.functions[target] = ("chosen", value)
        return value

    def chosen_arguments(self, e, target):
        """`apply(act, x)` with act a function chosen when the code runs (chosen_function): the call written
        `apply(np.tanh, x) if chosen else apply(relu, x)`, so that each is followed; False for other calls."""
        if self.static(e.func) is functools.partial:
            return False
        slots = [(e.args, i) for i, a in enumerate(e.args)] + [(e.keywords, i) for i, k in enumerate(e.keywords)]
        for where, i in slots:
            a = where[i].value if where is e.keywords else where[i]
            if isinstance(a, gast.Name) and a.id in self.functions and self.functions[a.id][0] == "chosen" and \
                    not self.shadowed(a.id):
                out = target if target is not None else self.temp("chosen")
                self.value(gast.copy_location(_substituted(self.functions[a.id][1], e, where is e.keywords, i), e),
                           out)
                return True
        return False

    def function_arm(self, node):
        if isinstance(node, gast.IfExp):
            return self.function_arm(node.body) and self.function_arm(node.orelse)
        if isinstance(node, gast.Name) and node.id in self.functions and not self.shadowed(node.id):
            return True
        return self.function_entry(node)

    def held_tests(self, node):
        if not isinstance(node, gast.IfExp):
            return node
        held = self.temp("chosen")
        self.value(node.test, held)
        return gast.copy_location(gast.IfExp(test=astutil.name(held), body=self.held_tests(node.body),
                                             orelse=self.held_tests(node.orelse)), node)

    def note_unravel(self, t, value):
        """`flat, unravel = adsrc.ravel_pytree(tree)` (or flatten): calls `unravel(v)` are `unravel_with(unravel, v)`,
        a call with a rule."""
        from .. import flatten
        if isinstance(value, gast.Call) and self.static(value.func) is flatten.ravel_pytree and len(t.elts) == 2 \
                and isinstance(t.elts[1], gast.Name) and t.elts[1].id in self.single:
            helper = astutil.name(self.bind("unravel_with", flatten.unravel_with))
            self.functions[t.elts[1].id] = ("partial", helper, [astutil.name(t.elts[1].id)], [])

    def make_partial(self, e, target):
        if not e.args or any(isinstance(a, gast.Starred) for a in e.args) or any(k.arg is None for k in e.keywords):
            raise self.error(e, "adsrc follows `functools.partial(f, ...)` only with its arguments written out.",
                             "Pass the arguments one by one.")
        func = e.args[0]
        if isinstance(func, gast.Lambda):
            func = self.atom(func)
        args = [self.held_now(a, target) for a in e.args[1:]]
        keywords = [gast.keyword(arg=k.arg, value=self.held_now(k.value, target)) for k in e.keywords]
        if target is not None and isinstance(target, str) and target in self.single:
            self.functions[target] = ("partial", func, args, keywords)
        expr = gast.Call(func=astutil.name(self.bind("partial", functools.partial)),
                         args=[func] + args, keywords=keywords)
        self.emit_op(ir.Opaque, target, expr, e, describe="a functools.partial object used as a value",
                     hint="Call the partial object in this function, or pass the function and its arguments "
                          "separately.", function=True)

    def lambdas_display(self, value):
        """`[lambda v, k=k: v * k for k in range(3)]` (or a dict comprehension, `{name: lambda v, p=p: v ** p for
        name, p in pairs}`) over values known when transforming, as the display of the lambdas it makes,
        `[lambda v, k=0: ..., lambda v, k=1: ...]` (a table of functions, tables.py); else None. A lambda whose
        body reads the loop's variable itself reads its last value (Python's late binding)."""
        if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add):
            return self.joined_display(value)
        is_dict = isinstance(value, gast.DictComp)
        lam = value.value if is_dict else getattr(value, "elt", None)
        if not (isinstance(value, (gast.ListComp, gast.DictComp)) and isinstance(lam, gast.Lambda) and
                len(value.generators) == 1 and not value.generators[0].ifs):
            return None
        gen = value.generators[0]
        names = _target_names(gen.target)
        items = self.comprehension_items(gen.iter)
        if names is None or items is None or is_dict and not isinstance(value.key, (gast.Name, gast.Constant)):
            return None
        bound = [_unpacked(gen.target, v) for v in items]
        if None in bound:
            return None
        params = {a.id for a in list(lam.args.posonlyargs) + list(lam.args.args) + list(lam.args.kwonlyargs)}
        late = (set(names) & astutil.names_loaded(lam.body)) - params
        if any(isinstance(n, gast.Lambda) for n in astutil.walk(lam.body)) and late:
            return None             # (a lambda inside the body might bind those names itself)
        made, keys = [], []
        for values in bound:
            copy = astutil.clone(lam)
            for defaults in (copy.args.defaults, copy.args.kw_defaults):
                for d in defaults:
                    if d is not None:
                        self.name_values(d, values, set(names))
            self.name_values(copy.body, bound[-1], late)
            made.append(copy)
            if is_dict:
                keys.append(astutil.const(values[value.key.id]) if isinstance(value.key, gast.Name)
                            else astutil.clone(value.key))
        display = gast.Dict(keys=keys, values=made) if is_dict else gast.List(elts=made, ctx=gast.Load())
        return gast.copy_location(display, value)

    def joined_display(self, value):
        """`[np.cos] + [lambda v, k=k: v * k for k in range(3)]` (what appending functions to a list in a loop
        reads as, frontend/appended.py): one display of the functions, if each part is a list display or a
        comprehension of lambdas lambdas_display writes out; else None."""
        parts, elts, made = [], [], False
        while isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add):
            parts.append(value.right)
            value = value.left
        for part in [value] + parts[::-1]:
            shown = part if isinstance(part, gast.List) else self.lambdas_display(part)
            if not isinstance(shown, gast.List) or any(isinstance(e, gast.Starred) for e in shown.elts):
                return None
            elts.extend(shown.elts)
            made |= shown is not part
        return gast.copy_location(gast.List(elts=elts, ctx=gast.Load()), value) if made else None

    def comprehension_items(self, it):
        """The items of a comprehension's iterable known when transforming (a range, a constant sequence of
        constants or of tuples of them), at most 32 of them; else None."""
        if isinstance(it, gast.Call) and self.static(it.func) is range and not it.keywords:
            bounds = [self.static(a) if not astutil.is_constant_literal(a) else astutil.literal_value(a)
                      for a in it.args]
            items = range(*bounds) if all(type(b) is int for b in bounds) and 1 <= len(bounds) <= 3 else None
        else:
            items = self.static(it) if not astutil.is_constant_literal(it) else astutil.literal_value(it)
        if not isinstance(items, (range, tuple, list)) or not 0 < len(items) <= 32 or \
                not all(_constant(v) for v in items):
            return None
        return list(items)

    def name_values(self, node, values, which):
        """Replace, in node, each load of a name in `which` by a name bound to its value in `values`."""
        for n in astutil.walk(node):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in which:
                n.id = self.bind(f"{n.id}_value", values[n.id])

    def held_now(self, e, owner):
        """An atom of e's value now, which a later rebinding of a name in e does not change: the value a partial
        object or a nested function's default keeps (copied into a name of its own if e's name is bound again)."""
        atom = self.atom(e)
        if not isinstance(atom, gast.Name) or atom.id in self.single:
            return atom
        name = self.temp(f"{owner if isinstance(owner, str) else 'bound'}_{atom.id}")
        self.emit(ir.Copy(name, atom), e)
        return astutil.name(name)

    def bind_defaults(self, fdef):
        """A nested function's default values that are not constants, computed where the def runs, as Python
        does (`def g(y, a=a)` keeps a's value of then): its inlined calls read them later. Returns {the name
        holding each: the user's expression} (for messages)."""
        args = fdef.args
        written = {}
        for defaults in (args.defaults, args.kw_defaults):
            for i, d in enumerate(defaults):
                if d is not None and not astutil.is_constant_literal(d):
                    text = astutil.unparse(d)
                    defaults[i] = self.held_now(d, fdef.name)
                    written[defaults[i].id if isinstance(defaults[i], gast.Name) else text] = text
        return written

    def call_partial_object(self, e, obj, target):
        """A functools.partial object known when transforming: its bound values are constants."""
        func = astutil.name(self.bind(getattr(obj.func, "__name__", "func"), obj.func))
        args = [astutil.name(self.bind("arg", a)) for a in obj.args]
        keywords = [gast.keyword(arg=k, value=astutil.name(self.bind(k, v))) for k, v in obj.keywords.items()]
        call = gast.Call(func=func, args=args + list(e.args), keywords=keywords + list(e.keywords))
        return self.call(call, target)

    def gradient_of_local(self, value):
        """Is value `adsrc.grad(f, ...)` (or value_and_grad) of a lambda or a def of this function?"""
        from .. import api
        f = value.args[0] if value.args else None
        return self.static(value.func) in (api.grad, api.value_and_grad) and \
            (isinstance(f, gast.Lambda) or isinstance(f, gast.Name) and self.is_local(f.id))

    def known_item(self, node):
        """`table[key]` with the table and the key known when transforming: the item, or NOT_STATIC."""
        if isinstance(node.slice, gast.Slice):
            return rules_mod.NOT_STATIC
        key = astutil.literal_value(node.slice) if astutil.is_constant_literal(node.slice) else self.static(node.slice)
        if isinstance(node.value, gast.Dict) and key is not rules_mod.NOT_STATIC and \
                all(isinstance(k, gast.Constant) for k in node.value.keys):
            # {"normal": Normal, "laplace": Laplace}[family]: the entry for the key
            entry = next((v for k, v in zip(node.value.keys, node.value.values) if k.value == key), None)
            return self.static(entry) if entry is not None else rules_mod.NOT_STATIC
        table = self.static(node.value)
        if table is rules_mod.NOT_STATIC or key is rules_mod.NOT_STATIC or not isinstance(table, (dict, list, tuple)):
            return rules_mod.NOT_STATIC
        try:
            return table[key]
        except (KeyError, IndexError, TypeError):
            return rules_mod.NOT_STATIC

    def getattr_function(self, value):
        """`getattr(obj, name)` with the name and the attribute known when transforming and a function: the
        expression `obj.name`, else None."""
        read = self.getattr_read(value)
        if not isinstance(read, gast.Attribute):
            return None
        obj = self.static(read)
        return read if obj is not rules_mod.NOT_STATIC and callable(obj) and not isinstance(obj, type) else None

    def hold_factory_arguments(self, target, value):
        """`step = make_step(x[0])`, a factory called with values computed here: its arguments are computed once,
        into names of their own that nothing rebinds, so that each call `step(v)` can pass them again
        (note_alias)."""
        if not (isinstance(target, str) and target in self.single and isinstance(value, gast.Call)) or \
                any(isinstance(a, gast.Starred) for a in value.args) or any(k.arg is None for k in value.keywords):
            return
        if not factories.is_factory(self.static(value.func)) or \
                factories.fixed_arguments(value, self.single, self.uf.node, self.held_arguments) or \
                all(astutil.is_constant_literal(a) or self.static(a) is not rules_mod.NOT_STATIC
                    for a in list(value.args) + [k.value for k in value.keywords]):
            return          # (arguments known when transforming: the factory is called then, note_alias)
        value.args = [self.held_value(a) for a in value.args]
        for k in value.keywords:
            k.value = self.held_value(k.value)

    def nested_factory_call(self, e, target):
        """`make(c)(x)` with make a nested def or lambda of this function: `made = make(c)`, then `made(x)`, two
        calls of nested functions that inline.py writes out (the function make returns is the one called;
        `make(a)(b)(x)` splits twice). True when so emitted."""
        f = e.func
        root = f.func
        while isinstance(root, gast.Call):          # make(a)(b)(x): made = make(a)(b) splits again
            root = root.func
        if not (isinstance(root, gast.Name) and (root.id in self.def_names or root.id in self.local_defs)):
            return False
        made = self.namer.fresh(root.id + "_made")
        self.call(f, made)
        call = gast.copy_location(gast.Call(func=astutil.name(made), args=e.args, keywords=e.keywords), e)
        self.emit_op(ir.CallLocal, target, self.plain_call(call, astutil.name(made)), e,
                     describe=f"the function that `{root.id}(...)` returns")
        return True

    def held_value(self, a):
        """a computed into a name of its own that nothing rebinds (a constant as it is)."""
        if astutil.is_constant_literal(a):
            return a
        value = self.atom(a)
        if not isinstance(value, gast.Name):
            return value            # a module's function or constant (np.sin, np.pi): read as written
        held = self.temp("held")
        self.emit(ir.Copy(held, value), a)
        self.held_arguments.add(held)
        return astutil.name(held)

    def made_getter(self, value):
        """`operator.itemgetter(0)` / `attrgetter("a")` with literal arguments: the getter, made now (its calls
        are written out as indexing, calls.py), or NOT_STATIC."""
        func = self.static(value.func) if isinstance(value.func, (gast.Name, gast.Attribute)) else rules_mod.NOT_STATIC
        if func not in (operator.itemgetter, operator.attrgetter) or value.keywords or not value.args or \
                not all(isinstance(a, gast.Constant) for a in value.args):
            return rules_mod.NOT_STATIC
        return func(*(a.value for a in value.args))

    def note_alias(self, target, value):
        """Remember `act = np.tanh` (a name bound once to a callable known when transforming),
        `g = adsrc.grad(loss)` and `step = make_step(2.0)` (the function a factory makes, factories.py), and a
        name bound once to a string (`name = "w"`: getattr(obj, name) reads obj.w)."""
        if isinstance(target, str) and target in self.single and isinstance(value, gast.Constant) and \
                isinstance(value.value, str):
            self.static_locals[target] = value.value
            return
        if isinstance(target, str) and target in self.single and isinstance(value, (gast.Name, gast.Attribute)) or \
                isinstance(target, str) and target in self.single and isinstance(value, gast.Subscript) and \
                isinstance(value.slice, gast.Constant):       # g = TERMS[0] (an unrolled loop's item, generated)
            obj = self.static(value)
            if obj is not rules_mod.NOT_STATIC and callable(obj):
                self.functions[target] = ("alias", value)
                if isinstance(obj, type):
                    self.static_locals[target] = obj        # cls = REGISTRY["normal"]: a class known here
        elif isinstance(target, str) and target in self.single and isinstance(value, gast.Subscript):
            obj = self.known_item(value)     # stepper = INTEGRATORS[method], with method a static argument
            if obj is not rules_mod.NOT_STATIC and callable(obj):
                self.functions[target] = ("alias", astutil.name(self.bind(target, obj)))
                self.static_locals[target] = obj        # (cls = REGISTRY["normal"]; cls(x).nll(v))
        elif isinstance(target, str) and target in self.single and isinstance(value, gast.Call) and \
                self.static(value.func) is builtins.getattr and self.getattr_function(value) is not None:
            self.functions[target] = ("alias", self.getattr_function(value))     # f = getattr(np, "tanh")
        elif isinstance(target, str) and target in self.single and isinstance(value, gast.Call) and \
                self.gradient_of_local(value):
            self.functions[target] = ("applied", value)        # g = adsrc.grad(lambda z: ...); g(q)
        elif isinstance(target, str) and target in self.single and isinstance(value, gast.Call):
            obj = self.derivative_made_here(value)            # g = adsrc.grad(loss); g(w)
            if obj is rules_mod.NOT_STATIC:
                obj = self.made_getter(value)                 # key = operator.itemgetter(0); key(pair)
            if obj is rules_mod.NOT_STATIC:
                obj = self.made_by_factory(value)
            if obj is not rules_mod.NOT_STATIC:
                self.functions[target] = ("alias", astutil.name(self.bind(target, obj)))
            elif self.static(value.func) is getattr and len(value.args) == 2 and not value.keywords and \
                    self.static(value.args[0]) is not rules_mod.NOT_STATIC and \
                    factories.fixed_arguments(gast.Call(func=value.func, args=value.args[1:], keywords=[]),
                                              self.single, self.uf.node, self.held_arguments):
                # act = getattr(Acts, name) with Acts a class or module known when transforming: act(x) is
                # getattr(Acts, name)(x) (tables.method_dispatch)
                self.functions[target] = ("applied", value)
            elif factories.fixed_arguments(value, self.single, self.uf.node, self.held_arguments) and \
                    not factories.computes_first(self.static(value.func)):
                # step = make_step(a); step(x), with make_step only making the function: running its body again
                # at each call changes nothing (a body that computes first, say draws random numbers, would)
                self.functions[target] = ("applied", value)


def _substituted(choice, e, keyword, i):
    """The call e with its argument i (a keyword's if keyword) replaced by each function of the choice."""
    if isinstance(choice, gast.IfExp):
        return gast.IfExp(test=astutil.clone(choice.test), body=_substituted(choice.body, e, keyword, i),
                          orelse=_substituted(choice.orelse, e, keyword, i))
    call = astutil.clone(e)
    if keyword:
        call.keywords[i].value = astutil.clone(choice)
    else:
        call.args[i] = astutil.clone(choice)
    return call


def _distributed(choice, e):
    """The call e of a function chosen by `f if c else g` (nested too), as `f(args) if c else g(args)`."""
    if isinstance(choice, gast.IfExp):
        return gast.IfExp(test=astutil.clone(choice.test), body=_distributed(choice.body, e),
                          orelse=_distributed(choice.orelse, e))
    return gast.Call(func=astutil.clone(choice), args=[astutil.clone(a) for a in e.args],
                     keywords=[astutil.clone(k) for k in e.keywords])


def _target_names(target):
    """The names a comprehension's target binds, in order, if it is a name or a flat tuple of names."""
    if isinstance(target, gast.Name):
        return [target.id]
    if isinstance(target, gast.Tuple) and all(isinstance(e, gast.Name) for e in target.elts):
        return [e.id for e in target.elts]
    return None


def _unpacked(target, v):
    """{name: value} of target bound to item v, or None if v does not unpack so."""
    if isinstance(target, gast.Name):
        return {target.id: v}
    if not isinstance(v, tuple) or len(v) != len(target.elts):
        return None
    return {e.id: x for e, x in zip(target.elts, v)}


def _constant(v):
    """Is v a constant adsrc can write in code (or a tuple of them)?"""
    if isinstance(v, tuple):
        return all(_constant(x) for x in v)
    return astutil.is_constant_literal(astutil.const(v))
