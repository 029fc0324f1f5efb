"""Derivative rules, kept as tables.

A rule says, for one callable, how the cotangent `g` of its output flows back
to each differentiable argument. Rules are Python expressions (templates)
over the call's parameter names, `g` (the output cotangent) and `ans` (the
output), and they are inlined into the generated code:

    exp:      x -> g * ans
    multiply: x -> g * y,  y -> g * x

Kinds of rule:

* elementwise: a broadcasting elementwise function. `g` may arrive as any
  array broadcastable to the output (a scalar for "all ones", say); each
  contribution is summed back to its argument's shape automatically.
* general: anything else. `g` arrives with exactly the output's shape. For a
  function returning a tuple (or list) of arrays (`tuple_output=True`), `g` is
  a tuple with one exact-shaped cotangent per output (zeros where an output
  is not used).

A template may also be a function of the call's static arguments (constant
literals such as `axis=0`) returning the template text, for rules whose form
depends on them.

Tables: `operators.py` (Python operators), `numpy_rules.py`, `math_rules.py`,
`methods.py` (ndarray methods), `builtin_rules.py` (len, range, sum, ...),
`operator_rules.py` (the `operator` module, dict, sorted), `numpy_more.py`
(np.fft, lstsq, eig, ...) and, loaded when the program has imported the SciPy
module they cover, `scipy_special.py`, `scipy_stats.py`, `scipy_linalg.py` and
`scipy_signal.py` and `scipy_integrate.py`.

Complex numbers follow JAX's convention: the cotangent of a complex value z
is a complex array, and a rule for a holomorphic function multiplies it by
the derivative (no conjugate); for a real-valued loss L of z = x + iy,
adsrc.grad returns dL/dx - i dL/dy (so gradient descent steps along its
conjugate). A rule is complex-ready when its templates follow that
convention; a rule marked `real_only` refuses complex arguments when the
code runs, instead of returning a gradient under an undefined convention.
The cotangent of a real value may carry an imaginary part that means
nothing (real-valued rules are linear in `g` with real coefficients, so it
never mixes into the real part); rules from complex to real values
(np.abs, np.real, np.angle, ...) take the real part of `g` first.
"""

import ast
import copy
import functools
import sys
import threading

import gast

from .. import astutil

FUNCTIONS = {}    # callable -> Rule
METHODS = {}      # method name -> Rule (receiver is the first parameter)
ATTRIBUTES = {}   # attribute name -> Rule (x.T)
OPERATORS = {}    # gast operator class -> Rule

NOT_STATIC = object()   # marks an argument whose value is not known when transforming

# (rule name, keyword) -> why the library function has no such argument and what to write instead: keywords
# that autograd's own versions of a function take and the library's function does not (a program ported from
# autograd by changing its imports keeps them)
_AUTOGRAD_CONVOLVE = ("`axes` and `dot_axes` belong to autograd's own autograd.scipy.signal.convolve, which SciPy's "
                      "convolve does not have (the call fails without adsrc too). Write it in NumPy, which adsrc "
                      "differentiates: windows = numpy.lib.stride_tricks.sliding_window_view(x, k.shape[-2:], "
                      "axis=(2, 3)), then np.einsum over the window and dotted axes, e.g. "
                      "np.einsum('ncyxij,cdij->ndyx', windows, k[:, :, ::-1, ::-1]) for autograd's "
                      "convolve(x, k, axes=([2, 3], [2, 3]), dot_axes=([1], [0]), mode='valid')")
FOREIGN_KEYWORDS = {("scipy.signal.convolve", kw): _AUTOGRAD_CONVOLVE for kw in ("axes", "dot_axes")}

# Keywords a rule need not know when the call passes the library's default, spelled out: the call is the
# same without them (`np.arctan(b, out=None)`). Any other value of them is refused as before.
SPELLED_DEFAULTS = {"out": None}

# Names of the callables with rules: their results never share memory with their arguments, except
# for the view-returning ones the alias analysis lists itself (used by lower/inplace.py).
FRESH_NAMES = set()
_loading = []           # non-empty while adsrc's own tables load


class Param:
    __slots__ = ("name", "default", "kind")

    def __init__(self, name, default, kind):
        self.name = name
        self.default = default     # NOT_STATIC when required
        self.kind = kind           # 'pos', 'any', 'kw', 'var', 'varkw'


