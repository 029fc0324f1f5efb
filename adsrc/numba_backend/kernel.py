"""From a generated gradient to a numba kernel and the Python function that calls it.

The NumPy backend's generated function is kept line for line, with the user's
lines as comments, and changed where numba needs it:

* `for a, b in reversed(tape):` walks the tape by index;
* the gradients handed to the user (`grad_output(g, x)`) leave the kernel: it
  returns the cotangents, and a small Python function around it (the
  *boundary*) gives each its argument's type, shape and dtype, as before.

Helpers are numba overloads (helpers.py) that choose their code per kind and
rank when numba compiles a signature. Anything numba cannot compile raises
`BackendError`, naming the user's line; there is no silent fallback.
"""

import ast
import os
import re

import numba
import numpy as np
from numba.core import errors as numba_errors

from .. import facade, runtime
from ..emission import source as emit
from ..errors import TransformError
from . import disk_cache, helpers, live_names
from . import products_rewrite, reductions

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_LINE = re.compile(r"#\s*line (\d+): (.*)")
# what numba raises when it cannot compile, or (NotImplementedError) cannot run, a construct
_NUMBA_ERRORS = (numba_errors.TypingError, numba_errors.UnsupportedError, numba_errors.LoweringError,
                 numba_errors.NumbaError, NotImplementedError)
_COMPILER = os.sep + os.path.join("numba", "")      # numba's own frames: the error came from compiling


class BackendError(TransformError):
    """A construct adsrc's numba backend cannot compile."""

    _adsrc_annotated = True     # it names the user's line itself


def user_line(text, lineno, filename):
    """'file:line: code' of the user's line that generated line `lineno` of text comes from."""
    lines = text.splitlines()
    for k in range(min(lineno, len(lines)) - 1, -1, -1):
        m = _LINE.search(lines[k])
        if m:
            return f"{filename}:{m.group(1)}: {m.group(2).strip()}"
    return f"{filename} (generated line {lineno})"


def refuse(what, where, hint="Use backend='numpy' (the default) for this function."):
    raise BackendError(f"adsrc's numba backend cannot compile {what}\n  at {where}\n{hint}")


def _check_helpers(tree, ns, text, user_file):
    """Refuse a runtime helper that has no numba implementation, naming the line that calls it."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Try):       # numba's math raises nothing (math.sqrt(-1.0) is nan) and its
            # `except` matches no exception class: the branch taken could differ from Python's
            refuse("a `try` statement", user_line(text, node.lineno, user_file))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.func.id
            value = ns.get(name)
            if name in ("grad_output", "reversed"):
                continue
            if name in runtime.HELPERS and runtime.HELPERS[name] is value and name not in helpers.SUPPORTED:
                refuse(f"`{name}(...)`, which the gradient needs here: the numba backend has no version of it "
                       f"yet ({len(helpers.SUPPORTED)} helpers have one: adsrc.numba_backend.helpers.SUPPORTED)",
                       user_line(text, node.lineno, user_file))


def _index_loops(lines, tree):
    """`for t in reversed(tape):` -> a loop by index that unpacks `tape[k]` (numba has no reversed list)."""
    loops = [n for n in ast.walk(tree) if isinstance(n, ast.For) and isinstance(n.iter, ast.Call)
             and isinstance(n.iter.func, ast.Name) and n.iter.func.id == "reversed" and len(n.iter.args) == 1
             and isinstance(n.iter.args[0], ast.Name)]
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    for loop in sorted(loops, key=lambda n: -n.lineno):
        k, j = "k", 1
        while k in taken:
            j += 1
            k = f"k_{j}"
        taken.add(k)
        tape = loop.iter.args[0].id
        line = lines[loop.lineno - 1]
        indent = line[:len(line) - len(line.lstrip())]
        inner = lines[loop.body[0].lineno - 1]
        inner_indent = inner[:len(inner) - len(inner.lstrip())]
        lines[loop.lineno - 1] = f"{indent}for {k} in range(len({tape}) - 1, -1, -1):"
        lines.insert(loop.lineno, f"{inner_indent}{ast.unparse(loop.target)} = {tape}[{k}]")
    return lines


def _split_return(fdef, params):
    """(kernel result expression, boundary result expression): the grad_output calls of the final return move
    to the boundary, which reads the kernel's results as `out[i]`."""
    ret = fdef.body[-1]
    if not isinstance(ret, ast.Return) or ret.value is None or not any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "grad_output"
            for n in ast.walk(ret.value)):
        return None, None
    results = []

    class Out(ast.NodeTransformer):
        def visit_Call(self, node):
            if isinstance(node.func, ast.Name) and node.func.id == "grad_output":
                results.append(node.args[0])
                node.args[0] = _out(len(results) - 1)
                node.args[1:] = [self.visit(a) for a in node.args[1:]]
                return node
            results.append(node)            # another call: computed in the kernel
            return _out(len(results) - 1)

        def visit_Name(self, node):
            if node.id in params or node.id in ("grad_output",):
                return node
            results.append(node)
            return _out(len(results) - 1)

    boundary = Out().visit(ast.parse(ast.unparse(ret.value), mode="eval").body)
    kernel = ast.Tuple(elts=results, ctx=ast.Load())
    return ast.unparse(kernel), ast.unparse(boundary)


