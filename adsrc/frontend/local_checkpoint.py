"""`adsrc.checkpoint` of a function defined in the differentiated function, read as that function.

    def loss(W, xs):                                     def loss(W, xs):
        @adsrc.checkpoint                                    def step(c, x):
        def step(c, x):                                          return np.tanh(W @ c + x), None
            return np.tanh(W @ c + x), None     ->           c, _ = adsrc.scan(step, c0, xs)
        c, _ = adsrc.scan(step, c0, xs)
                                                         blk = lambda v: np.tanh(W @ v)
        blk = adsrc.checkpoint(lambda v: np.tanh(W @ v))

A checkpoint changes what the backward pass keeps, never a value or a derivative. adsrc recomputes the
functions it knows when transforming (module functions, methods); a nested function or a lambda does not
exist until the code runs, so its checkpoint is dropped and the call is differentiated as an ordinary call
(the gradient is the same; its intermediate values are kept). Only a checkpoint (or remat) of a lambda, or
of a name that a `def` or a lambda of this function binds, is rewritten; other calls are left as they are.
"""

import gast

from .. import astutil


def _makers():
    from ..checkpoint import checkpoint, remat
    return (checkpoint, remat)


def _is_checkpoint(func, lookup, local):
    """Does the expression func mean adsrc.checkpoint (a name or an attribute of a module not local here)?"""
    chain = []
    while isinstance(func, gast.Attribute):
        chain.append(func.attr)
        func = func.value
    if not isinstance(func, gast.Name) or func.id in local:
        return False
    kind, value = lookup(func.id)
    if kind == "missing":
        return False
    for attr in reversed(chain):
        value = getattr(value, attr, None)
    return any(value is m for m in _makers())


def _decorator_is_checkpoint(d, lookup, local):
    """`@adsrc.checkpoint` or `@adsrc.checkpoint(policy=...)` (options only)."""
    if isinstance(d, gast.Call):
        return not d.args and _is_checkpoint(d.func, lookup, local)
    return _is_checkpoint(d, lookup, local)


def _local_functions(fdef, nodes):
    """Names a nested def, or an assignment of a lambda, binds anywhere in fdef (nodes: astutil.walk(fdef))."""
    out = set()
    for node in nodes:
        if isinstance(node, gast.FunctionDef) and node is not fdef:
            out.add(node.name)
        elif isinstance(node, gast.Assign) and isinstance(node.value, gast.Lambda):
            out.update(t.id for t in node.targets if isinstance(t, gast.Name))
    return out


class _Rewriter(gast.NodeTransformer):
    def __init__(self, lookup, local, functions):
        self.lookup, self.local, self.functions = lookup, local, functions
        self.changed = False

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        kept = [d for d in node.decorator_list if not _decorator_is_checkpoint(d, self.lookup, self.local)]
        if len(kept) != len(node.decorator_list):
            node.decorator_list = kept
            self.changed = True
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if len(node.args) != 1 or not _is_checkpoint(node.func, self.lookup, self.local):
            return node
        fun = node.args[0]
        if isinstance(fun, gast.Lambda) or (isinstance(fun, gast.Name) and fun.id in self.functions):
            self.changed = True
            return fun
        return node


def rewrite_local_checkpoints(fdef, lookup):
    """Rewrite, in place, checkpoints of fdef's own functions (see the module's docstring). lookup(name) ->
    (kind, value) resolves a free name (UserFunction.lookup). Returns whether it rewrote any."""
    nodes = astutil.walk(fdef)
    if not any(isinstance(n, (gast.Lambda, gast.FunctionDef)) and n is not fdef for n in nodes):
        return False            # (only a lambda or a nested def is rewritten)
    local = {n for node in nodes if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store)
             for n in [node.id]} | {a.id for a in fdef.args.args + fdef.args.kwonlyargs}
    functions = _local_functions(fdef, nodes)
    rewriter = _Rewriter(lookup, local | functions, functions)
    for s in fdef.body:
        rewriter.visit(s)
    return rewriter.changed