def parse_signature(sig):
    """Parameters from a signature text like 'a, axis=None, *, keepdims=False'."""
    fn = ast.parse(f"def _({sig}): pass").body[0].args
    params = []
    pos = fn.posonlyargs + fn.args
    defaults = [NOT_STATIC] * (len(pos) - len(fn.defaults)) + [ast.literal_eval(d) for d in fn.defaults]
    for p, d in zip(pos, defaults):
        params.append(Param(p.arg, d, "pos" if p in fn.posonlyargs else "any"))
    if fn.vararg is not None:
        params.append(Param(fn.vararg.arg, NOT_STATIC, "var"))
    for p, d in zip(fn.kwonlyargs, fn.kw_defaults):
        params.append(Param(p.arg, ast.literal_eval(d) if d is not None else NOT_STATIC, "kw"))
    if fn.kwarg is not None:
        params.append(Param(fn.kwarg.arg, NOT_STATIC, "varkw"))
    return params


class _Templates(dict):
    """Templates by parameter name. With **kwargs, each keyword `k` it gathers is a parameter `**k`
    of its own, whose template is the **kwargs template with `{key}` replaced by repr(k)."""

    def __init__(self, templates, varkw):
        super().__init__(templates)
        self.varkw = varkw if varkw in templates else None

    def __contains__(self, pname):
        return dict.__contains__(self, pname) or (self.varkw is not None and isinstance(pname, str)
                                                  and pname.startswith("**"))

    def __missing__(self, pname):
        if self.varkw is not None and isinstance(pname, str) and pname.startswith("**"):
            return dict.__getitem__(self, self.varkw).format(key=repr(pname[2:]))
        raise KeyError(pname)


class _Referenced(set):
    """Parameter names templates read; with **kwargs, every other keyword name too."""

    def __init__(self, names, known):
        super().__init__(names)
        self.known = known      # None: no **kwargs

    def __contains__(self, name):
        return set.__contains__(self, name) or (self.known is not None and name not in self.known)


class Template:
    """A parsed rule expression; names other than placeholders are helpers.

    Parsed once per text (see `template`): `expr` is shared and never changed;
    astutil.substitute makes each instance.
    """

    def __init__(self, text):
        self.text = text
        self.expr = astutil.parse_expr(text)
        self.names = frozenset(astutil.names_loaded(self.expr))


@functools.lru_cache(maxsize=4096)
def template(text):
    """The Template of text, parsed once."""
    return Template(text)


