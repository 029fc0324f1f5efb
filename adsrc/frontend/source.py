"""Frontend: find a function's source, parse it with gast, resolve its names.

`load(fun)` returns a `UserFunction`: the function's definition as a gast
`FunctionDef` (lambdas become a `def` that returns the lambda's body) with
file-absolute line numbers, and everything needed to resolve a free name to
the object it means (closure cells, module globals, builtins); static_values.py
resolves chains of names, attributes and constant indices to objects.
"""

import ast
import builtins
import copy
import functools
import inspect
import itertools
import linecache
import types

import gast

from .. import astutil, conversions
from ..errors import Location, transform_error
from ..guards import Guards
from .appended import rewrite_appended_functions
from .local_checkpoint import rewrite_local_checkpoints
from .generators import rewrite_generators

_NO_SOURCE_HINT = (
    "adsrc reads a function's source code to differentiate it. Define the "
    "function in a file (a module, a script or a notebook cell) rather than "
    "at an interactive prompt or through exec()."
)


class UserFunction:
    """A user function, parsed, with the means to resolve its free names."""

    def __init__(self, fun, node, filename):
        self.fun = fun
        self.node = node
        self.filename = filename
        self.name = "lambda" if fun.__name__ == "<lambda>" else fun.__name__
        self.qualname = getattr(fun, "__qualname__", self.name)
        self.globals = fun.__globals__
        code = fun.__code__
        self.cells = dict(zip(code.co_freevars, fun.__closure__ or ()))
        b = fun.__globals__.get("__builtins__", builtins)
        self.builtins = b if isinstance(b, dict) else vars(b)
        self.locals = local_names(node)
        self.known = {}          # parameters whose values are known when transforming (static ones)
        self.classes = {}        # parameters whose class is known when transforming (registered pytrees)
        self.item_classes = {}   # parameter -> {position or key: class} of the objects a list, tuple or dict holds
        self.fields = {}         # parameter -> {field: the function it holds}, as the caller made the object
        self.field_classes = {}  # parameter -> {field: (class of the object it holds, class of a list's elements,
        #                        the object's own field classes)}
        self.guards = Guards()   # the global and closure names the transformation depended on

    def with_known(self, values):
        """A view of this function in which the given parameters have known values.

        Only parameters the function never assigns qualify; they then resolve
        like globals (so `self.helper(x)` is a call adsrc can follow).
        """
        view = copy.copy(self)
        view.known = {k: v for k, v in values.items() if k not in self._assigned()}
        return view

    def with_classes(self, classes):
        """A view in which the given parameters (never assigned) hold objects of known classes, whose
        methods are then calls adsrc can follow (registered pytree classes, pytree_nodes.py)."""
        view = copy.copy(self)
        view.classes = {k: v for k, v in classes.items() if k not in self._assigned()}
        return view

    def with_item_classes(self, classes):
        """A view in which the given parameters (never assigned) hold lists, tuples or dicts of objects of known
        classes ({position or key: class}), whose methods are then followed (`for layer in layers: x =
        layer(x)`, `layers[-1](x)`, `blocks["enc"](x)`)."""
        view = copy.copy(self)
        view.item_classes = {k: v for k, v in classes.items() if k not in self._assigned()}
        return view

    def with_fields(self, fields):
        """A view in which the given parameters (never assigned) hold objects whose fields hold known functions
        (and that this function never assigns): `self.act(z)` is then a call adsrc can follow."""
        view = copy.copy(self)
        assigned = self._assigned()
        view.fields = {p: {f: v for f, v in known.items() if not stores_field(self.node, p, f)}
                       for p, known in fields.items() if p not in assigned}
        return view

    def with_field_classes(self, field_classes):
        """A view in which the given parameters (never assigned) hold objects whose fields (that this function
        never assigns) hold objects of known classes: `self.inner(x)` is then a call adsrc can follow (checked
        when the code runs)."""
        view = copy.copy(self)
        assigned = self._assigned()
        view.field_classes = {p: {f: v for f, v in known.items() if not stores_field(self.node, p, f)}
                              for p, known in field_classes.items() if p not in assigned}
        return view

    def _assigned(self):
        return astutil.names_stored(gast.Module(body=self.node.body, type_ignores=[]))

    def __deepcopy__(self, memo):
        return self   # shared: only its guards grow as the transformation resolves names

    # -- locations and errors -------------------------------------------------
    def loc(self, node_or_lineno):
        if isinstance(node_or_lineno, int):
            return Location(self.filename, node_or_lineno, None, self.name)
        return Location(self.filename, getattr(node_or_lineno, "lineno", None),
                        getattr(node_or_lineno, "col_offset", None), self.name)

    def error(self, node, problem, hint=None):
        return transform_error(self.loc(node), problem, hint)

    def line(self, lineno):
        return linecache.getline(self.filename, lineno).strip()

    # -- names ------------------------------------------------------------------
    def lookup(self, id_):
        """(kind, value) for a name free in this function.

        kind is 'closure', 'global', 'builtin' or 'missing'. Closure values are
        read from the cell now; generated code reads the cell when it runs.
        """
        if id_ in self.known:
            return "static", self.known[id_]
        if id_ in self.cells:
            try:
                return "closure", self.cells[id_].cell_contents
            except ValueError:  # empty cell: defined later in the enclosing scope
                return "missing", None
        if id_ in self.globals:
            return "global", self.globals[id_]
        if id_ in self.builtins:
            return "builtin", self.builtins[id_]
        return "missing", None


