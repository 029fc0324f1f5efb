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
`methods.py` (ndarray methods), `builtin_rules.py` (len, range, sum, ...).
"""

import ast
import copy

import gast

from .. import astutil

FUNCTIONS = {}    # callable -> Rule
METHODS = {}      # method name -> Rule (receiver is the first parameter)
ATTRIBUTES = {}   # attribute name -> Rule (x.T)
OPERATORS = {}    # gast operator class -> Rule

NOT_STATIC = object()   # marks an argument whose value is not known when transforming


class Param:
    __slots__ = ("name", "default", "kind")

    def __init__(self, name, default, kind):
        self.name = name
        self.default = default     # NOT_STATIC when required
        self.kind = kind           # 'pos', 'any', 'kw', 'var'


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
        raise ValueError("rule signatures cannot take **kwargs")
    return params


class Template:
    """A parsed rule expression; names other than placeholders are helpers."""

    def __init__(self, text):
        self.text = text
        self.expr = astutil.parse_expr(text)
        self.names = astutil.names_loaded(self.expr)


class Rule:
    """How the output cotangent of one callable flows back to its arguments."""

    def __init__(self, name, signature, vjps=None, kind="general", nondiff=False,
                 scalar_out=None, lazy=False, tuple_output=False, container=False):
        self.name = name
        self.params = parse_signature(signature)
        self.param_names = [p.name for p in self.params]
        self.vjps = dict(vjps or {})
        for pname in self.vjps:
            if pname not in self.param_names:
                raise ValueError(f"rule {name}: no parameter {pname!r}")
        self.kind = kind
        self.nondiff = nondiff
        self.scalar_out = scalar_out   # callable(static args) -> bool, or None
        self.lazy = lazy               # contributions may be merely broadcastable
        self.tuple_output = tuple_output   # returns a tuple (or list) of arrays; g is then a tuple
        self.container = container or tuple_output   # the output is a list/tuple/dict, not an array

    def __repr__(self):
        return f"<rule {self.name}>"

    def __deepcopy__(self, memo):
        return self   # rules are immutable tables

    @property
    def differentiable_params(self):
        return [p for p in self.param_names if p in self.vjps]

    def referenced_params(self):
        """Parameters some template may read (so they must be cheap atoms)."""
        out = set(self.vjps)
        for v in self.vjps.values():
            if isinstance(v, str):
                out |= Template(v).names & set(self.param_names)
            else:
                out |= set(self.param_names)
        return out

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
            if p is None or p.kind in ("pos", "var"):
                raise TypeError(f"adsrc's rule for {self.name} does not support the argument `{kw.arg}`")
            if kw.arg in bound:
                raise TypeError(f"{self.name} got multiple values for `{kw.arg}`")
            bound[kw.arg] = kw.value
        for p in self.params:
            if p.name not in bound and p.default is NOT_STATIC and p.kind != "var":
                raise TypeError(f"{self.name} is missing the argument `{p.name}`")
        return bound

    def static_args(self, bound):
        """Literal values of bound arguments (defaults filled; NOT_STATIC if unknown)."""
        out = {}
        for p in self.params:
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
        return Template(t)

    def is_scalar_output(self, static):
        return bool(self.scalar_out and self.scalar_out(**static))


def register(fn, rule, name=None):
    FUNCTIONS[fn] = rule
    return rule


def rule_copy(rule, name):
    r = copy.copy(rule)
    r.name = name
    return r


# Table helpers -----------------------------------------------------------------

def elementwise(fn, name, *templates, signature=None):
    """A broadcasting elementwise function: one template per argument (None: not differentiable)."""
    params = ["x", "y", "z"][:len(templates)] if signature is None else None
    sig = signature or ", ".join(params) + ", /"
    names = [p.name for p in parse_signature(sig)]
    vjps = {p: t for p, t in zip(names, templates) if t is not None}
    return register(fn, Rule(name, sig, vjps, kind="elementwise"))


def general(fn, name, signature, lazy=False, scalar_out=None, tuple_output=False, container=False, **vjps):
    """Any other function: `g` has exactly the output's shape (a tuple of such for tuple outputs).

    container=True: the function returns a list, tuple or dict of values whose
    cotangent `g` arrives as such a container (0.0 where zero), unmodified.
    """
    return register(fn, Rule(name, signature, vjps, kind="general", lazy=lazy, scalar_out=scalar_out,
                             tuple_output=tuple_output, container=container))


def nondiff(fn, name):
    """A function whose output is never differentiated (a constant for AD)."""
    return register(fn, Rule(name, "*args", {}, nondiff=True))


def lookup(fn):
    """The rule for a callable, or None."""
    try:
        return FUNCTIONS.get(fn)
    except TypeError:  # unhashable callable
        return None


def _load_tables():
    from . import helpers, numpy_rules, linalg_rules, math_rules  # noqa: F401  (tables register on import)
    from . import operators, methods, builtin_rules, containers, sharing
    operators._install()
    methods._install()
    builtin_rules._install()
    containers.install()
    sharing.install()


_load_tables()
