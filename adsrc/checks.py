"""check_grads: compare adsrc's gradient with central finite differences."""

import collections

import numpy as np

from . import api, pytree_nodes, runtime
from .kinds import describe


class GradientMismatch(AssertionError):
    pass


def _leaves(x, path="x"):
    """(path, leaf) pairs of the float leaves of a pytree."""
    node = pytree_nodes.node_of(x)
    if node is not None:
        children, _ = pytree_nodes.flatten(node, x)
        return [p for i, v in enumerate(children) for p in _leaves(v, _child_path(node, path, i))]
    if isinstance(x, dict):
        return [p for k in x for p in _leaves(x[k], f"{path}[{k!r}]")]
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return [p for k, v in zip(x._fields, x) for p in _leaves(v, f"{path}.{k}")]
    if isinstance(x, (tuple, list)):
        return [p for i, v in enumerate(x) for p in _leaves(v, f"{path}[{i}]")]
    if hasattr(type(x), "__dataclass_fields__"):
        import dataclasses
        return [p for f in dataclasses.fields(x) for p in _leaves(getattr(x, f.name), f"{path}.{f.name}")]
    if _inexact(x):
        return [(path, x)]
    return []


def _inexact(x):
    """A leaf adsrc differentiates: a float or complex array or number."""
    return isinstance(x, np.ndarray) and x.dtype.kind in "fc" or \
        isinstance(x, (float, complex, np.floating, np.complexfloating))


def random_like(rng, v):
    """A random direction for the leaf v: normal entries, complex ones (both parts random) for a complex v."""
    shape = np.shape(v)
    d = rng.standard_normal(shape) + 1j * rng.standard_normal(shape) if np.iscomplexobj(v) else \
        rng.standard_normal(shape)
    return d if np.ndim(v) else d.item()


def _map(x, fn, other=None):
    """The pytree x with each float leaf replaced by fn(path, leaf) (and any other leaf by other(leaf))."""
    def go(v, path):
        node = pytree_nodes.node_of(v)
        if node is not None:
            children, aux = pytree_nodes.flatten(node, v)
            return pytree_nodes.unflatten(node, aux, [go(c, _child_path(node, path, i))
                                                      for i, c in enumerate(children)])
        if isinstance(v, dict):
            items = ((k, go(v[k], f"{path}[{k!r}]")) for k in v)
            return type(v)(v.default_factory, items) if isinstance(v, collections.defaultdict) else type(v)(items)
        if isinstance(v, tuple) and hasattr(v, "_fields"):
            return type(v)(*(go(e, f"{path}.{k}") for k, e in zip(v._fields, v)))
        if isinstance(v, (tuple, list)):
            return type(v)(go(e, f"{path}[{i}]") for i, e in enumerate(v))
        if hasattr(type(v), "__dataclass_fields__"):
            import dataclasses
            return dataclasses.replace(v, **{f.name: go(getattr(v, f.name), f"{path}.{f.name}")
                                             for f in dataclasses.fields(v)})
        if _inexact(v):
            return fn(path, v)
        return v if other is None else other(v)
    return go(x, "x")


def _child_path(node, path, i):
    """The path of child i of a registered pytree object: its attribute when known."""
    return f"{path}.{node.data_names[i]}" if node.data_names is not None else f"{path}.<child {i}>"


def _dot(grad, direction):
    total = 0.0
    g_leaves = dict(_leaves(grad))
    for path, d in _leaves(direction):
        g = g_leaves.get(path)
        if g is None:
            raise GradientMismatch(f"the gradient has no entry for {path}")
        # the real part: a complex leaf's gradient is d/dx - i d/dy (JAX's convention), so Re(g d) is the
        # derivative along d = dx + i dy
        total += float(np.real(np.sum(np.asarray(g) * np.asarray(d))))
    return total