_DEFINED = itertools.count()


def stores_field(node, name, field):
    """Does node store into `name.field` (`self.act = ...`, `del self.act`)?"""
    return any(isinstance(n, gast.Attribute) and n.attr == field and isinstance(n.value, gast.Name) and
               n.value.id == name and not isinstance(n.ctx, gast.Load) for n in astutil.walk(node))


def define(text, name, globals_, label):
    """The function `name` that `text` defines, compiled with globals_ from a file of its own registered with
    linecache (`<adsrc {label} #n>`), so that adsrc reads its source as it reads the user's."""
    filename = f"<adsrc {label} #{next(_DEFINED)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {}
    exec(compile(text, filename, "exec"), globals_, namespace)
    return namespace[name]


def define_made(node, values, globals_, label):
    """What the ast def or class `node` defines, made by `def make_<name>(<values' names>): <node>; return
    <name>` (define) called with values: they are its closure variables, not globals (a lifted function
    that calls itself; a class that reads names its function imported)."""
    maker = ast.parse(f"def make_{node.name}({', '.join(values)}):\n    return {node.name}\n").body[0]
    maker.body.insert(0, node)
    text = ast.unparse(ast.fix_missing_locations(ast.Module(body=[maker], type_ignores=[]))) + "\n"
    return define(text, maker.name, globals_, label)(*values.values())


def local_names(fdef):
    """Names local to a function definition (parameters and assigned names).

    Nested function, lambda and comprehension scopes are not entered, but the
    names of nested defs are local.
    """
    out = set()
    a = fdef.args
    for p in list(a.posonlyargs or []) + list(a.args) + list(a.kwonlyargs):
        out.add(p.id)
    for p in (a.vararg, a.kwarg):
        if p is not None:
            out.add(p.id)

    def visit(node):
        for child in astutil.children(node):
            if isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                out.add(child.name)
                continue
            if isinstance(child, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp,
                                  gast.GeneratorExp)):
                continue
            if isinstance(child, gast.Name) and isinstance(child.ctx, (gast.Store, gast.Del)):
                out.add(child.id)
            visit(child)

    for stmt in fdef.body:
        if isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            out.add(stmt.name)
        else:
            visit(stmt)
    if isinstance(fdef.body, list):
        for stmt in fdef.body:
            if isinstance(stmt, (gast.Global, gast.Nonlocal)):
                out.difference_update(stmt.names)
    return out


