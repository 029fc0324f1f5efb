"""Gradients of bound methods, callable objects and functools.partial (callables.py splits them into a
function and its fixed arguments)."""

import functools
import numbers
import types

from . import frontend, varargs
from .cache import DEFAULT_MAXSIZE
from .callables import KNOWN, name_of
from .kinds import describe

from .gradient import Gradient


class FixedGradient:
    """The gradient of a bound method, a callable object or a functools.partial (see callables.py).

    It is the gradient of the underlying Python function with the fixed
    arguments passed in front of (or besides) the call's. As in JAX,
    `argnums` and `static_argnums` count the call's positional arguments,
    and the fixed arguments are constants.
    """

    def __init__(self, fun, parts, argnums=0, has_aux=False, with_value=False, static_argnums=None,
                 static_argnames=None, cache_size=DEFAULT_MAXSIZE, checkpoint_loops=None, backend="numpy"):
        self.fun = fun
        self.parts = parts
        self.with_value = with_value
        self.options = dict(argnums=argnums, has_aux=has_aux, static_argnums=static_argnums,
                            static_argnames=static_argnames, cache_size=cache_size, checkpoint_loops=checkpoint_loops,
                            backend=backend)
        self._name = name_of(fun)
        function = parts.function
        positional = [p.name for p in frontend.signature(function).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self._front = tuple(f.value for f in parts.positional)
        self._kw = {k: f.value for k, f in parts.keywords.items()}
        self._free = positional[len(self._front):]     # the parameters the call's positional arguments fill
        names = () if static_argnames is None else \
            ((static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames))
        known = tuple(f.name for f in parts.fixed if f.role == KNOWN)
        self.inner = Gradient(function, argnums=self._shift(argnums, "argnums"), has_aux=has_aux,
                              with_value=with_value, cache_size=cache_size,
                              static_argnums=None if static_argnums is None else
                              self._shift(static_argnums, "static_argnums"),
                              static_argnames=names + known, by_identity=known, checkpoint_loops=checkpoint_loops,
                              backend=backend)
        self.inner._single = isinstance(argnums, numbers.Integral)
        self.inner.options = self.options
        self.argnums = argnums
        functools.update_wrapper(self, fun, updated=())
        self._adsrc_derivative = f"adsrc.{'value_and_grad' if with_value else 'grad'}({self._name})"

    def _shift(self, nums, what):
        """argnums of the call as positions among the function's parameters."""
        single = isinstance(nums, numbers.Integral)
        out = []
        for i in ((nums,) if single else tuple(nums)):
            if not isinstance(i, numbers.Integral) or isinstance(i, bool):
                raise TypeError(f"{what} must be integers, got {describe(i)}")
            j = i + len(self._free) if i < 0 else i
            if not 0 <= j < len(self._free):
                raise ValueError(f"{what}={nums!r} is out of range: {self._name} takes "
                                 f"{len(self._free)} positional argument{'s' if len(self._free) != 1 else ''} "
                                 f"({', '.join(self._free) or 'none'}) besides the ones it fixes"
                                 + self._varargs_note())
            if self._free[j] in self._kw:
                raise ValueError(f"{what}={nums!r} names `{self._free[j]}`, which {self._name} fixes by "
                                 "keyword: fixed arguments are constants (pass it in the call instead to "
                                 "differentiate it)")
            out.append(j + len(self._front))
        return out[0] if single else tuple(out)

    def _varargs_note(self):
        function = self.parts.function
        if not any(p.kind == p.VAR_POSITIONAL for p in frontend.signature(function).parameters.values()):
            return ""
        return (f". `{name_of(function)}` takes *args, and adsrc differentiates named parameters: "
                + frontend.varargs_hint(function))

    def __call__(self, /, *args, **kwargs):
        return self.inner(*self._front, *args, **({**self._kw, **kwargs} if kwargs else self._kw))

    # higher order: the generated gradient of the underlying function, called with the fixed arguments
    # by a plain function of the call's own arguments (varargs.with_fixed)
    def _adsrc_resolve(self, args, kwargs):
        generated = self.inner._adsrc_resolve((*self._front, *args), {**self._kw, **kwargs})
        return self._calling(generated, len(args), tuple(kwargs))

    def _calling(self, generated, n, names):
        """A plain function of n of the call's positional arguments (and the keywords `names`) that calls the
        generated gradient with the fixed arguments as well."""
        return varargs.with_fixed(generated, self._front, self._kw, self._free[:n], names)

    def _adsrc_for_call(self, n, names):
        return _FixedCall(self, n, tuple(names))

    def source(self, /, *args, stage="adjoint", **kwargs):
        """The generated source, as Gradient.source (the fixed arguments are filled in)."""
        if args or any(k not in self.inner._statics for k in kwargs):
            return self.inner.source(*self._front, *args, stage=stage, **{**self._kw, **kwargs})
        return self.inner.source(stage=stage, **self.parts.known(), **kwargs)

    def cache_info(self):
        return self.inner.cache_info()

    def cache_clear(self):
        self.inner.cache_clear()

    def __repr__(self):
        kind = "value_and_grad" if self.with_value else "grad"
        bound = f" bound to {type(self.fun.__self__).__name__}" if isinstance(self.fun, types.MethodType) else ""
        return f"<adsrc.{kind} of {self._name} wrt {', '.join(self.inner._wrt)}{bound}>"


class _FixedCall:
    """A FixedGradient called inside a differentiated function with n positional arguments and keywords
    `names` (lowering/derivatives.py asks it for the generated function)."""

    def __init__(self, gradient, n, names):
        self.gradient, self.n, self.names = gradient, n, names
        self._adsrc_derivative = gradient._adsrc_derivative

    def _adsrc_general(self, statics=None):
        g = self.gradient
        if g.inner._statics.keys() - g.parts.known().keys():
            return None         # static arguments of the call: refused (their positions are the call's)
        generated = g.inner._adsrc_general(g.parts.known())
        return None if generated is None else g._calling(generated, self.n, self.names)

