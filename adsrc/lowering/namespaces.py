"""Array-API code: `xp = array_namespace(x)` or `xp = x.__array_namespace__()`, then `xp.NAME(...)`.

The namespace is a value computed when the code runs (it depends on the
argument's library), but which function `xp.NAME` is follows from its name:
xp/names.py maps it to the NumPy rule of the same meaning. The call stays as
written in the generated code, so the forward pass runs in the argument's
library; the backward pass's helpers handle its arrays (xp/dispatch.py).

A name holds a namespace when it is assigned once, in the function's own
scope, from one of those calls (a nested function that rebinds it does not
see it as one).
"""

import gast

from .. import astutil
from .. import rules as rules_mod
from ..ir import nodes as ir
from ..xp import names


def is_namespace_function(obj):
    """array_api_compat.array_namespace (or its older name get_namespace)."""
    module = getattr(obj, "__module__", None) or ""
    return callable(obj) and module.split(".")[0] == "array_api_compat" and \
        getattr(obj, "__name__", None) in ("array_namespace", "get_namespace")


class Namespaces:
    """Mixin of the Normalizer: array-API namespaces and their functions."""

    @property
    def namespaces(self):
        found = getattr(self, "_namespaces", None)
        if found is None:
            found = self._namespaces = set()
        return found

    def namespace_made(self, e, target):
        """`xp = array_namespace(x)` / `xp = x.__array_namespace__()`: a constant the code computes."""
        self.emit_op(ir.Const, target, self.raw(e), e)
        if isinstance(target, str) and target in self.single and len(self.scopes) == 1:
            self.namespaces.add(target)

    def namespace_function(self, f):
        """'exp' for `xp.exp`, 'linalg.inv' for `xp.linalg.inv` when xp holds a namespace, else None."""
        if not isinstance(f, gast.Attribute):
            return None
        base, path = f.value, [f.attr]
        if isinstance(base, gast.Attribute):
            base, path = base.value, [base.attr] + path
        if not isinstance(base, gast.Name) or base.id not in self.namespaces or \
                any(base.id in s for s in self.scopes[1:]):
            return None
        return ".".join(path)

    def namespace_call(self, e, name, target):
        if name in names.NOT_FUNCTIONS:
            return self.emit_op(ir.Const, target, self.raw(e), e)
        fn = names.numpy_function(name)
        rule = rules_mod.lookup(fn) if fn is not None else None
        if rule is None:
            raise self.error(e, names.refusal(name))
        if rule.nondiff:
            return self.emit_op(ir.Const, target, self.raw(e), e, fresh=True)
        rename = names.KEYWORDS.get(name, {})
        for k in e.keywords:
            if k.arg in rename.values():
                raise self.error(e, f"`xp.{name}` has no argument `{k.arg}`.", None)
        renamed = gast.Call(func=e.func, args=e.args,
                            keywords=[gast.keyword(arg=rename.get(k.arg, k.arg), value=k.value) for k in e.keywords])
        args, keywords = self.bound_args(renamed, rule)
        try:
            bound = rule.bind(args, keywords)
        except TypeError as err:
            raise self.error(e, f"`xp.{name}`, differentiated with the rule of {rule.name}: {err}.",
                             "Pass the arguments the array API standard names.") from None
        back = {v: k for k, v in rename.items()}
        expr = gast.Call(func=astutil.clone(e.func), args=args,
                         keywords=[gast.keyword(arg=back.get(k.arg, k.arg), value=k.value) for k in keywords])
        self.emit_op(ir.Apply, target, expr, e, rule=rule, bound=bound)