def _out(i):
    return ast.Subscript(value=ast.Name(id="out", ctx=ast.Load()), slice=ast.Constant(i), ctx=ast.Load())


def _rewritten(text, tree, ns):
    """text with `del` statements dropped (numba frees temporaries itself), tapes walked by index, `@` computed
    by loops, reductions along an axis by reductions.py, and each function decorated with @numba.njit."""
    lines = products_rewrite.rewritten(text.splitlines(), tree, ns)
    lines = reductions.rewritten(lines, ast.parse("\n".join(lines)), ns)
    for node in sorted((n for n in ast.walk(tree) if isinstance(n, ast.Delete)), key=lambda n: -n.lineno):
        lines[node.lineno - 1:node.end_lineno] = [" " * node.col_offset + _DELETED]
    lines = _index_loops(lines, ast.parse("\n".join(lines)))
    out = []
    for line in lines:
        if line.strip() == _DELETED or _RELEASE.fullmatch(line.strip()):
            out.append(_DROPPED)
            continue
        if line.startswith("def "):
            out.append("@numba.njit")
        out.append(line)
    return "\n".join(_without_dropped(out)) + "\n"


def _without_dropped(lines):
    """lines without the dropped statements; `pass` where that would leave a block empty."""
    out = []
    for i, line in enumerate(lines):
        if line is not _DROPPED:
            out.append(line)
            continue
        opener = next((ln for ln in reversed(out) if ln.strip() and not ln.strip().startswith("#")), "")
        after = next((ln for ln in lines[i + 1:] if ln is not _DROPPED and ln.strip()
                      and not ln.strip().startswith("#")), "")
        if opener.rstrip().endswith(":") and _indent(after) <= _indent(opener):
            out.append(" " * (_indent(opener) + 4) + "pass")
    return out


def _indent(line):
    return len(line) - len(line.lstrip())


_DROPPED = object()                  # a statement left out of the kernel
_DELETED = "pass  # del"             # a `del`, until the tapes' loops are rewritten


# `x = only_shape(x)` releases x's buffer early (the NumPy backend); numba frees it after its last use itself
_RELEASE = re.compile(r"(\w+) = only_shape\(\1\)")


_SOURCES = {}       # filename of compiled text -> (text, the user's file), for errors naming the user's line


def _load(text, unit, user_file, ns):
    """Run `text` (the unit's functions as numba kernels) in ns, registered for tracebacks and errors, and
    cached on disk when ADSRC_CACHE_DIR says where (disk_cache.py): (ns, the text run)."""
    ns.update(numba_failed=_numba_failed, grad_output=runtime.grad_output, numba=numba, compile_error=_compile_error)
    ns.update(products_rewrite.NAMES)
    ns.update(reductions.NAMES)
    key = disk_cache.fingerprint(text, ns) if disk_cache.directory() else None
    written = disk_cache.cached(text, key) if key is not None else None
    if written is None:
        key, filename = None, emit.unique_filename(unit.filename[:-1] + " numba>", text)
    else:
        text, filename = written
    emit.register_source(filename, text)
    _SOURCES[filename] = (text, user_file)
    exec(compile(text, filename, "exec"), ns)
    if key is not None:
        for fdef in ast.parse(text).body:
            if isinstance(fdef, ast.FunctionDef) and fdef.decorator_list:
                ns[fdef.name].adsrc_cache_key = key         # what the kernels calling it are cached under
    return ns, text


