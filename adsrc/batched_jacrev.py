"""jacrev in one pullback: the rows of the identity pulled back together as a batch (batching.py).

    jac = batched_jacobian(pullback, out, args, argnums)    # None: go one row at a time

The pullback adsrc.vjp returns runs its generated backward function once on a
cotangent holding every basis vector of the output (`Batched`, B = the
output's size; in chunks when that would be large). NumPy's protocols carry
the batch through the generated code and the runtime helpers. A few helpers
make fresh NumPy buffers that a batch cannot be written into (`owned(0.0, x)`
then `dx[i] += g`): the backward function (and the backward functions of the
user functions it calls) is copied with those helpers replaced by the forms
below, which make batched buffers. The copies are made once per generated
function and used only here; nothing else changes for other callers.

Whatever the batch cannot do raises BatchingUnsupported, and any failure of
the batched pass (a pullback that raises for one row raises here too) makes
jacrev pull back one row at a time, as before: a Jacobian is never guessed.
`STATS` counts both outcomes and keeps the last reason (for tests and for
curiosity).
"""

import numbers
import os
import threading
import types
import weakref

import numpy as np

from . import pytree_nodes, runtime, runtime_accumulate
from .batching import Batched, BatchingUnsupported, is_batched, shifted_index, lifted, unsupported
from .checks import _child_path, _leaves, _map

ENABLED = os.environ.get("ADSRC_BATCHED_JACREV", "1") != "0"
BUDGET = 1 << 22          # elements of the largest batched array a chunk of rows may make (32 MB of floats)
MIN_ROWS = 5              # fewer rows go one at a time: a batch's operations cost more to dispatch (measured)
GIVE_UP = 2               # a backward function that failed this many times running is not batched again
STATS = {"batched": 0, "fallback": 0, "reason": None}

_state = threading.local()
_nd = np.ndarray


def _rows():
    n = getattr(_state, "rows", None)
    if n is None:
        unsupported("a batched helper called outside a batched pullback")
    return n


def _array(x):
    return type(x) is _nd or isinstance(x, np.generic)


# -- helpers that make buffers: batched forms --------------------------------------------------

def owned(g, x):
    """runtime.owned, with a batch for an array x (a buffer the batch's rows are added into)."""
    if not _array(x):
        return runtime.owned(g, x)
    dtype = x.dtype if x.dtype.kind in "fc" else np.dtype(np.float64)
    out = Batched(np.zeros((_rows(),) + np.shape(x), dtype=dtype))
    if not runtime.is_zero(g):
        out[...] = np.real(g) if dtype.kind != "c" and np.iscomplexobj(g) else g
    return out


def add_at(dx, x, idx, g):
    """runtime.add_at into a batched buffer; a batch is not added into a NumPy buffer (refused)."""
    if not is_batched(dx):
        if is_batched(g) and (_array(dx) or runtime.is_duck(dx)):
            unsupported("adding a batch into a NumPy buffer")
        return runtime.add_at(dx, x, idx, g)
    if np.iscomplexobj(g) and dx.dtype.kind != "c":
        g = np.real(g)
    key = shifted_index(idx, dx.ndim)
    if runtime_accumulate._is_basic_index(idx):
        view = dx.data[key]
        view += lifted(g, view.ndim - 1)
    else:
        target = np.empty((0,) + dx.shape)[key].ndim - 1
        np.add.at(dx.data, key, lifted(g, target))
    return dx


def getitem_cot(x, idx, g):
    return add_at(owned(0.0, x), x, idx, g)


def index_update_vjp_base(g, x, idx):
    if not _array(x):
        return runtime.index_update_vjp_base(g, x, idx)
    out = owned(g, x)
    out[idx] = 0.0
    return out


def zero_at(g, x, idx):
    if is_batched(g) and _array(x) and g.shape == x.shape and g.data.flags.writeable:
        g[idx] = 0.0            # a buffer only the generated code holds, as runtime.zero_at assumes
        return g
    if not is_batched(g):
        return runtime.zero_at(g, x, idx)
    return index_update_vjp_base(g, x, idx)


