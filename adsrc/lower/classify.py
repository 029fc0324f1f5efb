"""What does the right-hand side of a normalized assignment compute?

`Classifier.op(value)` returns an `ir.Op`: which derivative rule applies, or
whether the value is a call to another user function, a container display,
an index, or something never differentiated.
"""

import types

import gast
import numpy as np

from .. import astutil, primitives
from .. import rules as rules_mod
from ..frontend import higher_order_error, is_gradient, static_value
from ..ir import Op

# Functions whose source adsrc never transforms: they need rules.
_NO_SOURCE_MODULES = ("numpy", "builtins", "math", "adsrc")

# Methods that mutate their object in place: not supported.
MUTATING_METHODS = frozenset({
    "sort", "fill", "append", "extend", "pop", "insert", "remove", "resize", "put", "itemset", "setfield",
    "clear", "update", "setdefault", "popitem", "partition", "byteswap", "setflags", "reverse",
})

# Attributes of arrays that are never differentiated.
CONSTANT_ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype", "itemsize", "nbytes", "strides"})


def is_user_function(obj):
    if not isinstance(obj, types.FunctionType):
        return False
    module = getattr(obj, "__module__", None) or ""
    return module.split(".")[0] not in _NO_SOURCE_MODULES


def callable_name(obj, node=None):
    mod = getattr(obj, "__module__", None)
    qual = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if qual is None and node is not None:
        return dotted(node)
    if mod in (None, "builtins"):
        return qual or repr(obj)
    if mod.startswith("numpy"):
        return "np." + (qual or "?") if mod == "numpy" or isinstance(obj, __import__("numpy").ufunc) \
            else f"{mod}.{qual}"
    return f"{mod}.{qual}"


def dotted(node):
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        return dotted(node.value) + "." + node.attr
    return "<expression>"


