"""The lowered program: straight-line statements plus `Cond` and `Loop`.

This is the contract between the lowering passes (`lower/`) and the
differentiator. Every block is straight-line code; control flow appears only
as `Cond` (JAX's `cond`) and `Loop` (`scan` or `while_loop`), whose bodies
are blocks with explicit inputs and outputs. Names are in SSA form after
`lower/ssa.py`: each name is assigned once (per loop iteration).

`to_ast(fn)` prints the program back as runnable Python that calls
`cond`/`scan`/`while_loop`: what `g.source(stage="lowered")` shows.
"""

import copy

import gast

from . import astutil


class Stmt:
    lineno = None       # the user's statement line (comments group by it)
    col = 0             # column of the operation (carets point at it)
    op_lineno = None    # line of the operation

    def at(self, node):
        self.lineno = getattr(node, "lineno", None)
        self.col = getattr(node, "col_offset", 0) or 0
        self.op_lineno = getattr(node, "op_lineno", self.lineno)
        return self


class Op:
    """What the right-hand side of an Assign computes.

    kind:
      'copy'      target = name
      'const'     a constant or a value that is never differentiated ('raw')
      'rule'      a call (or operator) with a derivative rule: `rule`, `bound`
      'user'      a call to a user function with Python source: `callee`
      'local'     a call to a local def: `callee` is the def's name
      'getitem'   target = value[index]
      'tuple', 'list', 'dict'   container displays
      'unpack'    target is a tuple of names unpacked from one name
      'setitem'   target = index_update(x, index, v), functional
      'append'    target = list_append(lst, v), functional
      'unknown'   a call adsrc has no rule for (an error if differentiated)
    """

    def __init__(self, kind, **fields):
        self.kind = kind
        self.rule = None
        self.bound = None
        self.callee = None
        self.describe = None
        self.__dict__.update(fields)

    def __repr__(self):
        return f"Op({self.kind}{', ' + self.describe if self.describe else ''})"


class Assign(Stmt):
    def __init__(self, target, value, op):
        self.target = target      # a name or a nested tuple of names
        self.value = value        # gast expression (atoms as operands)
        self.op = op

    def __repr__(self):
        return f"Assign({self.target} = {self.op})"


class Effect(Stmt):
    """A call run for its side effects (print, ...); never differentiated.

    `op` classifies the call (None for checks the lowering adds); `writes`
    is the argument a NumPy function writes into (`np.copyto(buf, x)`), if any.
    `callee_only` checks run only in code generated for calls from other
    generated code (where a change to an argument would be lost).
    """

    def __init__(self, value, op=None, writes=None, callee_only=False):
        self.value = value
        self.op = op
        self.writes = writes
        self.callee_only = callee_only


class Raw(Stmt):
    """`assert` or `raise`, kept as written."""

    def __init__(self, node):
        self.node = node


class Branch:
    def __init__(self, body, results):
        self.body = body          # list of Stmt
        self.results = results    # list of atoms, one per Cond output


class Cond(Stmt):
    def __init__(self, pred, true, false, outs):
        self.pred = pred          # an expression (never differentiated)
        self.true = true
        self.false = false
        self.outs = outs          # output names


class Loop(Stmt):
    """`scan` (a `for` loop) or `while_loop`.

    carry: names of the carried values inside the body; init: their values
    before the loop; results: their values at the end of the body; outs:
    their names after the loop. A scan iterates `item` over `xs` (a range
    expression, or `range(len(seq))` when `seq` is indexed in the body).
    A while loop evaluates `test_body` then `test` before each iteration.
    `stop` names a carried flag after which remaining iterations do nothing.
    """

    def __init__(self, kind, carry, init, body, results, outs):
        self.kind = kind
        self.carry = carry
        self.init = init
        self.body = body
        self.results = results
        self.outs = outs
        self.item = None
        self.xs = None
        self.stop = None
        self.test_body = []
        self.test = None


class LocalDef(Stmt):
    """A function defined inside the differentiated function."""

    def __init__(self, name, fn):
        self.name = name
        self.fn = fn


