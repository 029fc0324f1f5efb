"""Lower structured Python into the IR: `if` -> Cond, `for` -> scan, `while` -> while_loop.

Input: a normalized function whose jumps were removed (`jumps.py`). Output:
an `ir.Function`. An `if` outputs the variables either branch assigns that
are read afterwards; a loop carries the variables its body assigns that are
live at the top of an iteration or after the loop. A branch or loop that
does not assign such a variable passes on its current value, or UNDEFINED
when it has none yet.

A `for` loop becomes a scan over `range(...)`: over the range itself when
the loop iterates a `range`, otherwise over indices of the sequence, with
the loop target read by indexing (`x = xs[i]`). Calls to the primitives
`cond`, `scan`, `while_loop` and `fori_loop` become the same IR, with their
function arguments inlined.
"""

import copy

import gast

from .. import astutil, primitives
from .. import old_ir as ir
from ..errors import TransformError
from .. import rules as rules_mod
from ..frontend import local_names, static_value
from . import inplace, liveness, mutation
from .classify import Classifier



class Lowerer:
    def __init__(self, uf, namer, scopes=None, local_defs=None):
        self.uf = uf
        self.namer = namer
        self.scopes = list(scopes or [])
        self.local_defs = dict(local_defs or {})   # name -> normalized FunctionDef
        self.aliases = None
        self.inlining = []                          # nested defs being inlined (to refuse recursion)

    # -- entry -----------------------------------------------------------------------
    def function(self, fdef):
        self.scopes.append(local_names(fdef))
        try:
            liveness.annotate(fdef.body)
            self.aliases = inplace.Aliases(fdef, self.is_local)
            self.classifier = Classifier(self.uf, self.is_local, lambda n: n in self.local_defs,
                                         self.namer.helpers)
            params = _arg_names(fdef.args)
            body_stmts, final = fdef.body[:-1], fdef.body[-1]
            body, _ = self.block(body_stmts, set(params))
            fn = ir.Function(fdef.name, fdef.args, body, copy.deepcopy(final.value), self.uf, fdef.lineno)
            _drop_unused_local_defs(fn)
            return fn
        finally:
            self.scopes.pop()

    def undefined(self):
        return astutil.name(self.namer.helper("UNDEFINED"))

    def is_local(self, n):
        if any(n in s for s in self.scopes[1:]):
            return True
        return bool(self.scopes) and n in self.scopes[0] and n not in self.uf.known

    def static(self, node):
        try:
            return static_value(node, self.uf, self.is_local)
        except LookupError:
            return rules_mod.NOT_STATIC

    # -- blocks ------------------------------------------------------------------------
    def block(self, stmts, defined):
        """IR statements for a block; `defined` (names with a value) is updated."""
        out = []
        for s in stmts:
            out.extend(self.statement(s, defined))
        return out, defined

    def statement(self, s, defined):
        if isinstance(s, gast.Assign):
            return self.assign(s, defined)
        if isinstance(s, gast.Expr):
            lst = liveness.appended_list(s)
            if lst is not None and self.is_local(lst):
                inplace.check(self.uf, s, lst, self.aliases, f"`{lst}.append(...)`", through_views=False)
                value = astutil.call(astutil.name(self.namer.helper("list_append")), [astutil.name(lst), s.value.args[0]])
                defined.add(lst)
                return [ir.Assign(lst, value, ir.Op("append")).at(s)]
            v = s.value
            if isinstance(v, gast.Call) and isinstance(v.func, gast.Name) and v.func.id in self.local_defs:
                return self.inline_call(v, s, defined)[0]      # a nested function called for its effects
            op = self.classifier.op(s.value, s)  # raises for unsupported in-place methods
            func = self.static(s.value.func) if isinstance(s.value, gast.Call) else None
            writes = mutation.writes_into(func, s.value) if isinstance(s.value, gast.Call) else None
            return [ir.Effect(s.value, op, writes).at(s)]
        if isinstance(s, (gast.Assert, gast.Raise)):
            return [ir.Raw(s).at(s)]
        if isinstance(s, gast.If):
            return [self.cond(s, defined)]
        if isinstance(s, gast.For):
            return [self.for_loop(s, defined)]
        if isinstance(s, gast.While):
            return [self.while_loop(s, defined)]
        if isinstance(s, gast.FunctionDef):
            self.refuse_outside_changes(s)
            self.local_defs[s.name] = s
            sub = Lowerer(self.uf, self.namer, self.scopes, self.local_defs)
            fn = sub.function(copy.deepcopy(s))
            defined.add(s.name)
            return [ir.LocalDef(s.name, fn).at(s)]
        raise self.uf.error(s, f"internal error: unexpected {type(s).__name__} after normalization")

    def refuse_outside_changes(self, fdef):
        """A nested function changing its arguments or its enclosing function's objects in place is refused.

        adsrc inlines nested functions where they are called and makes their item
        assignments functional; such a change would not reach the caller's object.
        """
        hint = f"Return the new value from `{fdef.name}` and assign it where it is called."
        # arguments: flow-sensitively (after `a = a.copy()` changes are local); refused where a call's
        # argument is read afterwards (a copy of fdef keeps the marks out of it)
        marked = copy.deepcopy(fdef)
        fdef.param_changes = [
            (p, str(self.uf.error(st, f"the nested function `{fdef.name}` changes its argument `{p}` in place "
                                      f"({what}); adsrc cannot carry that change out of a nested function.", hint)))
            for p, st, what in mutation.parameter_mutations(marked, lambda node: self.static(node))]
        for st, original in zip(inplace.walk_statements(marked.body), inplace.walk_statements(fdef.body)):
            if getattr(st, "param_inplace", None):
                # `a += b` on an argument: an array would change in place, a number is rebound
                msg = self.uf.error(st, f"the nested function `{fdef.name}` changes its argument "
                                        f"`{st.param_inplace}` in place (`+=` and the like on an array); adsrc "
                                        "cannot carry that change out of a nested function.",
                                    f"Write `{st.param_inplace} = {st.param_inplace} + ...` (a new array) and "
                                    "return it.")
                original.nested_inplace = (st.param_inplace, str(msg))
        mine = local_names(fdef)
        for st in inplace.walk_statements(fdef.body):
            changed = None
            if isinstance(st, gast.Assign) and isinstance(st.targets[0], gast.Subscript):
                changed = st.targets[0].value.id
            elif isinstance(st, gast.Expr):
                changed = liveness.appended_list(st)
            if changed is not None and changed not in mine:
                raise self.uf.error(st, f"the nested function `{fdef.name}` changes `{self.uf.name}`'s variable "
                                        f"`{changed}` in place; adsrc cannot carry that change out of a nested "
                                        "function.", hint)

    def assign(self, s, defined):
        t = s.targets[0]
        if isinstance(t, gast.Subscript):
            base = t.value.id
            inplace.check(self.uf, s, base, self.aliases, getattr(s, "what", f"assigning to `{base}[...]`"))
            value = astutil.call(astutil.name(self.namer.helper("index_update")),
                                 [astutil.name(base), astutil.index_value(t.slice), s.value])
            defined.add(base)
            return [ir.Assign(base, value, ir.Op("setitem")).at(s)]
        spec = astutil.target_spec(t)
        pre = self.inplace_checks(s, spec)
        value = s.value
        if isinstance(value, gast.Call):
            prim = self.static(value.func)
            if prim is not rules_mod.NOT_STATIC and primitives.is_primitive(prim):
                return self.primitive(s, spec, value, prim, defined)
            if isinstance(value.func, gast.Name) and value.func.id in self.local_defs:
                stmts, result = self.inline_call(value, s, defined)
                return pre + stmts + [_ir_assign(spec, copy.deepcopy(result), self.classifier, s, defined)]
        op = self.classifier.op(value, s)
        if isinstance(spec, tuple) and op.kind not in ("copy", "tuple", "list", "user", "custom", "const") and \
                not (op.kind == "rule" and op.rule.tuple_output):
            # `a, b = np.exp(x)`: compute the array, then unpack it (its cotangent is an array)
            tmp = self.namer.fresh(self.classifier_base(value))
            self.scopes[-1].add(tmp)
            defined.add(tmp)
            first = ir.Assign(tmp, value, op).at(s)
            defined.update(astutil.target_names(spec))
            return pre + [first, ir.Assign(spec, astutil.name(tmp), ir.Op("copy")).at(s)]
        defined.update(astutil.target_names(spec))
        return pre + [ir.Assign(spec, value, op).at(s)]

    def inplace_checks(self, s, spec):
        """Checks run before `spec = ...`: in-place operators that would change an array others hold.

        `a += b` mutates arrays but rebinds numbers, so these are decided when the code runs.
        """
        checks = []

        def check(helper, names, message, callee_only=False):
            call = astutil.call(astutil.name(self.namer.helper(helper)),
                                [astutil.name(n) for n in names] + [astutil.const(str(message))])
            checks.append(ir.Effect(call, callee_only=callee_only).at(s))

        if getattr(s, "param_inplace", None):
            # an array argument changed in place: lost to a caller of generated code
            check("check_immutable", [spec], self.uf.error(
                s, f"`{self.uf.name}` changes its argument `{s.param_inplace}` in place (`{spec} += ...` on an "
                   "array), and adsrc would lose that change: it differentiates a function through the value it "
                   "returns.", f"Write `{spec} = {spec} + ...` (a new array), or return the new value."),
                  callee_only=True)
        if getattr(s, "nested_inplace", None):
            check("check_immutable", [spec], s.nested_inplace[1])
        if getattr(s, "item_of", None):
            base, item = s.item_of
            other = inplace.item_shared_live(s, base, item, self.aliases)
            if other is not None:
                check("check_item_immutable", [base, item], inplace.alias_error(
                    self.uf, s, base, other, f"the in-place operator on an item of `{base}`"))
        if getattr(s, "augmented", False):
            other = inplace.shared_live(s, spec, self.aliases)
            if other is not None:
                check("check_immutable", [spec], inplace.alias_error(
                    self.uf, s, spec, other, f"the in-place operator on `{spec}`"))
        return checks

    def inline_call(self, call, s, defined):
        if any(isinstance(a, gast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            raise self.uf.error(s, "calls with *args or **kwargs to nested functions are not supported.",
                                "Pass the arguments one by one.")
        return self.inline(call.func, call.args, s, defined, {k.arg: k.value for k in call.keywords})

    @staticmethod
    def classifier_base(value):
        if isinstance(value, gast.Call):
            f = value.func
            return f.attr if isinstance(f, gast.Attribute) else getattr(f, "id", "value")
        return "value"

    # -- if ------------------------------------------------------------------------------
    def cond(self, s, defined):
        outs = [n for n in liveness.assigned(s.body + s.orelse) if n in s.live_out]
        branches = []
        after = None
        before_defs = dict(self.local_defs)
        branch_defs = []
        for stmts in (s.body, s.orelse):
            d = set(defined)
            self.local_defs = dict(before_defs)
            body, d = self.block(stmts, d)
            results = [astutil.name(n) if n in d else self.undefined() for n in outs]
            branches.append(ir.Branch(body, results))
            after = d if after is None else after & d
            branch_defs.append(self.local_defs)
        self.local_defs = dict(branch_defs[0])
        for name in set(branch_defs[0]) | set(branch_defs[1]):
            if branch_defs[0].get(name) is not branch_defs[1].get(name):
                self.local_defs[name] = BranchDefs(s.lineno)
        defined.update(after)
        defined.update(outs)
        return ir.Cond(s.test, branches[0], branches[1], outs).at(s)

    # -- for -----------------------------------------------------------------------------
    def for_loop(self, s, defined):
        target = astutil.target_spec(s.target)
        targets = astutil.target_names(target)
        carry = [n for n in liveness.assigned(s.body) + targets if n in s.header_live]
        carry = list(dict.fromkeys(carry))
        xs, item, prelude = self.iteration(s, target, carry)
        init = [astutil.name(n) if n in defined else self.undefined() for n in carry]
        inner = set(defined) | set(carry) | set(astutil.target_names(item))
        pre_ir, inner = self.block(prelude, inner)
        body, inner = self.block(s.body, inner)
        loop = ir.Loop("scan", carry, init, pre_ir + body, [astutil.name(n) for n in carry], list(carry))
        loop.item = item
        loop.xs = xs
        loop.stop = getattr(s, "break_flag", None)
        defined.update(carry)
        return loop.at(s)

    def iteration(self, s, target, carry):
        """(xs expression, item name, prelude statements) for `for target in iter`."""
        it = s.iter
        kind = None
        if isinstance(it, gast.Call):
            fn = self.static(it.func)
            kind = {range: "range", enumerate: "enumerate", zip: "zip", reversed: "reversed"}.get(fn) \
                if fn is not rules_mod.NOT_STATIC and _hashable(fn) else None
        targets = astutil.target_names(target)
        if kind == "range" and isinstance(target, str) and target not in carry:
            return it, target, []
        index = self.namer.fresh("i")
        prelude = []

        def bind(tgt, value):
            prelude.append(astutil.located(astutil.assign(tgt, value), s))

        def item(seq):
            return gast.Subscript(value=copy.deepcopy(seq), slice=astutil.name(index), ctx=gast.Load())

        if kind == "range":
            bind(target, item(it))
            xs = _range_len(it)
        elif kind == "enumerate":
            seq = it.args[0]
            start = it.args[1] if len(it.args) > 1 else next((k.value for k in it.keywords if k.arg == "start"), None)
            counter = astutil.name(index) if start is None else \
                gast.BinOp(left=astutil.name(index), op=gast.Add(), right=copy.deepcopy(start))
            self._bind_pair(target, [counter, item(seq)], bind, s)
            xs = astutil.call("range", [astutil.call("len", [copy.deepcopy(seq)])])
        elif kind == "zip":
            seqs = it.args
            self._bind_pair(target, [item(q) for q in seqs], bind, s)
            lens = [astutil.call("len", [copy.deepcopy(q)]) for q in seqs]
            xs = astutil.call("range", [lens[0] if len(lens) == 1 else astutil.call("min", lens)])
        elif kind == "reversed":
            seq = it.args[0]
            bind(target, item(seq))
            n = astutil.call("len", [copy.deepcopy(seq)])
            xs = astutil.call("range", [gast.BinOp(left=n, op=gast.Sub(), right=astutil.const(1)),
                                        astutil.const(-1), astutil.const(-1)])
        else:
            seq = it if isinstance(it, gast.Name) else it
            bind(target, item(seq))
            xs = astutil.call("range", [astutil.call("len", [copy.deepcopy(seq)])])
        for n in targets:
            self.scopes[-1].add(n)
        self.scopes[-1].add(index)
        return xs, index, prelude

    def _bind_pair(self, target, values, bind, s):
        if isinstance(target, tuple) and len(target) == len(values):
            for t, v in zip(target, values):
                if isinstance(t, str):
                    bind(t, v)
                else:
                    tmp = self.namer.fresh("item")
                    bind(tmp, v)
                    bind(t, astutil.name(tmp))
        else:
            tmps = []
            for v in values:
                tmp = self.namer.fresh("item")
                bind(tmp, v)
                tmps.append(astutil.name(tmp))
            bind(target, astutil.tuple_(tmps))

    # -- while ---------------------------------------------------------------------------
    def while_loop(self, s, defined):
        carry = [n for n in liveness.assigned(s.body) if n in s.header_live]
        init = [astutil.name(n) if n in defined else self.undefined() for n in carry]
        inner = set(defined) | set(carry)
        body, inner = self.block(s.body, inner)
        loop = ir.Loop("while", carry, init, body, [astutil.name(n) for n in carry], list(carry))
        loop.test = s.test
        defined.update(carry)
        return loop.at(s)

    # -- primitives called by the user -------------------------------------------------------
    def primitive(self, s, spec, call, prim, defined):
        name = primitives.primitive_name(prim)
        args = list(call.args)
        kws = {k.arg: k.value for k in call.keywords}
        order = {"cond": ["pred", "true_fun", "false_fun"],
                 "scan": ["f", "init", "xs", "length", "reverse"],
                 "while_loop": ["cond_fun", "body_fun", "init_val"],
                 "fori_loop": ["lower", "upper", "body_fun", "init_val"]}[name]
        if name == "cond":
            ops = args[3:]
            args = args[:3]
        bound = dict(zip(order, args))
        for k, v in kws.items():
            if k not in order or k in bound:
                raise self.uf.error(call, f"adsrc.{name} got an unexpected argument `{k}`.", None)
            bound[k] = v
        missing = [p for p in order if p not in bound and p not in ("xs", "length", "reverse")]
        if missing:
            raise self.uf.error(call, f"adsrc.{name} is missing the argument `{missing[0]}`.", None)
        out = self.namer.fresh(name)
        stmts = getattr(self, "prim_" + name)(s, bound, ops if name == "cond" else None, out, defined)
        stmts.append(_ir_assign(spec, astutil.name(out), self.classifier, s, defined))
        return stmts

    def inline(self, fn_node, params, s, defined, keywords=None):
        """IR statements computing a function applied to arguments; returns (stmts, result atom).

        A function defined in this function is inlined (its locals renamed);
        any other function is called.
        """
        keywords = keywords or {}
        if isinstance(fn_node, gast.Name) and fn_node.id in self.local_defs:
            name = fn_node.id
            if name in self.inlining:
                raise self.uf.error(s, f"the nested function `{name}` calls itself; adsrc does not differentiate "
                                       "recursive nested functions.",
                                    "Define the recursive function at module level.")
            fdef = self.local_defs[name]
            if isinstance(fdef, BranchDefs):
                raise self.uf.error(s, f"the nested function `{name}` is defined differently depending on the "
                                       f"branch of the `if` at line {fdef.line} taken when the code runs; adsrc "
                                       "inlines nested functions when it transforms the code.",
                                    "Mark the argument the branch depends on static (static_argnums/"
                                    "static_argnames), or define one function that branches inside.")
            fdef = copy.deepcopy(fdef)
            bound = self._bind_def(fdef, params, keywords, s, name)
            # arguments the function changes in place matter only if the caller reads them again
            marked = [st for st in inplace.walk_statements(fdef.body) if hasattr(st, "nested_inplace")]
            changes = getattr(fdef, "param_changes", [])
            changed = {p for p, _ in changes} | {st.nested_inplace[0] for st in marked}
            seen = {p for p, v in bound if p in changed and self._observable(v, s)}
            for p, err in changes:
                if p in seen:
                    raise TransformError(err)
            for st in marked:
                if st.nested_inplace[0] not in seen:
                    del st.nested_inplace
            renames = {n: self.namer.fresh(n) for n in local_names(fdef)}
            astutil.rename(fdef, renames)
            bound = [(renames.get(p, p), v) for p, v in bound]
            self.scopes[-1].update(renames.values())
            liveness.annotate(fdef.body)
            pre = [astutil.located(astutil.assign(p, v), s) for p, v in bound]
            self.inlining.append(name)
            try:
                stmts, defined = self.block(pre + fdef.body[:-1], defined)
            finally:
                self.inlining.pop()
            return stmts, fdef.body[-1].value
        res = self.namer.fresh("result")
        call = astutil.call(copy.deepcopy(fn_node), [copy.deepcopy(p) for p in params],
                            {k: copy.deepcopy(v) for k, v in keywords.items()})
        stmts, defined = self.block([astutil.located(astutil.assign(res, call), s)], defined)
        return stmts, astutil.name(res)

    def _observable(self, value, s):
        """Whether a change to the object of argument `value` in place could be seen after statement s."""
        if not isinstance(value, gast.Name):
            return not isinstance(value, gast.Constant)
        if not self.is_local(value.id) or not hasattr(s, "live_out") or self.inlining:
            return True     # (inside an inlined body the alias analysis does not know the names)
        # the call's result is the changed object in Python and the new value in adsrc: the same values
        live = s.live_out - astutil.names_stored(s)
        return bool(({value.id} | self.aliases.affected(value.id)) & live)

    def _bind_def(self, fdef, args, keywords, s, name):
        """(parameter, value) pairs binding a call's arguments to a nested def's parameters."""
        a = fdef.args
        if a.vararg is not None or a.kwarg is not None:
            raise self.uf.error(s, f"adsrc cannot inline the nested function `{name}`, which takes *args or "
                                   "**kwargs.", "Give it explicit parameters.")
        pos = [p.id for p in list(a.posonlyargs) + list(a.args)]
        defaults = dict(zip(pos[len(pos) - len(a.defaults):], a.defaults))
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            if d is not None:
                defaults[p.id] = d
        names = pos + [p.id for p in a.kwonlyargs]
        if len(args) > len(pos):
            raise self.uf.error(s, f"`{name}` takes {len(pos)} positional arguments but {len(args)} were given.")
        values = dict(zip(pos, args))
        for k, v in keywords.items():
            if k not in names or k in values:
                raise self.uf.error(s, f"`{name}` got an unexpected or repeated argument `{k}`.")
            values[k] = v
        out = []
        for p in names:
            if p in values:
                out.append((p, copy.deepcopy(values[p])))
            elif p in defaults:
                out.append((p, copy.deepcopy(defaults[p])))
            else:
                raise self.uf.error(s, f"`{name}` is missing the argument `{p}`.")
        return out

    def prim_cond(self, s, b, ops, out, defined):
        branches = []
        for key in ("true_fun", "false_fun"):
            d = set(defined)
            body, result = self.inline(b[key], ops, s, d)
            branches.append(ir.Branch(body, [result]))
        defined.add(out)
        return [ir.Cond(copy.deepcopy(b["pred"]), branches[0], branches[1], [out]).at(s)]

    def prim_while_loop(self, s, b, ops, out, defined):
        carry = self.namer.fresh("carry")
        self.scopes[-1].add(carry)
        inner = set(defined) | {carry}
        test_body, test = self.inline(b["cond_fun"], [astutil.name(carry)], s, set(inner))
        body, result = self.inline(b["body_fun"], [astutil.name(carry)], s, inner)
        loop = ir.Loop("while", [carry], [copy.deepcopy(b["init_val"])], body, [result], [out])
        loop.test_body, loop.test = test_body, test
        defined.add(out)
        return [loop.at(s)]

    def prim_fori_loop(self, s, b, ops, out, defined):
        carry = self.namer.fresh("carry")
        index = self.namer.fresh("i")
        self.scopes[-1].update({carry, index})
        inner = set(defined) | {carry, index}
        body, result = self.inline(b["body_fun"], [astutil.name(index), astutil.name(carry)], s, inner)
        loop = ir.Loop("scan", [carry], [copy.deepcopy(b["init_val"])], body, [result], [out])
        loop.item = index
        loop.xs = astutil.call("range", [copy.deepcopy(b["lower"]), copy.deepcopy(b["upper"])])
        defined.add(out)
        return [loop.at(s)]

    def prim_scan(self, s, b, ops, out, defined):
        carry = self.namer.fresh("carry")
        index = self.namer.fresh("i")
        ys = self.namer.fresh("ys")
        xs = b.get("xs")
        self.scopes[-1].update({carry, index, ys})
        pre = []
        if xs is not None and not (isinstance(xs, gast.Constant) and xs.value is None):
            x = self.namer.fresh("x")
            self.scopes[-1].add(x)
            pre.append(astutil.located(astutil.assign(x, astutil.call(self.namer.helper("scan_slice"), [copy.deepcopy(xs),
                                                                           astutil.name(index)])), s))
            x_atom = astutil.name(x)
            length = astutil.call(self.namer.helper("scan_length"), [copy.deepcopy(xs), copy.deepcopy(b.get("length",
                                                                                           astutil.const(None)))])
        else:
            x_atom = astutil.const(None)
            length = astutil.call(self.namer.helper("scan_length"), [astutil.const(None), copy.deepcopy(b["length"])])
        reverse = b.get("reverse")
        if reverse is not None and not astutil.is_constant_literal(reverse):
            raise self.uf.error(s, "adsrc.scan needs `reverse` to be a constant True or False.", None)
        rev = bool(reverse is not None and astutil.literal_value(reverse))
        inner = set(defined) | {carry, index, ys}
        pre_ir, inner = self.block(pre, inner)
        body, result = self.inline(b["f"], [astutil.name(carry), x_atom], s, inner)
        new_carry, y = self.namer.fresh("carry"), self.namer.fresh("y")
        ys_new = self.namer.fresh("ys")
        self.scopes[-1].update({new_carry, y, ys_new})
        tail = [astutil.located(astutil.assign((new_carry, y), result), s),
                astutil.located(astutil.assign(ys_new, astutil.call(self.namer.helper("list_append"), [astutil.name(ys), astutil.name(y)])), s)]
        tail_ir = []
        for t in tail:
            tail_ir.append(_ir_assign(astutil.target_spec(t.targets[0]), t.value, self.classifier, t, inner))
        tail_ir[-1].op = ir.Op("append")
        ys_init = self.namer.fresh("ys")
        final_ys = self.namer.fresh("ys")
        loop = ir.Loop("scan", [carry, ys], [copy.deepcopy(b["init"]), astutil.name(ys_init)],
                       pre_ir + body + tail_ir, [astutil.name(new_carry), astutil.name(ys_new)],
                       [self.namer.fresh("carry"), final_ys])
        loop.item = index
        n = length
        loop.xs = astutil.call("range", [gast.BinOp(left=n, op=gast.Sub(), right=astutil.const(1)),
                                         astutil.const(-1), astutil.const(-1)]) if rev else \
            astutil.call("range", [n])
        stacked = self.namer.fresh("ys")
        self.scopes[-1].update({ys_init, final_ys, stacked})
        first = astutil.located(astutil.assign(ys_init, gast.List(elts=[], ctx=gast.Load())), s)
        ys_order = astutil.name(final_ys) if not rev else \
            gast.Subscript(value=astutil.name(final_ys), slice=gast.Slice(lower=None, upper=None,
                                                                          step=astutil.const(-1)),
                           ctx=gast.Load())
        stack = astutil.located(astutil.assign(stacked, astutil.call(self.namer.helper("stack_ys"), [ys_order])), s)
        pack = astutil.located(astutil.assign(out, astutil.tuple_([astutil.name(loop.outs[0]), astutil.name(stacked)])), s)
        stmts = [_ir_assign(ys_init, first.value, self.classifier, first, defined), loop.at(s)]
        defined.update(loop.outs)
        if rev:
            rev_name = self.namer.fresh("ys")
            stmts.append(_ir_assign(rev_name, ys_order, self.classifier, stack, defined))
            stack.value.args = [astutil.name(rev_name)]
        stmts.append(_ir_assign(stacked, stack.value, self.classifier, stack, defined))
        stmts.append(_ir_assign(out, pack.value, self.classifier, pack, defined))
        return stmts


def _ir_assign(spec, value, classifier, at, defined):
    op = classifier.op(value, at)
    defined.update(astutil.target_names(spec))
    return ir.Assign(spec, value, op).at(at)


def _hashable(x):
    try:
        hash(x)
        return True
    except TypeError:
        return False


def _range_len(call):
    return astutil.call("range", [astutil.call("len", [copy.deepcopy(call)])])


def _arg_names(args):
    names = [p.id for p in list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs)]
    for p in (args.vararg, args.kwarg):
        if p is not None:
            names.append(p.id)
    return names


class BranchDefs:
    """A nested function name bound by different `def`s in the branches of a run-time `if`."""

    def __init__(self, line):
        self.line = line


def _drop_unused_local_defs(fn):
    """Remove local defs nothing calls (lambdas inlined into cond/scan bodies)."""
    used = ir.reads(fn.body) | astutil.names_loaded(fn.result)

    def clean(body):
        out = []
        for s in body:
            if isinstance(s, ir.LocalDef) and s.name not in used:
                continue
            if isinstance(s, ir.Cond):
                s.true.body = clean(s.true.body)
                s.false.body = clean(s.false.body)
            if isinstance(s, ir.Loop):
                s.body = clean(s.body)
                s.test_body = clean(s.test_body)
            out.append(s)
        return out

    fn.body = clean(fn.body)


def lower(uf, fdef, namer):
    """The IR Function for a normalized, jump-free FunctionDef."""
    return Lowerer(uf, namer).function(fdef)