class Classifier:
    def __init__(self, uf, is_local, local_defs, helpers):
        self.uf = uf
        self.is_local = is_local          # name -> bool
        self.local_defs = local_defs      # name -> True if a local def
        self.helpers = helpers            # generated name -> runtime helper base name

    def error(self, node, problem, hint=None):
        return self.uf.error(node, problem, hint)

    def static(self, node):
        try:
            return static_value(node, self.uf, self.is_local)
        except LookupError:
            return rules_mod.NOT_STATIC

    def op(self, v, at):
        if isinstance(v, gast.Name):
            return Op("copy")
        if isinstance(v, gast.Constant):
            return Op("const")
        if isinstance(v, gast.BinOp):
            rule = rules_mod.OPERATORS.get(type(v.op))
            if rule is None or rule.nondiff:
                return Op("const")
            if isinstance(v.op, gast.Mult) and isinstance(v.left, gast.Name) and isinstance(v.right, gast.Name) \
                    and v.left.id == v.right.id:
                # x * x: one contribution 2 g x instead of two of g x
                rule = rules_mod.FUNCTIONS[np.square]
                return Op("rule", rule=rule, bound={"x": v.left}, describe="`*`")
            return Op("rule", rule=rule, bound={"x": v.left, "y": v.right}, describe=rule.name)
        if isinstance(v, gast.UnaryOp):
            rule = rules_mod.OPERATORS.get(type(v.op))
            if rule is None:
                return Op("const")
            return Op("rule", rule=rule, bound={"x": v.operand}, describe=rule.name)
        if isinstance(v, gast.Subscript):
            rule = rules_mod.subscript_rule(self.static(v.value))
            if rule is not None:    # np.r_[a, b] and np.c_[a, b] compute from their items
                try:
                    bound = rules_mod.bind_subscript(rule, v.slice)
                except TypeError as e:
                    raise self.error(at, f"{e}.", None) from None
                return Op("rule", rule=rule, bound=bound, describe=rule.name)
            return Op("getitem")
        if isinstance(v, gast.Tuple):
            return Op("tuple")
        if isinstance(v, gast.List):
            return Op("list")
        if isinstance(v, gast.Dict):
            return Op("dict")
        if isinstance(v, gast.Attribute):
            return self.attribute(v, at)
        if isinstance(v, gast.Call):
            return self.call(v, at)
        return Op("const")   # comparisons, `not`, f-strings...: never differentiated

    def attribute(self, v, at):
        if self.static(v) is not rules_mod.NOT_STATIC:
            return Op("const")
        if v.attr in CONSTANT_ATTRIBUTES:
            return Op("const")
        rule = rules_mod.ATTRIBUTES.get(v.attr)
        if rule is not None:
            return Op("rule", rule=rule, bound={"x": v.value}, describe=rule.name)
        return Op("getattr", describe=f"the attribute `.{v.attr}`")   # a field of a namedtuple or dataclass

    def call(self, v, at):
        f = v.func
        if isinstance(f, gast.Name) and f.id in self.helpers:
            return self.helper_call(v, self.helpers[f.id], at)
        obj = self.static(f)
        if obj is not rules_mod.NOT_STATIC:
            return self.static_call(v, obj, at)
        if isinstance(f, gast.Name) and self.local_defs(f.id):
            return Op("local", callee=f.id, describe=f"`{f.id}`")
        if isinstance(f, gast.Attribute):
            return self.method_call(v, at)
        what = dotted(f)
        return Op("unknown", describe=f"`{what}`",
                  hint="adsrc differentiates calls to functions it can resolve when transforming: module "
                       "functions, closures and functions defined in this function.")

    def helper_call(self, v, base, at):
        """Calls to adsrc's runtime helpers that the lowering itself introduced."""
        from .. import runtime
        if base == "scan_slice":
            return Op("slice")
        rule = rules_mod.lookup(runtime.HELPERS[base])
        if rule is None or rule.nondiff:
            return Op("const")
        return Op("rule", rule=rule, bound=rule.bind(v.args, v.keywords), describe=rule.name)

    def mutating_method_error(self, name, at):
        return self.error(at, f"the method `.{name}()` changes its object in place, which adsrc does not "
                              "support inside a differentiated function.",
                          "Compute a new value instead (for example `np.sort(x)` or `a + b`).")

    def static_call(self, v, obj, at):
        if is_gradient(obj):
            raise higher_order_error(obj, self.uf.loc(at))
        if isinstance(getattr(obj, "__self__", None), (list, dict, set, np.ndarray)) and \
                getattr(obj, "__name__", None) in MUTATING_METHODS:
            raise self.mutating_method_error(obj.__name__, at)     # `box.items.append(v)`, box static
        if any(obj is f for f in _READS_NAMES):
            raise self.error(at, f"`{obj.__name__}` reads or runs code through names adsrc cannot follow, so "
                                 "its gradient would be lost.", "Write the expression out in the function.")
        if primitives.is_primitive(obj):
            raise self.error(at, f"adsrc.{primitives.primitive_name(obj)} must be called as a statement of "
                                 "its own.", None)
        from ..custom import custom_vjp
        if isinstance(obj, custom_vjp):
            if v.keywords:
                raise self.error(at, f"pass the arguments of the custom_vjp function `{obj.__name__}` by position.")
            return Op("custom", callee=obj, describe=f"`{obj.__name__}`")
        rule = rules_mod.lookup(obj)
        if rule is not None:
            if rule.nondiff:
                return Op("const", array=rule.name.startswith("np."))
            out = next((k.value for k in v.keywords if k.arg == "out"), None)
            if out is not None:
                raise self.error(at, f"`{rule.name}(..., out={dotted(out)})` writes into `{dotted(out)}` in place, "
                                     "and adsrc cannot differentiate through that change.",
                                 f"Assign the result instead: `{dotted(out)} = {rule.name}(...)`.")
            try:
                bound = rule.bind(v.args, v.keywords)
            except TypeError as e:
                raise self.error(at, f"{e}.", "Check the call against adsrc's rule table "
                                              "(`python -m adsrc rules`).") from None
            return Op("rule", rule=rule, bound=bound, describe=rule.name)
        if is_user_function(obj):
            return Op("user", callee=obj, describe=f"`{callable_name(obj)}`")
        if isinstance(obj, types.MethodType) and is_user_function(obj.__func__) and \
                isinstance(v.func, gast.Attribute):
            # obj.method(x) on an object known when transforming: method(obj, x)
            return Op("user", callee=obj.__func__, receiver=v.func.value,
                      describe=f"`{callable_name(obj.__func__)}`")
        return Op("unknown", describe=f"`{callable_name(obj, v.func)}`",
                  hint=_no_rule_hint(obj))

    def method_call(self, v, at):
        name = v.func.attr
        if name in MUTATING_METHODS:
            raise self.mutating_method_error(name, at)
        rule = rules_mod.METHODS.get(name)
        if rule is None:
            hint = f"adsrc has no rule for `.{name}()`; call the NumPy function instead, or register one " \
                   "with adsrc.defvjp."
            if isinstance(v.func.value, gast.Name):
                owner = v.func.value.id
                hint = (f"adsrc has no rule for `.{name}()` and does not know what `{owner}` is when it "
                        f"transforms. If `{owner}` is an argument whose method is Python code, mark it static "
                        f"(static_argnums / static_argnames) so adsrc can transform the method; otherwise call "
                        f"a NumPy function instead, or register a rule with adsrc.defvjp.")
            return Op("unknown", describe=f"the method `.{name}()`", hint=hint)
        if rule.nondiff:
            return Op("const")
        try:
            bound = rule.bind([v.func.value] + list(v.args), v.keywords)
        except TypeError as e:
            raise self.error(at, f"{e}.", None) from None
        # the rule is the ndarray method's: the receiver's kind is checked when the code runs
        return Op("rule", rule=rule, bound=bound, describe=rule.name, method_of=v.func.value)


# builtins that reach variables by name at run time (a differentiated value inside a string...)
_READS_NAMES = (eval, exec, locals, vars, globals, compile)


def _no_rule_hint(obj):
    name = getattr(obj, "__name__", None) or type(obj).__name__
    return (f"`{name}` has no Python source adsrc can transform and no derivative rule. Give it one with "
            f"`adsrc.defvjp({name}, ...)`, wrap it in a function decorated with `@adsrc.custom_vjp`, or "
            "call it on values that are not differentiated.")
