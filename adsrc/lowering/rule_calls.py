"""Calls of functions with a derivative rule, for the Normalizer: the call bound to the rule's parameters
(each differentiable operand an atom, the others kept as written), a record (namedtuple or dataclass) made
from its fields, a custom_vjp's arguments put in their positions, and calls of adsrc's runtime helpers."""

import inspect

import gast

from .. import astutil, runtime
from .. import rules as rules_mod
from ..ir import nodes as ir
from .object_classes import is_user_function


def _post_init(cls):
    """A dataclass's own Python __post_init__ taking no InitVar, which adsrc follows after making the object
    from its fields; else None."""
    import dataclasses
    method = inspect.getattr_static(cls, "__post_init__", None) if dataclasses.is_dataclass(cls) else None
    fields = getattr(cls, "__dataclass_fields__", {}).values()
    if not is_user_function(method) or any(isinstance(f.type, dataclasses.InitVar) or f.type is dataclasses.InitVar
                                           for f in fields):
        return None
    return method


class RuleCalls:
    """Mixin of the Normalizer's Calls: calls that a rule differentiates."""

    def construct(self, e, cls, target):
        """A namedtuple or dataclass made from its fields: a container whose fields are its arguments."""
        from ..rules.containers import record_rule
        rule = record_rule(cls)
        args, keywords = self.bound_args(e, rule)
        post_init = _post_init(cls)
        func = e.func
        if post_init is not None:
            fields = runtime.fields_only(cls)
            rules_mod.FUNCTIONS.setdefault(fields, rule)        # (its calls in generated code, differentiated again)
            func = astutil.name(self.bind(cls.__name__ + "_fields", fields))
        expr = gast.Call(func=func, args=args, keywords=keywords)
        try:
            bound = rule.bind(args, keywords)
        except TypeError as err:
            raise self.error(e, f"{err}.", None) from None
        if post_init is not None:
            # a dataclass computing fields in __post_init__: made from its fields, then __post_init__ followed
            obj = target if isinstance(target, str) else self.temp(cls.__name__.lower())
            self.emit_op(ir.Apply, obj, expr, e, rule=rule, bound=bound)
            call = gast.Call(func=gast.Attribute(value=astutil.name(obj), attr="__post_init__", ctx=gast.Load()),
                             args=[], keywords=[])
            self.emit_op(ir.CallUser, None, call, e, callee=post_init, receiver=astutil.name(obj),
                         classes=((0, cls),))
            if target is not None and target != obj:
                self.emit(ir.Copy(target, astutil.name(obj)), e)
        else:
            self.emit_op(ir.Apply, target, expr, e, rule=rule, bound=bound)
        if isinstance(target, str) and (target in self.single or target not in self.store_counts or
                                        self.stable_classes.get(target) is cls) and len(self.scopes) == 1:
            self.local_classes[target] = cls        # its methods can be followed (a name bound once, a temporary)
        if isinstance(target, str):
            self.note_fields(target, cls, e)        # (modules it holds: `Pair(Linear(W1), Linear(W2))`)

    def rule_call(self, e, func, rule, target, receiver=None):
        if any(isinstance(a, gast.Starred) and self.known_length(a.value) is not None for a in e.args):
            # f(*args) with args of a length known here: its items one by one
            items = []
            for a in e.args:
                n = self.known_length(a.value) if isinstance(a, gast.Starred) else None
                if n is None:
                    items.append(a)
                    continue
                seq = self.atom(a.value)
                items.extend(gast.Subscript(value=astutil.clone(seq), slice=astutil.const(i), ctx=gast.Load())
                             for i in range(n))
            e = gast.copy_location(gast.Call(func=e.func, args=items, keywords=e.keywords), e)
        out = next((k for k in e.keywords if k.arg == "out"), None)
        if out is not None and not (isinstance(out.value, gast.Constant) and out.value.value is None):
            # y = f(x, out=buf): buf[...] = f(x); y = buf (`out=(buf,)` too, as ufuncs take it)
            buf = out.value.elts[0] if isinstance(out.value, gast.Tuple) and len(out.value.elts) == 1 else out.value
            if isinstance(buf, gast.Tuple):
                raise self.error(e, f"`{rule.name}(..., out=...)` with a tuple of several arrays.",
                                 f"Assign the results instead: `y = {rule.name}(...)`.")
            buf = self.atom(buf)
            if not isinstance(buf, gast.Name) or not self.is_local(buf.id):
                raise self.error(e, f"`{rule.name}(..., out=...)` writes into an object adsrc does not own.",
                                 f"Assign the result instead: `y = {rule.name}(...)`.")
            call = gast.Call(func=e.func, args=e.args, keywords=[k for k in e.keywords if k.arg != "out"])
            tmp = self.temp(self.temp_base(call))
            self.rule_call(call, func, rule, tmp, receiver)
            self.emit(ir.SetItem(buf.id, astutil.const(Ellipsis), astutil.name(tmp)), e)
            if target is not None:
                self.emit(ir.Copy(target, astutil.name(buf.id)), e)
            return
        if rule.nondiff:
            return self.emit_op(ir.Const, target, self.raw(e), e, fresh=rule.name.startswith("np."))
        args, keywords = self.bound_args(e, rule, skip_first=receiver is not None)
        if receiver is not None:
            expr = gast.Call(func=gast.Attribute(value=receiver, attr=e.func.attr, ctx=gast.Load()), args=args,
                             keywords=keywords)
            pos = [receiver] + args
        else:
            expr = gast.Call(func=func, args=args, keywords=keywords)
            pos = args
        try:
            bound = rule.bind(pos, keywords)
        except TypeError as err:
            raise self.error(e, f"{err}.", "Check the call against adsrc's rule table "
                                           "(`python -m adsrc rules`).") from None
        out = bound.get("out") if rule.name.startswith(("np.", ".")) else None
        if out is not None and not (isinstance(out, gast.Constant) and out.value is None):
            # (`out=` by keyword is written as an assignment above; by position, a rule's `out` must be None)
            raise self.error(e, f"`{rule.name}` with an output array given by position.",
                             f"Pass it as `out=` or assign the result instead: `y = {rule.name}(...)`.")
        self.emit_op(ir.Apply, target, expr, e, rule=rule, bound=bound, method_of=receiver)

    def bound_args(self, e, rule, skip_first=False):
        """Arguments with the rule's operands as atoms and the rest as written."""
        operands = rule.referenced_params()
        positional = [p for p in rule.params if p.kind in ("pos", "any")]
        if skip_first:
            positional = positional[1:]
        var = next((p for p in rule.params if p.kind == "var"), None)
        args = []
        for i, a in enumerate(e.args):
            if isinstance(a, gast.Starred):
                raise self.error(a, f"unpacking arguments with `*` into {rule.name} is not supported.",
                                 "Pass the arguments one by one.")
            pname = positional[i].name if i < len(positional) else (var.name if var else None)
            args.append(self.operand(a, pname in operands))
        keywords = []
        for k in e.keywords:
            if k.arg is None:
                raise self.error(e, f"`**` arguments to {rule.name} are not supported.",
                                 "Pass the keyword arguments explicitly.")
            keywords.append(gast.keyword(arg=k.arg, value=self.operand(k.value, k.arg in operands)))
        return args, keywords

    def operand(self, a, needed):
        if not needed:
            return self.raw(a)
        if astutil.is_constant_literal(a):
            return self.raw(a)
        return self.atom(a)

    def helper_apply(self, target, base, args, node):
        """target = helper(*args) for a runtime helper with a derivative rule."""
        fn = runtime.HELPERS[base]
        rule = rules_mod.lookup(fn)
        expr = astutil.call(astutil.name(self.namer.helper(base)), args)
        if rule is None or rule.nondiff:
            return self.emit_op(ir.Const, target, expr, node)
        self.emit_op(ir.Apply, target, expr, node, rule=rule, bound=rule.bind(expr.args, []))

    def custom_positional(self, e, obj):
        """The call e of the custom_vjp obj with every positional parameter passed by position: its keywords
        moved into their places, defaults filled in (bwd returns one cotangent per positional parameter)."""
        params = [p for p in inspect.signature(obj.fun).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        given = {k.arg: k.value for k in e.keywords}
        if any(isinstance(a, gast.Starred) for a in e.args) or None in given or \
                set(given) - {p.name for p in params[len(e.args):]}:
            raise self.error(e, f"adsrc passes the arguments of the custom_vjp function `{obj.__name__}` to its "
                                "rule by position, and cannot place these.",
                             "Pass each of its positional parameters by position or by its name.")
        args = list(e.args)
        for p in params[len(e.args):]:
            if p.name in given:
                args.append(given[p.name])
            elif p.default is inspect.Parameter.empty:
                raise self.error(e, f"`{obj.__name__}` is missing its argument `{p.name}`.")
            elif p.default is None or isinstance(p.default, (bool, int, float, complex, str)):
                args.append(astutil.const(p.default))
            else:
                args.append(astutil.name(self.bind(p.name, p.default)))
        return gast.copy_location(gast.Call(func=e.func, args=args, keywords=[]), e)

    emit_call_rule = helper_apply
