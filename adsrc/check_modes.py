"""check_grads' forward mode and higher orders (modes=("fwd", "rev"), order=2 or more), as in JAX and autograd.

    fwd, order 1    adsrc.jvp(f, args, v) against (f(x + h v) - f(x - h v)) / 2h, leaf by leaf
    rev, order 2    the reverse check of x -> <adsrc.grad(f)(x), u>: adsrc differentiates the
                    generated gradient (reverse over reverse)
    fwd, order 2    the forward check of adsrc.grad(f): adsrc.jvp of the generated gradient
                    (forward over reverse), against differences of adsrc's gradient

The order-2 checks rest on the order-1 checks (the differences of the
gradient are trusted because the gradient was checked first). Order n > 2 checks
x -> <adsrc.grad(f)(x), u> to order n - 1, as autograd's check_grads does.
"""

import copy
import linecache

import numpy as np

from . import api
from .checks import (GradientMismatch, _check_rev, _dot, _leaves, _map, _nonfinite, _shifted, _step, _trials,
                     random_like)
from .custom import custom_vjp
from .forward_api import jvp

MODES = ("fwd", "rev")


def parse_modes(modes, order):
    """The modes as a tuple, checked (a single string is one mode); order is a positive integer."""
    if isinstance(modes, str):
        modes = (modes,)
    modes = tuple(modes)
    if not modes or any(m not in MODES for m in modes):
        raise ValueError(f"check_grads: modes must be a non-empty sequence of 'fwd' and 'rev', got {modes!r}")
    if not isinstance(order, (int, np.integer)) or isinstance(order, bool) or order < 1:
        raise ValueError(f"check_grads: order must be a positive integer (1, 2, ...), got {order!r}")
    return modes


def check_modes(f, scalar_f, args, argnums, modes, order, options):
    """The checks other than reverse mode at order 1 (which check_grads runs itself); scalar_f is f, or
    x -> <f(x), w> when f does not return a real number (as_scalar, which holds the keyword arguments fixed
    itself)."""
    name = getattr(f, "__qualname__", repr(f))
    if "fwd" in modes:
        check_fwd(f, args, argnums, what=f"jvp of {name}", **options)
    if order < 2:
        return
    if scalar_f is not f:
        options = dict(options, kwargs=None)
    grad_f = api.grad(scalar_f, argnums=argnums, static_argnums=options["static_argnums"],
                      static_argnames=options["static_argnames"])
    u = _direction(args, argnums, options["seed"] + 1)
    paired = (_paired_leafwise(grad_f, u) if order > 2 else None) or _paired(grad_f, u)
    if "rev" in modes:
        _check_rev(paired, args, argnums,
                   what=f"second derivative (reverse over reverse) of {name}: the gradient of "
                        f"x -> <adsrc.grad({name})(x), u>", check_name=f"vjp_{name}", **options)
    if "fwd" in modes:
        check_fwd(grad_f, args, argnums, what=f"second derivative (forward over reverse) of {name}: "
                                              f"jvp of adsrc.grad({name})", **options)
    if order > 2:
        # autograd's recursion: the derivatives of x -> <adsrc.grad(f)(x), u> to one order less (its own
        # first derivative, checked above in reverse mode, is f's second)
        check_modes(paired, paired, args, argnums, modes, order - 1, dict(options, kwargs=None))


def _direction(args, argnums, seed):
    """A random direction with the structure of the differentiated arguments (as adsrc.grad returns them)."""
    rng = np.random.default_rng(seed)
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    dirs = [_map(args[i], lambda p, v: random_like(rng, v)) for i in nums]
    return dirs[0] if isinstance(argnums, int) else tuple(dirs)


def _pair_fwd(grad, u):
    return _dot(grad, u), (grad, u)


def _pair_bwd(res, c):
    grad, u = res
    directions = dict(_leaves(u))
    # the cotangent of Re(sum(grad * u)) for grad: c * u, for real and complex leaves alike
    return _map(grad, lambda path, v: c * np.asarray(directions[path], dtype=np.result_type(v, float))
                if np.ndim(v) else c * directions[path]), None


