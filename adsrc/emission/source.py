"""Emit: print generated gast as Python (astunparse), compile it, register it.

Printing uses astunparse with two fixes for readability and correctness:
parentheses only where precedence needs them, and tuples of slices in
subscripts (`x[1:2, None]`). Statements tagged with `adsrc_line` get a
comment with the user's line above each group (`# line 12: h = np.tanh(...)`).

Compiling wraps the generated function in a factory whose parameters become
the function's free variables: the user's own closure cells (so closures are
read when the code runs), and the helpers and other generated functions the
code calls. Globals are the user function's module globals. The printed source
is registered in `linecache`, so tracebacks and pdb show generated lines.
"""

import io
import itertools
import linecache
import re
import types

import astunparse
import gast


_PREC_BINOP = {
    "BitOr": 6, "BitXor": 7, "BitAnd": 8, "LShift": 9, "RShift": 9, "Add": 10, "Sub": 10,
    "Mult": 11, "MatMult": 11, "Div": 11, "FloorDiv": 11, "Mod": 11, "Pow": 13,
}
_ATOM = 16


def _prec(node):
    if isinstance(node, gast.BinOp):
        return _PREC_BINOP[type(node.op).__name__]
    if isinstance(node, gast.UnaryOp):
        return 4 if isinstance(node.op, gast.Not) else 12
    if isinstance(node, gast.Compare):
        return 5
    if isinstance(node, gast.BoolOp):
        return 3 if isinstance(node.op, gast.And) else 2
    if isinstance(node, gast.IfExp):
        return 1
    if isinstance(node, (gast.Lambda, gast.NamedExpr)):
        return 0
    if isinstance(node, gast.Constant) and isinstance(node.value, (int, float, complex)) \
            and not isinstance(node.value, bool) and (node.value.real < 0 or str(node.value).startswith("-")):
        return 12
    return _ATOM


