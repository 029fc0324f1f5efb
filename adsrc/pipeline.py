"""The pipeline: every pass, in order, from a user function to its lowered IR.

    frontend.load                  source -> UserFunction (gast, names resolvable)
    lowering.normalize             -> structured IR (ir/nodes.py), calls classified
    lowering.specialize            static argument values folded in
    lowering.jumps                 break / continue / early return -> flags
    lowering.inline                calls to nested functions inlined
    analysis.summaries             what callees change of their arguments (no compiling)
    lowering.functionalize         changes in place -> new values, sharers updated
    lowering.structure             if / for / while -> Cond / Scan / WhileLoop
    lowering.ssa                   one assignment per name; branch results named as outputs
    lowering.cleanup               dead code removed
    (differentiation/, emit.py)    adjoint code, printed and compiled (see transform.py)

Each pass is a function from IR to IR (or to facts); `ir/verify.py` checks
the IR after every pass when `VERIFY` is set (the tests set it).
"""

import os
import threading
import types
import weakref

from . import astutil, emission as emit, primitives, runtime
from .analysis.summaries import CallOracle, Summaries, statics_key
from .frontend import load, source_function, static_value
from .frontend.varargs import SHAPE, specialize_signature
from .frontend.iterators import check_iterators
from .frontend.closure_args import rewrite_closure_args
from .frontend.next_calls import rewrite_next_calls
from .lowering.refused_branches import refuse_in_branches
from .ir import verify as verify_mod
from .pytree_nodes import CLASSES, ELEMENT_CLASSES, FIELD_CLASSES, FIELDS
from .ir.printer import Printer
from .lowering.cleanup import eliminate_dead_code
from .lowering.functionalize import functionalize
from .lowering.inline import inline_local_calls
from .lowering.jumps import eliminate_jumps
from .lowering.normalize import normalize
from .lowering.specialize import specialize
from .lowering.ssa import to_ssa
from .lowering.structure import lower_structure

LOCK = threading.RLock()       # transformations are serialized; generated code runs freely
VERIFY = bool(os.environ.get("ADSRC_VERIFY"))

_FRONTS = weakref.WeakKeyDictionary()    # function -> {statics key: Front}
_LOWERED = weakref.WeakKeyDictionary()   # function -> {(statics key, returns): Lowered}


def _check(fn, stage):
    if VERIFY:
        verify_mod.verify(fn, stage)


class Front:
    """A function as structured IR without jumps or nested-function calls, for given static values."""

    def __init__(self, fun, statics):
        self.statics = dict(statics or {})
        shape = self.statics.pop(SHAPE, None)
        classes = self.statics.pop(CLASSES, None)
        fields = self.statics.pop(FIELDS, None)
        field_classes = self.statics.pop(FIELD_CLASSES, None)
        elements = self.statics.pop(ELEMENT_CLASSES, None)
        uf = load(fun)
        if shape is not None:
            uf = specialize_signature(uf, shape)      # *args/**kwargs as the call passes them
        self.uf = uf.with_known(self.statics) if self.statics else uf
        if classes:
            self.uf = self.uf.with_classes(dict(classes))
        if elements:
            self.uf = self.uf.with_item_classes({p: dict(items) for p, items in elements})
        if fields:
            self.uf = self.uf.with_fields({p: dict(f) for p, f in fields})
        if field_classes:
            self.uf = self.uf.with_field_classes({p: {f: (cls, elem, inner) for f, cls, elem, inner in known}
                                                  for p, known in field_classes})
        source = source_function(fun)       # its code may be replaced in place (IPython's autoreload)
        self.uf.guards.record("static", source, self.uf.name, [(True, "__code__")], source.__code__)
        self.code = source.__code__
        rewrite_closure_args(self.uf)
        rewrite_next_calls(self.uf)
        check_iterators(self.uf)
        fn, namer = normalize(self.uf)
        _check(fn, verify_mod.STRUCTURED)
        specialize(self.uf, fn, self.statics)
        _check(fn, verify_mod.STRUCTURED)
        assigned = astutil.names_stored(self.uf.node)
        for base in ("np", "math", *_helper_names(self.uf)):
            if base not in assigned and self.uf.lookup(base)[1] is runtime.HELPERS[base]:
                namer.share(base)
        eliminate_jumps(fn, namer)
        inline_local_calls(fn, namer)
        refuse_in_branches(fn, namer, CallOracle(SUMMARIES, self.uf))
        _check(fn, verify_mod.STRUCTURED)
        self.fn, self.namer = fn, namer

    def take(self):
        """The IR and namer themselves, for a Lowered form (which changes them): not copied, as a function is
        nearly always lowered once. front() builds the front again if anything needs it afterwards."""
        fn, namer = self.fn, self.namer
        self.fn = self.namer = None
        return fn, namer


