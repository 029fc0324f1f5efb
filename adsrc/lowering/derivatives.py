"""Calls of derivatives adsrc made, inside a function it transforms (higher order), and of the
functional-update helpers that generated code calls (when that code is transformed again).

* a gradient (`adsrc.grad(f)`, also one made right there: normalize.py) is followed as a call of
  its generated function for arrays, which serves floats and arrays alike;
* `adsrc.jvp(f, (x, ...), (t, ...))` is followed as a call of f's generated forward code;
* `index_update`, `list_append` and `scan_slice` in generated code are the IR's own operations, and
  the helpers that update an argument in place (`split_last`, `add_attr`) copy it instead.
"""

import inspect

import gast

from .. import astutil, runtime
from .. import rules as rules_mod
from ..frontend import higher_order_error, is_gradient
from ..ir import nodes as ir

FUNCTIONAL = {runtime.HELPERS["index_update"]: (ir.Update, "index_update"),
              runtime.HELPERS["index_update_inplace"]: (ir.Update, "index_update"),
              runtime.HELPERS["list_append"]: (ir.Append, "list_append"),
              runtime.HELPERS["list_append_inplace"]: (ir.Append, "list_append"),
              runtime.HELPERS["scan_slice"]: (ir.ScanSlice, "scan_slice")}


def is_jvp(obj):
    return type(obj).__name__ == "_Jvp" and type(obj).__module__ == "adsrc.forward_api"


def is_derivative(obj):
    return is_jvp(obj) or is_gradient(obj)


class Derivatives:
    """Mixin of the Normalizer's Calls."""

    def derivative_call(self, e, obj, target):
        if is_jvp(obj):
            return self.jvp_call(e, target)
        shaped = getattr(obj, "_adsrc_for_call", None)      # a gradient of a function taking *args
        if shaped is not None and not any(isinstance(a, gast.Starred) for a in e.args) and \
                all(k.arg is not None for k in e.keywords):
            obj = shaped(len(e.args), [k.arg for k in e.keywords])
        general = getattr(obj, "_adsrc_general", None)
        fn = general(self.call_statics(e, obj)) if general is not None else None
        if fn is None:
            raise higher_order_error(obj, self.uf.loc(e))
        return self.emit_op(ir.CallUser, target, self.plain_call(e, e.func), e, callee=fn)

    def call_statics(self, e, obj):
        """The values of a gradient's static arguments at this call (they select its compiled version), which
        must be known when transforming (literals, globals, closures, this function's static arguments)."""
        params = getattr(obj, "_statics", None)
        if not params:
            return None
        out = {}
        for name, (pos, default) in params.items():
            node = e.args[pos] if pos is not None and pos < len(e.args) else \
                next((k.value for k in e.keywords if k.arg == name), None)
            value = default if node is None else astutil.literal_value(node) \
                if astutil.is_constant_literal(node) else self.static(node)
            if any(isinstance(a, gast.Starred) for a in e.args) or any(k.arg is None for k in e.keywords) or \
                    value is rules_mod.NOT_STATIC or value is inspect.Parameter.empty:
                raise self.error(e, f"{obj._adsrc_derivative} has the static argument `{name}`, whose value here "
                                    "is known only when the code runs, so adsrc cannot tell which of its compiled "
                                    "versions this call runs.",
                                 f"Pass `{name}` as a literal, a global or a closure variable, or as a static "
                                 "argument of the function you differentiate.")
            out[name] = value
        return out

    def jvp_call(self, e, target):
        """adsrc.jvp(f, (x, ...), (t, ...)): a call of f's generated forward code (for arrays)."""
        from ..forward_api import general_jvp
        fun = self.static(e.args[0]) if len(e.args) == 3 else rules_mod.NOT_STATIC
        displays = e.args[1:] if len(e.args) == 3 else []
        written = not e.keywords and len(displays) == 2 and \
            all(isinstance(d, (gast.Tuple, gast.List)) for d in displays) and \
            len(displays[0].elts) == len(displays[1].elts)
        passed = ()
        if fun is rules_mod.NOT_STATIC and written:
            # a lambda or nested def: lifted, its closure's variables passed after the arguments (not differentiated)
            from .jacobian_calls import _positional
            found = self.differentiated_function(e.args[0], len(displays[0].elts))
            if found is not None:
                fun, passed = found
                if passed:
                    fun = _positional(fun, len(displays[0].elts), passed)
        if fun is rules_mod.NOT_STATIC or not written:
            raise self.error(e, "adsrc differentiates `adsrc.jvp(f, (x, ...), (t, ...))` inside a function when f "
                                "is known when transforming and the primals and tangents are written out as "
                                "tuples of the same length (no has_aux, no static arguments).",
                             "Write the call in that form, or differentiate a function that calls f directly.")
        primals = list(displays[0].elts) + [astutil.name(p) for p in passed]
        tangents = list(displays[1].elts) + [astutil.const(None) for _ in passed]
        mask = tuple(not (isinstance(t, gast.Constant) and t.value is None) for t in tangents)
        fn = general_jvp(fun, mask)
        keywords = [gast.keyword(arg=name, value=t) for name, t in
                    zip(fn.unit.tangent_params, [t for t, m in zip(tangents, mask) if m])]
        call = gast.Call(func=astutil.name(self.bind(fn.__name__, fn)), args=list(primals), keywords=keywords)
        return self.emit_op(ir.CallUser, target, self.plain_call(call, call.func), e, callee=fn)

    def copying_call(self, e, obj, target):
        """split_last / add_attr in generated code change their argument in place; the derivative of that
        code may read the argument again, so it calls the versions that copy it."""
        from ..rules.runtime_rules import COPYING
        fn = COPYING[obj]
        call = gast.Call(func=astutil.name(self.namer.helper(fn.__name__)), args=e.args, keywords=e.keywords)
        return self.rule_call(call, call.func, rules_mod.lookup(fn), target)

    def functional_call(self, e, obj, target):
        """index_update / list_append / scan_slice in generated code: the IR's own operations."""
        cls, base = FUNCTIONAL[obj]
        return self.emit_op(cls, target, self.plain_call(e, astutil.name(self.namer.helper(base))), e)
