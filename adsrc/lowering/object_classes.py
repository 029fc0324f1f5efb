"""What class an object has, when it can be told from the code: objects the user's code makes.

`layers = [Linear(W1), Linear(W2)]` (or `[]` and `layers.append(Linear(W))`) makes a list whose
elements are Linear objects; `self.encoder = Encoder(...)` in a class's `__init__` makes
`self.encoder` an Encoder in the class's other methods; a function whose every `return` makes an
Encoder returns one. Knowing the class lets adsrc follow `layer(h)` and `self.encoder(x)` into the
methods' source. What is inferred this way (not made in the same function) is checked when the
code runs (`runtime.check_class`): another object there is refused, never silently misread.
"""
import abc
import ast
import inspect
import sys
import sysconfig
import textwrap
import types

_INIT_ATTRIBUTES = {}     # class -> {attribute: (class, element class)}
_RETURNED = {}            # function -> the class of every object it returns, or None
_RETURNED_ELEMENTS = {}   # function -> the class of the elements of every list it returns, or None


def is_user_function(obj):
    if not isinstance(obj, types.FunctionType):
        return False
    module = getattr(obj, "__module__", None) or ""
    if module.startswith("adsrc.rules.") or module == "adsrc.tangents":
        return True          # a rule's helper, called by generated code: transformed for higher order
    return module.split(".")[0] not in ("numpy", "builtins", "math", "adsrc")


def user_module(module):
    """Is module a module of the user's own code (not an installed library's or the standard library's)?"""
    path = getattr(module, "__file__", None) or ""
    return bool(path) and not any(part in path for part in _LIBRARY_PATHS) or module.__name__ == "__main__"


def user_class(cls):
    """Is cls a class of the user's own code (not of an installed library or the standard library)?"""
    module = sys.modules.get(getattr(cls, "__module__", None) or "")
    path = getattr(module, "__file__", None) or ""
    return bool(path) and not any(part in path for part in _LIBRARY_PATHS) or cls.__module__ == "__main__"


_LIBRARY_PATHS = ("site-packages", "dist-packages", sysconfig.get_paths()["stdlib"])


def _plain_class(cls):
    """A Python class of the user's whose objects are made by object.__new__ and its own Python __init__ (not
    a subclass of a builtin type), so `cls(...)` can be followed."""
    if type(cls) not in (type, abc.ABCMeta) or cls.__new__ is not object.__new__ or not user_class(cls):
        return False
    if any(k is not object and k.__module__ == "builtins" for k in cls.__mro__):
        return False
    init = inspect.getattr_static(cls, "__init__", None)
    return is_user_function(init) or init is object.__init__     # (a class with no __init__ of its own)


def _record_type(cls):
    import dataclasses
    return (issubclass(cls, tuple) and hasattr(cls, "_fields")) or dataclasses.is_dataclass(cls)


def made_class(obj):
    """obj if it is a class whose calls adsrc follows as constructions (Python classes, records)."""
    return obj if isinstance(obj, type) and (_plain_class(obj) or _record_type(obj)) else None


def element_class(e, resolve, named=None):
    """The class of every element of a list or tuple display, or list comprehension, of constructions
    (`[Linear(a), Linear(b)]`, `[Linear(w) for w in ws]`) or of names `named` binds once to constructions
    (`first = Linear(a)`, `[first, Linear(b)]`), else None. resolve(node) -> object or None."""
    classes = element_classes(e, resolve, named)
    return classes.pop() if classes is not None and len(classes) == 1 else None


def element_classes(e, resolve, named=None):
    """The set of the classes of the elements of such a display or comprehension (all known), else None."""
    if type(e).__name__ in ("List", "Tuple"):      # an ast or a gast node
        elts = e.elts
    elif type(e).__name__ == "ListComp":
        elts = [e.elt]
    elif type(e).__name__ == "Call":                # layers = make(ws), make returning [Layer(w) for w in ws]
        fn = resolve(e.func)
        cls = returned_element_class(fn) if is_user_function(fn) else None
        return {cls} if cls is not None else None
    else:
        return None
    named = named or {}
    classes = {made_class(resolve(x.func)) if type(x).__name__ == "Call" else
               named.get(x.id) if type(x).__name__ == "Name" else None for x in elts}
    return classes if classes and None not in classes else None