class Function:
    """A lowered function: parameters, a straight-line body, one result."""

    def __init__(self, name, args, body, result, uf, lineno):
        self.name = name
        self.args = args           # gast.arguments (defaults as written)
        self.body = body           # list of Stmt
        self.result = result       # atom
        self.uf = uf               # the frontend.UserFunction it came from
        self.lineno = lineno

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


# -- traversal -----------------------------------------------------------------------

def blocks_of(stmt):
    """The nested blocks of a statement."""
    if isinstance(stmt, Cond):
        return [stmt.true.body, stmt.false.body]
    if isinstance(stmt, Loop):
        return [stmt.test_body, stmt.body]
    return []


def walk(body):
    """Every statement in a block, nested blocks included (not local defs)."""
    for s in body:
        yield s
        for b in blocks_of(s):
            yield from walk(b)


def defined_names(stmt):
    """Names a statement defines in its enclosing block."""
    if isinstance(stmt, Assign):
        return astutil.target_names(stmt.target)
    if isinstance(stmt, Cond):
        return list(stmt.outs)
    if isinstance(stmt, Loop):
        return list(stmt.outs)
    if isinstance(stmt, LocalDef):
        return [stmt.name]
    return []


def expressions(stmt):
    """The expressions a statement reads (in its enclosing block)."""
    if isinstance(stmt, Assign):
        return [stmt.value]
    if isinstance(stmt, Effect):
        return [stmt.value]
    if isinstance(stmt, Raw):
        return [stmt.node]
    if isinstance(stmt, Cond):
        return [stmt.pred]
    if isinstance(stmt, Loop):
        out = list(stmt.init)
        if stmt.xs is not None:
            out.append(stmt.xs)
        return out
    return []


def reads(body):
    """Every name read anywhere in a block: expressions, branch and loop results, tests, local defs."""
    out = set()
    for s in walk(body):
        for e in expressions(s):
            out |= astutil.names_loaded(e)
        if isinstance(s, Cond):
            for br in (s.true, s.false):
                for r in br.results:
                    out |= astutil.names_loaded(r)
        elif isinstance(s, Loop):
            for r in s.results:
                out |= astutil.names_loaded(r)
            if s.test is not None:
                out |= astutil.names_loaded(s.test)
        elif isinstance(s, LocalDef):
            out |= free_names(s.fn)
    return out


def free_names(fn_or_block, params=()):
    """Names read in a block that it does not define itself."""
    body = fn_or_block.body if isinstance(fn_or_block, Function) else fn_or_block
    defined = set(params)
    if isinstance(fn_or_block, Function):
        defined |= set(fn_or_block.params)
    reads = set()
    _collect(body, defined, reads)
    if isinstance(fn_or_block, Function) and fn_or_block.result is not None:
        reads |= astutil.names_loaded(fn_or_block.result) - defined
    return reads


def _collect(body, defined, reads):
    for s in body:
        for e in expressions(s):
            reads |= astutil.names_loaded(e) - defined
        if isinstance(s, Cond):
            for br in (s.true, s.false):
                inner = set(defined)
                _collect(br.body, inner, reads)
                for r in br.results:
                    reads |= astutil.names_loaded(r) - inner
        elif isinstance(s, Loop):
            inner = set(defined) | set(s.carry) | set(astutil.target_names(s.item) if s.item else [])
            _collect(s.test_body, inner, reads)
            if s.test is not None:
                reads |= astutil.names_loaded(s.test) - inner
            _collect(s.body, inner, reads)
            for r in s.results:
                reads |= astutil.names_loaded(r) - inner
        elif isinstance(s, LocalDef):
            reads |= free_names(s.fn) - defined
        defined.update(defined_names(s))


# -- printing the lowered program ---------------------------------------------------------

