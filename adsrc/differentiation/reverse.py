"""Reverse mode: forward and backward code for a lowered function.

For each statement, in reverse order, the adjoint of its value flows back to
its operands (ops.py; cond and loops in control.py). The generated code is
plain Python, with adjoint variables named after their primal (`x` ->
`dx`). Only active names (activity.py) get adjoint code; the abstract
values (values.py) say what may be broadcast.

Item assignments and appends are updated in place when the alias analysis
says the base is a buffer only this function holds and nothing the
generated code computes later reads its old value; otherwise the update
copies (copy-on-write) and the code says why.
"""

import functools

import gast

from .. import astutil
from ..analysis.buffers import exclusive_updates, fresh_values
from ..ir import nodes as ir
from ..ir.printer import Printer, op_expr
from ..ir.walk import defines, expr_reads, own_reads, target_names, walk
from . import checkpoint, dynamic, remat
from .complex_values import may_be_complex
from .control import ControlAdjoints
from .inplace import finish_updates
from .operands import operand_checks
from .ops import OpAdjoints, refuse_lost_arguments
from .state import Adjoints, tag

_PURE = (ir.Apply, ir.Copy, ir.GetItem, ir.Pack, ir.Update, ir.Append, ir.GetAttr, ir.ScanSlice)


class Adjoint(Adjoints, OpAdjoints, ControlAdjoints):
    """Generates forward and backward code for one lowered function.

    ctx: the unit builder (differentiation/units.py): calls to other user
    functions, objects generated code refers to, printing of nested defs.
    """

    def __init__(self, fn, namer, wrt, values, act, ctx, callee=False):
        self.fn = fn
        self.uf = fn.uf
        self.namer = namer
        self.wrt = list(wrt)
        self.values = values
        self.act = act
        self.ctx = ctx
        self.callee = callee
        self.boxed = False      # residuals handed through Python (a vjp's pullback): numba types them again
        self.adj = {}
        self._dnames = {}
        self._adjoint_names = {}
        self.frames = []
        self.calls = {}             # id(stmt) -> what a call's forward code bound (pullback, residuals...)
        self.shape_reads = set()    # ids of Name nodes in backward code that only read a shape
        self.updates = []           # (forward node, stmt): updates that may happen in place
        self.passive_reads = set()  # ids of forward nodes that read values without keeping them (constants)
        self.fresh_locals = fresh_values(fn)
        self.exclusive = exclusive_updates(fn)
        self.unchanged_params = remat.unchanged_params(fn)
        self.g_lazy = self.g_owned = False

    @functools.cached_property
    def complex_cotangents(self):
        """May a real value's cotangent carry an imaginary part (rules/__init__.py)? Then adding one in place
        into a real adjoint (`dx[i] += g`) drops it first."""
        return may_be_complex(self.fn)

    @property
    def frame(self):
        return self.frames[-1]

    def error(self, s, problem, hint=None):
        return self.uf.error(s.loc, problem, hint)

    # -- blocks ------------------------------------------------------------------------------------
    def block(self, body, repeated):
        """(forward statements, backward statements, names the block defines at its level)."""
        self.frames.append(set())
        fwd_parts = [None] * len(body)
        bwd = []
        try:
            for i in range(len(body) - 1, -1, -1):
                f, b = self.stmt(body[i], repeated)
                fwd_parts[i] = f
                bwd.extend(b)
                self.frame.update(defines(body[i]))
        finally:
            # a branch refused when it runs (control.py) stops here: the enclosing block's names stay its own
            frame = self.frames.pop()
        return [x for part in fwd_parts for x in part], bwd, frame

    def stmt(self, s, repeated):
        if isinstance(s, ir.Op):
            return self.op(s)
        if isinstance(s, ir.Effect):
            self.refuse_lost_effect(s)
            node = astutil.expr_stmt(op_expr(s, self.namer))
            node.adsrc_effect = True        # not run again by a checkpointed loop (differentiation/checkpoint.py)
            return tag([node], s.loc.line), []
        if isinstance(s, ir.Raw):

            return tag([astutil.clone(s.node)], s.loc.line), []
        if isinstance(s, ir.Cond):
            return self.cond(s, repeated)
        if isinstance(s, (ir.Scan, ir.WhileLoop)):
            return self.loop(s)
        if isinstance(s, ir.Def):
            if self.act.active(s.name):
                raise self.closure_error(s, s.name)
            printer = Printer(self.ctx.primitive_names(self.namer), self.namer)
            return tag([printer.function(s.fn, s.name)], s.loc.line), []
        raise TypeError(s)

    def closure_error(self, s, name):
        var = self.act.closures[name]
        return self.error(s, f"the nested function `{name}` uses `{var}`, which is differentiated, and is passed on "
                             "as a value; adsrc differentiates nested functions only where they are called directly.",
                          f"Call `{name}` directly in this function, or define it to take `{var}` as a parameter and "
                          f"pass `{var}` along with it.")

    def refuse_lost_effect(self, s):
        """A call changing an object adsrc does not own with a differentiated value: its gradient would be lost."""
        refuse_unknown_change(self, s)
        if s.writes is not None and self.act.any_varied([s.expr]) and self.read_elsewhere(s):
            what = f"`.{s.expr.func.attr}()` changes its object `{s.writes}` in place" \
                if isinstance(s.expr.func, gast.Attribute) else f"This writes into `{s.writes}`"
            raise self.error(s, f"{what}, an object adsrc does not own (a global, or an attribute of an object "
                                "known when transforming), with a differentiated value, and this function reads "
                                "that object again, so the gradient would have to flow through it: adsrc cannot "
                                "follow that.",
                             "Keep the values in a local list and return them, or pass "
                             "`adsrc.stop_gradient(value)` if only the value is wanted (for logging).")

    def read_elsewhere(self, s):
        """Does another statement of this function read the object the effect s writes? If not, the value
        written (a loss appended to a global history, say) is only recorded: no gradient flows back
        through it in this function, and the effect runs with the value as it is."""
        root = s.writes.split(".")[0].split("[")[0]
        return any(root in own_reads(t) for t in walk(self.fn.body)
                   if not isinstance(t, _NO_DERIVATIVE_READS))

    # -- operations ----------------------------------------------------------------------------------
    def op(self, s):
        names = target_names(s.target)
        if isinstance(s, ir.Apply) and any(n in self.act.useful for n in names):
            refuse_lost_arguments(self, s, lambda n: isinstance(n, gast.Name) and n.id in self.act.varied)
        active = any(self.act.active(n) for n in names)
        fwd = tag(self.forward(s, active), s.loc.line)
        if not active:
            return fwd, []
        g = self.g_of(s.target)
        self.g_lazy = any(self.adj[n].lazy if n in self.adj else True for n in names) \
            and not all(self.is_scalar(n) for n in names)
        self.g_owned = isinstance(s.target, str) and s.target in self.adj and self.adj[s.target].owned
        self.kill(names)
        if g is None:
            return fwd, []
        bwd = []
        self.adjoint_op(s, g, bwd)
        return fwd, tag(bwd, s.loc.line)

    def forward(self, s, active):
        """The forward code of an operation (a call to another unit when a user call is active)."""
        value = op_expr(s, self.namer)
        if isinstance(s, (ir.CallUser, ir.CallCustom, ir.Opaque)):
            for a in expr_reads(s.expr):
                if a in self.act.closures and self.act.active(a):
                    raise self.closure_error(s, a)
        if active and isinstance(s, ir.Opaque) and s.dynamic:
            return dynamic.forward(self, s)      # a function value known when the code runs (dynamic.py)
        if active and isinstance(s, ir.CallUser) and s.checkpoint is not None:
            return checkpoint.call_forward(self, s)      # adsrc.checkpoint (differentiation/checkpoint.py)
        if active and isinstance(s, ir.CallUser):
            info = self.ctx.call(self, s)
            self.calls[id(s)] = info
            self.frame.add(info.pullback)
            return [astutil.assign((s.target, info.pullback), info.expr)]
        if active and isinstance(s, ir.CallCustom):
            info = self.ctx.custom(self, s)
            self.calls[id(s)] = info
            self.frame.add(info.residuals)
            return [astutil.assign((s.target, info.residuals), info.expr)]
        node = astutil.assign(s.target, value)
        node.adsrc_pure = isinstance(s, _PURE)
        if isinstance(s, ir.Const):
            self.passive_reads.add(id(node))
        out = [node]
        if isinstance(s, (ir.Update, ir.Append)) and id(s) in self.exclusive:
            self.updates.append((node, s))
        if active:
            out[:0] = operand_checks(self, s, lambda a: self.act.any_varied([a]))
        if isinstance(s, ir.Apply) and s.method_of is not None and isinstance(s.method_of, gast.Name) and \
                self.values[s.method_of.id].kind != "array" and self.act.any_varied([s.expr]):
            # `xp.sum(v)` differentiated as ndarray.sum: refuse when it runs if `xp` is a module or an object
            out.insert(0, astutil.expr_stmt(self.hcall("check_array_method", astutil.name(s.method_of.id),
                                                       astutil.const(s.rule.name), astutil.const(s.method_of.id))))
        return out

    def finish_updates(self, code):
        finish_updates(self, code)


# statements whose reads carry no derivative: constants, effects, and the tests of branches and loops
_NO_DERIVATIVE_READS = (ir.Const, ir.Effect, ir.If, ir.Cond, ir.While, ir.WhileLoop, ir.Raw)


def refuse_unknown_change(d, s):
    """`o.method(x)` or `ext.f(x, out)` run for its effect, with x differentiated, where adsrc cannot see into
    it: it may keep x or write it into out, and the gradient through it would be lost (d: the Adjoint or
    Forward differentiator)."""
    if s.may_change is None:
        return
    e = s.expr
    if d.act.any_varied(list(e.args) + [k.value for k in e.keywords]):
        raise d.error(s, f"adsrc cannot follow `{s.may_change}(...)`, which is run for its effect with a "
                         "differentiated argument: it may keep that value, or write it into another argument, "
                         "where adsrc cannot see it, and the gradient through it would be lost.",
                      s.hint or "Compute with values the function returns; if the call only logs the value, pass "
                                "`adsrc.stop_gradient(value)`.")
