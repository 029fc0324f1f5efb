"""The helpers forward-mode code calls (differentiation/forward.py).

A tangent has exactly its value's shape, or is absent: the generated code
tracks which names have one, so a zero tangent costs nothing. Where a zero
must exist as a value (a branch that does not change a carried value, a
loop's first iteration, an output), `zeros_tangent` makes one. Tangents of
tuples, lists, dicts and registered classes are containers of the same
structure.
"""

import copy
import functools
import numbers
import types

import numpy as np

from . import pytree_nodes
from .runtime import (ARRAY_ATTRIBUTES, copy_object, has_array_attributes, helper, is_zero, object_fields,
                      refuse_computed_attribute)

_nd = np.ndarray


def _float_dtype(dtype):
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)


@helper
def zeros_tangent(x):
    """A zero tangent with x's structure and shape (0.0 for numbers and anything without a tangent)."""
    if type(x) is _nd:
        return np.zeros(x.shape, _float_dtype(x.dtype))
    if isinstance(x, np.generic):
        return np.zeros((), _float_dtype(x.dtype))[()]
    if isinstance(x, complex):
        return 0j
    if isinstance(x, (bool, numbers.Number, str, bytes)) or x is None:
        return 0.0
    node = pytree_nodes.node_of(x)
    if node is not None:
        children, aux = pytree_nodes.flatten(node, x)
        return pytree_nodes.unflatten(node, aux, [zeros_tangent(c) for c in children])
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*[zeros_tangent(v) for v in x])
    if isinstance(x, tuple):
        return tuple(zeros_tangent(v) for v in x)
    if isinstance(x, list):
        return [zeros_tangent(v) for v in x]
    if isinstance(x, dict):
        return _dict_like(x, {k: zeros_tangent(v) for k, v in x.items()})
    if hasattr(type(x), "__dataclass_fields__"):
        import dataclasses
        return dataclasses.replace(x, **{f.name: zeros_tangent(getattr(x, f.name))
                                         for f in dataclasses.fields(x) if f.init})
    if hasattr(type(x), "shape") and hasattr(type(x), "dtype"):      # (a class's __getattr__ is not asked)
        return np.zeros(np.shape(x), _float_dtype(np.dtype(x.dtype)))
    fields = object_fields(x) if not isinstance(x, NOT_OBJECTS) else None
    if fields is not None:
        out = copy_object(x)    # an object of the user's class: its attributes' tangents
        for k, v in fields.items():
            object.__setattr__(out, k, zeros_tangent(v))
        return out
    return 0.0


# what has a __dict__ but is no object whose fields carry derivatives (object_args.py extends it)
NOT_OBJECTS = (type, types.ModuleType, types.FunctionType, types.MethodType, functools.partial, np.ufunc,
               types.BuiltinFunctionType, type(np.mean))


def _dict_like(x, items):
    """A dict of x's type (a defaultdict keeps its factory) holding items."""
    if type(x) is dict:
        return items
    out = copy.copy(x)
    out.clear()
    out.update(items)
    return out


@helper
def tangent_output(t, x):
    """The output tangent handed to the user: x's structure, arrays of x's shape (fresh, writable)."""
    if is_zero(t) and not isinstance(x, float):
        return zeros_tangent(x)
    if type(x) is _nd:
        if type(t) is _nd and t.shape == x.shape and t.flags.writeable:
            return t
        return np.array(np.broadcast_to(t, x.shape))
    if isinstance(x, (tuple, list)) and not hasattr(x, "_fields"):
        parts = [tangent_output(ti, xi) for ti, xi in zip(t, x)]
        return parts if isinstance(x, list) else tuple(parts)
    if isinstance(x, tuple):
        return type(x)(*[tangent_output(ti, xi) for ti, xi in zip(t, x)])
    if isinstance(x, dict):
        return _dict_like(x, {k: tangent_output(t[k], v) for k, v in x.items()})
    node = pytree_nodes.node_of(x)
    if node is not None:
        tc, _ = pytree_nodes.flatten(node, t)
        xc, aux = pytree_nodes.flatten(node, x)
        return pytree_nodes.unflatten(node, aux, [tangent_output(a, b) for a, b in zip(tc, xc)])
    if type(x) is float and type(t) is not float and np.ndim(t) == 0 and not np.iscomplexobj(t):
        return float(t)
    return t