class Rule:
    """How the output cotangent of one callable flows back to its arguments."""

    jvp_form = None    # forward mode: 'linear' or 'multilinear' (set by jvp_rules.py)
    jvps = None        # forward mode: templates by parameter (set by jvp_rules.py)
    jvp_joint = None   # forward mode: one template over all tangents (containers; jvp_rules.py)
    any_output = False  # the output may be a number, an array or a container (runtime helpers moving cotangents)
    output_like = ()   # parameters the output is an array only when they are numbers or arrays (else unknown)

    def __init__(self, name, signature, vjps=None, kind="general", nondiff=False,
                 scalar_out=None, lazy=False, tuple_output=False, container=False, real_only=False,
                 variants=None, listing=None, check=None, view=False):
        self.name = name
        self.params = parse_signature(signature)
        self.param_names = [p.name for p in self.params]
        self.varkw = next((p.name for p in self.params if p.kind == "varkw"), None)
        self.vjps = _Templates(vjps or {}, self.varkw)
        for pname in dict.keys(self.vjps):
            if pname not in self.param_names:
                raise ValueError(f"rule {name}: no parameter {pname!r}")
        self.kind = kind
        self.nondiff = nondiff
        self.scalar_out = scalar_out   # callable(static args) -> bool, or None
        self.lazy = lazy               # contributions may be merely broadcastable
        self.tuple_output = tuple_output   # returns a tuple (or list) of arrays; g is then a tuple
        self.container = container or tuple_output   # the output is a list/tuple/dict, not an array
        self.real_only = real_only     # not complex-ready: refuses complex arguments when the code runs
        # variants: callable(static args) -> dict of attributes (tuple_output, vjps...) for calls whose
        # output kind depends on a constant argument (svd(compute_uv=False)); see `lookup` and `bind`
        self.variants = variants
        self.listing = listing or name     # the name `python -m adsrc rules` shows
        self.check = check             # callable(static args) raising TypeError for unsupported calls
        self.view = view               # the result may be (part of) an argument: never a fresh array
        # parameters with a derivative the rule does not give: a differentiated value there is refused
        # (differentiation/ops.py); the other parameters without templates have none (axes, shapes, keys)
        self.unsupported = ()

    def __repr__(self):
        return f"<rule {self.name}>"

    def __deepcopy__(self, memo):
        return self   # rules are immutable tables

    @property
    def differentiable_params(self):
        return [p for p in self.param_names if p in self.vjps]

    def referenced_params(self):
        """Parameters some template may read (so they must be cheap atoms), forward templates included."""
        out = set(dict.keys(self.vjps))
        forward = list((self.jvps or {}).values()) + ([self.jvp_joint] if self.jvp_joint else [])
        for v in list(dict.values(self.vjps)) + forward:
            if isinstance(v, str):
                out |= template(v.replace("{key}", "None")).names & set(self.param_names)
            else:
                out |= set(self.param_names)
        if self.real_only:
            out |= set(dict.keys(self.vjps))
        return _Referenced(out, set(self.param_names) if self.varkw else None)

    def bind(self, args, keywords):
        """Map call arguments (gast nodes) to parameter names.

        Returns a dict name -> node (a list of nodes for *args). Missing
        optional parameters are absent. Raises TypeError with a message for
        arguments the rule does not know.
        """
        bound = {}
        positional = [p for p in self.params if p.kind in ("pos", "any")]
        var = next((p for p in self.params if p.kind == "var"), None)
        for i, a in enumerate(args):
            if isinstance(a, gast.Starred):
                raise TypeError(f"{self.name}: unpacking *args into it is not supported")
            if i < len(positional):
                bound[positional[i].name] = a
            elif var is not None:
                bound.setdefault(var.name, []).append(a)
            else:
                raise TypeError(f"{self.name} takes at most {len(positional)} positional arguments")
        by_name = {p.name: p for p in self.params}
        for kw in keywords:
            if kw.arg is None:
                raise TypeError(f"{self.name}: **kwargs are not supported")
            p = by_name.get(kw.arg)
            if (p is None or p.kind in ("pos", "var", "varkw")) and self.varkw is not None:
                bound["**" + kw.arg] = kw.value      # gathered by **kwargs
                continue
            if p is None and kw.arg in SPELLED_DEFAULTS and isinstance(kw.value, gast.Constant) \
                    and kw.value.value is SPELLED_DEFAULTS[kw.arg]:
                continue
            if p is None and (self.name, kw.arg) in FOREIGN_KEYWORDS:
                raise TypeError(f"{self.name} has no argument `{kw.arg}`: "
                                + FOREIGN_KEYWORDS[self.name, kw.arg])
            if p is None or p.kind in ("pos", "var", "varkw"):
                raise TypeError(f"adsrc's rule for {self.name} does not support the argument `{kw.arg}`")
            if kw.arg in bound:
                raise TypeError(f"{self.name} got multiple values for `{kw.arg}`")
            bound[kw.arg] = kw.value
        for p in self.params:
            if p.name not in bound and p.default is NOT_STATIC and p.kind not in ("var", "varkw"):
                raise TypeError(f"{self.name} is missing the argument `{p.name}`")
        if self.check is not None or self.variants is not None:
            static = self.static_args(bound)
            if self.check is not None:
                self.check(**static)
            if self.variants is not None:
                # `lookup` handed out a copy of this rule for this one call: specialize it
                self.__dict__.update(self.variants(**static))
                if not isinstance(self.vjps, _Templates):
                    self.vjps = _Templates(self.vjps, self.varkw)
        return bound

    def static_args(self, bound):
        """Literal values of bound arguments (defaults filled; NOT_STATIC if unknown).

        The keywords gathered by **kwargs are listed (a tuple of names) under its name.
        """
        out = {}
        for p in self.params:
            if p.kind == "varkw":
                out[p.name] = tuple(k[2:] for k in bound if k.startswith("**"))
                continue
            if p.kind == "var":
                continue
            node = bound.get(p.name)
            if node is None:
                out[p.name] = p.default
            elif astutil.is_constant_literal(node):
                out[p.name] = astutil.literal_value(node)
            else:
                out[p.name] = NOT_STATIC
        return out

    def template(self, pname, static):
        """The Template for parameter pname, given static argument values."""
        t = self.vjps[pname]
        if not isinstance(t, str):
            t = t(**static)
        if self.real_only:
            # not complex-ready: the contribution refuses complex arguments when the code runs
            args = ", ".join(p for p in dict.keys(self.vjps))
            t = f"real_only({t}, {self.name!r}, {args})"
        return template(t)

    def is_scalar_output(self, static):
        return bool(self.scalar_out and self.scalar_out(**static))


