"""Gradients that need no conversion are returned as they are.

`grad_output(g, x)` hands the user x's gradient as a fresh array of x's shape
and dtype, checking g's type, dtype, shape and ownership on every call (about
0.2 us, as much as a small gradient's arithmetic). When x is a NumPy array
(its specialization-key entry is 'array') and g is computed from x alone by
elementwise NumPy ufuncs and arithmetic with number literals, and nothing but
the return reads g, then g is certainly a new value of x's shape. If it is
also an ndarray of x's dtype (not so for a 0-d x, whose ufuncs give NumPy
scalars, or for x of another byte order) while x is one too (the code also
runs inside functions that adsrc transforms, on what they pass), grad_output
would return it unchanged. So the return reads `g if type(g) is ndarray and
type(x) is ndarray and g.dtype is x.dtype else grad_output(g, x)`.

When x is a Python float (key entry 'scalar') and g is one too, grad_output
returns float(g), which is g: a number is never shared or changed, so however
g was computed the return reads `g if type(g) is float and type(x) is float
else grad_output(g, x)` (x * x's gradient took 0.25 us in grad_output).
"""

import gast

from .. import astutil

# elementwise NumPy functions of one argument: a new value of its shape
ELEMENTWISE = frozenset({
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "square", "reciprocal", "negative",
    "positive", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
    "arccosh", "arctanh", "absolute", "abs", "sign", "cbrt"})
_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)


_NUMBER = object()      # a fact: the name holds a Python number


def _names(node, ctx):
    """Names node reads (ctx gast.Load) or stores (gast.Store, gast.Del) anywhere in it."""
    return [n.id for n in astutil.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, ctx)]


def _is_type(name, cls):
    """`type(name) is cls` (cls: a generated name, or a builtin's)."""
    return gast.Compare(left=astutil.call("type", [astutil.name(name)]), ops=[gast.Is()],
                        comparators=[astutil.name(cls)])


def _dtype(name):
    return gast.Attribute(value=astutil.name(name), attr="dtype", ctx=gast.Load())


class _Facts:
    """Going down straight-line code: which names hold a value of one parameter's shape (and which of those
    are new objects that no other name holds), and which hold Python numbers."""

    def __init__(self, params, numpy_names):
        self.like = {p: p for p in params}      # name -> its parameter, or _NUMBER
        self.fresh = set()
        self.numpy_names = numpy_names

    def of(self, e):
        """The parameter whose shape e's value has, _NUMBER, or None."""
        if isinstance(e, gast.Constant):
            return _NUMBER if type(e.value) in (int, float) else None
        if isinstance(e, gast.Name):
            return self.like.get(e.id)
        if isinstance(e, gast.UnaryOp) and isinstance(e.op, (gast.USub, gast.UAdd)):
            return self.of(e.operand)
        if isinstance(e, gast.BinOp) and isinstance(e.op, _ARITHMETIC):
            left, right = self.of(e.left), self.of(e.right)
            if left is None or right is None:
                return None
            if left is _NUMBER or right is _NUMBER:
                return right if left is _NUMBER else left
            return left if left == right else None
        if isinstance(e, gast.Call) and len(e.args) == 1 and not e.keywords and \
                isinstance(e.func, gast.Attribute) and e.func.attr in ELEMENTWISE and \
                isinstance(e.func.value, gast.Name) and e.func.value.id in self.numpy_names:
            return self.of(e.args[0])
        return None

    def statement(self, s, stored):
        """Learn from s, which stores the names `stored`: `name = expression`; any other store forgets what
        was known of the name."""
        simple = isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)
        fact = self.of(s.value) if simple else None
        for n in stored:
            self.like.pop(n, None)
            self.fresh.discard(n)
        if fact is not None:
            target = s.targets[0].id
            self.like[target] = fact
            if fact is not _NUMBER and not isinstance(s.value, gast.Name):     # a computed array: a new one
                self.fresh.add(target)


def _arithmetic_of(body, names, stores):
    """The names that body's top-level statements bind to arithmetic (+ - * / **, no call) of `names`, of
    number literals and of names so bound before: Python floats when `names` hold floats (so worth a
    `type(g) is float` test; NumPy's functions give NumPy scalars)."""
    def arithmetic(e):
        if isinstance(e, gast.Constant):
            return type(e.value) in (int, float)
        if isinstance(e, gast.Name):
            return e.id in names
        if isinstance(e, gast.UnaryOp):
            return isinstance(e.op, (gast.USub, gast.UAdd)) and arithmetic(e.operand)
        return isinstance(e, gast.BinOp) and isinstance(e.op, _ARITHMETIC) and arithmetic(e.left) and \
            arithmetic(e.right)

    names = set(names)
    for s, stored in zip(body, stores):
        simple = isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)
        fact = simple and arithmetic(s.value)
        names.difference_update(stored)
        if fact:
            names.add(s.targets[0].id)
    return names


def skip_conversions(body, params, floats, helpers, helper, bound=()):
    """body with `grad_output(g, p)` in its final return replaced as the module docstring says.

    params: the parameters whose key entry is 'array'; floats: those whose entry is 'scalar'; helpers:
    generated name -> runtime helper; helper: base -> the generated name of a runtime helper (asked only
    when used); bound: the generated function's parameters.
    """
    if not (params or floats) or not body or not isinstance(body[-1], gast.Return):
        return body
    numpy_names = {n for n, base in helpers.items() if base == "np"}
    stores = [_names(st, (gast.Store, gast.Del)) for st in body]
    stored = {n for names in stores for n in names}
    facts = _Facts([p for p in params if p not in stored], numpy_names)
    builtins_bound = {"type", "float"} & (stored | set(bound))      # (the user's own variables)
    numbers = _arithmetic_of(body[:-1], set(floats), stores) if floats else set()
    last = {}           # name -> the index of the last statement storing it
    for i, st in enumerate(body[:-1]):
        facts.statement(st, stores[i])
        for n in stores[i]:
            last[n] = i

    def sole_reader(g):
        """Nothing reads g's last value but the return's one grad_output (so nothing else holds it)."""
        return sum(_names(st, gast.Load).count(g) for st in body[last.get(g, -1) + 1:]) == 1

    def replace(node):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                helpers.get(node.func.id) == "grad_output" and len(node.args) in (2, 3) and not node.keywords and \
                all(isinstance(a, gast.Name) for a in node.args[:2]):
            g, p = node.args[0].id, node.args[1].id
            if p in floats and g in numbers and not builtins_bound:      # (borrowed or not: a number)
                test = gast.BoolOp(op=gast.And(), values=[_is_type(g, "float"), _is_type(p, "float")])
                return gast.IfExp(test=test, body=astutil.name(g), orelse=node)
            if len(node.args) == 2 and g in facts.fresh and facts.like.get(g) == p and sole_reader(g):
                array = helper("ndarray")
                same_dtype = gast.Compare(left=_dtype(g), ops=[gast.Is()], comparators=[_dtype(p)])
                test = gast.BoolOp(op=gast.And(), values=[_is_type(g, array), _is_type(p, array), same_dtype])
                return gast.IfExp(test=test, body=astutil.name(g), orelse=node)
        for field, value in gast.iter_fields(node):
            if isinstance(value, list):
                setattr(node, field, [replace(v) if isinstance(v, gast.AST) else v for v in value])
            elif isinstance(value, gast.AST):
                setattr(node, field, replace(value))
        return node

    body[-1] = replace(body[-1])
    return body
