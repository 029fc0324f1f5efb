"""Errors that point at the user's file and line.

Every error adsrc raises about user code names the file, the line, shows the
line with a caret under the construct, and says what to do instead.
"""

import linecache


class TransformError(Exception):
    """adsrc cannot transform (or differentiate) a piece of user code."""


class Location:
    """A position in user source: file, 1-based line, 0-based column."""

    __slots__ = ("filename", "lineno", "col", "function")

    def __init__(self, filename, lineno, col=None, function=None):
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.function = function

    def source_line(self):
        return linecache.getline(self.filename, self.lineno).rstrip("\n") if self.lineno else ""

    def __str__(self):
        return f"{self.filename}, line {self.lineno}"


def format_location(loc):
    """'File ..., line N, in f' followed by the line and a caret."""
    head = f'  File "{loc.filename}", line {loc.lineno}'
    if loc.function:
        head += f", in {loc.function}"
    line = loc.source_line()
    if not line:
        return head
    text = line.lstrip()
    indent = len(line) - len(text)
    out = [head, "    " + text]
    if loc.col is not None and loc.col >= indent:
        out.append("    " + " " * (loc.col - indent) + "^")
    return "\n".join(out)


def transform_error(loc, problem, hint=None):
    """Build a TransformError: what went wrong, where, and what to do instead."""
    parts = [problem]
    if loc is not None:
        parts.append(format_location(loc))
    if hint:
        parts.append(hint)
    return TransformError("\n".join(parts))


class CalleeError(TransformError):
    """A TransformError inside a function the user's code calls, told from the user's call.

    inner: the problem where it happened (maybe library code); path: the calls
    leading there from the user's call.
    """

    def __init__(self, message, inner, path):
        super().__init__(message)
        self.inner = inner
        self.path = path


def in_call(error, loc, callee_name):
    """A TransformError raised while transforming a function the user's code calls, told from that call."""
    short = callee_name.rsplit(".", 1)[-1]
    if isinstance(error, CalleeError):
        inner, path = error.inner, [short] + error.path
    else:
        inner, path = str(error), [short]
    through = f" (through {' -> '.join(f'`{p}`' for p in path)})" if len(path) > 1 else ""
    hint = (f"Inside it{through}: {inner}\n"
            f"If `{short}` is library code, give it a derivative rule instead of letting adsrc read its source: "
            f"`adsrc.defvjp({short}, ...)`, or call it inside a function decorated with `@adsrc.custom_vjp`.")
    message = "\n".join(p for p in (f"adsrc cannot differentiate the call to `{callee_name}`.",
                                      format_location(loc) if loc is not None else None, hint) if p)
    return CalleeError(message, inner, path)