def register(fn, rule, name=None):
    FUNCTIONS[fn] = rule
    fname = getattr(fn, "__name__", None)
    if fname is not None and _loading:      # adsrc's own tables (not rules users add with defvjp)
        FRESH_NAMES.add(fname)
    return rule


def rule_copy(rule, name):
    r = copy.copy(rule)
    r.name = r.listing = name
    return r


# Table helpers -----------------------------------------------------------------

def elementwise(fn, name, *templates, signature=None):
    """A broadcasting elementwise function: one template per argument (None: not differentiable)."""
    params = ["x", "y", "z"][:len(templates)] if signature is None else None
    sig = signature or ", ".join(params) + ", /"
    names = [p.name for p in parse_signature(sig)]
    vjps = {p: t for p, t in zip(names, templates) if t is not None}
    return register(fn, Rule(name, sig, vjps, kind="elementwise"))


def general(fn, name, signature, lazy=False, scalar_out=None, tuple_output=False, container=False,
            real_only=False, variants=None, listing=None, check=None, **vjps):
    """Any other function: `g` has exactly the output's shape (a tuple of such for tuple outputs).

    container=True: the function returns a list, tuple or dict of values whose
    cotangent `g` arrives as such a container (0.0 where zero), unmodified.
    """
    return register(fn, Rule(name, signature, vjps, kind="general", lazy=lazy, scalar_out=scalar_out,
                             tuple_output=tuple_output, container=container, real_only=real_only,
                             variants=variants, listing=listing, check=check))


def nondiff(fn, name):
    """A function whose output is never differentiated (a constant for AD)."""
    return register(fn, Rule(name, "*args", {}, nondiff=True))


def lookup(fn):
    """The rule for a callable, or None.

    A rule with variants is copied: `bind` specializes the copy for one call.
    """
    try:
        rule = FUNCTIONS.get(fn)
    except TypeError:  # unhashable callable
        return None
    if rule is None:
        load_scipy_tables()         # (another thread may have just loaded them: look again either way)
        rule = FUNCTIONS.get(fn)
    if rule is None:
        from . import scipy_frozen
        rule = scipy_frozen.frozen_rule(fn)
    if rule is not None and rule.variants is not None:
        rule = copy.copy(rule)
    return rule


# SciPy tables, by the SciPy module they need; each is loaded once the program has imported that module
# (importing scipy.stats takes a second or two: adsrc never imports it on its own).
SCIPY_TABLES = {"scipy.special": "scipy_special", "scipy.stats": "scipy_stats", "scipy.linalg": "scipy_linalg",
                "scipy.signal": "scipy_signal", "scipy.integrate": "scipy_integrate"}
_scipy_loaded = set()
_scipy_lock = threading.RLock()


def load_scipy_tables(all_tables=False):
    """Load the tables of the SciPy modules imported so far (all of them if all_tables); True if any."""
    if all(t in _scipy_loaded for t in SCIPY_TABLES.values()):
        return False
    import importlib
    new = False
    with _scipy_lock:       # a table is marked loaded once its rules are all registered
        for module, table in SCIPY_TABLES.items():
            if table in _scipy_loaded or not (all_tables or module in sys.modules):
                continue
            try:
                importlib.import_module(module)
            except ImportError:     # SciPy is optional
                continue
            _loading.append(table)
            try:
                importlib.import_module(f"{__name__}.{table}")
            finally:
                _loading.pop()
            _scipy_loaded.add(table)
            new = True
    if new:
        from . import jvp_rules
        jvp_rules.install()       # forward forms for the new rules, before any call is lowered with them
    return new


def _load_tables():
    from . import helpers, numpy_rules, linalg_rules, math_rules  # noqa: F401  (tables register on import)
    from . import complex_helpers, numpy_more  # noqa: F401
    from . import operators, methods, builtin_rules, operator_rules, containers, sharing, made_like, held_parts
    from . import inplace_rules, polynomial_roots, bessel_i0
    operators._install()
    methods._install()
    builtin_rules._install()
    operator_rules._install()
    containers.install()
    made_like.install()
    sharing.install()
    held_parts.install()
    inplace_rules.install()
    polynomial_roots.install()
    bessel_i0.install()
    complex_helpers.install_projections()


_loading.append("adsrc")
_load_tables()
_loading.pop()
from . import runtime_rules  # noqa: E402  (after the tables, outside _loading: see its docstring)
runtime_rules.install()
from . import jvp_rules  # noqa: E402
jvp_rules.install()       # forward forms, before any call is lowered (lowering copies rules with variants)

from .numpy_more import bind_subscript, subscript_rule  # noqa: E402,F401  (np.r_[...], np.c_[...])
