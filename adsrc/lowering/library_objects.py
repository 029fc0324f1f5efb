"""Methods of library objects made in the function, written as the calls adsrc has rules for:

    dist = stats.norm(loc=mu, scale=s)        dist.logpdf(x)        ->  stats.norm.logpdf(x, loc=mu_0, scale=s_0)
    rng = np.random.default_rng(0)            rng.normal(mu, s, 5)  ->  mu + s * rng.standard_normal(5)

A frozen distribution's parameters are copied where it is made (mu_0, s_0), so that a later change of mu does
not reach it, as in SciPy. A generator's `normal(loc, scale, size)` draws `loc + scale * standard_normal(size)`
and `uniform(low, high, size)` draws `low + (high - low) * random(size)`, the same numbers from the same stream.
"""

import sys

import gast
import numpy as np

from .. import astutil
from .. import rules as rules_mod
from ..ir import nodes as ir

_GENERATORS = (np.random.default_rng, np.random.Generator, np.random.RandomState)
_DRAWS = {"normal": (("loc", 0.0), ("scale", 1.0), ("size", None)),
          "uniform": (("low", 0.0), ("high", 1.0), ("size", None))}


class LibraryObjects:
    """Mixin of the Normalizer (calls.py)."""

    def library_object(self, target, value):
        """Emit `dist = stats.norm(...)` (a name bound once, read only to call its methods) and remember it, and
        remember `rng = np.random.default_rng(...)`: True if the assignment was emitted here."""
        if not isinstance(target, str) or target not in self.single or not isinstance(value, gast.Call) or \
                len(self.scopes) != 1 or any(isinstance(a, gast.Starred) for a in value.args) or \
                any(k.arg is None for k in value.keywords):
            return False
        maker = self.static(value.func)
        if maker is rules_mod.NOT_STATIC:
            return False
        if any(maker is g for g in _GENERATORS):
            self.library_objects[target] = ("generator",)
            return False
        if not _distribution(maker) or not _methods_only(self.uf.node, target):
            return False
        args = [self.kept(a, f"{target}_{i}") for i, a in enumerate(value.args)]
        keywords = [gast.keyword(arg=k.arg, value=self.kept(k.value, f"{target}_{k.arg}")) for k in value.keywords]
        dist = astutil.name(self.bind(_name(maker), maker))
        self.library_objects[target] = ("frozen", dist, args, keywords)
        # the frozen object itself, for methods without a rule (their arguments' derivatives are refused there)
        self.emit(ir.Const(target, gast.Call(func=astutil.clone(dist), args=[astutil.clone(a) for a in args],
                                             keywords=[gast.keyword(arg=k.arg, value=astutil.clone(k.value))
                                                       for k in keywords])), value)
        return True

    def frozen_inline(self, node):
        """("frozen", ...) for `stats.binom(5, p)` written where its method is called, else None."""
        if not isinstance(node, gast.Call) or any(isinstance(a, gast.Starred) for a in node.args) or \
                any(k.arg is None for k in node.keywords):
            return None
        maker = self.static(node.func)
        if maker is rules_mod.NOT_STATIC or not _distribution(maker):
            return None
        return ("frozen", astutil.name(self.bind(_name(maker), maker)), list(node.args), list(node.keywords))

    def kept(self, node, stem):
        """node's value now, in a name of its own (a constant stays as written)."""
        if isinstance(node, gast.Constant):
            return node
        name = self.temp(stem)
        self.emit(ir.Copy(name, self.atom(node)), node)
        return astutil.name(name)

    def library_method_call(self, e, target):
        """Emit `dist.logpdf(x)` or `rng.normal(mu, s)` on a name noted above as the call adsrc has a rule for:
        True, or False for another call."""
        f = e.func
        if not isinstance(f, gast.Attribute) or any(isinstance(a, gast.Starred) for a in e.args) or \
                any(k.arg is None for k in e.keywords):
            return False
        inline = self.frozen_inline(f.value)            # stats.binom(5, p).logpmf(k)
        if inline is None and (not isinstance(f.value, gast.Name) or f.value.id not in self.library_objects or
                               self.shadowed(f.value.id)):
            return False
        known = inline or self.library_objects[f.value.id]
        if known[0] == "frozen":
            _, dist, args, keywords = known
            call = gast.Call(func=gast.Attribute(value=astutil.clone(dist), attr=f.attr, ctx=gast.Load()),
                             args=list(e.args) + [astutil.clone(a) for a in args],
                             keywords=[gast.keyword(arg=k.arg, value=astutil.clone(k.value)) for k in keywords] +
                             list(e.keywords))
        else:
            call = _draw(f.value, f.attr, e, astutil.name(self.bind("np_shape", np.shape)))
            if call is None:
                return False
        expr = gast.fix_missing_locations(gast.copy_location(call, e))
        if isinstance(expr, gast.Call):
            self.call(expr, target)
        else:
            self.value(expr, target or self.temp("draw"))
        return True


def _methods_only(fdef, name):
    """Is `name` read only as the object of method calls (`name.logpdf(x)`)?"""
    calls = {id(n.func.value) for n in astutil.walk(fdef) if isinstance(n, gast.Call) and
             isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name) and n.func.value.id == name}
    return all(id(n) in calls for n in astutil.walk(fdef) if isinstance(n, gast.Name) and n.id == name and
               isinstance(n.ctx, gast.Load))


def _draw(rng, method, e, shape):
    """`rng.normal(loc, scale, size)` as `loc + scale * rng.standard_normal(size)` (uniform likewise), or None."""
    params = _DRAWS.get(method)
    if params is None or len(e.args) > len(params) or any(k.arg not in dict(params) for k in e.keywords):
        return None
    given = dict(zip([p for p, _ in params], e.args))
    given.update({k.arg: k.value for k in e.keywords})
    first, second = (given.get(p, astutil.const(d)) for p, d in params[:2])
    size = given.get("size")
    if size is None or isinstance(size, gast.Constant) and size.value is None:
        both = gast.BinOp(left=astutil.clone(first), op=gast.Add(), right=astutil.clone(second))
        size = astutil.call(shape, [both])
    unit = "standard_normal" if method == "normal" else "random"
    draw = astutil.call(gast.Attribute(value=astutil.clone(rng), attr=unit, ctx=gast.Load()), [size])
    if method == "uniform":
        second = gast.BinOp(left=second, op=gast.Sub(), right=astutil.clone(first))
    return gast.BinOp(left=first, op=gast.Add(), right=gast.BinOp(left=second, op=gast.Mult(), right=draw))


def _distribution(obj):
    """Is obj a scipy.stats distribution (norm, poisson, multivariate_normal...), whose call freezes it?"""
    stats = sys.modules.get("scipy.stats")
    if stats is None:
        return False
    kinds = tuple(k for k in (getattr(stats, "rv_continuous", None), getattr(stats, "rv_discrete", None))
                  if k is not None)
    multi = type(getattr(stats, "multivariate_normal", None))
    return isinstance(obj, kinds) or isinstance(obj, multi) or type(obj).__name__.endswith("_gen") and \
        type(obj).__module__.startswith("scipy.stats")


def _name(dist):
    return getattr(dist, "name", None) or type(dist).__name__.replace("_gen", "")
