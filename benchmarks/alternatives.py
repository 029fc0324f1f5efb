"""The same workloads in autograd, JAX (with and without jit) and PyTorch, when they are installed.

None of these is a dependency of adsrc: a library that is not installed is
left out of the table. autograd and JAX without jit run the workload's own
Python source with their NumPy (the source is executed again with `np`
bound to autograd.numpy or jax.numpy), so the code is literally the same.
JAX with jit cannot run a Python `if` on a traced value or a loop whose
length is a traced value; those workloads get a `lax.cond` version or one
compilation per length, which is how JAX users write them. PyTorch gets
hand-translated functions.
"""

import inspect
import os

import numpy as np

# OpenMP threads (PyTorch's) that spin after their work steal this 2-core machine from whatever is timed
# next; let them sleep instead so that every implementation is timed on an idle machine.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

AUTOGRAD, JAX, JAX_JIT, TORCH = "autograd", "jax (no jit)", "jax.jit", "pytorch"


def _try_import(name):
    try:
        return __import__(name)
    except Exception:
        return None


autograd = _try_import("autograd")
jax = _try_import("jax")
if jax is not None:
    jax.config.update("jax_enable_x64", True)      # float64, like the NumPy reference
    import jax.numpy as jnp
torch = _try_import("torch")
if torch is not None:
    torch.set_num_threads(2)


def installed():
    return {AUTOGRAD: autograd is not None, JAX: jax is not None, JAX_JIT: jax is not None,
            TORCH: torch is not None}


def rebind(fn, np_module, extra=None):
    """fn's own source, executed again with `np` bound to another NumPy (autograd's, JAX's)."""
    namespace = dict(fn.__globals__)
    namespace["np"] = np_module
    namespace.update(extra or {})
    exec(compile(inspect.getsource(fn), inspect.getsourcefile(fn), "exec"), namespace)
    return namespace[fn.__name__]


def to_jax(tree):
    return jax.tree_util.tree_map(lambda a: jnp.asarray(a) if isinstance(a, np.ndarray) else a, tree)


def to_numpy(tree):
    if jax is not None and isinstance(tree, jax.Array):
        return np.asarray(tree)
    if torch is not None and isinstance(tree, torch.Tensor):
        return tree.detach().numpy()
    if isinstance(tree, dict):
        return {k: to_numpy(v) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        return type(tree)(to_numpy(v) for v in tree)
    return tree


def _block(out):
    if jax is not None:
        jax.block_until_ready(out)
    return out


def autograd_impl(fn, args, argnums):
    if autograd is None:
        return None
    import autograd.numpy as anp
    g = autograd.grad(rebind(fn, anp), argnums)
    return lambda: g(*args)


def jax_impls(fn, args, argnums, jit_fn=None, static_argnums=()):
    """{'jax (no jit)': ..., 'jax.jit': ...}; jit_fn replaces fn under jit when fn cannot be traced."""
    if jax is None:
        return {}
    jargs = to_jax(args)
    eager = jax.grad(rebind(fn, jnp), argnums)
    jitted = jax.jit(jax.grad(jit_fn or rebind(fn, jnp), argnums), static_argnums=static_argnums)
    return {JAX: lambda: _block(eager(*jargs)), JAX_JIT: lambda: _block(jitted(*jargs))}


def torch_impl(fn, args, argnums):
    """fn written with torch ops; the gradients of the tensors at argnums."""
    if torch is None:
        return None
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def leaf(a):
        if isinstance(a, dict):
            return {k: leaf(v) for k, v in a.items()}
        if isinstance(a, (np.ndarray, float)):
            return torch.tensor(a, dtype=torch.float64)
        return a

    tensors = [leaf(a) for a in args]          # converted once, outside the timing

    def fresh(t):
        return {k: v.detach().requires_grad_(True) for k, v in t.items()} if isinstance(t, dict) \
            else t.detach().requires_grad_(True)

    def run():
        targs = list(tensors)
        for i in nums:
            targs[i] = fresh(targs[i])
        fn(*targs).backward()
        out = [({k: v.grad for k, v in targs[i].items()} if isinstance(targs[i], dict) else targs[i].grad)
               for i in nums]
        return out[0] if isinstance(argnums, int) else tuple(out)

    return run