def _constructed_names(nodes, resolve):
    """{name: class} of the names that nodes bind exactly once, to a construction `name = C(...)`."""
    bound, made = {}, {}
    for n in nodes:
        if type(n).__name__ == "Name" and type(getattr(n, "ctx", None)).__name__ in ("Store", "Del"):
            bound[n.id] = bound.get(n.id, 0) + 1
        if type(n).__name__ == "Assign" and len(n.targets) == 1 and type(n.targets[0]).__name__ == "Name" \
                and type(n.value).__name__ == "Call":
            cls = made_class(resolve(n.value.func))
            if cls is not None:
                made[n.targets[0].id] = cls
    return {k: v for k, v in made.items() if bound.get(k) == 1}


_EMPTY, _OTHER = "empty", "other"


def list_element_classes(nodes, key_of, resolve, several=False):
    """{key: class} of the lists that every binding and append in nodes (ast or gast, walked) fills with
    objects of one class: `k = [C(a), C(b)]`, `k = [C(w) for w in ws]`, `k = []` then `k.append(C(a))`.
    key_of(target expression) -> a key (a name, an attribute of self) or None. several: {key: (its classes,
    sorted by name)} of the lists filled so with objects of two classes or more."""
    evidence = {}
    named = _constructed_names(nodes, resolve)
    for n in nodes:
        kind = type(n).__name__
        if kind in ("Assign", "AnnAssign", "AugAssign"):
            for t in (n.targets if kind == "Assign" else [n.target]):
                key = key_of(t)
                if key is not None:
                    value = getattr(n, "value", None)
                    empty = kind == "Assign" and type(value).__name__ == "List" and not value.elts
                    found = {_EMPTY} if empty else element_classes(value, resolve, named) if kind == "Assign" \
                        else None
                    evidence.setdefault(key, set()).update(found or {_OTHER})
        elif kind == "Call" and type(n.func).__name__ == "Attribute" and n.func.attr in ("append", "extend"):
            key = key_of(n.func.value)
            if key is not None:
                arg = n.args[0] if len(n.args) == 1 else None
                found = (made_class(resolve(arg.func)) if type(arg).__name__ == "Call" else
                         named.get(arg.id) if type(arg).__name__ == "Name" else None) \
                    if n.func.attr == "append" else element_class(arg, resolve, named)
                evidence.setdefault(key, set()).add(found or _OTHER)     # (one class an `extend` adds, or none)
    out = {}
    for key, found in evidence.items():
        classes = found - {_EMPTY}
        if len(classes) == 1 and _OTHER not in classes and not several:
            out[key] = classes.pop()
        elif len(classes) > 1 and _OTHER not in classes and several:
            out[key] = tuple(sorted(classes, key=lambda c: (c.__qualname__, c.__module__)))
    return out


def attribute_classes(cls, attr):
    """(class, element class) of `self.attr` as every `__init__` in cls's MRO assigns it (None when unknown
    or when they disagree)."""
    table = _INIT_ATTRIBUTES.get(cls)
    if table is None:
        table = _INIT_ATTRIBUTES[cls] = _scan(cls)
    return table.get(attr, (None, None))


def fields_changed_in_place(fn, param):
    """The fields of parameter `param` that fn changes in place as written (`self.arr *= s`, `self.arr[i] = v`,
    `self.items.append(v)`), sorted; () if fn has no source."""
    from .method_calls import MUTATING_METHODS, REFUSED_METHODS      # (method_calls.py imports this module)
    fdef = _parse(fn)
    if fdef is None:
        return ()
    changing = MUTATING_METHODS | REFUSED_METHODS

    def field(node):
        return node.attr if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
            node.value.id == param else None
    found = set()
    for n in ast.walk(fdef):
        if isinstance(n, ast.AugAssign):
            found.add(field(n.target) or (field(n.target.value) if isinstance(n.target, ast.Subscript) else None))
        elif isinstance(n, ast.Assign):
            found.update(field(t.value) for t in n.targets if isinstance(t, ast.Subscript))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in changing:
            found.add(field(n.func.value))
    return tuple(sorted(f for f in found if f is not None))


