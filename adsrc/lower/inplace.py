"""In-place updates: `x[i] = v`, `x[i] += v`, `a += b` and `lst.append(v)`.

adsrc makes them functional (`x = index_update(x, i, v)` copies `x`), which
computes the same values as Python as long as no other name that may share
memory with `x` is read afterwards. `Aliases` finds the names that may share
memory (a flow-insensitive, conservative union of names assigned from one
another, from views, from containers holding them and from calls taking
them) and `check` raises a TransformError when such a name is still live.
"""

import collections

import gast

from .. import astutil
from .liveness import appended_list

# Callables and methods whose result may be a view of (or contain) their argument.
VIEW_NAMES = frozenset({
    "reshape", "transpose", "T", "ravel", "squeeze", "expand_dims", "swapaxes", "moveaxis",
    "diagonal", "broadcast_to", "asarray", "asanyarray", "atleast_1d", "atleast_2d", "atleast_3d",
    "real", "imag", "flip", "fliplr", "flipud", "rot90", "split", "array_split", "hsplit", "vsplit",
    "dsplit", "view", "squeeze", "broadcast_arrays", "stop_gradient", "rollaxis", "matrix_transpose",
    "dict_values", "dict_items", "dict_keys",
    "permute_dims", "unstack", "lib.stride_tricks.as_strided", "float", "sequence",
    "einsum", "diag", "conj", "conjugate", "diff", "matrix_transpose", "squeeze",
})


class Aliases:
    """Which local names may reference the object (or share the buffer) of another.

    Edges b -> a mean "b's value may reference a's": 'same' (b = a, or a call
    that may return a), 'contains' (a container holding a), 'view' (b = a[i],
    a.T, ...: an array view of a, or an element of a sequence).
    """

    def __init__(self, fdef, is_local):
        self.is_local = is_local
        self.edges = collections.defaultdict(set)
        # what a nested function may return: any name it reads (closures, default values)
        self.def_reads = {s.name: astutil.names_loaded(s) for s in walk_statements(fdef.body)
                          if isinstance(s, gast.FunctionDef)}
        for s in walk_statements(fdef.body):
            self._statement(s)

    def _edge(self, b, a, kind, both=False):
        if b != a and self.is_local(a) and self.is_local(b):
            self.edges[b].add((a, kind))
            if both:
                self.edges[a].add((b, kind))

    def affected(self, x, through_views=True):
        """Names other than x whose value may change when x's object is changed in place."""
        reverse = collections.defaultdict(set)
        for b, targets in self.edges.items():
            for a, kind in targets:
                if through_views or kind != "view":
                    reverse[a].add(b)
        seen, stack = {x}, [x]
        while stack:
            for b in reverse[stack.pop()]:
                if b not in seen:
                    seen.add(b)
                    stack.append(b)
        return seen - {x}

    def held(self, x):
        """Names whose objects x may hold or be (following edges forward)."""
        seen, stack = set(), [x]
        while stack:
            for a, _ in self.edges[stack.pop()]:
                if a not in seen and a != x:
                    seen.add(a)
                    stack.append(a)
        return seen

    def _statement(self, s):
        if isinstance(s, gast.Assign):
            t = s.targets[0]
            if isinstance(t, gast.Subscript):
                for m in astutil.names_loaded(s.value):
                    self._edge(t.value.id, m, "contains")
                return
            targets = astutil.target_names(astutil.target_spec(t))
            unpack = not isinstance(t, gast.Name)
            refs = _references(s.value)
            if isinstance(s.value, gast.Call) and getattr(s.value.func, "id", None) in self.def_reads:
                refs |= {(n, "same") for n in self.def_reads[s.value.func.id]}
            for a, kind in refs:
                for b in targets:
                    self._edge(b, a, "view" if unpack else kind, both=kind in ("same", "view") or unpack)
        elif isinstance(s, gast.Expr):
            lst = appended_list(s)
            if lst:
                for m in astutil.names_loaded(s.value.args[0]):
                    self._edge(lst, m, "contains")
        elif isinstance(s, gast.For):
            for b in astutil.target_names(astutil.target_spec(s.target)):
                for a in astutil.names_loaded(s.iter):
                    self._edge(b, a, "view", both=True)


def walk_statements(stmts):
    """Statements of a block and its nested blocks (not entering nested functions)."""
    for s in stmts:
        yield s
        if isinstance(s, gast.FunctionDef):
            continue
        for field in ("body", "orelse"):
            yield from walk_statements(getattr(s, field, None) or [])


def _references(v):
    """(name, kind) pairs: what the value of expression v may reference."""
    if isinstance(v, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.BoolOp, gast.Constant)):
        return set()
    if isinstance(v, gast.Name):
        return {(v.id, "same")}
    if isinstance(v, (gast.Tuple, gast.List, gast.Dict, gast.Set)):
        return {(n, "contains") for n in astutil.names_loaded(v)}
    if isinstance(v, (gast.Subscript, gast.Attribute)):
        return {(n, "view") for n in astutil.names_loaded(v.value)}
    if not isinstance(v, gast.Call):
        return {(n, "same") for n in astutil.names_loaded(v)}
    f = v.func
    args = set()
    for a in v.args:
        args |= astutil.names_loaded(a)
    for k in v.keywords:
        args |= astutil.names_loaded(k.value)
    fname = f.attr if isinstance(f, gast.Attribute) else getattr(f, "id", None)
    is_method = isinstance(f, gast.Attribute)
    receiver = astutil.names_loaded(f.value) if is_method else set()
    if fname in VIEW_NAMES:
        return {(n, "view") for n in args | receiver}
    if _is_known_fresh(fname, is_method):
        return set()
    return {(n, "same") for n in args | receiver}


def _is_known_fresh(fname, is_method):
    """A rule-known callable that always returns a new array."""
    from .. import rules as rules_mod
    if is_method and fname in rules_mod.METHODS:
        return not rules_mod.METHODS[fname].view      # d.get(k) is an object d holds
    return fname in rules_mod.FRESH_NAMES


def shared_live(stmt, base, aliases, through_views=True):
    """A name other than base that may see base's in-place change and is read after stmt (or None).

    Containers the change is stored back into right after (`write_back`) do not count.
    """
    live = getattr(stmt, "live_out", set()) - set(getattr(stmt, "write_back", ()))
    shared = sorted(aliases.affected(base, through_views) & live)
    return shared[0] if shared else None


def item_shared_live(stmt, base, item, aliases):
    """A live name that may hold the object `item` (read from container `base`) itself, or None.

    `base[i] += v` changes the item in place when it is an array: the names that
    may reference the objects `base` holds see that change.
    """
    live = getattr(stmt, "live_out", set()) - {base, item} - astutil.names_stored(stmt)
    shared = set()
    for a in aliases.held(base):
        shared |= {a} | aliases.affected(a)
    shared = sorted(shared & live)
    return shared[0] if shared else None


def alias_error(uf, stmt, base, other, what):
    return uf.error(
        stmt, f"{what} changes `{base}` in place, but `{other}` may share its memory and is used "
              "afterwards; adsrc cannot differentiate through that aliasing.",
        f"Make an explicit copy first (`{base} = {base}.copy()` or `{other} = {other}.copy()`), "
        "or build a new value instead of updating in place.")


def check(uf, stmt, base, aliases, what, through_views=True):
    """Raise if a name sharing memory with `base` is read after `stmt`."""
    other = shared_live(stmt, base, aliases, through_views)
    if other is not None:
        raise alias_error(uf, stmt, base, other, what)