def owned_tree(g, x):
    if isinstance(x, (tuple, list)) and not hasattr(x, "_fields"):
        parts = [owned_tree(runtime.item_cot(g, i), v) for i, v in enumerate(x)]
        return type(x)(parts) if isinstance(x, list) else tuple(parts)
    if isinstance(x, dict):
        return {k: owned_tree(runtime.item_cot(g, k), v) for k, v in x.items()}
    return owned(g, x)


OVERRIDES = {"owned": owned, "add_at": add_at, "getitem_cot": getitem_cot,
             "index_update_vjp_base": index_update_vjp_base, "zero_at": zero_at, "owned_tree": owned_tree}


# -- the backward function, copied with those helpers -------------------------------------------

_COPIES = weakref.WeakKeyDictionary()    # generated backward function -> its copy for batches
_FAILURES = weakref.WeakKeyDictionary()  # generated backward function -> failed batched pullbacks in a row
_lock = threading.Lock()


def _replacements():
    table = {}
    for name, fn in OVERRIDES.items():
        h = runtime.HELPERS.get(name)
        for f in (h, getattr(h, "_adsrc_numpy_helper", None), getattr(runtime, name, None)):
            if f is not None:
                table[id(f)] = fn
    return table


def _generated(obj):
    return isinstance(obj, types.FunctionType) and obj.__code__.co_filename.startswith("<adsrc ")


def batched_copy(fn):
    """fn (a generated backward function) with the helpers above in place of runtime's, and the same for
    the generated functions it calls (they are free variables of fn: cells, see emission/source.py)."""
    with _lock:
        new = _COPIES.get(fn)
        if new is None:
            new = _COPIES[fn] = _copy(fn, _replacements(), {})
        return new


def _copy(fn, table, memo):
    cells = []
    for c in fn.__closure__ or ():
        try:
            v = c.cell_contents
        except ValueError:
            cells.append(c)
            continue
        if id(v) in table:
            cells.append(types.CellType(table[id(v)]))
        elif _generated(v) and v.__closure__:
            cell = memo.get(v)
            if cell is None:
                cell = memo[v] = types.CellType()
                cell.cell_contents = _copy(v, table, memo)
            cells.append(cell)
        else:
            cells.append(c)
    new = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, tuple(cells))
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    return new


# -- the Jacobian ---------------------------------------------------------------------------------