# -- source retrieval -----------------------------------------------------------

@functools.lru_cache(maxsize=64)
def _parse_file(filename, text):
    return ast.parse(text, filename=filename)


def _file_tree(fun):
    code = fun.__code__
    filename = code.co_filename
    lines = linecache.getlines(filename, fun.__globals__)
    if not lines:
        raise transform_error(
            None, f"adsrc cannot find the source code of `{fun.__qualname__}` "
                  f"(defined in {filename!r}).", _NO_SOURCE_HINT)
    try:
        return filename, _parse_file(filename, "".join(lines))
    except SyntaxError as e:
        raise transform_error(
            None, f"adsrc could not parse {filename!r} to find `{fun.__qualname__}`: {e}",
            "Make sure the file on disk is the one the function was loaded from.") from None


def _find_def(tree, code):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            if code.co_firstlineno in (node.lineno, first):
                return node
    return None


def _lambda_params(node):
    a = node.args
    return [p.arg for p in list(a.posonlyargs) + list(a.args) + list(a.kwonlyargs)]


def _find_lambda(tree, fun):
    code = fun.__code__
    cands = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == code.co_firstlineno]
    nargs = code.co_argcount + code.co_kwonlyargcount
    params = list(code.co_varnames[:nargs])
    cands = [n for n in cands if _lambda_params(n) == params]
    if len(cands) > 1 and hasattr(code, "co_positions"):
        cols = [p[2] for p in code.co_positions()
                if p[0] == code.co_firstlineno and p[2] is not None and p[3] is not None and p[3] > p[2]]
        if cols:
            col = min(cols)
            inside = [n for n in cands if n.body.col_offset <= col and
                      (n.body.end_lineno > n.lineno or col < n.body.end_col_offset)]
            if inside:
                # the innermost lambda whose body contains the first instruction
                cands = [max(inside, key=lambda n: n.body.col_offset)]
    if len(cands) > 1:
        # no column information (Python 3.10): compare what each candidate's code refers to
        target = _code_signature(code)
        matching = [n for n in cands if _code_signature(_compile_lambda(n)) == target]
        if matching:
            cands = matching
    if len(cands) > 1 and len({ast.dump(n.body) for n in cands}) == 1:
        cands = cands[:1]
    return cands


def _code_signature(code):
    consts = tuple(repr(c) for c in code.co_consts if not hasattr(c, "co_code"))
    return tuple(sorted(set(code.co_names) | set(code.co_freevars))), consts


def _compile_lambda(node):
    expr = ast.Expression(body=node)
    ast.fix_missing_locations(expr)
    module = compile(expr, "<lambda>", "eval")
    return next(c for c in module.co_consts if hasattr(c, "co_code"))


def is_gradient(obj):
    """Is obj a function adsrc itself produced (adsrc.grad, value_and_grad, a vjp pullback)?

    Those carry a description of themselves in `_adsrc_derivative`.
    """
    return isinstance(getattr(obj, "_adsrc_derivative", None), str)


def higher_order_error(obj, where=None):
    return transform_error(where, f"{obj._adsrc_derivative} is a derivative computed by adsrc that adsrc cannot "
                                  "differentiate again: higher-order derivatives are followed through adsrc.grad, "
                                  "value_and_grad and jvp (of functions, methods, partials and callable objects), "
                                  "not through vjp pullbacks, nor, inside a function being differentiated, "
                                  "through the gradient of a method or partial with static arguments.",
                           "Differentiate the gradient (adsrc.grad, or adsrc.hessian / adsrc.hvp) rather than a "
                           "pullback, or take the gradient of a plain function that calls the method or partial "
                           "(for example `adsrc.grad(lambda x: model(x))`).")