class Unparser(astunparse.Unparser):
    """astunparse with minimal parentheses and correct multi-dimensional slices."""

    def expr(self, node, prec):
        if _prec(node) < prec:
            self.write("(")
            self.dispatch(node)
            self.write(")")
        else:
            self.dispatch(node)

    def _BinOp(self, t):
        p = _prec(t)
        right_assoc = isinstance(t.op, gast.Pow)
        self.expr(t.left, p + 1 if right_assoc else p)
        self.write(" " + self.binop[t.op.__class__.__name__] + " ")
        self.expr(t.right, p if right_assoc else p + 1)

    def _UnaryOp(self, t):
        op = self.unop[t.op.__class__.__name__]
        self.write(op + (" " if op == "not" else ""))
        self.expr(t.operand, _prec(t))

    def _Compare(self, t):
        self.expr(t.left, 6)
        for o, e in zip(t.ops, t.comparators):
            self.write(" " + self.cmpops[o.__class__.__name__] + " ")
            self.expr(e, 6)

    def _BoolOp(self, t):
        p = _prec(t)
        for i, v in enumerate(t.values):
            if i:
                self.write(" and " if isinstance(t.op, gast.And) else " or ")
            self.expr(v, p + 1)

    def _IfExp(self, t):
        self.expr(t.body, 2)
        self.write(" if ")
        self.expr(t.test, 2)
        self.write(" else ")
        self.expr(t.orelse, 1)

    def _Attribute(self, t):
        if isinstance(t.value, gast.Constant) and isinstance(t.value.value, int):
            self.write("(")
            self.dispatch(t.value)
            self.write(")")
        else:
            self.expr(t.value, _ATOM)
        self.write("." + t.attr)

    def _Call(self, t):
        self.expr(t.func, _ATOM)
        self.write("(")
        first = True
        for e in list(t.args) + list(t.keywords):
            if not first:
                self.write(", ")
            first = False
            self.dispatch(e)
        self.write(")")

    def _Subscript(self, t):
        self.expr(t.value, _ATOM)
        self.write("[")
        s = t.slice
        if isinstance(s, gast.Tuple) and s.elts:
            for i, e in enumerate(s.elts):
                if i:
                    self.write(", ")
                self.dispatch(e)
            if len(s.elts) == 1:
                self.write(",")
        else:
            self.dispatch(s)
        self.write("]")

    def _Assign(self, t):
        self.fill()
        for target in t.targets:
            if isinstance(target, gast.Tuple) and target.elts:
                self._bare_tuple(target)
            else:
                self.dispatch(target)
            self.write(" = ")
        if isinstance(t.value, gast.Tuple) and len(t.value.elts) > 1 and \
                isinstance(t.targets[0], gast.Tuple):
            self._bare_tuple(t.value)
        else:
            self.dispatch(t.value)

    def _bare_tuple(self, t):
        for i, e in enumerate(t.elts):
            if i:
                self.write(", ")
            if isinstance(e, gast.Tuple):
                self.dispatch(e)
            else:
                self.dispatch(e)
        if len(t.elts) == 1:
            self.write(",")

    def _For(self, t):
        self.fill("for ")
        if isinstance(t.target, gast.Tuple) and t.target.elts:
            self._bare_tuple(t.target)
        else:
            self.dispatch(t.target)
        self.write(" in ")
        self.dispatch(t.iter)
        self._block(t.body)
        if t.orelse:
            self.fill("else")
            self._block(t.orelse)

    def _comprehension(self, t):
        # `for t in (a if c else b)`: an iterable or condition below `or` keeps its parentheses (without them
        # Python reads the `if` as the comprehension's own condition)
        self.write(" async for " if getattr(t, "is_async", False) else " for ")
        self.dispatch(t.target)
        self.write(" in ")
        self.expr(t.iter, 2)
        for clause in t.ifs:
            self.write(" if ")
            self.expr(clause, 2)

    def _block(self, stmts):
        self.enter()
        self.dispatch(stmts)
        self.leave()

    # gast differs from ast in these: parameters and `except ... as name` are Name nodes, and
    # astunparse's own checks name ast classes

    def _If(self, t):
        keyword = "if "
        while True:
            self.fill(keyword)
            self.dispatch(t.test)
            self._block(t.body)
            if not (len(t.orelse) == 1 and isinstance(t.orelse[0], gast.If)):
                break
            t, keyword = t.orelse[0], "elif "
        if t.orelse:
            self.fill("else")
            self._block(t.orelse)

    def _ExceptHandler(self, t):
        self.fill("except")
        if t.type:
            self.write(" ")
            self.dispatch(t.type)
        if t.name:
            self.write(" as ")
            self.write(t.name.id if isinstance(t.name, gast.Name) else t.name)
        self._block(t.body)

    def _param(self, a, default=None, prefix=""):
        self.write(prefix + a.id)
        if a.annotation is not None:
            self.write(": ")
            self.dispatch(a.annotation)
        if default is not None:
            self.write("=" if a.annotation is None else " = ")
            self.dispatch(default)

    def _arguments(self, t):
        parts = []
        positional = t.posonlyargs + t.args
        defaults = [None] * (len(positional) - len(t.defaults)) + t.defaults
        for i, (a, d) in enumerate(zip(positional, defaults), 1):
            parts.append(lambda a=a, d=d: self._param(a, d))
            if i == len(t.posonlyargs):
                parts.append(lambda: self.write("/"))
        if t.vararg is not None:
            parts.append(lambda: self._param(t.vararg, prefix="*"))
        elif t.kwonlyargs:
            parts.append(lambda: self.write("*"))
        for a, d in zip(t.kwonlyargs, t.kw_defaults):
            parts.append(lambda a=a, d=d: self._param(a, d))
        if t.kwarg is not None:
            parts.append(lambda: self._param(t.kwarg, prefix="**"))
        for i, part in enumerate(parts):
            if i:
                self.write(", ")
            part()

    def _fstring_FormattedValue(self, t, write):
        expr = io.StringIO()
        Unparser(t.value, expr)
        expr = expr.getvalue().rstrip("\n")
        write("{" + (" " if expr.startswith("{") else "") + expr)
        if t.conversion != -1:
            write("!" + chr(t.conversion))
        if t.format_spec:
            write(":")
            getattr(self, "_fstring_" + type(t.format_spec).__name__)(t.format_spec, write)
        write("}")

    def _Return(self, t):
        self.fill("return")
        if t.value is not None:
            self.write(" ")
            if isinstance(t.value, gast.Tuple) and len(t.value.elts) > 1:
                self._bare_tuple(t.value)
            else:
                self.dispatch(t.value)