@custom_vjp
def _pair(grad, u):
    """<grad, u> over the float leaves of a pytree; linear in grad (its rule: the cotangent c * u)."""
    return _dot(grad, u)


_pair.defvjp(_pair_fwd, _pair_bwd)


_PAIRED = "def paired_with_direction(*args, **kwargs):\n    return pair(grad_f(*args, **kwargs), u)\n"


def _paired(grad_f, u, label="x -> <adsrc.grad(f)(x), u>"):
    """x -> <grad_f(x), u>: a scalar function whose adsrc gradient differentiates grad_f's generated code.

    adsrc transforms user code, not its own modules, so this small function
    is compiled from source of its own (shown in tracebacks through linecache).
    """
    filename = f"<adsrc check_grads: {label}>"
    linecache.cache[filename] = (len(_PAIRED), None, _PAIRED.splitlines(True), filename)
    namespace = {"pair": _pair, "grad_f": grad_f, "u": u}
    exec(compile(_PAIRED, filename, "exec"), namespace)
    return namespace["paired_with_direction"]


def _paired_leafwise(grad_f, u):
    """x -> <grad_f(x), u> written out leaf by leaf in plain NumPy (as as_scalar pairs an output), which adsrc
    differentiates to any order (_pair's custom rule it differentiates once); None for a pytree whose children
    have no names."""
    leaves = _leaves(u, "grad")
    if any("<" in path for path, _ in leaves):
        return None
    terms = " + ".join(f"np.real(np.sum({path} * u{i}))" for i, (path, _) in enumerate(leaves)) or "0.0"
    text = f"def paired_with_direction(*args, **kwargs):\n    grad = grad_f(*args, **kwargs)\n    return {terms}\n"
    filename = "<adsrc check_grads: x -> <adsrc.grad(f)(x), u>, leaf by leaf>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"np": np, "grad_f": grad_f, **{f"u{i}": v for i, (_, v) in enumerate(leaves)}}
    exec(compile(text, filename, "exec"), namespace)
    return namespace["paired_with_direction"]


def with_keywords(f, kwargs, n):
    """`def call_with_keywords(a0, ..., a<n-1>): return f(a0, ..., k=_k, ...)`: f with the keyword arguments held
    fixed, written out (adsrc follows keywords written in a call to any function, a rule's or a gradient's)."""
    params = ", ".join(f"a{i}" for i in range(n))
    keywords = ", ".join(f"{k}=_kw_{k}" for k in kwargs)
    text = f"def call_with_keywords({params}):\n    return f({params}{', ' if params else ''}{keywords})\n"
    filename = "<adsrc check_grads: f with its keyword arguments>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"f": f, **{f"_kw_{k}": v for k, v in kwargs.items()}}
    exec(compile(text, filename, "exec"), namespace)
    fn = namespace["call_with_keywords"]
    fn.__qualname__ = getattr(f, "__qualname__", "f")
    return fn


def as_scalar(f, args, kwargs, seed):
    """f when it returns a real number, else x -> <f(x), w> for a random w of its output's structure (the
    reverse-mode check of any output, as autograd checks a vector-Jacobian product); None for an output with
    no float or complex leaf."""
    try:
        copied = copy.deepcopy(args)      # f may change its arguments in place: the caller's stay as they are
    except Exception:
        copied = args
    out = f(*copied, **(kwargs or {}))
    if isinstance(out, (float, int, np.floating, np.integer)) and not isinstance(out, bool) or \
            isinstance(out, np.ndarray) and out.shape == () and out.dtype.kind in "fiu":
        return f
    if kwargs:
        f = with_keywords(f, kwargs, len(args))     # held fixed: the pairing takes the arguments by position
    if not _leaves(out):
        return None
    rng = np.random.default_rng(seed + 7)
    leaves = [(path, random_like(rng, v)) for path, v in _leaves(out, "out")]
    if any("<" in path for path, _ in leaves):       # a pytree's child without a name: paired by _pair
        paired = _paired(f, _map(out, lambda p, v: random_like(rng, v)), "x -> <f(x), w>")
    else:
        # written out leaf by leaf in plain NumPy, which adsrc differentiates to any order
        terms = " + ".join(f"np.real(np.sum({path} * w{i}))" for i, (path, _) in enumerate(leaves))
        text = f"def paired_with_output(*args, **kwargs):\n    out = f(*args, **kwargs)\n    return {terms}\n"
        filename = "<adsrc check_grads: x -> <f(x), w>>"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        namespace = {"np": np, "f": f, **{f"w{i}": w for i, (_, w) in enumerate(leaves)}}
        exec(compile(text, filename, "exec"), namespace)
        paired = namespace["paired_with_output"]
    paired.__qualname__ = f"<{getattr(f, '__qualname__', 'f')}(x), w>"
    return paired


