"""A name bound to one of several functions, which one known only when the code runs.

    loss_fn = mse                       if kind == "tanh":
    if robust:                              act = np.tanh
        loss_fn = huber                 elif kind == "relu":
    return loss_fn(r)                       act = relu
                                        else:
                                            raise ValueError(kind)

Every binding of the name in the function is `name = f` with f a function adsrc can follow (a module or
global function, a nested def, a lambda whose defaults are literals). Each binding also records which it is
(`choice = k`, a name of its own), and each call `act(h)` is written
`np.tanh(h) if choice == 0 else relu(h) if choice == 1 else unbound_function("act")`, so that every function is
followed where it is called, as Python calls the one bound last (function_values.local_function; a call
that passes the name on, `apply(act, x)`, branches the same way). A lambda is made again where it is called,
which reads its free variables then, as Python does.
"""

import gast

from .. import astutil
from .. import rules as rules_mod
from ..ir import nodes as ir
from .tables import _defaults_read_variables


def unbound_function(name):
    """The call of a function-valued name that no binding has run yet (Python's UnboundLocalError)."""
    raise UnboundLocalError(f"cannot access local variable '{name}' where it is not associated with a value")


class FunctionChoices:
    """Mixin of the Normalizer: names bound to several functions (see the module's docstring)."""

    def function_choices(self):
        """{name: (choice name, {(line, column) of a bound value: its index})}, made at the first use."""
        found = getattr(self, "_function_choices", None)
        if found is None:
            found = self._function_choices = {}
            self._held_tests = []
            for name, values in _function_bindings(self.uf.node).items():
                if len(values) < 2 or name in self.declared_globals or not all(self.followable(v) for v in values):
                    continue
                choice = self.temp("choice")
                arms = [self.held_arm(v) for v in values]
                found[name] = (choice, {_where(v): (k, arm) for k, (v, arm) in enumerate(zip(values, arms))})
                chain = astutil.call(self.bind("unbound_function", unbound_function), [astutil.const(name)])
                for k, arm in reversed(list(enumerate(arms))):
                    test = gast.Compare(left=astutil.name(choice), ops=[gast.Eq()], comparators=[astutil.const(k)])
                    chain = gast.IfExp(test=test, body=astutil.clone(arm), orelse=chain)
                self.functions[name] = ("chosen", chain)
        return found

    def held_arm(self, node):
        """The function a bound value means where it is called: `f if c else g` with c read from a name of its
        own (computed where it is bound, note_function_choice; False until then); others as they are."""
        if not isinstance(node, gast.IfExp):
            return node
        held = self.temp("chosen")
        self._held_tests.append(held)
        return gast.IfExp(test=astutil.name(held), body=self.held_arm(node.body), orelse=self.held_arm(node.orelse))

    def held_tests_bound(self):
        """`chosen = False` for each condition held, at the function's start (a call in a loop may come before
        the binding, in the loop's first trip, which then calls another function)."""
        self.function_choices()
        return [ir.Const(held, astutil.const(False)) for held in self._held_tests]

    def followable(self, node):
        if isinstance(node, gast.IfExp):
            return self.followable(node.body) and self.followable(node.orelse)
        if isinstance(node, gast.Lambda):
            return not _defaults_read_variables(node)
        if isinstance(node, gast.Name) and node.id in self.def_names:
            return True
        if isinstance(node, gast.Name) and self.is_local(node.id):
            return False
        value = self.static(node) if isinstance(node, (gast.Name, gast.Attribute)) else rules_mod.NOT_STATIC
        return value is not rules_mod.NOT_STATIC and callable(value)

    def note_function_choice(self, target, value, s):
        """After `act = relu`, one of several bindings of act to functions: `choice = k`."""
        choices = self.function_choices()
        if target in choices:
            choice, index = choices[target]
            found = index.get(_where(value))
            if found is None:
                raise self.error(s, f"adsrc lost track of which function `{target}` is bound to here.",
                                 "Bind the name once to each function (or use another name for each).")
            k, arm = found
            self.hold_tests(value, arm)
            self.emit(ir.Const(choice, astutil.const(k)), s)

    def hold_tests(self, value, arm):
        if isinstance(value, gast.IfExp):
            self.value(value.test, arm.test.id)
            self.hold_tests(value.body, arm.body)
            self.hold_tests(value.orelse, arm.orelse)


def _where(node):
    return getattr(node, "lineno", None), getattr(node, "col_offset", None)


def _function_bindings(fdef):
    """{name: [the values it is bound to]} of the names of fdef's own scope every binding of which is
    `name = <a name, an attribute, a lambda or a conditional expression>` (not a parameter, a loop's or `with`'s target, an unpacking,
    an augmented assignment, a `del`, nor a name a nested function or class binds)."""
    values, others = {}, set()
    a = fdef.args
    for p in list(a.posonlyargs) + list(a.args) + list(a.kwonlyargs) + [a.vararg, a.kwarg]:
        if p is not None:
            others.add(p.id)

    def visit(node):
        for child in astutil.children(node):
            if isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)):
                others.update(n.id for n in astutil.walk(child) if isinstance(n, gast.Name) and
                              isinstance(n.ctx, (gast.Store, gast.Del)))
                if not isinstance(child, gast.Lambda):
                    others.add(child.name)
                continue
            if isinstance(child, gast.Assign) and len(child.targets) == 1 and \
                    isinstance(child.targets[0], gast.Name) and \
                    isinstance(child.value, (gast.Name, gast.Attribute, gast.Lambda, gast.IfExp)):
                values.setdefault(child.targets[0].id, []).append(child.value)
                visit(child.value)
                continue
            if isinstance(child, gast.Name) and isinstance(child.ctx, (gast.Store, gast.Del)):
                others.add(child.id)
            visit(child)
    visit(fdef)
    return {k: v for k, v in values.items() if k not in others}
