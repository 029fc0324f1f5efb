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
is the Jacobian of f's gradient.
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
        """`adsrc.jacobian(f, argnums=k)(args)` with k an int known when transforming: the call of the
        column-by-column function (see above), or None."""
        from .. import jacobians
        f = e.func
        maker = self.static(f.func)
        if maker not in (jacobians.jacfwd, jacobians.jacrev, jacobians.hessian) or not f.args or len(f.args) > 2 or \
                any(isinstance(a, gast.Starred) for a in f.args) or any(k.arg not in ("argnums", "argnum")
                                                                         for k in f.keywords):
            return None
        options = list(f.args[1:]) + [k.value for k in f.keywords]
        argnum = self.known_option(options[0]) if options else 0
        inner = f.args[0]
        if isinstance(inner, gast.Lambda):
            fdef = lambda_to_def(astutil.clone(inner), "inner")
        elif isinstance(inner, gast.Name) and self.is_local(inner.id):
            fdef = lifting.nested_def(self.uf.node, inner.id)
        else:
            fun = self.static(inner)
            if fun is rules_mod.NOT_STATIC or not callable(fun):
                return None
            return self.jacobian_call(e, _gradient(fun, argnum) if maker is jacobians.hessian else fun, argnum)
        lifted = lifting.lift(fdef, self.uf, self.is_local) if fdef is not None else None
        if lifted is None:
            return None
        fun = _gradient(lifted[0], argnum) if maker is jacobians.hessian else lifted[0]
        return self.jacobian_call(e, fun, argnum, lifted[1])

    def jacobian_call(self, e, fun, argnum, passed=()):
        """The call of fun's Jacobian with respect to argument argnum at e's arguments, or None."""
        if fun is None or type(argnum) is not int or not e.args or e.keywords or any(isinstance(a, gast.Starred) for a in e.args) \
                or not -len(e.args) <= argnum < len(e.args):
            return None
        columns = made_once(_MADE, (fun, argnum % len(e.args), len(e.args), tuple(passed)),
                            lambda: _columns(fun, argnum % len(e.args), len(e.args), tuple(passed)))
        return gast.Call(func=astutil.name(self.bind(columns.__name__, columns)),
                         args=list(e.args) + [astutil.name(p) for p in passed], keywords=[])

    def known_option(self, node):
        return astutil.literal_value(node) if astutil.is_constant_literal(node) else self.static(node)


def _gradient(fun, argnum):
    """The gradient whose Jacobian is fun's Hessian (adsrc.hessian is jacfwd of adsrc.grad)."""
    from .. import api
    return lifting.gradient(api.grad, fun, [], {"argnums": argnum}) if type(argnum) is int else None


def _columns(fun, argnum, count, passed):
    args = [f"a{i}" for i in range(count)]
    x = args[argnum]
    target = fun
    if passed:
        keywords = ", ".join(f"{p}={p}" for p in passed)
        text = f"def positional({', '.join(args + list(passed))}):\n    return fun({', '.join(args)}, {keywords})\n"
        target = define(text, "positional", {"fun": fun}, f"{_stem(fun)} with its closure's variables")
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