def _all_leaves(x, path="x"):
    """{path: leaf} of a gradient tree, with the paths checks._leaves gives the input's float leaves."""
    node = pytree_nodes.node_of(x)
    if node is not None:
        children, _ = pytree_nodes.flatten(node, x)
        return {p: v for i, c in enumerate(children) for p, v in _all_leaves(c, _child_path(node, path, i)).items()}
    if isinstance(x, dict):
        return {p: v for k in x for p, v in _all_leaves(x[k], f"{path}[{k!r}]").items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return {p: v for k, e in zip(x._fields, x) for p, v in _all_leaves(e, f"{path}.{k}").items()}
    if isinstance(x, (tuple, list)):
        return {p: v for i, e in enumerate(x) for p, v in _all_leaves(e, f"{path}[{i}]").items()}
    if hasattr(type(x), "__dataclass_fields__"):
        import dataclasses
        return {p: v for f in dataclasses.fields(x) for p, v in _all_leaves(getattr(x, f.name),
                                                                             f"{path}.{f.name}").items()}
    return {path: x}


def _foreign(args):
    """Whether an argument holds arrays of another library (their pullbacks stay one row at a time)."""
    for v in _all_leaves(list(args)).values():
        if not isinstance(v, (_nd, np.generic)) and (hasattr(type(v), "__array_function__") or
                                                     hasattr(type(v), "__array_namespace__")):
            return True
    return False


def _chunks(total, width):
    step = max(1, min(total, BUDGET // max(1, width)))
    return [(r, min(total, r + step)) for r in range(0, total, step)]


def batched_jacobian(pullback, out, args, argnums, chosen):
    """The Jacobian blocks (jacobians._blocks's layout) from batched pullbacks, or None to go row by row."""
    if not ENABLED:
        return None
    bwd = getattr(pullback, "_adsrc_backward", (None,))[0]
    if bwd is not None and _FAILURES.get(bwd, 0) >= GIVE_UP:
        STATS["fallback"] += 1
        STATS["reason"] = f"gave up after {GIVE_UP} failures running"
        return None
    try:
        jac = _jacobian(pullback, out, args, argnums, chosen)
    except Exception as e:      # BatchingUnsupported, or any failure: the rows one at a time decide
        STATS["fallback"] += 1
        STATS["reason"] = f"{type(e).__name__}: {e}"
        if bwd is not None:
            _FAILURES[bwd] = _FAILURES.get(bwd, 0) + 1
        if os.environ.get("ADSRC_BATCHED_JACREV") == "raise" and not isinstance(e, BatchingUnsupported):
            raise
        return None
    if bwd is not None and bwd in _FAILURES:
        del _FAILURES[bwd]
    if jac is None:
        return None
    STATS["batched"] += 1
    return jac


def _jacobian(pullback, out, args, argnums, chosen):
    parts = getattr(pullback, "_adsrc_backward", None)
    if parts is None:
        unsupported("a pullback without its backward function")
    if _foreign(args):
        unsupported("arguments holding arrays of another library")
    bwd, pullback_with = parts
    outs = _leaves(out)
    sizes = [int(np.size(v)) for _, v in outs]
    total = sum(sizes)
    if total < max(MIN_ROWS, 1):
        return None
    ins = _leaves(chosen)
    if any(np.iscomplexobj(v) for _, v in outs + ins):
        unsupported("complex values (their rules check for complex cotangents by type)")
    width = max(total, sum(int(np.size(v)) for _, v in ins))
    copy = batched_copy(bwd)
    nums = (argnums,) if isinstance(argnums, numbers.Integral) else tuple(argnums)
    rows = {p: np.empty((total,) + np.shape(v), dtype=v.dtype if isinstance(v, (_nd, np.generic)) else float)
            for p, v in ins}
    offsets = dict(zip([p for p, _ in outs], np.cumsum([0] + sizes[:-1])))
    for start, stop in _chunks(total, width):
        n = stop - start
        basis = np.zeros((n, total))
        basis[np.arange(n), np.arange(start, stop)] = 1.0

        def seed(path, v):
            o = offsets[path]
            block = basis[:, o:o + np.size(v)].reshape((n,) + np.shape(v))
            return Batched(block.astype(np.result_type(v, float)))
        ct = _map(out, seed)
        _state.rows = n
        try:
            grads = pullback_with(copy, ct)
        finally:
            _state.rows = None
        got = grads[argnums] if isinstance(argnums, numbers.Integral) else tuple(grads[i] for i in nums)
        leaves = _all_leaves(got)
        for p, v in ins:
            g = leaves.get(p)
            data = g.data if is_batched(g) else np.asarray(g)[None] if isinstance(g, (_nd, np.generic, float, int)) \
                else unsupported(f"a gradient of type {type(g).__name__}")
            if data.shape[1:] != np.shape(v) or data.shape[0] not in (1, n) or data.dtype.kind not in "fiu":
                unsupported(f"a batched gradient of shape {data.shape[1:]} for an input of shape {np.shape(v)}")
            rows[p][start:stop] = data

    def block(op, ol, ip, il):
        o = offsets[op]
        return rows[ip][o:o + np.size(ol)].reshape(np.shape(ol) + np.shape(il))
    return _map(out, lambda op, ol: _map(chosen, lambda ip, il: block(op, ol, ip, il)))


_ = BatchingUnsupported
