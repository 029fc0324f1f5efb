"""Calls in a branch of a run-time `if` whose callee adsrc refuses, refused when the branch runs.

`if ax: plot(x)` in a simulation that is differentiated with `ax=None` is ordinary code: Python never runs
`plot`, and neither should its refusal stop the program. Before the function's changes in place are followed
(functionalize.py), every call in a branch whose callee adsrc cannot read (its summary fails) becomes a
statement that raises that refusal when it runs (its value, an Opaque call that carries the refusal, still
depends on the arguments); the differentiator does the same for a branch it cannot differentiate
(differentiation/control.py). A call on every path is refused when transforming, as before.
"""

from .. import astutil
from ..analysis.summaries import callee_name
from ..errors import TransformError
from ..ir import nodes as ir


def refuse_in_branches(fn, namer, oracle):
    """Rewrite, in place, the calls inside fn's run-time branches whose callee oracle cannot summarize."""
    def block(stmts, in_branch):
        out = []
        for s in stmts:
            if isinstance(s, ir.If):
                s.body, s.orelse = block(s.body, True), block(s.orelse, True)
            elif isinstance(s, (ir.For, ir.While)):
                if isinstance(s, ir.While):
                    s.test_body = block(s.test_body, in_branch)
                s.body = block(s.body, in_branch)
            elif in_branch and isinstance(s, ir.CallUser):
                try:
                    oracle.summary(s)
                except TransformError as e:
                    out.extend(_raising(fn, namer, s, e))
                    continue
            out.append(s)
        return out
    fn.body = block(fn.body, False)


def _raising(fn, namer, s, error):
    """The refusal, raised when the branch runs; then the call's value as a call adsrc cannot see into (never
    run: the refusal comes first). Its value depends on the call's arguments, so that neither this function's
    derivative nor a caller's takes it for a constant (they raised nothing and lost its derivative)."""
    name = namer.fresh("refusal")
    fn.bindings[name] = error
    out = [ir.Effect(astutil.call(astutil.name(namer.helper("refuse_now")), [astutil.name(name)]), loc=s.loc)]
    if s.target is not None:
        out.append(ir.Opaque(s.target, s.expr, loc=s.loc, describe=f"the call to `{callee_name(s.callee)}`",
                             refusal=error))
    return out
