"""Keep only what the backward pass reads: values, not arrays kept for their shapes.

Much of what backward code reads of the forward pass it reads only for a shape
(and dtype): `unbroadcast(g, x, out)` sums a cotangent down to x's shape,
`full(g, like)` broadcasts one up to like's. Keeping such an array alive,
or on a loop's tape once per iteration, costs its whole buffer. Such reads
are given `only_shape(x)` instead: a read-only array of x's shape and dtype
whose buffer is a single element shared by every value of that shape (so a
tape entry costs a reference).

* In a loop, a value each iteration saves only for its shape is saved as
  `only_shape(value)` (control.py asks `shape_only`).
* In straight-line code, an array read later only for its shape is replaced
  by `x = only_shape(x)` after the user line that last reads its value, and
  its buffer is released there; an array not read again is deleted there
  (`release_shapes`).
* Residuals that a pullback reads only for their shapes are returned as
  `only_shape(x)` (assemble.py).
"""

import gast

from .. import astutil

# helper -> positions of the arguments it reads only for their shape and dtype
SHAPE_ARGS = {
    "unbroadcast": (1, 2),
    "full": (1,),
    "owned": (1,),
    "expand_to": (1,),
    "matmul_dx": (1,),
    "matmul_dy": (2,),
    "reduced_size": (0,),
    "only_shape": (0,),
    "broadcast_only": (0, 1),
}
# numpy functions and array attributes that read only a shape
NP_SHAPE_FUNCTIONS = {"shape", "size", "ndim"}
SHAPE_ATTRIBUTES = {"shape", "ndim", "size", "dtype"}


def _shape_positions(call, helpers):
    f = call.func
    if isinstance(f, gast.Name) and f.id in helpers:
        return SHAPE_ARGS.get(helpers[f.id], ())
    if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and f.value.id == "np" \
            and f.attr in NP_SHAPE_FUNCTIONS:
        return (0,)
    return ()


def _names(stmts, helpers):
    """(names stored, names loaded, names loaded as values: anywhere but a shape-only position), one walk."""
    stored, loaded, shape_nodes, names = set(), set(), set(), []
    for s in stmts:
        for node in astutil.walk(s):
            t = type(node)
            if t is gast.Name:
                names.append(node)
            elif t is gast.Call:
                for k in _shape_positions(node, helpers):
                    if k < len(node.args) and type(node.args[k]) is gast.Name:
                        shape_nodes.add(id(node.args[k]))
            elif t is gast.Attribute and node.attr in SHAPE_ATTRIBUTES and type(node.value) is gast.Name \
                    and isinstance(node.ctx, gast.Load):
                shape_nodes.add(id(node.value))
    values = set()
    for n in names:
        if isinstance(n.ctx, gast.Load):
            loaded.add(n.id)
            if id(n) not in shape_nodes:
                values.add(n.id)
        elif isinstance(n.ctx, gast.Store):
            stored.add(n.id)
    return stored, loaded, values


def value_reads(stmts, helpers):
    """Names that stmts read as values (anywhere other than a shape-only position)."""
    return _names(stmts, helpers)[2]


def shape_only(names, stmts, helpers):
    """Those of names that stmts read, but only for their shapes."""
    _, loaded, values = _names(stmts, helpers)
    return {n for n in names if n in loaded} - values


def release_shapes(body, arrays, helpers, helper):
    """Replace arrays that later statements of body read only for their shapes by `only_shape(x)`, at the
    end of the user line that reads them last as values (one statement per line). An array never read as
    a value that an elementwise `a + b`, `a - b`, `a * b` or `a / b` makes is not computed at all: it is
    `broadcast_only(a, b)`, a stand-in of the result's shape and dtype.

    arrays: the names whose buffers may be released (new arrays the function made); helpers: generated
    name -> helper; helper(base): the name generated code calls a helper by.
    """
    assigned, plain, reads = {}, set(), []
    for k, s in enumerate(body):
        stored, loaded, values = _names([s], helpers)
        reads.append((loaded, values))
        for n in stored:
            assigned.setdefault(n, []).append(k)
        if isinstance(s, gast.Assign):
            plain.update(t.id for t in s.targets if isinstance(t, gast.Name))
    candidates = {n for n, ks in assigned.items() if len(ks) == 1 and n in plain and n in arrays}
    if not candidates:
        return body
    last_value, last_any = {}, {}
    for k, (loaded, values) in enumerate(reads):
        for n in loaded & candidates:
            last_any[n] = k
        for n in values & candidates:
            last_value[n] = k
    shaped, dead = {}, {}
    for n in sorted(candidates):
        if n not in last_value and _broadcast_only(body[assigned[n][0]], helper):
            continue
        k = _end_of_line(body, max(last_value.get(n, assigned[n][0]), assigned[n][0]))
        if k >= len(body) - 1 or isinstance(body[k + 1], gast.Return):
            continue
        if last_any.get(n, -1) > k:
            shaped.setdefault(k, []).append(n)
        else:
            dead.setdefault(k, []).append(n)
    out = []
    for k, s in enumerate(body):
        out.append(s)
        line = getattr(s, "adsrc_line", None)
        if k in dead:
            out.append(_tagged(gast.Delete(targets=[astutil.name(n, gast.Del()) for n in dead[k]]), line))
        if k in shaped:
            out.append(_tagged(_stand_ins(shaped[k], helper("only_shape")), line))
    return out


_ELEMENTWISE = (gast.Add, gast.Sub, gast.Mult, gast.Div)


def _broadcast_only(s, helper):
    """Turn `x = a <op> b` (elementwise arithmetic of names and numbers) into `x = broadcast_only(a, b)`."""
    v = s.value
    if not (isinstance(v, gast.BinOp) and isinstance(v.op, _ELEMENTWISE) and
            all(isinstance(e, (gast.Name, gast.Constant)) for e in (v.left, v.right))):
        return False
    args = [v.left, v.right] + ([astutil.const(True)] if isinstance(v.op, gast.Div) else [])
    s.value = astutil.call(astutil.name(helper("broadcast_only")), args)
    return True


def _end_of_line(body, k):
    """The last statement of the run of statements from body[k]'s user line that body[k] is in."""
    line = getattr(body[k], "adsrc_line", None)
    while line is not None and k + 1 < len(body) and getattr(body[k + 1], "adsrc_line", None) == line \
            and not isinstance(body[k + 1], gast.Return):
        k += 1
    return k


def _stand_ins(names, stand_in):
    calls = [astutil.call(astutil.name(stand_in), [astutil.name(n)]) for n in names]
    return astutil.assign(names[0], calls[0]) if len(names) == 1 else astutil.assign(tuple(names), astutil.tuple_(calls))


def _tagged(s, line):
    s.adsrc_line = line
    return s
