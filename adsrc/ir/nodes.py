"""The IR: the one contract between adsrc's passes.

A function is a list of statements. Each kind of statement is a class that
declares its fields; no pass adds attributes to them, and a pass that needs
facts about statements keeps them in its own result object (keyed by the
statement), so the IR alone says what the program computes.

Operands are gast nodes. An *atom* is a `gast.Name` or a `gast.Constant`.
Every operation assigns its value to a *target*: a name, or a nested tuple
of names for unpacking.

The IR has three stages, checked by `ir/verify.py`:

* **structured** (from `lowering/normalize.py`): operations, the in-place
  changes `SetItem`, `InplaceOp` and `MutatingCall`, and Python's
  structured control flow `If`, `For` (over a `range`), `While`, `Break`,
  `Continue`, `Return`;
* **functional** (after `lowering/jumps.py` and `lowering/functionalize.py`):
  no jumps and no in-place changes; the function ends in one `result` atom;
* **lowered** (after `lowering/structure.py` and `lowering/ssa.py`): `If`,
  `For` and `While` become `Cond`, `Scan` and `WhileLoop` with explicit
  carried values, and every name is assigned once (once per iteration
  inside a loop).
"""

from dataclasses import dataclass, field
from typing import Any, Optional, Union

import gast

Target = Union[str, tuple]


@dataclass(frozen=True, slots=True)
class Loc:
    """Where a statement came from: the user's statement line (for comments) and its operation (for carets)."""
    line: Optional[int]
    col: int = 0
    op_line: Optional[int] = None

    @property
    def lineno(self):          # what UserFunction.error reads
        return self.op_line or self.line

    @property
    def col_offset(self):
        return self.col


@dataclass(eq=False, slots=True, kw_only=True)
class Stmt:
    loc: Loc = Loc(None)

    def __clone__(self, memo):
        """A deep copy for astutil.clone (rules, callees and locations are shared)."""
        from ..astutil import _SHARED, _clone
        t = type(self)
        new = t.__new__(t)
        memo[id(self)] = new
        for f in _fields_of(t):
            v = getattr(self, f)
            object.__setattr__(new, f, v if type(v) in _SHARED else _clone(v, memo))
        return new


def _fields_of(t, cache={}):
    names = cache.get(t)
    if names is None:
        from dataclasses import fields
        names = cache[t] = tuple(f.name for f in fields(t))
    return names


# -- operations: `target = <one operation>` -------------------------------------------------------

@dataclass(eq=False, slots=True)
class Op(Stmt):
    target: Target
    expr: gast.expr


@dataclass(eq=False, slots=True)
class Copy(Op):
    """target = name"""


@dataclass(eq=False, slots=True)
class Const(Op):
    """A value that is never differentiated (a literal, a comparison, `x.shape`, `np.zeros(n)`...).

    fresh: the value is a new array nothing else refers to (NumPy constructors).
    """
    fresh: bool = False


@dataclass(eq=False, slots=True)
class Apply(Op):
    """A call, operator or attribute with a derivative rule.

    bound: the rule's parameters -> operand nodes inside `expr` (a list for *args).
    method_of: the receiver when an ndarray method rule was chosen for `v.method(...)`.
    """
    rule: Any
    bound: dict
    method_of: Optional[gast.expr] = None


@dataclass(eq=False, slots=True)
class CallUser(Op):
    """A call to a Python function adsrc transforms from its source.

    receiver: the object a method is called on (its first argument), if any.
    returns_params: parameters the callee changes in place; the call then returns
    `(value, *their new values)` (set by lowering/functionalize.py).
    receiver_value: the receiver's object when it is known when transforming (a bound
    method's `__self__`, a callable object), else None: the callee is specialized to it.
    checkpoint: the `adsrc.checkpoint` object the call goes through, if any: reverse mode then
    keeps only the arguments and runs the callee forward again backward (lowering/checkpoint.py).
    classes: ((position, class), ...) for arguments whose class the caller knows (an object it made, a
    parameter of a known class): position counts the receiver first, or is a keyword's name.
    fields: ((position, ((field, function), ...)), ...) for arguments whose fields hold functions the caller
    knows (`Dense(W, act=np.tanh)` made there): the callee reads `self.act` as that function (checked).
    field_classes: ((position, ((field, class, element class, its field classes), ...)), ...) for arguments whose
    fields hold objects (or lists of objects) of classes the caller knows (`Wrap(Linear(W))` made there): the
    callee follows `self.inner(x)`.
    """
    callee: Any
    receiver: Optional[gast.expr] = None
    returns_params: tuple = ()
    receiver_value: Any = None
    checkpoint: Any = None
    classes: tuple = ()
    fields: tuple = ()
    field_classes: tuple = ()