def unwrap(fun):
    """Follow `__wrapped__` from callable objects (functools.lru_cache...) to the function adsrc transforms.

    Stops at the first plain function (a wrapper made with functools.wraps
    is itself transformed), and at a custom_vjp (its rule, not its body,
    gives the derivative). Refuses functions adsrc produced (that would be a
    higher-order derivative).
    """
    from ..custom import custom_vjp
    seen = set()
    while True:
        if is_gradient(fun):
            if hasattr(fun, "_adsrc_resolve"):
                return fun          # a gradient: its generated function is transformed (see resolve)
            raise higher_order_error(fun)
        if isinstance(fun, (custom_vjp, types.FunctionType)):
            return fun     # a decorator's wrapper function is transformed as written: it may change the value
        inner = getattr(fun, "__wrapped__", None)
        if inner is None or id(fun) in seen:
            return fun
        seen.add(id(fun))
        fun = inner


def source_function(fun):
    """The plain function whose source `load(fun)` reads."""
    from ..custom import custom_vjp
    fun = unwrap(fun)
    return fun.fun if isinstance(fun, custom_vjp) else fun


def resolve(fun, args, kwargs):
    """The function adsrc transforms for a call fun(*args, **kwargs): fun itself, or for a gradient
    adsrc made (adsrc.grad, value_and_grad), the generated function for those arguments (higher order)."""
    resolver = getattr(unwrap(fun), "_adsrc_resolve", None)
    return fun if resolver is None else resolver(args, kwargs)


def signature(fun):
    """The parameters of the function adsrc transforms for `fun` (not those of what it wraps)."""
    inner = unwrap(fun)
    if hasattr(inner, "_adsrc_resolve"):
        return signature(inner.fun)          # a generated gradient takes its function's parameters
    return inspect.signature(source_function(fun), follow_wrapped=False)


def varargs_hint(fun):
    """What to do about a function adsrc cannot call with explicit parameters (*args/**kwargs)."""
    target = source_function(fun)
    if getattr(target, "__wrapped__", None) is not None:
        code = target.__code__
        return (f"`{target.__qualname__}` is a decorator's wrapper (`{code.co_name}`, {code.co_filename} line "
                f"{code.co_firstlineno}): adsrc differentiates it as written, and follows its *args/**kwargs "
                "only while it passes them on unchanged (no `kwargs.pop(...)`, no keyword named like one of "
                "its variables). Apply adsrc.grad beneath the decorator, differentiate the undecorated "
                "function (`.__wrapped__`) if the decorator does not change values, or give the wrapper explicit "
                "parameters.")
    return ("adsrc follows *args/**kwargs only while the function passes them on unchanged (no "
            "`kwargs.pop(...)`, no keyword named like one of its variables); give the function explicit "
            "parameters.")