@helper
def jvp_from_vjp(pullback, tangents, ans):
    """J t from a rule's vector-Jacobian product: entry k of J t is <J^T e_k, t>.

    For rules without a forward template: one pullback per output element
    (one call for a scalar output). `pullback(g)` returns one cotangent per
    tangent in `tangents`, each broadcastable to its argument. The output may be
    an array or number, or a tuple, list or dict of them (a custom_vjp's).
    """
    outs = _out_leaves(ans)
    complex_in = any(_has_complex(t) for t in tangents)
    results = []
    for j, out in enumerate(outs):
        shape = np.shape(out)
        complex_out = np.iscomplexobj(out)
        flat = np.zeros(int(np.prod(shape)), complex if complex_out else float)
        for k in range(flat.size):
            def along(seed):
                e = np.zeros(flat.size, type(seed))
                e[k] = seed
                g = _out_rebuilt(ans, [e.reshape(shape) if i == j else np.zeros(np.shape(o))
                                       for i, o in enumerate(outs)])
                return sum(_pair(c, t) for c, t in zip(pullback(g), tangents))
            if not (complex_in or complex_out):
                flat[k] = along(1.0)
            else:
                # cotangents pair with tangents by Re(c t) (a complex leaf's gradient is d/dx - i d/dy), so the
                # seed 1 gives the change of the real part and the seed 1j minus that of the imaginary part
                flat[k] = np.real(along(1.0)) - (1j * np.real(along(1j)) if complex_out else 0.0)
        results.append(flat.reshape(shape) if shape else flat[0])
    if not isinstance(ans, (tuple, list, dict)):
        r = results[0]
        return float(r) if type(ans) is float and not np.iscomplexobj(r) else r
    return _out_rebuilt(ans, results)


def _out_leaves(ans):
    """The arrays and numbers of an output, in order (a tuple's, list's or dict's items, nested)."""
    if isinstance(ans, dict):
        return [leaf for v in ans.values() for leaf in _out_leaves(v)]
    if isinstance(ans, (tuple, list)):
        return [leaf for v in ans for leaf in _out_leaves(v)]
    return [ans]


def _out_rebuilt(ans, leaves):
    """ans's structure holding `leaves` in order."""
    it = iter(leaves)

    def build(a):
        if isinstance(a, dict):
            return {k: build(v) for k, v in a.items()}
        if isinstance(a, (tuple, list)):
            return type(a)(build(v) for v in a) if not hasattr(a, "_fields") else type(a)(*[build(v) for v in a])
        return next(it)
    return build(ans)


def _has_complex(t):
    if isinstance(t, (list, tuple)):
        return any(_has_complex(v) for v in t)
    return np.iscomplexobj(t)


def _pair(c, t):
    """sum(c * t) over matching structures (bilinear: no conjugate, as the rules' convention)."""
    if isinstance(t, (list, tuple)):
        return sum(_pair(ci, ti) for ci, ti in zip(c, t))
    if is_zero(c):
        return 0.0
    return np.sum(np.broadcast_to(c, np.shape(t)) * t) if np.shape(c) != np.shape(t) else np.sum(c * t)


# -- forward templates' helpers (rules/jvp_rules.py) ---------------------------------------------

@helper
def record_tangent(ans, names, ts):
    """The tangent of the namedtuple or dataclass `ans` made from fields: the tangents of the fields the call
    passed (ts, by names), and zero tangents for the others (their defaults are constants)."""
    out = zeros_tangent(ans)
    given = {k: t for k, t in zip(names, ts) if not is_zero(t)}
    if not given:
        return out
    if isinstance(out, tuple):
        return out._replace(**given)
    out = copy_object(out)
    for k, t in given.items():
        object.__setattr__(out, k, t)        # (a frozen dataclass too; no __post_init__ on tangents)
    return out


@helper
def written_tangent(t, x):
    """The tangent of a value written into x (`x[i] = v`): 0 when x is an array of integers or booleans, which
    truncate what they hold."""
    return 0.0 if isinstance(x, _nd) and x.dtype.kind in "biu" else t


@helper
def copied(t):
    """The tangent of `x.copy()`: a copy of x's tangent when that is an array (code that writes into the copy
    writes into this one, not into the tangent of x)."""
    return t.copy() if isinstance(t, _nd) else t


@helper
def abs_jvp(g, x, ans):
    """d|x|: sign(x) t for real x; Re(conj(x) t) / |x| for complex x (0 where x = 0)."""
    if np.iscomplexobj(x):
        safe = np.where(ans == 0, 1.0, ans)
        return np.where(ans == 0, 0.0, np.real(np.conj(x) * g) / safe)
    return np.sign(x) * np.real(g)