@dataclass(eq=False, slots=True)
class CallCustom(Op):
    """A call to an `adsrc.custom_vjp` function."""
    callee: Any


@dataclass(eq=False, slots=True)
class CallLocal(Op):
    """A call to a function defined inside this one (inlined by lowering/inline.py).

    hint: what to do instead if the name called holds no function defined here (an item of a list of lambdas
    whose length is known only when the code runs, tables.py); describe: what a message calls it then (a name
    made for the function a nested factory returns: `the function that make(...) returns`)."""
    hint: Optional[str] = None
    describe: Optional[str] = None


@dataclass(eq=False, slots=True)
class GetItem(Op):
    """target = base[index] (expr is a gast.Subscript of atoms)."""


@dataclass(eq=False, slots=True)
class GetAttr(Op):
    """target = base.field: a field of a namedtuple, dataclass or object."""


@dataclass(eq=False, slots=True)
class Pack(Op):
    """A tuple, list or dict display of atoms."""


@dataclass(eq=False, slots=True)
class Update(Op):
    """target = index_update(base, index, value): a copy of base with base[index] = value.

    shared: other names shared base's object when it changed (they were brought up to
    date from the new value), so the old object must stay as it was.
    """
    shared: bool = False


@dataclass(eq=False, slots=True)
class Append(Op):
    """target = list_append(lst, value): lst + [value] (shared: as for Update)."""
    shared: bool = False


@dataclass(eq=False, slots=True)
class ScanSlice(Op):
    """target = scan_slice(xs, i): step i of every leaf of xs (adsrc.scan)."""


@dataclass(eq=False, slots=True)
class Opaque(Op):
    """A call adsrc has no rule or source for: an error if it must be differentiated.

    fresh: a call to a class, which makes a new object.
    function: the value is a function (a functools.partial): it has no cotangent of its own, and
    a call of it that adsrc cannot follow is refused where it is made if it depends on
    differentiated values.
    refusal: a call of a function whose source adsrc refused (lowering/refused_branches.py).
    dynamic: a call of a function value adsrc learns only when the code runs (`f(x)` with f an item of a
    list argument): differentiated by differentiating that value when it runs (dynamic_calls.py).
    """
    describe: str = ""
    hint: Optional[str] = None
    fresh: bool = False
    function: bool = False
    refusal: Optional[Exception] = None     # raised instead, if set: why adsrc could not follow the call
    dynamic: bool = False


OPS = (Copy, Const, Apply, CallUser, CallCustom, CallLocal, GetItem, GetAttr, Pack, Update, Append, ScanSlice, Opaque)


# -- statements without a value ----------------------------------------------------------------------

@dataclass(eq=False, slots=True)
class Effect(Stmt):
    """A call run for its effect (print, a check); never differentiated.

    writes: what it changes in place that adsrc does not own (`box.items`), if anything.
    may_change: `o.method(...)` on a local object adsrc knows nothing of: the name `o` (the method may
    store its arguments in it), and hint, what to do if they are differentiated.
    """
    expr: gast.expr
    writes: Optional[str] = None
    may_change: Optional[str] = None
    hint: Optional[str] = None


@dataclass(eq=False, slots=True)
class Raw(Stmt):
    """`assert` or `raise`, kept as written."""
    node: gast.stmt


# -- changes in place (structured stage only) ---------------------------------------------------------

@dataclass(eq=False, slots=True)
class SetItem(Stmt):
    """base[index] = value, or (attr) base.<index> = value with index a string constant."""
    base: str
    index: gast.expr
    value: gast.expr
    attr: bool = False


@dataclass(eq=False, slots=True)
class InplaceOp(Stmt):
    """target op= value: changes an array or list in place, rebinds a number.

    item_of: for Python's `base[k] op= value` (`target = base[k]`, this, then `base[k] = target`),
    the name of base: when base is an array, the write-back alone is the change.
    """
    target: str
    op: gast.operator
    value: gast.expr
    item_of: Optional[str] = None


@dataclass(eq=False, slots=True)
class MutatingCall(Stmt):
    """[target =] receiver.method(*args): list.append/extend/insert/pop, dict.update/pop/setdefault."""
    target: Optional[str]
    receiver: str
    method: str
    args: list