def _helper_names(uf):
    """Free names of generated code (a gradient differentiated again) that are adsrc's own helpers."""
    if not uf.filename.startswith("<adsrc "):
        return ()
    return sorted(n for n in astutil.names_loaded(uf.node) if n in runtime.HELPERS and n not in ("np", "math"))


def front(fun, statics=None):
    """The cached Front of fun for static values `statics`."""
    if not isinstance(fun, types.FunctionType):
        load(fun)   # raises the error explaining what adsrc can differentiate
    code = source_function(fun).__code__
    key = statics_key(statics)
    with LOCK:
        table = _FRONTS.setdefault(fun, {})
        fr = table.get(key)
        if fr is None or fr.fn is None or fr.code is not code or fr.uf.guards.changed():
            fr = Front(fun, statics)
            table[key] = fr
        return fr


def _front_ir(fun, statics):
    return front(fun, statics).fn          # summaries only read it


def resolver(uf):
    """node -> the object it means when transforming (raises LookupError if not known then)."""
    def resolve(node):
        return static_value(node, uf, lambda n: n in uf.locals and n not in uf.known)
    resolve.classes = uf.classes      # for call_statics: the classes a callee's parameters get
    resolve.known = uf.known          # ... and the static values it passes on
    return resolve


SUMMARIES = Summaries(_front_ir, resolver)


class Lowered:
    """A function after every lowering pass: lowered SSA IR, for given static values.

    returns_params: parameters the function changes in place whose new values it
    also returns (for callers that share those objects).
    """

    def __init__(self, fun, statics=None, returns_params=()):
        fr = front(fun, statics)
        self.uf, self.statics, self.code = fr.uf, fr.statics, fr.code
        self.returns_params = tuple(returns_params)
        fn, namer = fr.take()
        functionalize(fn, namer, CallOracle(SUMMARIES, fr.uf), self.returns_params)
        _check(fn, verify_mod.FUNCTIONAL)
        lower_structure(fn, namer)
        to_ssa(fn, namer)
        _check(fn, verify_mod.LOWERED)
        eliminate_dead_code(fn)
        _check(fn, verify_mod.LOWERED)
        self.fn, self.namer = fn, namer

    def fresh(self):
        """A private copy of the IR and the namer, for one transformation."""
        return astutil.clone(self.fn), astutil.clone(self.namer)

    def line_text(self, lineno):
        return self.uf.line(lineno)

    def source(self):
        fn, namer = self.fresh()
        printer = Printer(primitive_names(namer), namer)
        return emit.render(printer.function(fn), self.line_text), namer

    def compile(self):
        """The lowered program as a runnable function (it computes what the user's function does)."""
        text, namer = self.source()
        filename = emit.filename_for(self.uf.name + "_lowered", self.uf.filename)
        bindings = {name: runtime.HELPERS[base] for name, base in namer.helpers.items()}
        bindings.update(self.uf.cells)
        bindings.update(self.fn.bindings)
        return emit.compile_function(text, self.fn.name, filename, self.uf.globals, bindings,
                                     self.uf.fun.__defaults__, self.uf.fun.__kwdefaults__)


def lowered(fun, statics=None, returns_params=()):
    """The cached Lowered form of fun."""
    code = source_function(fun).__code__
    key = (statics_key(statics), tuple(returns_params))
    with LOCK:
        table = _LOWERED.setdefault(fun, {})
        lw = table.get(key)
        if lw is None or lw.code is not code or lw.uf.guards.changed():
            lw = Lowered(fun, statics, returns_params)
            table[key] = lw
        return lw


runtime.HELPERS.update({"cond": primitives.cond, "scan": primitives.scan, "while_loop": primitives.while_loop,
                        "attempt": primitives.attempt})


def primitive_names(namer):
    return {p: namer.helper(p) for p in ("cond", "scan", "while_loop", "attempt")}


def clear_caches():
    with LOCK:
        _FRONTS.clear()
        _LOWERED.clear()
        SUMMARIES.done.clear()