def check_grads(f, args=None, argnums=0, modes=None, order=None, *, directions=3, eps=1e-6, rtol=1e-5, atol=1e-7,
                seed=0, kwargs=None, full=False, static_argnums=(), static_argnames=(), argnum=None):
    """Check adsrc's derivatives of f at args against central finite differences.

    modes "rev" (the default): for each of `directions` random directions v
    (one per differentiated argument, same structure), compares the
    directional derivative <adsrc.grad(f), v> with
    (f(x + eps v) - f(x - eps v)) / (2 eps). An f that does not return a
    real number is checked as x -> <f(x), w> for a random w of its output's
    structure (its vector-Jacobian product, as autograd checks it).
    "fwd": compares adsrc.jvp(f, args, v)'s output tangent, leaf by leaf,
    with the same differences (f may return any pytree), and its output
    with f(*args). With full=True, every coordinate of every array is a
    direction instead (for small inputs).

    order=2 also checks the derivative of the derivative (f scalar): for
    "rev", the gradient of x -> <adsrc.grad(f)(x), u> (u random), which
    differentiates the generated gradient; for "fwd", adsrc.jvp of
    adsrc.grad(f), against differences of adsrc's gradient (itself checked
    at order 1). order=n > 2 checks x -> <adsrc.grad(f)(x), u> to order n - 1.

    static_argnums/static_argnames are passed to adsrc.grad and adsrc.jvp;
    the other arguments and `kwargs` are held fixed. Raises GradientMismatch
    with the worst mismatch (NaN or inf in a derivative is a failure).
    Returns adsrc's gradient when "rev" is among the modes, else None.

    Without args, or with an argument number (or a tuple of them) in their place, as autograd's
    `check_grads(f[, argnum][, modes][, order])(*args)` (`argnum=` too): a function of the arguments that
    checks there (its defaults are autograd's: argument 0, both modes to order 2).
    """
    options = dict(directions=directions, eps=eps, rtol=rtol, atol=atol, seed=seed, full=full,
                   static_argnums=static_argnums, static_argnames=static_argnames)
    if args is None or _argnum_like(args):
        if args is not None:
            argnum = args
        if _modes_like(argnums):                # check_grads(f, 0, ["fwd", "rev"])
            modes, argnums = argnums, 0
        nums = argnums if argnum is None else argnum

        def check_at(*call_args, **call_kwargs):
            return check_grads(f, call_args, nums, kwargs=call_kwargs or kwargs, **options,
                               modes=("fwd", "rev") if modes is None else modes, order=2 if order is None else order)
        return check_at
    from .check_modes import as_scalar, check_modes, parse_modes
    modes, order = ("rev",) if modes is None else modes, 1 if order is None else order
    modes = parse_modes(modes, order)
    options["kwargs"] = kwargs
    scalar_f = as_scalar(f, args, kwargs, seed)
    if scalar_f is None:
        return None             # an output with no float leaf (an empty list, an integer array): nothing to check
    grads = _check_rev(scalar_f, args, argnums, **(options if scalar_f is f else dict(options, kwargs=None))) \
        if "rev" in modes else None
    check_modes(f, scalar_f, args, argnums, modes, order, options)
    return grads


def _argnum_like(x):
    """An argument number or a tuple of them, where autograd's check_grads takes `argnum`."""
    return isinstance(x, int) and not isinstance(x, bool) or \
        isinstance(x, (tuple, list)) and len(x) > 0 and all(isinstance(i, int) and not isinstance(i, bool) for i in x)


def _modes_like(x):
    return isinstance(x, str) and x in ("fwd", "rev") or \
        isinstance(x, (tuple, list)) and len(x) > 0 and all(isinstance(m, str) for m in x)


def _trials(args, nums, directions, seed, full):
    """(label, [direction per differentiated argument]): random directions, or every coordinate (full)."""
    rng = np.random.default_rng(seed)
    trials = []
    if full:
        for k, i in enumerate(nums):
            for path, leaf in _leaves(args[i]):
                arr = np.asarray(leaf)
                for idx in np.ndindex(arr.shape):
                    for unit_value in (1.0, 1j) if np.iscomplexobj(arr) else (1.0,):
                        def unit(p, v, path=path, idx=idx, one=unit_value):
                            e = np.zeros(np.shape(v), dtype=np.result_type(v, float))
                            if p == path:
                                e[idx] = one
                            return e if np.ndim(v) else e.item()
                        dirs = [_map(args[j], unit) if j == i else
                                _map(args[j], lambda p, v: np.zeros(np.shape(v), dtype=np.result_type(v, float)))
                                for j in nums]
                        part = "" if unit_value == 1.0 else " (imaginary part)"
                        trials.append((f"{path}{list(idx) if idx else ''}{part}", dirs))
    else:
        for t in range(directions):
            dirs = [_map(args[i], lambda p, v: random_like(rng, v)) for i in nums]
            trials.append((f"random direction {t}", dirs))
    return trials