def fields_from_parameters(init):
    """{field: parameter} of the `self.field = parameter` assignments in an __init__ (tuples too:
    `self.W, self.act = W, act`; `*layers` as `self.layers = layers` or `list(layers)`)."""
    fdef = _parse(init)
    if fdef is None or not fdef.args.args:
        return {}
    me, params = fdef.args.args[0].arg, {a.arg for a in fdef.args.args[1:] + fdef.args.kwonlyargs}
    star = fdef.args.vararg.arg if fdef.args.vararg is not None else None
    out, stores = {}, {}
    for n in ast.walk(fdef):
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name) and \
                n.value.id == me:
            stores[n.attr] = stores.get(n.attr, 0) + 1
        if not isinstance(n, ast.Assign) or len(n.targets) != 1:
            continue
        pairs = zip(n.targets[0].elts, n.value.elts) if isinstance(n.targets[0], ast.Tuple) and \
            isinstance(n.value, ast.Tuple) and len(n.targets[0].elts) == len(n.value.elts) else \
            [(n.targets[0], n.value)]
        for t, v in pairs:
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in ("list", "tuple") and \
                    len(v.args) == 1 and not v.keywords and isinstance(v.args[0], ast.Name) and v.args[0].id == star:
                v = v.args[0]
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me and \
                    isinstance(v, ast.Name) and (v.id in params or v.id == star):
                out[t.attr] = v.id
    return {f: p for f, p in out.items() if stores.get(f) == 1}


def instance_fields(cls):
    """The names any method of cls (and of its bases) assigns as `self.name = ...`, and a dataclass's fields."""
    found = _FIELDS.get(cls)
    if found is None:
        import dataclasses
        found = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
        for k in cls.__mro__[:-1]:
            for fn in vars(k).values():
                fdef = _parse(fn) if inspect.isfunction(fn) else None
                if fdef is None or not fdef.args.args:
                    continue
                me = fdef.args.args[0].arg
                found |= {t.attr for t in ast.walk(fdef) if isinstance(t, ast.Attribute) and
                          isinstance(t.ctx, ast.Store) and isinstance(t.value, ast.Name) and t.value.id == me}
        _FIELDS[cls] = found
    return found


_FIELDS = {}


def _returns(fn):
    """(the name of fn's first parameter, a resolver of fn's globals, the values of fn's `return`s), or None
    when fn has no source or no parameter."""
    fdef = _parse(fn)
    if fdef is None or not fdef.args.args:
        return None
    return fdef.args.args[0].arg, _resolver(fn.__globals__), [n.value for n in ast.walk(fdef)
                                                              if isinstance(n, ast.Return)]


def returns_self_or(fn, cls):
    """Does each `return` of the method fn give its first parameter, or a new object of cls?"""
    found = _returns(fn)
    if found is None:
        return False
    me, resolve, returns = found
    return bool(returns) and all(isinstance(v, ast.Name) and v.id == me or
                                 isinstance(v, ast.Call) and made_class(resolve(v.func)) is cls for v in returns)


def factory_class(fn):
    """For `C.make(...)`, a classmethod of the user's bound to C: the class its calls make when each `return`
    calls its first parameter (`return cls(w, 0.5)`) or makes one of one class; else None."""
    if not (isinstance(fn, types.MethodType) and isinstance(fn.__self__, type) and is_user_function(fn.__func__)):
        return None
    found = _returns(fn.__func__)
    if found is None:
        return None
    me, resolve, returns = found
    classes = {fn.__self__ if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == me else
               made_class(resolve(v.func)) if isinstance(v, ast.Call) else None for v in returns}
    found = classes.pop() if len(classes) == 1 else None
    return made_class(found) if found is not None else None


def returned_class(fn, owner=None):
    """The class of the object fn returns when every `return` of fn makes one of the same class, else None.
    owner: the class fn is a method of, for returns written with `self`: `type(self)(...)`, or `self * other`
    (an operator of the owner's class whose own returns make one: `__rmul__` returning `self * other`)."""
    key = (fn, owner)
    if key not in _RETURNED:
        _RETURNED[key] = None           # (a method returning its own operator: no class)
        fdef = _parse(fn)
        if fdef is not None:
            resolve = _resolver(fn.__globals__)
            me = fdef.args.args[0].arg if owner is not None and fdef.args.args else None
            returns = [n.value for n in ast.walk(fdef) if isinstance(n, ast.Return)]
            classes = {_made_by_return(v, resolve, me, owner) for v in returns}
            if len(classes) == 1:
                _RETURNED[key] = classes.pop()
    return _RETURNED[key]


def returned_element_class(fn):
    """The class of the elements of the list fn returns when every `return` of fn returns a list it made of
    objects of that one class (`return [Layer(w) for w in ws]`, or `out = []`, `out.append(Layer(w))`, `return
    out`), else None. (A loop over such a list checks each object's class when the code runs.)"""
    if fn not in _RETURNED_ELEMENTS:
        _RETURNED_ELEMENTS[fn] = None           # (a function returning its own call: none)
        fdef = _parse(fn)
        if fdef is not None:
            resolve = _resolver(fn.__globals__)
            nodes = list(ast.walk(fdef))
            named = list_element_classes(nodes, lambda t: t.id if isinstance(t, ast.Name) else None, resolve)
            params = {a.arg for a in ast.walk(fdef.args) if isinstance(a, ast.arg)}    # (a list it was given)
            returns = [n.value for n in nodes if isinstance(n, ast.Return)]
            classes = {(named.get(v.id) if v.id not in params else None) if isinstance(v, ast.Name) else
                       element_class(v, resolve) for v in returns}
            if len(classes) == 1:
                _RETURNED_ELEMENTS[fn] = classes.pop()
    return _RETURNED_ELEMENTS[fn]


