"""`adsrc.jacobian(f)(x)` (and jacfwd, jacrev, hessian) inside a function adsrc differentiates.

A Jacobian function runs Python loops that adsrc does not transform. Inside a function being
differentiated, its call becomes the call of a function written here, once per f, argument position
and number of arguments, which builds the Jacobian column by column with `adsrc.jvp`, a call adsrc
follows (reverse over forward):

    def f_jacobian_1(a0, a1):
        n = np.size(a1)
        columns = []
        for j in range(n):
            e = np.zeros(n)
            e[j] = 1.0
            columns.append(jvp(f, (a0, a1), (None, np.reshape(e, np.shape(a1))))[1])
        return np.reshape(np.stack(columns, axis=-1), np.shape(columns[0]) + np.shape(a1))

The layout is JAX's and adsrc.jacobian's: the output's shape, then the argument's. f is a function
known when transforming, or a nested def or lambda of the caller: lifted (lifting.py), its closure's
variables then come after the arguments, and a positional wrapper hands them on as keywords. A Hessian
is the Jacobian of f's Jacobian (so a vector output has one too), `jacfwd(jacrev(f))` likewise.
"""

import gast
import numpy as np

from .. import astutil
from .. import rules as rules_mod
from ..cache import made_once
from ..frontend.source import define, lambda_to_def
from . import lifting

_MADE = {}


class JacobianCalls:
    """Mixin of the Normalizer's Calls."""

    def jacobian_made_here(self, e):
        """`adsrc.jacobian(f, argnums=k)(args)` with k an int known when transforming (f a function known then,
        a nested def or lambda, a gradient, another Jacobian), or `adsrc.hessian(f)(args)`, the Jacobian of f's
        Jacobian: the call of the column-by-column function (see above), or None."""
        if any(isinstance(a, gast.Starred) for a in e.args) or e.keywords:
            return None
        made = self.columns_of(e.func, len(e.args))
        if made is None:
            return None
        columns, passed = made
        return gast.Call(func=astutil.name(self.bind(columns.__name__, columns)),
                         args=list(e.args) + [astutil.name(p) for p in passed], keywords=[])

    def columns_of(self, node, count):
        """(the column-by-column Jacobian function of what the Jacobian-maker call `node` differentiates, for
        calls with count arguments, the caller's names it takes after them), or None."""
        from .. import jacobians
        maker = self.static(node.func) if isinstance(node, gast.Call) else None
        if maker not in (jacobians.jacfwd, jacobians.jacrev, jacobians.hessian) or not node.args or \
                len(node.args) > 2 or any(isinstance(a, gast.Starred) for a in node.args) or \
                any(k.arg not in ("argnums", "argnum") for k in node.keywords):
            return None
        options = list(node.args[1:]) + [k.value for k in node.keywords]
        argnum = self.known_option(options[0]) if options else 0
        if type(argnum) is not int or not -count <= argnum < count:
            return None
        target = self.differentiated_function(node.args[0], count)
        if target is None:
            return None
        fun, passed = target
        made = _made(fun, argnum % count, count, passed)
        if maker is jacobians.hessian:      # the Jacobian of the Jacobian (a vector output's too)
            made = _made(made, argnum % count, count + len(passed), ())
        return made, passed

    def differentiated_function(self, inner, count):
        """(the function a Jacobian maker differentiates, the caller's names a lifted one takes after the
        arguments), or None: a function known when transforming (a gradient too), a nested def or lambda, or
        another Jacobian maker's call."""
        if isinstance(inner, gast.Lambda):
            fdef = lambda_to_def(astutil.clone(inner), "inner")
        elif isinstance(inner, gast.Name) and inner.id in self.functions and self.functions[inner.id][0] == "alias":
            return self.differentiated_function(self.functions[inner.id][1], count)      # g = adsrc.grad(s)
        elif isinstance(inner, gast.Name) and self.is_local(inner.id):
            fdef = lifting.nested_def(self.uf.node, inner.id)
        elif isinstance(inner, gast.Call) and self.static(inner.func) is _api().grad and len(inner.args) == 1 and \
                not inner.keywords and (isinstance(inner.args[0], gast.Lambda) or isinstance(inner.args[0], gast.Name)
                                        and self.is_local(inner.args[0].id)):
            target = self.differentiated_function(inner.args[0], count)     # jacfwd(grad(u)), u a nested def
            if target is None or target[1] and count != 1:
                return None
            fun = _positional(target[0], 1, target[1]) if target[1] else target[0]
            return lifting.gradient(_api().grad, fun, [], {}), target[1]
        elif isinstance(inner, gast.Call) and self.columns_of(inner, count) is not None:
            columns, passed = self.columns_of(inner, count)       # jacfwd(jacrev(f))
            if passed:
                return None
            return columns, ()
        else:
            fun = self.static(inner)
            if fun is rules_mod.NOT_STATIC and isinstance(inner, gast.Call):
                fun = self.derivative_made_here(inner)                 # adsrc.grad(s) written inline
            return None if fun is rules_mod.NOT_STATIC or not callable(fun) else (fun, ())
        lifted = lifting.lift(fdef, self.uf, self.is_local) if fdef is not None else None
        return None if lifted is None else (lifted[0], tuple(lifted[1]))

    def hvp_call(self, e):
        """`adsrc.hvp(f, x, v, *args)`: the call of a function written here returning
        `jvp(grad(f), (x, *args), (v, None, ...))[1]`, or None."""
        if len(e.args) < 3 or e.keywords or any(isinstance(a, gast.Starred) for a in e.args):
            return None
        count = len(e.args) - 2
        target = self.differentiated_function(e.args[0], count)
        if target is None:
            return None
        fun, passed = target
        made = made_once(_MADE, ("hvp", fun, count, passed), lambda: _hvp(fun, count, passed))
        return gast.Call(func=astutil.name(self.bind(made.__name__, made)),
                         args=list(e.args[1:]) + [astutil.name(p) for p in passed], keywords=[])

    def jacobian_call(self, e, fun, argnum, passed=()):
        """The call of fun's Jacobian with respect to argument argnum at e's arguments, or None."""
        if type(argnum) is not int or not e.args or e.keywords or any(isinstance(a, gast.Starred) for a in e.args) \
                or not -len(e.args) <= argnum < len(e.args):
            return None
        columns = _made(fun, argnum % len(e.args), len(e.args), tuple(passed))
        return gast.Call(func=astutil.name(self.bind(columns.__name__, columns)),
                         args=list(e.args) + [astutil.name(p) for p in passed], keywords=[])

    def known_option(self, node):
        return astutil.literal_value(node) if astutil.is_constant_literal(node) else self.static(node)