def check_fwd(f, args, argnums, *, directions, eps, rtol, atol, seed, kwargs, full, static_argnums,
              static_argnames, what):
    """adsrc.jvp(f) along each direction against central differences of f, leaf by leaf of the output."""
    kwargs = kwargs or {}
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    fun = with_keywords(f, kwargs, len(args)) if kwargs else f
    expected = f(*args, **kwargs)
    worst = (0.0, None)
    for t, (label, dirs) in enumerate(_trials(args, nums, directions, seed, full)):
        tangents = [None] * len(args)
        for i, d in zip(nums, dirs):
            tangents[i] = d
        out, out_dot = jvp(fun, tuple(args), tuple(tangents), static_argnums=static_argnums,
                           static_argnames=static_argnames)
        if t == 0:
            _same_output(out, expected, what, rtol, atol)
        h = _step(args, nums, eps)
        plus = dict(_leaves(f(*_shifted(args, nums, dirs, h), **kwargs), "output"))
        minus = dict(_leaves(f(*_shifted(args, nums, dirs, -h), **kwargs), "output"))
        tangent = dict(_leaves(out_dot, "output"))
        for path, leaf in _leaves(expected, "output"):
            if path not in tangent:
                raise GradientMismatch(f"{what}: the output tangent has no entry for {path} (along {label})")
            ad = np.asarray(tangent[path])
            if not np.all(np.isfinite(ad)):
                raise GradientMismatch(f"{what}: the output tangent of {path} is not finite along {label}: "
                                       f"{_nonfinite(ad)}")
            fd = (np.asarray(plus[path]) - np.asarray(minus[path])) / (2 * h)
            if not np.all(np.isfinite(fd)):
                raise GradientMismatch(f"{what}: finite differences of {path} are not finite along {label}")
            if ad.shape != fd.shape:
                raise GradientMismatch(f"{what}: the output tangent of {path} has shape {ad.shape}, the "
                                       f"output {fd.shape}")
            excess = np.abs(ad - fd) - (atol + rtol * np.abs(fd))
            if excess.size == 0:
                continue            # an empty output: nothing to compare
            k = tuple(int(j) for j in np.unravel_index(int(np.argmax(excess)), excess.shape)) if excess.ndim else ()
            if excess[k] > 0 and (worst[1] is None or excess[k] > worst[0]):
                worst = (float(excess[k]), (label, f"{path}{list(k) if k else ''}", ad[k].item(), fd[k].item()))
    if worst[1] is not None:
        label, where, ad, fd = worst[1]
        raise GradientMismatch(f"{what} disagrees with finite differences at {where} along {label}: adsrc "
                               f"{ad!r}, finite differences {fd!r} (error {abs(ad - fd):.3g}, over the tolerance "
                               f"by {worst[0]:.3g}; rtol={rtol}, atol={atol})")


def _same_output(out, expected, what, rtol, atol):
    """jvp's primal output equals f's own (same float leaves, to the check's tolerance)."""
    got = dict(_leaves(out, "output"))
    for path, leaf in _leaves(expected, "output"):
        if path not in got or not np.allclose(got[path], leaf, rtol=rtol, atol=atol, equal_nan=True):
            raise GradientMismatch(f"{what}: the output it computes for {path} differs from f's own "
                                   f"({got.get(path)!r} instead of {leaf!r})")
