"""Which in-place changes of a function reach objects its caller passed in?

Inside differentiated code adsrc makes in-place updates functional
(`buf[i] = v` becomes `buf = index_update(buf, i, v)`). That is exact within
one function, but when a function called from differentiated code changes an
argument in place, the caller would never see the change in the generated
code. `parameter_mutations` finds such changes, flow-sensitively (after
`buf = buf.copy()` they are local), so that a call whose arguments are
differentiated can be refused at the caller's line.

Changes found for certain: item assignment, `.append`, and NumPy functions
that write into an argument (`np.copyto`, `np.fill_diagonal`, `ufunc.at`,
`out=`...). `a += b` changes arrays but rebinds numbers, so those statements
are only marked (`param_inplace`), for a check when the code runs.
"""

import gast
import numpy as np

from .. import astutil
from .inplace import _references
from .classify import dotted
from .liveness import appended_list

# NumPy functions that write into their first argument.
WRITING_FUNCTIONS = frozenset({np.copyto, np.fill_diagonal, np.put, np.place, np.putmask,
                               np.put_along_axis, np.random.shuffle})


def writes_into(func, call):
    """The argument node a call to `func` writes into, or None."""
    for k in call.keywords:
        if k.arg == "out":
            return k.value
    if not call.args:
        return None
    if func in WRITING_FUNCTIONS:
        return call.args[0]
    # ufunc methods that write in place: np.add.at(a, idx, b)
    owner = getattr(func, "__self__", None)
    if isinstance(owner, np.ufunc) and getattr(func, "__name__", None) == "at":
        return call.args[0]
    return None


class _State:
    """For each name, the parameters its object may be (or be part of), and those it may contain."""

    def __init__(self, is_=None, holds=None):
        self.is_ = dict(is_ or {})
        self.holds = dict(holds or {})

    def copy(self):
        return _State(self.is_, self.holds)

    def merge(self, other):
        changed = False
        for mine, theirs in ((self.is_, other.is_), (self.holds, other.holds)):
            for n, ps in theirs.items():
                if not ps <= mine.get(n, set()):
                    mine[n] = mine.get(n, set()) | ps
                    changed = True
        return changed

    def of(self, name):
        return self.is_.get(name, set())


def parameter_mutations(fdef, resolve):
    """[(parameter, statement, what)] for changes that reach a parameter's object.

    `resolve(func_node)` returns the object a call's function means (or None).
    Marks augmented assignments that may change a parameter's array with
    `stmt.param_inplace = parameter`.
    """
    params = [p.id for p in list(fdef.args.posonlyargs) + list(fdef.args.args) + list(fdef.args.kwonlyargs)]
    state = _State({p: {p} for p in params})
    found = []
    _block(fdef.body, state, found, resolve)
    unique = {(p, id(s)): (p, s, what) for p, s, what in found}     # loops visit statements repeatedly
    return list(unique.values())


def _block(stmts, state, found, resolve):
    for s in stmts:
        _statement(s, state, found, resolve)


def _statement(s, state, found, resolve):
    if isinstance(s, gast.Assign):
        _assign(s, state, found, resolve)
    elif isinstance(s, gast.Expr):
        _call_effect(s, s.value, state, found, resolve)
        lst = appended_list(s)
        if lst is not None:
            _record(found, state.of(lst), s, f"`{lst}.append(...)`")
            _contain(state, lst, s.value.args[0])
    elif isinstance(s, gast.If):
        other = state.copy()
        _block(s.body, state, found, resolve)
        _block(s.orelse, other, found, resolve)
        state.merge(other)
    elif isinstance(s, (gast.For, gast.While)):
        if isinstance(s, gast.For):
            for t in astutil.target_names(astutil.target_spec(s.target)):
                _bind(state, t, [(a, "view") for a in astutil.names_loaded(s.iter)])
        acc = state.copy()
        for _ in range(10):             # until what names may hold stops growing
            trial = acc.copy()
            _block(s.body, trial, found, resolve)
            if not acc.merge(trial):
                break
        state.is_, state.holds = acc.is_, acc.holds
        _block(s.orelse, state, found, resolve)


def _assign(s, state, found, resolve):
    t = s.targets[0]
    if isinstance(s.value, gast.Call):
        _call_effect(s, s.value, state, found, resolve)
    if isinstance(t, gast.Subscript):
        base = t.value.id
        _record(found, state.of(base), s, f"assigning to `{base}[...]`")
        _contain(state, base, s.value)
        return
    if getattr(s, "augmented", False) and isinstance(t, gast.Name):
        hit = state.of(t.id)
        if hit:
            s.param_inplace = sorted(hit)[0]
        return                          # an array keeps its object; a number is rebound
    refs = _references(s.value)
    if isinstance(t, gast.Name):
        _bind(state, t.id, refs)
    else:
        for name in astutil.target_names(astutil.target_spec(t)):
            _bind(state, name, [(a, "view") for a, _ in refs])


def _bind(state, name, refs):
    is_, holds = set(), set()
    for a, kind in refs:
        if kind == "contains":
            holds |= state.of(a) | state.holds.get(a, set())
        else:
            is_ |= state.of(a) | (state.holds.get(a, set()) if kind == "view" else set())
            holds |= state.holds.get(a, set())
    state.is_[name], state.holds[name] = is_, holds


def _contain(state, container, value):
    for a in astutil.names_loaded(value):
        state.holds[container] = state.holds.get(container, set()) | state.of(a) | state.holds.get(a, set())


def _call_effect(s, call, state, found, resolve):
    if not isinstance(call, gast.Call):
        return
    target = writes_into(resolve(call.func), call)
    if isinstance(target, gast.Name):
        _record(found, state.of(target.id), s, f"`{dotted(call.func)}(...)` writing into `{target.id}`")


def _record(found, params, s, what):
    for p in sorted(params):
        found.append((p, s, what))