def _callees(unit, compiled, stack, shown):
    """Compile the units `unit` calls (their vjp and pullback functions), depth first:
    {python fn: (kernel, the Live values it takes first)}."""
    out = {}
    for c in unit.callees:
        if c in stack:
            refuse(f"the recursive call to `{c.lowered.uf.name}`", c.lowered.uf.filename,
                   "Write the recursion as a loop, or use backend='numpy' (the default) for this function.")
        if c not in compiled:
            user_file = c.lowered.uf.filename
            ns, calls = _namespace(c, compiled, stack + (c,), shown, user_file)
            text, chosen = _threaded(c, ns, calls, user_file)
            ns, shown[c] = _load(_rewritten(text, ast.parse(text), ns), c, user_file, ns)
            compiled[c] = {f: (ns[f.__name__], [live for live, _ in chosen]) for f in (c.fn, c.bwd) if f is not None}
        out.update(compiled[c])
    return out


def _threaded(unit, ns, calls, user_file):
    """The unit's text, checked for helpers numba has no version of, with the user's globals and closure values
    it reads passed in (live_names.py): (text, [(Live, parameter)])."""
    tree = ast.parse(unit.text)
    _check_helpers(tree, ns, unit.text, user_file)
    functions = [f for f in (unit.fn, unit.bwd) if f is not None]
    own = [live_names.entry(name, functions) for name in live_names.own_names(tree, ns)]
    return live_names.thread(unit.text, tree, own, calls)


