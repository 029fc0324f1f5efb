"""Activity analysis: which values need derivative code.

A name is *varied* if its value depends (differentiably) on a differentiated
input, and *useful* if the output depends (differentiably) on it. Only names
that are both, the *active* names, get adjoint code. Everything else is a
constant to the differentiator, so expressions over constant data cost
nothing extra.

The analysis also infers a *kind* for every name: 'array' for numbers and
arrays, 'other' for tuples, lists, dicts and values of unknown structure.
Cotangents of 'array' names are added with `+`; others with `add_cot`.
"""

import gast

from . import astutil
from . import old_ir as ir

ARRAY, OTHER, SCALAR = "array", "other", "scalar"


def _join(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return ARRAY if a == b == ARRAY else OTHER


class Activity:
    """Varied, useful and kind facts for one lowered function.

    `calls(stmt, varied_args)` is asked about calls to other user functions:
    it returns (result_varied, result_kind) for the given varied arguments.
    """

    def __init__(self, fn, wrt, kinds, calls, extra_varied=()):
        self.fn = fn
        self.calls = calls
        self.varied = set(wrt) | set(extra_varied)
        self.kind = {}
        self.scalars = set()
        self.closures = {}       # nested def -> a differentiated name it captures
        self.structure = {}      # name -> pytree structure (see api.pytree_structure) of container params
        for n, k in kinds.items():
            self._set_leaf_kind(n, k)
        self.int_names = set()
        self.shape_rep = {}      # name -> an earlier name certainly of the same shape
        self._forward(fn.body)
        self.useful = set()
        self._backward_result(fn.result)
        self._backward(fn.body)

    def active(self, name):
        return name in self.varied and name in self.useful

    def is_active_atom(self, node):
        return isinstance(node, gast_Name) and self.active(node.id)

    # -- varied (forward) ------------------------------------------------------------------
    def _atoms_varied(self, nodes):
        return any(n in self.varied for node in nodes for n in astutil.names_loaded(node))

    def _forward(self, body):
        for s in body:
            self._forward_stmt(s)

    def _forward_stmt(self, s):
        if isinstance(s, ir.Assign):
            names = astutil.target_names(s.target)
            varied, kind = self._op_varied(s)
            if varied:
                self.varied.update(names)
            for n in names:
                self.kind[n] = kind if isinstance(s.target, str) else self._unpacked_kind(s, kind)
            self._structured_element(s)
            if isinstance(s.target, str) and self._op_scalar(s):
                self.scalars.add(s.target)
            if isinstance(s.target, str):
                rep = self._same_shape_as(s)
                if rep is not None:
                    self.shape_rep[s.target] = self.shape_rep.get(rep, rep)
                else:
                    self.shape_rep.pop(s.target, None)    # a loop's second pass may know less
        elif isinstance(s, ir.Cond):
            reps = []
            for br in (s.true, s.false):
                for out in s.outs:
                    self.shape_rep.pop(out, None)
                self._forward(br.body)
                reps.append([self.rep(r.id) if isinstance(r, gast_Name) else None for r in br.results])
            for out, rt, rf in zip(s.outs, *reps):
                self.shape_rep.pop(out, None)
                if rt is not None and rt == rf and rt != out:
                    self.shape_rep[out] = rt     # the same shape whichever branch runs
            for k, out in enumerate(s.outs):
                rs = (s.true.results[k], s.false.results[k])
                if self._atoms_varied(rs):
                    self.varied.add(out)
                self.kind[out] = _join(self._atom_kind(rs[0]), self._atom_kind(rs[1]))
                if all(self.scalar(r) for r in rs):
                    self.scalars.add(out)
        elif isinstance(s, ir.LocalDef):
            # a closure over differentiated values carries them wherever it is passed
            captured = sorted(self.varied & ir.free_names(s.fn))
            if captured:
                self.varied.add(s.name)
                self.closures[s.name] = captured[0]
            self.kind[s.name] = OTHER
        elif isinstance(s, ir.Loop):
            if s.kind == "scan" and isinstance(s.item, str) and _is_range(s.xs):
                self.int_names.add(s.item)
                self.scalars.add(s.item)
            for c, init in zip(s.carry, s.init):
                if self._atoms_varied([init]):
                    self.varied.add(c)
                self.kind[c] = self._atom_kind(init)
                if self.scalar(init):
                    self.scalars.add(c)
                if isinstance(init, gast_Name):
                    self.shape_rep[c] = self.rep(init.id)     # kept if every iteration keeps the shape
            while True:
                before = (len(self.varied), dict(self.kind), set(self.scalars), dict(self.shape_rep))
                self._forward(s.test_body)
                self._forward(s.body)
                for c, r in zip(s.carry, s.results):
                    if self._atoms_varied([r]):
                        self.varied.add(c)
                    self.kind[c] = _join(self.kind.get(c), self._atom_kind(r))
                    if not self.scalar(r):
                        self.scalars.discard(c)
                    if c in self.shape_rep and not (isinstance(r, gast_Name) and
                                                    self.rep(r.id) == self.shape_rep[c]):
                        del self.shape_rep[c]
                if (len(self.varied), self.kind, self.scalars, self.shape_rep) == before:
                    break
            for c, out in zip(s.carry, s.outs):
                if c in self.varied:
                    self.varied.add(out)
                self.kind[out] = self.kind.get(c)
                if c in self.scalars:
                    self.scalars.add(out)

    def closure_error(self, s, name):
        var = self.closures[name]
        return self.fn.uf.error(
            s, f"the nested function `{name}` uses `{var}`, which is differentiated, and is passed on as a value; "
               "adsrc differentiates nested functions only where they are called directly.",
            f"Call `{name}` directly in this function, or define it to take `{var}` as a parameter and pass "
            f"`{var}` along with it.")

    def _set_leaf_kind(self, name, k):
        """Record the kind of a name from a key entry: 'array', 'scalar', or a pytree structure."""
        if k == SCALAR:
            self.kind[name] = ARRAY
            self.scalars.add(name)
        elif k in (ARRAY, OTHER):
            self.kind[name] = k
        elif isinstance(k, tuple):
            self.kind[name] = OTHER
            self.structure[name] = k
        else:
            self.kind[name] = OTHER

    def _element(self, base, key):
        """The key-entry kind of base[key] (or base.key) when base's structure is known, else None."""
        structure = self.structure.get(base)
        if structure is None:
            return None
        entries = structure[-1]
        if structure[0] in ("list", "tuple") and isinstance(key, int) and -len(entries) <= key < len(entries):
            return entries[key][1]
        for k, leaf in entries:
            if k == key and type(k) is type(key):
                return leaf
        return None

    def scalar(self, node):
        """Statically known to be a scalar (a number, not an array of any other shape)."""
        if isinstance(node, gast_Constant):
            return type(node.value) in (int, float)
        return isinstance(node, gast_Name) and node.id in self.scalars

    def _op_scalar(self, s):
        op, v = s.op, s.value
        if op.kind == "copy":
            return self.scalar(v)
        if op.kind == "const":
            return isinstance(v, gast_Constant) and type(v.value) in (int, float)
        if op.kind == "rule":
            rule = op.rule
            if rule.is_scalar_output(rule.static_args(op.bound)):
                return True
            if rule.kind == "elementwise":
                return all(self.scalar(n) for n in op.bound.values() if not isinstance(n, list))
        return False

    def _structured_element(self, s):
        """params["W"], p.W, `a, b = params`: kinds from the argument's known structure."""
        op, v = s.op, s.value
        if op.kind == "getitem" and isinstance(v.value, gast_Name) and isinstance(v.slice, gast_Constant):
            leaf = self._element(v.value.id, v.slice.value)
            if leaf is not None:
                self._set_leaf_kind(s.target, leaf)
        elif op.kind == "getattr" and isinstance(v.value, gast_Name):
            leaf = self._element(v.value.id, v.attr)
            if leaf is not None:
                self._set_leaf_kind(s.target, leaf)
        elif op.kind == "copy" and isinstance(s.target, tuple) and v.id in self.structure:
            structure = self.structure[v.id]
            if structure[0] in ("list", "tuple") and len(structure[-1]) == len(s.target):
                for t, (_, leaf) in zip(s.target, structure[-1]):
                    if isinstance(t, str):
                        self._set_leaf_kind(t, leaf)
        elif op.kind == "copy" and isinstance(s.target, str) and v.id in self.structure:
            self.structure[s.target] = self.structure[v.id]

    def _same_shape_as(self, s):
        """A name the output of s certainly has the shape of, or None."""
        op, v = s.op, s.value
        if op.kind == "copy":
            return v.id
        if op.kind == "rule" and op.rule.kind == "elementwise":
            arrays = {self.rep(n.id) for n in op.bound.values()
                      if isinstance(n, gast_Name) and n.id not in self.scalars}
            others = [n for n in op.bound.values()
                      if not isinstance(n, (gast_Name, list)) and not self.scalar(n)]
            if len(arrays) == 1 and not others:
                return arrays.pop()
        return None

    def rep(self, name):
        return self.shape_rep.get(name, name)

    def _unpacked_kind(self, s, kind):
        if s.op.kind == "rule" and s.op.rule.tuple_output:
            return ARRAY
        return OTHER if kind != ARRAY or s.op.kind in ("copy", "user", "local") else ARRAY

    def on_sequences(self, op):
        """Whether a `+` or `*` may concatenate or repeat lists and tuples (an operand is not an array)."""
        return op.rule.name in ("`+`", "`*`") and any(self.kind.get(n.id) == OTHER for n in op.bound.values()
                                                     if isinstance(n, gast_Name))

    def _atom_kind(self, node):
        if isinstance(node, gast_Name):
            if node.id in self.kind:
                return self.kind[node.id]
            return None if node.id == "UNDEFINED" else OTHER
        if isinstance(node, gast_Constant):
            return ARRAY if isinstance(node.value, (int, float, complex)) else None
        return OTHER

    def _op_varied(self, s):
        op, v = s.op, s.value
        k = op.kind
        if k == "copy":
            return v.id in self.varied, self.kind.get(v.id, OTHER)
        if k == "const":
            return False, ARRAY if _numeric_constant(v) or getattr(op, "array", False) else OTHER
        if k == "rule":
            rule = op.rule
            diff = [node for p, node in op.bound.items() if p in rule.vjps]
            flat = []
            for node in diff:
                flat.extend(node if isinstance(node, list) else [node])
            varied = self._atoms_varied(flat)
            if rule.name == "iterating":
                return varied, self._atom_kind(flat[0])     # lists, tuples and arrays are iterated as they are
            if self.on_sequences(op):
                return varied, OTHER         # concatenating or repeating lists and tuples
            return varied, OTHER if rule.container else ARRAY
        if k == "getitem":
            base = v.value
            kind = ARRAY if self._atom_kind(base) == ARRAY else OTHER
            return self._atoms_varied([base]), kind
        if k == "slice":
            return self._atoms_varied([v.args[0]]), OTHER
        if k == "getattr":
            return self._atoms_varied([v.value]), OTHER
        if k in ("tuple", "list"):
            return self._atoms_varied(v.elts), OTHER
        if k == "dict":
            return self._atoms_varied(v.values), OTHER
        if k == "setitem":
            base, _, val = v.args
            return self._atoms_varied([base, val]), self._atom_kind(base)
        if k == "append":
            return self._atoms_varied(v.args), OTHER
        if k in ("user", "local"):
            args = list(v.args) + [kw.value for kw in v.keywords]
            for a in args:
                if isinstance(a, gast_Name) and a.id in self.closures:
                    raise self.closure_error(s, a.id)
            return self.calls(s, [self._atoms_varied([a]) for a in args], self)
        if k == "custom":
            return self._atoms_varied(v.args), OTHER
        # unknown calls: varied if anything they read is varied (an error later if also useful)
        return self._atoms_varied([v]), OTHER

    # -- useful (backward) ------------------------------------------------------------------
    def _mark_useful(self, nodes):
        for node in nodes:
            self.useful.update(astutil.names_loaded(node))

    def _backward_result(self, result):
        self._mark_useful([result])

    def _backward(self, body):
        for s in reversed(body):
            self._backward_stmt(s)

    def _backward_stmt(self, s):
        if isinstance(s, ir.Assign):
            if not any(n in self.useful for n in astutil.target_names(s.target)):
                return
            self._mark_useful(self._diff_operands(s))
        elif isinstance(s, ir.Cond):
            for k, out in enumerate(s.outs):
                if out in self.useful:
                    self._mark_useful([s.true.results[k], s.false.results[k]])
            self._backward(s.true.body)
            self._backward(s.false.body)
        elif isinstance(s, ir.Loop):
            for c, out in zip(s.carry, s.outs):
                if out in self.useful:
                    self.useful.add(c)
            while True:
                before = len(self.useful)
                for c, r in zip(s.carry, s.results):
                    if c in self.useful:
                        self._mark_useful([r])
                self._backward(s.body)
                if len(self.useful) == before:
                    break
            for c, init in zip(s.carry, s.init):
                if c in self.useful:
                    self._mark_useful([init])

    def _diff_operands(self, s):
        """Operands through which a statement's output depends differentiably on its inputs."""
        op, v = s.op, s.value
        k = op.kind
        if k == "copy":
            return [v]
        if k == "rule":
            out = []
            for p, node in op.bound.items():
                if p in op.rule.vjps:
                    out.extend(node if isinstance(node, list) else [node])
            return out
        if k == "getitem":
            return [v.value]
        if k == "slice":
            return [v.args[0]]
        if k == "getattr":
            return [v.value]
        if k in ("tuple", "list"):
            return list(v.elts)
        if k == "dict":
            return list(v.values)
        if k == "setitem":
            return [v.args[0], v.args[2]]
        if k == "append":
            return list(v.args)
        if k in ("user", "local", "unknown"):
            return [v]
        if k == "custom":
            return list(v.args)
        return []


def _numeric_constant(v):
    return isinstance(v, gast_Constant) and isinstance(v.value, (int, float, complex)) \
        and not isinstance(v.value, bool)


def _is_range(xs):
    return isinstance(xs, gast_Call) and isinstance(xs.func, gast_Name) and xs.func.id == "range"


gast_Name, gast_Constant, gast_Call = gast.Name, gast.Constant, gast.Call
