"""In-place updates: `x[i] = v`, `x[i] += v`, `a += b` and `lst.append(v)`.

adsrc makes them functional (`x = index_update(x, i, v)` copies `x`), which
computes the same values as Python as long as no other name that may share
memory with `x` is read afterwards. `Aliases` finds the names that may share
memory (a flow-insensitive, conservative union of names assigned from one
another, from views, from containers holding them and from calls taking
them) and `check` raises a TransformError when such a name is still live.
"""

import gast

from .. import astutil
from .liveness import appended_list

# Callables and methods whose result may be a view of (or contain) their argument.
VIEW_NAMES = frozenset({
    "reshape", "transpose", "T", "ravel", "squeeze", "expand_dims", "swapaxes", "moveaxis",
    "diagonal", "broadcast_to", "asarray", "asanyarray", "atleast_1d", "atleast_2d", "atleast_3d",
    "real", "imag", "flip", "fliplr", "flipud", "rot90", "split", "array_split", "hsplit", "vsplit",
    "dsplit", "view", "squeeze", "broadcast_arrays", "stop_gradient", "rollaxis", "matrix_transpose",
    "permute_dims", "unstack", "lib.stride_tricks.as_strided", "float", "sequence",
})


class Aliases:
    """Union-find over local names that may share memory."""

    def __init__(self, fdef, is_local):
        self.is_local = is_local
        self.parent = {}
        for s in _walk_stmts(fdef.body):
            self._statement(s)

    def find(self, n):
        while self.parent.get(n, n) != n:
            n = self.parent[n]
        return n

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)

    def group(self, n):
        root = self.find(n)
        return {m for m in set(self.parent) | {n} if self.find(m) == root}

    def _link(self, targets, sources):
        for n in targets:
            for m in sources:
                if self.is_local(m):
                    self.union(n, m)

    def _statement(self, s):
        if isinstance(s, gast.Assign):
            t = s.targets[0]
            if isinstance(t, gast.Subscript):
                self._link([t.value.id], astutil.names_loaded(s.value))
            else:
                self._link(astutil.target_names(astutil.target_spec(t)), _may_alias(s.value))
        elif isinstance(s, gast.Expr):
            lst = appended_list(s)
            if lst:
                self._link([lst], astutil.names_loaded(s.value.args[0]))
        elif isinstance(s, gast.For):
            self._link(astutil.target_names(astutil.target_spec(s.target)), astutil.names_loaded(s.iter))


def _walk_stmts(stmts):
    for s in stmts:
        yield s
        if isinstance(s, gast.FunctionDef):
            continue
        for field in ("body", "orelse"):
            yield from _walk_stmts(getattr(s, field, None) or [])


def _may_alias(v):
    """Names whose memory the value of expression v may share."""
    if isinstance(v, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.BoolOp, gast.Constant)):
        return set()
    if not isinstance(v, gast.Call):
        return astutil.names_loaded(v)
    f = v.func
    args = set()
    for a in v.args:
        args |= astutil.names_loaded(a)
    for k in v.keywords:
        args |= astutil.names_loaded(k.value)
    fname = f.attr if isinstance(f, gast.Attribute) else getattr(f, "id", None)
    is_method = isinstance(f, gast.Attribute)
    receiver = astutil.names_loaded(f.value) if is_method else set()
    if fname in VIEW_NAMES or not _is_known_fresh(fname, is_method):
        return args | receiver
    return set()


def _is_known_fresh(fname, is_method):
    """A rule-known callable that always returns a new array."""
    from .. import rules as rules_mod
    if is_method and fname in rules_mod.METHODS:
        return True
    return fname in rules_mod.FRESH_NAMES


def shared_live(stmt, base, aliases):
    """A name other than base that may share base's memory and is read after stmt (or None)."""
    live = getattr(stmt, "live_out", set())
    shared = sorted((aliases.group(base) - {base}) & live)
    return shared[0] if shared else None


def alias_error(uf, stmt, base, other, what):
    return uf.error(
        stmt, f"{what} changes `{base}` in place, but `{other}` may share its memory and is used "
              "afterwards; adsrc cannot differentiate through that aliasing.",
        f"Make an explicit copy first (`{base} = {base}.copy()` or `{other} = {other}.copy()`), "
        "or build a new value instead of updating in place.")


def check(uf, stmt, base, aliases, what):
    """Raise if a name sharing memory with `base` is read after `stmt`."""
    other = shared_live(stmt, base, aliases)
    if other is not None:
        raise alias_error(uf, stmt, base, other, what)