def _made(fun, argnum, count, passed):
    return made_once(_MADE, (fun, argnum, count, passed), lambda: _columns(fun, argnum, count, passed))


def _api():
    from .. import api
    return api


def _positional(fun, count, passed):
    """fun(a0, ..., c1=c1, ...) as a function of its count arguments and then the closure's variables passed."""
    args = [f"a{i}" for i in range(count)]
    keywords = ", ".join(f"{p}={p}" for p in passed)
    text = f"def positional({', '.join(args + list(passed))}):\n    return fun({', '.join(args)}, {keywords})\n"
    return define(text, "positional", {"fun": fun}, f"{_stem(fun)} with its closure's variables")


def _hvp(fun, count, passed):
    """x, v, *rest -> the Hessian of fun in its first argument times v (forward over reverse)."""
    gradient = lifting.gradient(_api().grad, _positional(fun, count, passed) if passed else fun, [], {})
    rest = [f"a{i}" for i in range(1, count)] + list(passed)
    name = f"{_stem(fun)}_hvp"
    nones = ", ".join(["v"] + ["None"] * len(rest))
    text = (f"def {name}({', '.join(['a0', 'v'] + rest)}):\n"
            f"    return jvp(gradient, ({', '.join(['a0'] + rest)},), ({nones},))[1]\n")
    from ..forward_api import jvp
    return define(text, name, {"jvp": jvp, "gradient": gradient}, f"the Hessian-vector product of {_stem(fun)}")


def _columns(fun, argnum, count, passed):
    args = [f"a{i}" for i in range(count)]
    x = args[argnum]
    target = _positional(fun, count, passed) if passed else fun
    primals = args + list(passed)
    tangents = ["None"] * len(primals)
    tangents[argnum] = f"np.reshape(e, np.shape({x}))"
    name = f"{_stem(fun)}_jacobian_{argnum}"
    text = (f"def {name}({', '.join(primals)}):\n"
            f"    n = np.size({x})\n"
            f"    columns = []\n"
            f"    for j in range(n):\n"
            f"        e = np.zeros(n)\n"
            f"        e[j] = 1.0\n"
            f"        columns.append(jvp(fun, ({', '.join(primals)},), ({', '.join(tangents)},))[1])\n"
            f"    return np.reshape(np.stack(columns, axis=-1), np.shape(columns[0]) + np.shape({x}))\n")
    from ..forward_api import jvp
    return define(text, name, {"np": np, "jvp": jvp, "fun": target}, f"the Jacobian of {_stem(fun)}")


def _stem(fun):
    name = getattr(fun, "__name__", "fun")
    return name if name.isidentifier() else "fun"
