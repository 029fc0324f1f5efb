"""Liveness on normalized, jump-free Python: which names are read later.

`annotate(body)` sets `live_out` on every statement (names read after it)
and `header_live` on loops (names live at the top of each iteration). The
lowering uses them to decide what an `if` outputs and what a loop carries,
and `inplace.py` uses them to decide whether an alias is read after an
in-place update.
"""

import gast

from .. import astutil
from ..frontend import local_names


def uses(node):
    return astutil.names_loaded(node)


def def_free_names(fdef):
    """Names a nested def reads from its enclosing scope."""
    return astutil.names_loaded(fdef) - local_names(fdef)


def assigned(stmts):
    """Names assigned by statements (nested blocks included, nested defs' names only)."""
    out = []
    seen = set()

    def add(n):
        if n not in seen:
            seen.add(n)
            out.append(n)

    def visit(s):
        if isinstance(s, gast.FunctionDef):
            add(s.name)
            return
        if isinstance(s, gast.Assign):
            t = s.targets[0]
            if isinstance(t, gast.Subscript):
                add(t.value.id)
            else:
                for n in astutil.target_names(astutil.target_spec(t)):
                    add(n)
            return
        if isinstance(s, gast.Expr):
            lst = appended_list(s)
            if lst:
                add(lst)
            return
        if isinstance(s, gast.For):
            for n in astutil.target_names(astutil.target_spec(s.target)):
                add(n)
        for field in ("body", "orelse"):
            for c in getattr(s, field, None) or []:
                visit(c)

    for s in stmts:
        visit(s)
    return out


def appended_list(s):
    """`lst` if s is the statement `lst.append(v)` on a plain name, else None."""
    receiver = append_receiver(s.value)
    return receiver.id if isinstance(receiver, gast.Name) else None


def append_receiver(call):
    """The expression `r` if call is `r.append(v)` (one plain argument), else None."""
    if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and call.func.attr == "append" \
            and len(call.args) == 1 and not call.keywords and not isinstance(call.args[0], gast.Starred):
        return call.func.value
    return None


def annotate(stmts, live_out=frozenset()):
    """Annotate statements in place; return the names live before them."""
    live = set(live_out)
    for s in reversed(stmts):
        s.live_out = set(live)
        live = _live_in(s, live)
    return live


def _live_in(s, live):
    if isinstance(s, gast.Assign):
        t = s.targets[0]
        if isinstance(t, gast.Subscript):
            return live | uses(t) | uses(s.value)
        return (live - set(astutil.target_names(astutil.target_spec(t)))) | uses(s.value)
    if isinstance(s, gast.If):
        return uses(s.test) | annotate(s.body, live) | annotate(s.orelse, live)
    if isinstance(s, gast.For):
        targets = set(astutil.target_names(astutil.target_spec(s.target)))
        header = set(live)
        if getattr(s, "break_flag", None):
            header.add(s.break_flag)
        while True:
            new = header | (annotate(s.body, header) - targets)
            if new == header:
                break
            header = new
        s.header_live = header
        return header | uses(s.iter)
    if isinstance(s, gast.While):
        header = set(live) | uses(s.test)
        while True:
            new = header | annotate(s.body, header)
            if new == header:
                break
            header = new
        s.header_live = header
        return header
    if isinstance(s, gast.FunctionDef):
        return (live - {s.name}) | def_free_names(s)
    if isinstance(s, gast.Return):
        return uses(s.value) if s.value is not None else set()
    return live | uses(s)