def _namespace(unit, compiled, stack, shown, user_file):
    """The names a unit's functions read (globals and closure values), with helpers and the functions of the
    units it calls replaced by their numba versions; and {name: the Live values its kernel takes first} of
    those."""
    ns = {}
    for fn in (unit.fn, unit.bwd):
        if fn is not None:
            ns.update(fn.__globals__)
            ns.update((n, c.cell_contents) for n, c in zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    for name, helper in helpers.SUPPORTED.items():
        if name in ns and ns[name] is runtime.HELPERS.get(name):
            ns[name] = helper       # the overloaded function, not the wrappers (complex projection, xp/dispatch.py)
    for name, value in list(ns.items()):
        if value is facade.NUMPY:
            ns[name] = np           # NumPy itself, not the facade that dispatches on array-API arrays
        elif value is runtime.HELPERS["UNDEFINED"] and name in live_names.FROZEN:
            ns[name] = None         # a name with no value yet (before a loop that binds it): numba types it Optional
    kernels = _callees(unit, compiled, stack, shown)
    calls = {}
    for name, value in list(ns.items()):
        if callable(value) and value in kernels:
            ns[name], calls[name] = kernels[value]
    return ns, calls


def _boundary(fdef, original, lines, reads):
    """Rename fdef (in lines) to `<name>_kernel`, its grad_output calls moved out; the lines of the Python
    function of fdef's name (with original's parameters) that calls the kernel, passing `reads` first, and
    hands out the gradients."""
    name, kname = fdef.name, fdef.name + "_kernel"
    args = original.args
    kernel_result, boundary_result = _split_return(
        fdef, {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs})
    if kernel_result is not None:
        ret = fdef.body[-1]
        first = lines[ret.lineno - 1]
        indent = first[:len(first) - len(first.lstrip())]
        lines[ret.lineno - 1:ret.end_lineno] = [f"{indent}return {kernel_result}"]
    lines[fdef.lineno - 1] = lines[fdef.lineno - 1].replace(f"def {name}(", f"def {kname}(", 1)
    call_args = ", ".join(reads + [a.arg for a in args.posonlyargs + args.args]) + \
        "".join(f", {a.arg}={a.arg}" for a in args.kwonlyargs)
    return [f"def {name}({ast.unparse(args)}):",
            "    # the compiled kernel above, then each gradient given its argument's type, shape and dtype"
            if kernel_result is not None else "    # the compiled kernel above",
            *(["    # (the globals and closure values it reads are passed when it runs: numba would freeze them)"]
              if reads else []),
            "    try:",
            f"        out = {kname}({call_args})",
            "    except Exception as e:",
            "        if numba_failed(e):",
            f"            raise compile_error(e, {kname}) from None",
            "        raise",
            f"    return {boundary_result if boundary_result is not None else 'out'}"]


def compile_kernel(unit, user_file):
    """The unit's functions compiled by numba, each called through a Python function of its name that hands
    out the gradients: (unit.fn's, unit.bwd's or None, the source numba compiles, {unit called: its source})."""
    shown = {}
    ns, calls = _namespace(unit, {}, (unit,), shown, user_file)
    text, chosen = _threaded(unit, ns, calls, user_file)
    reads = live_names.reads(chosen, ns)
    lines = text.splitlines()
    boundaries = []
    pairs = list(zip(ast.parse(text).body, ast.parse(unit.text).body))
    for fdef, original in reversed(pairs):         # from the last: the line numbers above stay valid
        boundaries = _boundary(fdef, original, lines, reads) + ["", ""] + boundaries
    text = _rewritten("\n".join(lines), ast.parse("\n".join(lines)), ns) + "\n\n" + "\n".join(boundaries[:-2]) + "\n"
    ns, text = _load(text, unit, user_file, ns)
    fn = ns[unit.fn.__name__]
    fn.__defaults__, fn.__kwdefaults__ = unit.fn.__defaults__, unit.fn.__kwdefaults__
    return fn, ns[unit.bwd.__name__] if unit.bwd is not None else None, text, shown


def _numba_failed(e):
    """Did numba fail to compile (or to run) the kernel, rather than the user's code raise when it ran?"""
    if isinstance(e, _NUMBA_ERRORS):
        return True
    tb = e.__traceback__
    while tb is not None:
        if _COMPILER in tb.tb_frame.f_code.co_filename:
            return True         # an internal error of numba's compiler (an assertion in its lowering...)
        tb = tb.tb_next
    return False


def _compile_error(e, kernel=None):
    """The BackendError for numba's error e, naming the user's line the failing generated line comes from (or,
    for a value numba cannot take, the line that reads it)."""
    message = _ANSI.sub("", str(e))
    found = [(m.group(1), int(m.group(2))) for m in re.finditer(r'File "([^"]*)", line (\d+)', message)
             if m.group(1) in _SOURCES]
    argument = _argument(message, kernel)
    if argument is not None:
        where, reason = argument
    else:
        if found:
            filename, lineno = found[-1]
            text, user_file = _SOURCES[filename]
            where = user_line(text, lineno, user_file)
        elif isinstance(e, NotImplementedError):
            where = "a line of the compiled code, when it ran (numba does not say which)"
        else:
            where = "(numba did not say which line)"
        lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
        reason = next((ln for ln in lines if not ln.startswith(("Failed in", "-", "File "))), "")
        reason = f"{type(e).__name__}: {reason}" if isinstance(e, NotImplementedError) else reason or type(e).__name__
    hint = "Use backend='numpy' (the default) for this function"
    hint += (", or change the line so that each name holds one kind of value (a float, or an array of one "
             "rank).") if "unify" in reason else "."
    return BackendError(f"adsrc's numba backend cannot compile the gradient\n  at {where}\nnumba: {reason}\n{hint}")


def _argument(message, kernel):
    """(where, reason) when numba could not take an argument of the kernel: the user's line that first reads
    it, and what numba said of it; else None."""
    m = re.search(r"- argument (\d+): (.*)", message)
    code = getattr(getattr(kernel, "py_func", None), "__code__", None)
    if (m is None or "typing of argument" not in message or code is None or code.co_filename not in _SOURCES
            or int(m.group(1)) >= code.co_argcount):
        return None
    name = code.co_varnames[int(m.group(1))]
    text, user_file = _SOURCES[code.co_filename]
    lines = text.splitlines()
    reads = re.compile(rf"\b{re.escape(name)}\b")
    body = next(k for k in range(code.co_firstlineno - 1, len(lines)) if lines[k].startswith("def ")) + 1
    lineno = next((k + 1 for k in range(body, len(lines)) if reads.search(lines[k])
                   and not lines[k].lstrip().startswith("#")), body)
    return user_line(text, lineno, user_file), f"it cannot take `{name}`: {m.group(2).strip()}"
