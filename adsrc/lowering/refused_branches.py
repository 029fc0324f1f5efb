"""Calls in a branch of a run-time `if` whose callee adsrc refuses, refused when the branch runs.

`if ax: plot(x)` in a simulation that is differentiated with `ax=None` is ordinary code: Python never runs
`plot`, and neither should its refusal stop the program. Before the function's changes in place are followed
(functionalize.py), every call in a branch whose callee adsrc cannot read (its summary fails) becomes a
statement that raises that refusal when it runs; the differentiator does the same for a branch it cannot
differentiate (differentiation/control.py). A call on every path is refused when transforming, as before.
"""

import gast

from .. import astutil
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
    name = namer.fresh("refusal")
    fn.bindings[name] = error
    raise_it = ir.Effect(astutil.call(astutil.name(namer.helper("refuse_now")), [astutil.name(name)]), loc=s.loc)
    out = [raise_it]
    for t in ([s.target] if isinstance(s.target, str) else
              [n.id for n in gast.walk(s.target) if isinstance(n, gast.Name)] if s.target is not None else []):
        out.append(ir.Const(t, astutil.const(None), loc=s.loc))     # (never reached: the names stay defined)
    return out
