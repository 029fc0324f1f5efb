"""`f(x, *layer)`, `Lin(*params)`, `Lin(**params)`: a call of a user function unpacking a sequence or a
dict whose length or keys adsrc does not know when transforming (a differentiated tuple or dict, a loop's
item), matched to the callee's parameters.

The callee's signature says how many items the `*` must supply (the parameters left after the other
positional arguments, up to the first one given by keyword) and which keys the `**` may hold. The call
passes them one by one, after a check when the code runs that raises Python's TypeError for a sequence of
another length or a dict with other keys:

    Lin(*params)      ->   check_unpacked(params, 2, 'Lin.__init__'); Lin(params[0], params[1])
    Lin(**params)     ->   check_keywords(params, ('W', 'b'), ('W', 'b'), 'Lin.__init__')
                           Lin(W=params['W'], b=params['b'])

A parameter with a default that `**` may or may not supply reads `d[name] if name in d else default`. A
`*` is matched only when no parameter it may fill has a default (its length would be unknown) and the
callee takes no `*args`; other calls are left as they are (and refused by the differentiation).
"""

import inspect

import gast

from .. import astutil


_LITERALS = (int, float, bool, str, complex, type(None))


class SpreadCalls:
    """Mixin of the Normalizer's Calls."""

    def spread(self, call, callee, receiver):
        """call (already lowered to atoms) with its `*seq` and `**d` of unknown contents matched to callee's
        parameters, or call itself when there is nothing to match or it cannot be matched."""
        stars = [a for a in call.args if isinstance(a, gast.Starred)]
        doubles = [k for k in call.keywords if k.arg is None]
        if not stars and not doubles or len(stars) > 1 or len(doubles) > 1 or \
                stars and not isinstance(call.args[-1], gast.Starred):
            return call
        try:
            params = list(inspect.signature(callee, follow_wrapped=False).parameters.values())
        except (TypeError, ValueError):
            return call
        if any(p.kind is p.VAR_POSITIONAL for p in params) or doubles and any(p.kind is p.VAR_KEYWORD for p in params):
            return call
        params = params[1:] if receiver is not None else params
        label = getattr(callee, "__qualname__", getattr(callee, "__name__", "f"))
        fixed = call.args[:-1] if stars else call.args
        named = {k.arg for k in call.keywords if k.arg is not None}
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][len(fixed):]
        args = list(fixed)
        if stars:
            filled = []
            for p in positional:
                if p.name in named:
                    break
                filled.append(p)
            if any(p.default is not p.empty for p in filled) or doubles and len(filled) < len(positional):
                return call
            seq = stars[0].value
            self.emit(_check("check_unpacked", self, [seq, astutil.const(len(filled)), astutil.const(label)]),
                      call)
            args += [self.atom(gast.Subscript(value=astutil.clone(seq), slice=astutil.const(i), ctx=gast.Load()))
                     for i in range(len(filled))]
            named |= {p.name for p in filled}
        keywords = [k for k in call.keywords if k.arg is not None]
        if doubles:
            d = doubles[0].value
            open_ = [p for p in params[len(args):] if p.kind is not p.POSITIONAL_ONLY and p.name not in named]
            required = [p.name for p in open_ if p.default is p.empty]
            self.emit(_check("check_keywords", self, [d, astutil.const(tuple(p.name for p in open_)),
                                                      astutil.const(tuple(required)), astutil.const(label)]), call)
            for p in open_:
                item = gast.Subscript(value=astutil.clone(d), slice=astutil.const(p.name), ctx=gast.Load())
                if p.default is not p.empty:
                    default = astutil.const(p.default) if type(p.default) in _LITERALS else \
                        astutil.name(self.bind(p.name + "_default", p.default))
                    item = gast.IfExp(test=gast.Compare(left=astutil.const(p.name), ops=[gast.In()],
                                                        comparators=[astutil.clone(d)]),
                                      body=item, orelse=default)
                keywords.append(gast.keyword(arg=p.name, value=self.atom(item)))
        return gast.Call(func=call.func, args=args, keywords=keywords)


def _check(helper, norm, args):
    from ..ir import nodes as ir
    return ir.Effect(astutil.call(astutil.name(norm.namer.helper(helper)), args))