# -- structured control flow (structured stage only) -------------------------------------------------

@dataclass(eq=False, slots=True)
class RangeIter:
    """range(*args): what every `for` loop iterates after normalization."""
    args: list

    __clone__ = Stmt.__clone__


@dataclass(eq=False, slots=True)
class If(Stmt):
    """if test: body else: orelse.

    catches: a `try` (lowering/trys.py): the exception types (an atom), and test is a name that a Const
    binds to True before the If. The body then runs first, and if it raises one of those exceptions, the
    test's name is set to False (and `caught`, a name bound to None before, to the exception), and orelse
    runs, as the handler. The body never changes what existed before it except in its last statement, so
    a failed body leaves nothing the handler or later code reads.
    """
    test: gast.expr
    body: list
    orelse: list
    catches: Optional[gast.expr] = None
    caught: Optional[str] = None


@dataclass(eq=False, slots=True)
class For(Stmt):
    """for target in range(...): body [else: orelse].  stop: a flag that ends the loop once set (a `break`)."""
    target: Target
    iter: RangeIter
    body: list
    stop: Optional[str] = None
    orelse: list = field(default_factory=list)


@dataclass(eq=False, slots=True)
class While(Stmt):
    """while True: test_body; if not test: break; body  [else: orelse, when the loop ends without break]"""
    test_body: list
    test: gast.expr
    body: list
    orelse: list = field(default_factory=list)


@dataclass(eq=False, slots=True)
class Break(Stmt):
    pass


@dataclass(eq=False, slots=True)
class Continue(Stmt):
    pass


@dataclass(eq=False, slots=True)
class Return(Stmt):
    value: gast.expr


@dataclass(eq=False, slots=True)
class Def(Stmt):
    """A function defined inside the differentiated function (inlined where it is called).

    written: {name: the user's expression} of the default values computed where the def runs."""
    name: str
    fn: Any
    written: Optional[dict] = None


# -- lowered control flow -------------------------------------------------------------------------------

@dataclass(eq=False, slots=True)
class Branch:
    body: list
    results: list           # atoms, one per output of the Cond

    __clone__ = Stmt.__clone__


@dataclass(eq=False, slots=True)
class Cond(Stmt):
    """A lowered If; catches and caught as If's (a `try`: the true branch runs first, pred is set by it)."""
    pred: gast.expr
    true: Branch
    false: Branch
    outs: list
    catches: Optional[gast.expr] = None
    caught: Optional[str] = None


@dataclass(eq=False, slots=True)
class Scan(Stmt):
    """A `for` loop over `xs` (a range(...) call) with item bound to `item` (a name or None).

    carry: the carried names inside the body; init: their values before the loop (atoms);
    results: their values at the end of an iteration; outs: their names after the loop.
    stop: the index in carry of a flag after which the remaining iterations do nothing.
    """
    carry: list
    init: list
    item: Optional[str]
    xs: gast.expr
    body: list
    results: list
    outs: list
    stop: Optional[int] = None


@dataclass(eq=False, slots=True)
class WhileLoop(Stmt):
    """A `while` loop: before each iteration test_body runs, then the loop ends unless `test`."""
    carry: list
    init: list
    test_body: list
    test: gast.expr
    body: list
    results: list
    outs: list


LOOPS = (Scan, WhileLoop)


@dataclass(eq=False, slots=True)
class Function:
    """A function: parameters as written, a body, and (after jumps are removed) one result atom.

    bindings: objects generated code refers to by name (a functools.partial's bound values...).
    nonlocals: the enclosing function's variables a nested function assigns (`nonlocal n`).
    """
    name: str
    args: gast.arguments
    body: list
    result: Optional[gast.expr]
    uf: Any
    lineno: Optional[int]
    bindings: dict = field(default_factory=dict)
    nonlocals: frozenset = frozenset()

    @property
    def params(self):
        a = self.args
        names = [p.id for p in list(a.posonlyargs) + list(a.args)]
        if a.vararg is not None:
            names.append(a.vararg.id)
        names += [p.id for p in a.kwonlyargs]
        if a.kwarg is not None:
            names.append(a.kwarg.id)
        return names

    def __clone__(self, memo):
        from ..astutil import _clone
        new = Function(self.name, _clone(self.args, memo), _clone(self.body, memo), _clone(self.result, memo),
                       self.uf, self.lineno, dict(self.bindings), self.nonlocals)
        memo[id(self)] = new
        return new

    def __deepcopy__(self, memo):
        return self.__clone__(memo)
