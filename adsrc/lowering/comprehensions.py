"""Comprehensions during normalization (a mixin of the Normalizer's Expressions): a loop filling a new list,
dict or set,

    [elt for x in xs if c]        ->        t = []; for x in xs: if c: t.append(elt)

with the comprehension's variables renamed (they are its own, as in Python 3), or, over functions or objects
known when transforming, the loop unrolled as a for statement's is (loops.py), so that each call is followed.
"""

import gast

from .. import astutil
from ..ir import nodes as ir
from .loops import _has_objects as has_objects, _names_attributes as names_attributes


class Comprehensions:
    """Mixin of the Normalizer: list, dict and set comprehensions and generator expressions."""

    def op_ListComp(self, e, target):
        self.comprehension(e, target, "list")

    op_GeneratorExp = op_ListComp

    def op_DictComp(self, e, target):
        self.comprehension(e, target, "dict")

    def op_SetComp(self, e, target):
        # {elt for x in xs}  ->  set([elt for x in xs])
        listed = gast.copy_location(gast.ListComp(elt=e.elt, generators=e.generators), e)
        self.value(gast.copy_location(astutil.call(self.builtin_name("set"), [listed]), e), target)

    def comprehension(self, e, target, kind):
        # [elt for x in xs if c]  ->  t = []; for x in xs: if c: t.append(elt)
        e = astutil.clone(e)
        direct = isinstance(target, str) and target not in astutil.names_loaded(e)
        result = target if direct else self.temp("comp")
        display = gast.List(elts=[], ctx=gast.Load()) if kind == "list" else gast.Dict(keys=[], values=[])
        self.emit(ir.Pack(result, display), e)
        renames = {}
        for gen in e.generators:
            for n in astutil.walk(gen.target):
                if isinstance(n, gast.Name):
                    renames.setdefault(n.id, self.temp(n.id))
        for gen in e.generators:
            # the first iterable is evaluated outside the comprehension's scope; the others inside it
            if gen is not e.generators[0]:
                astutil.rename(gen.iter, renames)
            astutil.rename(gen.target, renames)
            for c in gen.ifs:
                astutil.rename(c, renames)
        parts = [e.key, e.value] if kind == "dict" else [e.elt]
        for p in parts:
            astutil.rename(p, renames)

        def innermost():
            if kind == "dict":
                key = self.atom(e.key)
                self.emit(ir.SetItem(result, key, self.atom(e.value)), e)
            else:
                self.emit(ir.MutatingCall(None, result, "append", [self.atom(e.elt)]), e)

        def build(gens):
            gen = gens[0]

            def body():
                if len(gens) > 1:
                    build(gens[1:])
                else:
                    innermost()

            def guarded(conds):
                if not conds:
                    body()
                    return
                test = self.raw(conds[0])
                self.emit(ir.If(test, self.sub_block(lambda: guarded(conds[1:])), []), e)

            # `sum(p.energy() for p in particles)` over a list of objects of one class: their methods are followed
            cls = self.element_class(gen.iter) if isinstance(gen.target, gast.Name) else None
            if cls is not None:
                self.local_classes[gen.target.id] = cls

            def checked():
                if cls is not None:
                    self.check_class(gen.target.id, cls, gen.target)
                guarded(list(gen.ifs))
            self.note_unknown_length(gen.target, gen.iter)      # (f(x) for f in fs), fs of lambdas over range(n)
            it = self.iteration(gen.iter)
            self.emit_for(astutil.target_spec(gen.target), it, checked, [], e)

        gen = e.generators[0]
        plan = self.unroll_plan(gen.iter) or self.functions_display(gen.iter) or \
            self.objects_named(gen.iter, True) if kind == "list" and len(e.generators) == 1 else None
        if plan is not None and (plan[0] in ("display", "objects") or has_objects(plan) or names_attributes(
                plan, gast.For(
                target=gen.target, iter=gen.iter, body=[gast.Expr(value=v) for v in [e.elt, *gen.ifs]], orelse=[],
                type_comment=None))):
            # [g(x) for g in fs] over functions or objects known here, or over a list of new objects of several
            # classes (`shapes = [Square(a), Circle(r)]`): the loop unrolled as a for statement's is (loops.py), so
            # each call is followed
            append = gast.Expr(value=gast.Call(func=gast.Attribute(value=astutil.name(result), attr="append",
                                                                   ctx=gast.Load()), args=[e.elt], keywords=[]))
            for c in reversed(gen.ifs):
                append = gast.If(test=c, body=[append], orelse=[])
            loop = gast.fix_missing_locations(gast.copy_location(
                gast.For(target=gen.target, iter=gen.iter, body=[append], orelse=[], type_comment=None), e))
            self.statement(loop)
        else:
            build(e.generators)
        if not direct:
            self.emit(ir.Copy(target, astutil.name(result)), e)