_AST_OPERATORS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
                  ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul"}


def _made_by_return(v, resolve, me, owner):
    """The class of the object a returned expression makes (see returned_class), or None."""
    if isinstance(v, ast.Subscript) and isinstance(v.value, ast.Attribute) and isinstance(v.value.value, ast.Name) \
            and me is not None and v.value.value.id == me and not isinstance(v.slice, ast.Slice):
        return attribute_classes(owner, v.value.attr)[1]        # `return self.layers[i]` (__getitem__)
    if isinstance(v, ast.IfExp):            # `return C(a) if c else C(b)`: both of one class
        body = _made_by_return(v.body, resolve, me, owner)
        return body if body is not None and _made_by_return(v.orelse, resolve, me, owner) is body else None
    if isinstance(v, ast.Call):
        f = v.func
        if me is not None and isinstance(f, ast.Attribute) and f.attr == "_replace" and \
                isinstance(f.value, ast.Name) and f.value.id == me:
            return owner if _record_type(owner) else None      # a namedtuple's method: self._replace(...)
        if me is not None and isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == me:
            method = inspect.getattr_static(owner, f.attr, None)     # return self.__add__(o): that method's
            return returned_class(method, owner) if is_user_function(method) else None
        if me is not None and (isinstance(f, ast.Attribute) and f.attr == "__class__" and
                               isinstance(f.value, ast.Name) and f.value.id == me or
                               isinstance(f, ast.Call) and isinstance(f.func, ast.Name) and f.func.id == "type" and
                               len(f.args) == 1 and isinstance(f.args[0], ast.Name) and f.args[0].id == me):
            return owner if _plain_class(owner) or _record_type(owner) else None
        return made_class(resolve(f))
    if me is not None and isinstance(v, ast.BinOp) and isinstance(v.left, ast.Name) and v.left.id == me and \
            type(v.op) in _AST_OPERATORS:
        method = inspect.getattr_static(owner, f"__{_AST_OPERATORS[type(v.op)]}__", None)
        return returned_class(method, owner) if is_user_function(method) else None
    return None


def _parse(fn):
    """fn's FunctionDef (ast), or None."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return None
    fdef = tree.body[0] if tree.body else None
    return fdef if isinstance(fdef, ast.FunctionDef) else None


def _scan(cls):
    found = {}
    for k in cls.__mro__[:-1]:
        init = vars(k).get("__init__")
        if not inspect.isfunction(init):
            continue
        fdef = _parse(init)
        if fdef is None or not fdef.args.args:
            continue
        me = fdef.args.args[0].arg
        resolve = _resolver(init.__globals__)

        def key_of(t, me=me):
            return t.attr if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me \
                else None
        elements = list_element_classes(list(ast.walk(fdef)), key_of, resolve)
        for node in ast.walk(fdef):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me:
                    value = getattr(node, "value", None)
                    guess = (made_class(resolve(value.func)) if isinstance(value, ast.Call) else None,
                             elements.get(t.attr))
                    if isinstance(node, ast.AugAssign):
                        guess = (None, None)
                    found[t.attr] = guess if found.get(t.attr, guess) == guess else (None, None)
    return found


def _resolver(globals_):
    import builtins

    def resolve(node):
        if isinstance(node, ast.Name):
            return globals_.get(node.id, getattr(builtins, node.id, None))
        if isinstance(node, ast.Attribute):
            base = resolve(node.value)
            return getattr(base, node.attr, None) if base is not None else None
        return None
    return resolve


def is_library_object(value):
    """A module (`xp=np`, `backend=math`) or a distribution of scipy.stats (`st.norm`, a frozen one made at
    module level) passed as an argument: the callee's `xp.sum(...)`, `dist.logpdf(...)` then find their rules."""
    if isinstance(value, types.ModuleType):
        return True
    return any(c.__module__.startswith("scipy.stats.") and c.__name__ in ("rv_generic", "rv_frozen", "multi_rv_generic",
                                                                        "multi_rv_frozen")
               for c in type(value).__mro__)