def _shifted(args, nums, dirs, step):
    """args with each differentiated argument moved by step along its direction."""
    new = list(args)
    for i, d in zip(nums, dirs):
        leaves = dict(_leaves(d))
        new[i] = _map(args[i], lambda path, v: _shift(v, leaves[path], step))
    return new


def _step(args, nums, eps):
    """The finite-difference step: eps times the largest magnitude among the differentiated values (at least 1)."""
    scale = max(1.0, max((float(np.max(np.abs(leaf))) for i in nums for _, leaf in _leaves(args[i])
                          if np.size(leaf)), default=1.0))        # (an empty array moves nowhere)
    return eps * scale


def _check_rev(f, args, argnums, *, directions, eps, rtol, atol, seed, kwargs, full, static_argnums,
               static_argnames, what=None, check_name=None):
    """The reverse-mode check (order 1): <adsrc.grad(f), v> against central differences of f."""
    kwargs = kwargs or {}
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    grads = api.grad(f, argnums=argnums, static_argnums=static_argnums,
                     static_argnames=static_argnames)(*args, **kwargs)
    gtuple = (grads,) if single else tuple(grads)
    for i, g in zip(nums, gtuple):
        for path, leaf in _leaves(g, f"argument {i}"):
            if not np.all(np.isfinite(leaf)):
                raise GradientMismatch(f"adsrc's gradient for {path} is not finite: {_nonfinite(leaf)}")

    def value(shifted):
        out = f(*shifted, **kwargs)
        out = np.asarray(out, dtype=float)
        if out.shape != ():
            raise GradientMismatch(f"f must return a scalar, got shape {out.shape}")
        return float(out)

    worst = (0.0, None)
    for label, dirs in _trials(args, nums, directions, seed, full):
        h = _step(args, nums, eps)
        fd = (value(_shifted(args, nums, dirs, h)) - value(_shifted(args, nums, dirs, -h))) / (2 * h)
        ad = sum(_dot(g, d) for g, d in zip(gtuple, dirs))
        if not np.isfinite(fd):
            raise GradientMismatch(f"finite differences are not finite along {label}: {fd}")
        err = abs(ad - fd)
        tol = atol + rtol * abs(fd)
        if err - tol > worst[0] or (worst[1] is None and err > tol):
            worst = (err - tol, (label, ad, fd, err, tol))
    if worst[1] is not None:
        label, ad, fd, err, tol = worst[1]
        what = what or f"gradient of {getattr(f, '__qualname__', f)}"
        check_name = check_name or getattr(f, "__name__", "f")
        raise GradientMismatch(f"Derivative (VJP) check of {check_name} failed: {what} disagrees with finite differences "
                               f"along {label}: adsrc {ad!r}, finite differences {fd!r} (error {err:.3g} > "
                               f"tolerance {tol:.3g}, rtol={rtol}, atol={atol})")
    return grads


def _nonfinite(leaf):
    """Where a gradient is NaN or inf, without printing the array."""
    arr = np.asarray(leaf)
    if arr.ndim == 0:
        return repr(arr.item())
    bad = ~np.isfinite(arr)
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    return (f"{int(bad.sum())} of its {arr.size} entries are NaN or inf (the first at index {list(first)}, "
            f"{arr[first].item()!r}); {describe(arr)}")


def _shift(v, d, step):
    if isinstance(v, np.ndarray):
        return v + step * np.asarray(d, dtype=v.dtype)
    return type(v)(v + step * (complex(d) if isinstance(v, (complex, np.complexfloating)) else float(d)))


_ = runtime