class Printer:
    """IR -> runnable Python calling cond/scan/while_loop (names from `names`)."""

    def __init__(self, names, namer):
        self.names = names        # {'cond': ..., 'scan': ..., 'while_loop': ..., ...}
        self.namer = namer

    def function(self, fn, name=None):
        body = self.block(fn.body) + [gast.Return(value=copy.deepcopy(fn.result))]
        node = astutil.function_def(name or fn.name, copy.deepcopy(fn.args), body, fn.lineno)
        return node

    def block(self, stmts):
        out = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def _tag(self, nodes, s):
        for n in nodes:
            n.lineno = s.lineno
            n.adsrc_line = s.lineno
        return nodes

    def stmt(self, s):
        if isinstance(s, Assign):
            return self._tag([astutil.assign(s.target, copy.deepcopy(s.value))], s)
        if isinstance(s, Effect):
            if s.callee_only:
                return []
            return self._tag([astutil.expr_stmt(copy.deepcopy(s.value))], s)
        if isinstance(s, Raw):
            return self._tag([copy.deepcopy(s.node)], s)
        if isinstance(s, LocalDef):
            return self._tag([self.function(s.fn, s.name)], s)
        if isinstance(s, Cond):
            return self._tag(self.cond(s), s)
        if isinstance(s, Loop):
            return self._tag(self.scan(s) if s.kind == "scan" else self.while_loop(s), s)
        raise TypeError(s)

    def _pack(self, atoms):
        atoms = [copy.deepcopy(a) for a in atoms]
        return atoms[0] if len(atoms) == 1 else astutil.tuple_(atoms)

    def _targets(self, names):
        return names[0] if len(names) == 1 else tuple(names)

    def cond(self, s):
        tname = self.namer.fresh("if_true")
        fname = self.namer.fresh("if_false")
        defs = []
        for fname_, br in ((tname, s.true), (fname, s.false)):
            body = self.block(br.body) + [gast.Return(value=self._pack(br.results) if br.results
                                                      else astutil.const(None))]
            defs.append(astutil.function_def(fname_, [], body))
        call = astutil.call(self.names["cond"], [copy.deepcopy(s.pred), astutil.name(tname), astutil.name(fname)])
        if s.outs:
            return defs + [astutil.assign(self._targets(s.outs), call)]
        return defs + [astutil.expr_stmt(call)]

    def _unpack_carry(self, s, param):
        if len(s.carry) == 1:
            return [astutil.assign(s.carry[0], astutil.name(param))] if s.carry[0] != param else []
        return [astutil.assign(tuple(s.carry), astutil.name(param))]

    def scan(self, s):
        body_name = self.namer.fresh("loop_body")
        carry_param = "carry" if len(s.carry) != 1 else s.carry[0]
        item = s.item if isinstance(s.item, str) else "item"
        body = self._unpack_carry(s, carry_param)
        if not isinstance(s.item, str):
            body.append(astutil.assign(s.item, astutil.name(item)))
        body += self.block(s.body)
        body.append(gast.Return(value=astutil.tuple_([self._pack(s.results) if s.results
                                                      else astutil.const(None), astutil.const(None)])))
        fdef = astutil.function_def(body_name, [carry_param, item], body)
        call = astutil.call(self.names["scan"], [astutil.name(body_name),
                                                 self._pack(s.init) if s.init else astutil.const(None),
                                                 copy.deepcopy(s.xs)])
        outs = self._targets(s.outs) if s.outs else "_"
        return [fdef, astutil.assign((outs, "_"), call)]

    def while_loop(self, s):
        cond_name = self.namer.fresh("loop_cond")
        body_name = self.namer.fresh("loop_body")
        carry_param = "carry" if len(s.carry) != 1 else s.carry[0]
        cbody = self._unpack_carry(s, carry_param) + self.block(s.test_body) + \
            [gast.Return(value=copy.deepcopy(s.test))]
        bbody = self._unpack_carry(s, carry_param) + self.block(s.body) + \
            [gast.Return(value=self._pack(s.results))]
        defs = [astutil.function_def(cond_name, [carry_param], cbody),
                astutil.function_def(body_name, [carry_param], bbody)]
        call = astutil.call(self.names["while_loop"], [astutil.name(cond_name), astutil.name(body_name),
                                                       self._pack(s.init)])
        return defs + [astutil.assign(self._targets(s.outs), call)]