@helper
def einsum_of_jvp(g, subscripts, operands):
    """d einsum_of(subscripts, operands): one einsum per operand with a tangent, that operand replaced by it."""
    if is_zero(g):
        return 0.0
    total = 0.0
    for j, t in enumerate(g):
        if not is_zero(t):
            term = np.einsum(subscripts, *[t if i == j else o for i, o in enumerate(operands)])
            total = term if is_zero(total) else total + term
    return total


@helper
def sign_jvp(g, x, ans):
    """d sign(x): 0 for real x; (t - sign(x) Re(conj(sign(x)) t)) / |x| for complex x (0 where x = 0)."""
    if not np.iscomplexobj(x):
        return 0.0 * np.real(g)
    r = np.abs(x)
    safe = np.where(r == 0, 1.0, r)
    return np.where(r == 0, 0.0, (g - ans * np.real(np.conjugate(ans) * g)) / safe)


@helper
def angle_jvp(g, z, deg):
    """d angle(z) = Im(conj(z) t) / |z|^2 (0 for real z, whose angle is piecewise constant)."""
    if not np.iscomplexobj(z):
        return np.zeros(np.shape(z)) * np.real(g)
    m2 = np.real(z * np.conj(z))
    out = np.where(m2 == 0, 0.0, np.imag(np.conj(z) * g) / np.where(m2 == 0, 1.0, m2))
    return out * (180.0 / np.pi) if deg else out


@helper
def det_jvp(g, a, ans):
    """d det(A) = det(A) tr(A^-1 dA), batched over leading axes."""
    return ans * np.trace(np.linalg.solve(a, g), axis1=-2, axis2=-1)


@helper
def add_tangent(tx, ty, ans):
    """The tangent of `x + y` where x and y may be lists or tuples (concatenated) or numbers."""
    if isinstance(ans, (list, tuple)):
        return type(ans)(tx) + type(ans)(ty) if not hasattr(ans, "_fields") else tx + ty
    return _full(tx + ty, ans)


@helper
def mul_tangent(x, y, tx, ty, ans):
    """The tangent of `x * y` where one of them may be a list or tuple repeated by a count."""
    if isinstance(x, (list, tuple)):
        return tx * y
    if isinstance(y, (list, tuple)):
        return x * ty
    return _full(tx * y + x * ty, ans)


def _full(t, ans):
    if type(ans) is _nd and np.shape(t) != ans.shape:
        return np.array(np.broadcast_to(t, ans.shape))
    return t


# -- containers (rules/jvp_rules.py JOINT): where a value went is read from the primal -------------

@helper
def items_tangent(td):
    """Tangent of d.items(): (key, value) pairs whose keys have no tangent."""
    return [(0.0, v) for v in td.values()]


@helper
def enumerate_tangent(tseq):
    return [(0.0, v) for v in tseq]


def _pairs_tangent(x, tx):
    """{key: tangent} for dict(x) / d.update(x), x a dict or pairs."""
    if isinstance(x, dict):
        return dict(tx)
    return {k: tp[1] for (k, _), tp in zip(x, tx)}


@helper
def dict_tangent(x, tx):
    return _pairs_tangent(x, tx)


@helper
def dict_update_tangent(td, other, tother):
    out = dict(td)
    out.update(_pairs_tangent(other, tother))
    return out


@helper
def or_tangent(x, y, tx, ty):
    """Tangent of `x | y`: of dicts, the tangents merged the same way; of numbers and sets, none."""
    if not isinstance(x, dict) or not isinstance(y, dict):
        return 0.0
    return dict_update_tangent(_pairs_tangent(x, tx), y, ty)


@helper
def sorted_tangent(items, titems, key, reverse):
    """Tangent of sorted(items, key=..., reverse=...): the tangents in the primal's (stable) order."""
    items, titems = list(items), list(titems)
    keyf = (lambda i: items[i]) if key is None else (lambda i: key(items[i]))
    return [titems[i] for i in sorted(range(len(items)), key=keyf, reverse=bool(reverse))]