def load(fun):
    """Parse a Python function (or lambda) into a UserFunction."""
    fun = unwrap(fun)
    from ..custom import custom_vjp
    if isinstance(fun, custom_vjp):
        return _calls_custom_rule(fun)
    if isinstance(fun, types.MethodType):
        raise transform_error(None, f"adsrc cannot differentiate the bound method `{fun.__qualname__}` directly.",
                              "Differentiate the plain function and pass the object as an argument.")
    if not isinstance(fun, types.FunctionType):
        raise transform_error(None, f"adsrc can only differentiate Python functions, not {type(fun).__name__} "
                                    f"objects ({fun!r}).",
                              "Wrap the computation in a `def` or a lambda.")
    code = fun.__code__
    if code.co_flags & (inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        raise transform_error(None, f"`{fun.__qualname__}` is a coroutine; adsrc differentiates "
                                    "plain functions.", "Return a value instead of awaiting.")
    filename, tree = _file_tree(fun)
    if fun.__name__ == "<lambda>":
        cands = _find_lambda(tree, fun)
        if len(cands) != 1:
            where = Location(filename, code.co_firstlineno)
            problem = ("adsrc cannot tell which lambda on this line to differentiate."
                       if cands else "adsrc cannot find this lambda's source (was the file edited since it was loaded?).")
            raise transform_error(where, problem, "Give the function a name with `def`.")
        lam = conversions.ast_to_gast(cands[0])
        body = gast.Return(value=lam.body)
        body.lineno = lam.body.lineno
        body.col_offset = lam.body.col_offset
        node = gast.FunctionDef(name="lambda_", args=lam.args, body=[body], decorator_list=[],
                                returns=None, type_comment=None, type_params=[])
        node.lineno, node.col_offset = cands[0].lineno, cands[0].col_offset
    else:
        found = _find_def(tree, code)
        if found is None:
            raise transform_error(
                Location(filename, code.co_firstlineno),
                f"adsrc cannot find the definition of `{fun.__qualname__}` in its file.",
                "The file may have been edited since the function was loaded: reload it.")
        if isinstance(found, ast.AsyncFunctionDef):
            raise transform_error(Location(filename, found.lineno, found.col_offset),
                                  f"`{fun.__qualname__}` is an async function.",
                                  "adsrc differentiates plain functions.")
        node = conversions.ast_to_gast(found)
        node.decorator_list = []
    _fill_args(node.args)
    uf = UserFunction(fun, node, filename)
    if rewrite_generators(node, uf.error) | rewrite_appended_functions(node, uf.lookup) | \
            rewrite_local_checkpoints(node, uf.lookup):
        uf.locals = local_names(node)
    return uf


def _calls_custom_rule(cv):
    """A custom_vjp differentiated directly: a function with its signature that calls it.

    `adsrc.grad(f)` for a custom_vjp `f` then uses f's rule, as a call to f
    inside another function would.
    """
    uf = load(cv.fun)
    if cv.fwd is None:
        raise uf.error(uf.node, f"the custom_vjp function `{uf.qualname}` has no rule yet.",
                       f"Give it one with `{uf.name}.defvjp(fwd, bwd)` before differentiating.")
    a = uf.node.args
    if a.vararg or a.kwarg or a.kwonlyargs:
        raise uf.error(uf.node, f"adsrc differentiates the custom_vjp function `{uf.qualname}` only when all its "
                                "parameters are positional (no *args, **kwargs or keyword-only parameters).",
                       "Call it from a plain function that passes its arguments by position.")
    params = param_names(uf.node)
    callee = uf.name if uf.name not in params else uf.name + "_custom"
    call = gast.Call(func=gast.Name(id=callee, ctx=gast.Load(), annotation=None, type_comment=None),
                     args=[gast.Name(id=p, ctx=gast.Load(), annotation=None, type_comment=None) for p in params],
                     keywords=[])
    body = gast.Return(value=call)
    astutil.set_lineno(body, uf.node.lineno)
    view = copy.copy(uf)
    view.node = copy.copy(uf.node)
    view.node.body = [body]
    view.cells = {**uf.cells, callee: types.CellType(cv)}
    view.locals = local_names(view.node)
    return view


def _fill_args(a):
    for field in ("posonlyargs", "args", "kwonlyargs", "kw_defaults", "defaults"):
        if getattr(a, field, None) is None:
            setattr(a, field, [])
    for field in ("vararg", "kwarg"):
        if not hasattr(a, field):
            setattr(a, field, None)


def param_names(fdef):
    """Positional-or-keyword parameter names (positional-only first)."""
    a = fdef.args
    return [p.id for p in list(a.posonlyargs) + list(a.args)]


def lambda_to_def(lam, fname):
    """A gast FunctionDef equivalent to a gast Lambda."""
    _fill_args(lam.args)
    body = gast.Return(value=lam.body)
    astutil.set_lineno(body, getattr(lam, "lineno", None) or 0)
    node = astutil.function_def(fname, lam.args, [body], getattr(lam, "lineno", None))
    return node