# -- comments ---------------------------------------------------------------------------------

_COMMENT = "__adsrc_comment__"
_COMMENT_RE = re.compile(r"^(\s*)" + _COMMENT + r"\((\d+)\)\s*$")


class Comments:
    """Comment markers inserted as statements, replaced by `# ...` after printing."""

    def __init__(self, line_text):
        self.line_text = line_text   # lineno -> user source text
        self.texts = []

    def marker(self, text):
        self.texts.append(text)
        node = gast.Expr(value=gast.Call(func=gast.Name(id=_COMMENT, ctx=gast.Load(), annotation=None,
                                                       type_comment=None),
                                         args=[gast.Constant(value=len(self.texts) - 1, kind=None)],
                                         keywords=[]))
        return node

    def annotate(self, stmts, parent_line=None):
        """Insert a comment before each group of statements from one user line."""
        out = []
        current = parent_line
        for s in stmts:
            text = getattr(s, "adsrc_comment", None)
            if text is not None:
                out.append(self.marker(text))
                current = None
                continue
            line = getattr(s, "adsrc_line", None)
            if line is not None and line != current:
                text = self.line_text(line)
                if text:
                    out.append(self.marker(f"line {line}: {text}"))
                current = line
            inner = None if isinstance(s, gast.FunctionDef) else (line if line is not None else current)
            for field in ("body", "orelse"):
                sub = getattr(s, field, None)
                if isinstance(sub, list) and sub:
                    setattr(s, field, self.annotate(sub, inner))
            out.append(s)
        return out

    def render(self, text):
        def repl(m):
            return f"{m.group(1)}# {self.texts[int(m.group(2))]}"
        return "\n".join(_COMMENT_RE.sub(repl, line) for line in text.split("\n"))


def unparse(node):
    """Python source for a gast node (no comment handling)."""
    buf = io.StringIO()
    Unparser(node, file=buf)
    return buf.getvalue().strip("\n") + "\n"


def render(fdef, line_text):
    """Source text of a generated FunctionDef with user-line comments."""
    comments = Comments(line_text)
    fdef.body = comments.annotate(fdef.body)
    return comments.render(unparse(fdef))


# -- compiling ------------------------------------------------------------------------------

_counter = itertools.count()


def filename_for(name, origin):
    return f"<adsrc {name} from {origin}>"


def unique_filename(filename, text):
    """filename, or a numbered variant of it if it already names different text (two units of one name:
    the source a function's code reads must be its own, for tracebacks and for differentiating it again)."""
    name, k = filename, 1
    while name in linecache.cache and "".join(linecache.cache[name][2]) != text:
        k += 1
        name = f"{filename[:-1]} #{k}>"
    return name


def register_source(filename, text):
    lines = text.splitlines(keepends=True)
    linecache.cache[filename] = (len(text), None, lines, filename)


def _moved_up(code):
    """code (and the code nested in it) one line earlier: line numbers count from co_firstlineno."""
    consts = tuple(_moved_up(c) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_firstlineno=code.co_firstlineno - 1, co_consts=consts)


def compile_function(text, fname, filename, globals_, bindings, argdefs=None, kwdefaults=None):
    """Compile `text` (one def named fname) into a function.

    `bindings` maps free names to cells (`types.CellType`) or values.
    """
    params = sorted(bindings)
    factory_src = "def __adsrc_factory__(" + ", ".join(params) + "):\n" + \
        "".join("    " + line + "\n" for line in text.splitlines()) + f"    return {fname}\n"
    code = compile(factory_src, filename, "exec")
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType) and c.co_name == fname)
    inner = _moved_up(inner)         # line k of text is line k + 1 of factory_src
    cells = []
    for n in inner.co_freevars:
        b = bindings[n]
        cells.append(b if isinstance(b, types.CellType) else types.CellType(b))
    fn = types.FunctionType(inner, globals_, fname, argdefs, tuple(cells))
    fn.__qualname__ = fname
    fn._adsrc_generated = True       # its `try` blocks assign what their handlers need (lowering/trys.py)
    if kwdefaults:
        fn.__kwdefaults__ = dict(kwdefaults)
    register_source(filename, text)
    return fn