@helper
def sort_tangent(x, tx, reverse, axis=-1):
    """Tangent of x.sort() (sorted_value): arrays along an axis, lists by value."""
    if type(x) is _nd:
        order = np.argsort(x, axis=axis, kind="stable")
        if reverse:
            order = np.flip(order, axis=axis)
        return np.take_along_axis(np.broadcast_to(tx, x.shape), order, axis=axis)
    return sorted_tangent(x, tx, None, reverse)


@helper
def remove_tangent(lst, tlst, v):
    out = list(tlst)
    del out[list(lst).index(v)]
    return out


@helper
def replace_obj_tangent(m, old, tm, tnew):
    """Tangent of replace_obj(m, old, new): tnew wherever m holds old."""
    from .rules.sharing import _mutable, _positions, _set_path, positions_where
    from .rules.located_views import located_positions
    if not _mutable(old):
        return tm
    views = located_positions(m, old, positions_where)        # a view old[idx] held: tnew[idx]
    for path in _positions(m, old):
        tm = _set_path(tm, path, tnew)
    for path, idx in views:
        tm = _set_path(tm, path, tnew[idx] if type(tnew) is _nd else zeros_tangent(old[idx]))
    return tm


@helper
def replace_part_tangent(m, old, new, paths, tm, tnew):
    """Tangent of replace_part(m, old, new, paths, message): tnew's part wherever m holds old's."""
    from .rules.held_parts import part_positions
    from .rules.sharing import _set_path, _taken
    for position, steps in part_positions(m, old, paths):
        part = _taken(tnew, steps) if type(tnew) is _nd else zeros_tangent(_taken(new, steps))
        tm = _set_path(tm, position, part)
    return tm


@helper
def attr_tangent(t, obj, name):
    """The tangent of obj.name: the field of obj's tangent (an object without one has a zero tangent)."""
    array = has_array_attributes(obj)       # `x.size`, `x.T` of an array read as a field (fields.py)
    constant = array and name in ARRAY_ATTRIBUTES
    if not array:
        refuse_computed_attribute(obj, name)
    if constant or (type(t) is float and t == 0.0 and not isinstance(obj, float)):
        return zeros_tangent(getattr(obj, name))
    fields = getattr(t, "__dict__", None)
    if isinstance(fields, dict) and name not in fields and not array and not isinstance(t, (tuple, dict)) and \
            not hasattr(type(t), "__slots__") and not hasattr(type(t), "__getattr__"):
        return zeros_tangent(getattr(obj, name))    # a class attribute (`scale = 1.0`, a ClassVar): constant
    if type(t) is tuple and isinstance(obj, tuple) and name in getattr(obj, "_fields", ()):
        return t[obj._fields.index(name)]           # a rule's plain tuple for a named tuple (slogdet's)
    return getattr(t, name)


@helper
def ravel_pytree_tangent(tree, t_tree):
    """The tangent of `ravel_pytree(tree)`: (the leaves' tangents raveled into one vector, 0.0 for unravel)."""
    pieces = [np.ravel(np.broadcast_to(np.asarray(t, dtype=np.result_type(leaf, float)), np.shape(leaf)))
              for leaf, t in _paired_leaves(tree, t_tree)]
    return (np.concatenate(pieces) if pieces else np.zeros(0)), 0.0


@helper
def unravel_tangent(unravel, t_flat):
    """The tangent of `unravel(flat)`: unravel of flat's tangent (linear); zero stays zero."""
    if np.ndim(t_flat) == 0:
        return unravel(np.broadcast_to(np.asarray(t_flat, dtype=float), (unravel.size,)))
    return unravel(t_flat)


def _paired_leaves(x, t):
    """(float leaf of x, its tangent) in ravel_pytree's order; a tangent that is None or 0.0 is zero."""
    zero = t is None or (type(t) is float and t == 0.0 and not isinstance(x, (float, np.ndarray)))
    if isinstance(x, dict):
        return [p for k in x for p in _paired_leaves(x[k], 0.0 if zero else t[k])]
    if isinstance(x, (list, tuple)):
        return [p for i, v in enumerate(x) for p in _paired_leaves(v, 0.0 if zero else t[i])]
    if isinstance(x, np.ndarray) and x.dtype.kind in "fc" or isinstance(x, (float, np.floating)):
        return [(x, 0.0 if t is None else t)]
    if isinstance(x, (int, str, bool, type(None), np.integer, np.bool_)):
        return []
    raise TypeError(f"adsrc's forward mode of ravel_pytree follows lists, tuples and dicts of arrays, not "
                    f"{type(x).__name__}: differentiate in reverse mode (adsrc.grad) instead")
