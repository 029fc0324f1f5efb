"""Checkpointing (rematerialization): trading compute for the memory of the backward pass.

Two tools, both optional:

* `adsrc.checkpoint(f)` (alias `adsrc.remat`, JAX's names) marks a function
  whose intermediate values are not kept for the backward pass. A function adsrc
  differentiates that calls it saves only the call's arguments; the backward
  pass runs the callee's forward code again (its vjp unit) to get the values its
  pullback reads. Outside differentiation it simply calls f.

* `checkpoint_loops=` on `adsrc.grad`, `value_and_grad` and `vjp` chooses a
  policy for loops. With `"sqrt"`, a loop of T steps keeps its carried values
  every k = ceil(sqrt(T)) steps instead of a tape of every step; the backward
  pass runs each stretch of k steps again, from the last to the first, with an
  ordinary tape, and goes back through it. The tape then holds O(sqrt(T)) steps
  and the forward code runs twice. An integer k keeps the carried values every
  k steps. `while` loops (whose length is not known when they start) keep them
  every k steps with k doubling as the loop runs, so that about sqrt(T)
  checkpoints of about sqrt(T) steps each remain at the end.

This module holds the public objects and the helpers the generated code calls
(registered in runtime.HELPERS); the lowering of a checkpointed call is in
lowering/checkpoint.py, the generated code in differentiation/checkpoint.py.
"""

import functools
import inspect
import math
import numbers

from . import runtime

# JAX's policy names that this module understands (adsrc keeps nothing, or everything)
_SAVE_NOTHING = (None, "nothing_saveable")
_SAVE_EVERYTHING = ("everything_saveable",)


class Checkpointed:
    """A function whose intermediate values a differentiated caller computes again instead of keeping.

    static_argnums: positions of arguments that are not differentiated (they may still vary
    from call to call: adsrc decides control flow when the code runs).
    """

    def __init__(self, fun, static_argnums=(), policy=None):
        if not callable(fun):
            raise TypeError(f"adsrc.checkpoint expects a function, got {type(fun).__name__}")
        if policy not in _SAVE_NOTHING + _SAVE_EVERYTHING:
            raise ValueError(f"adsrc.checkpoint: policy={policy!r} is not supported; adsrc understands None "
                             "(save only the arguments), 'nothing_saveable' (the same) and 'everything_saveable' "
                             "(an ordinary call)")
        if isinstance(static_argnums, numbers.Integral):
            static_argnums = (static_argnums,)
        nums = tuple(static_argnums)
        if not all(isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in nums):
            raise TypeError(f"adsrc.checkpoint: static_argnums must be integers, got {static_argnums!r}")
        functools.update_wrapper(self, fun, updated=())   # __wrapped__: grad(checkpoint(f)) differentiates f
        self.fun = fun
        try:
            self.__signature__ = inspect.signature(fun)      # what callers see (call_changing binds by it)
        except (TypeError, ValueError):
            pass
        self.static_argnums = nums
        self.policy = policy

    @property
    def saves_nothing(self):
        return self.policy in _SAVE_NOTHING

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def __get__(self, obj, owner=None):
        # a checkpointed method: bound like a function
        return self if obj is None else functools.partial(self, obj)

    def __repr__(self):
        return f"<adsrc.checkpoint {getattr(self.fun, '__qualname__', self.fun)}>"


def checkpoint(fun=None, *, static_argnums=(), policy=None, prevent_cse=True):
    """Mark `fun` so that differentiating a caller recomputes its intermediates instead of keeping them.

    JAX's `jax.checkpoint`: usable as `@adsrc.checkpoint`, `@adsrc.checkpoint(static_argnums=(1,))` or
    `adsrc.checkpoint(f)`. Called outside differentiation it calls `fun`. In a function adsrc
    differentiates, a call `y = f(x)` saves only its arguments for the backward pass, which runs
    f's forward code again to get the values its own backward code reads. Use it on a loop's body
    (`h = step(h, x)`) so a step's intermediate values are not kept for every step.
    `prevent_cse` is accepted for JAX compatibility and has no effect.
    """
    if fun is None:
        return functools.partial(checkpoint, static_argnums=static_argnums, policy=policy)
    return Checkpointed(fun, static_argnums, policy)


remat = checkpoint


# -- the loop policy (checkpoint_loops=) --------------------------------------------------------------

LOOP_POLICIES = ("sqrt",)


def loop_policy(value):
    """The checkpoint_loops value, checked: None, "sqrt", or a stride (a positive integer)."""
    if value is None or value is False:
        return None
    if isinstance(value, str):
        if value in LOOP_POLICIES:
            return value
    elif isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 1:
        return int(value)
    raise ValueError(f"checkpoint_loops={value!r}: use None (a tape of every step), 'sqrt' (carried values kept "
                     "every ceil(sqrt(T)) steps, each stretch computed again backward) or a positive integer k "
                     "(kept every k steps)")


class LoopCheckpoints:
    """A loop's carried values at the start of some of its iterations (generated code's checkpoints).

    `save(carry)` is called at the start of every iteration; it keeps `carry` every
    `stride` iterations. Without a known length (a `while` loop), the stride doubles
    (dropping every other checkpoint) whenever more than `stride` checkpoints are kept,
    so at the end stride and number of checkpoints are both about sqrt(T).
    `segments()` gives `(start, stop, carry)` for each stretch, the last one first: the
    iterations start..stop-1 run from `carry`. It can be read any number of times (a vjp
    pullback may be called again).
    """

    __slots__ = ("stride", "count", "starts", "carries", "doubling")

    def __init__(self, stride, doubling):
        self.stride = max(1, int(stride))
        self.doubling = doubling
        self.count = 0
        self.starts = []
        self.carries = []

    def save(self, carry):
        i = self.count
        self.count = i + 1
        if i % self.stride:
            return
        self.starts.append(i)
        self.carries.append(carry)
        if self.doubling and len(self.starts) > self.stride:
            self.stride *= 2
            keep = [k for k, s in enumerate(self.starts) if s % self.stride == 0]
            self.starts = [self.starts[k] for k in keep]
            self.carries = [self.carries[k] for k in keep]

    def segments(self):
        stops = self.starts[1:] + [self.count]
        for k in range(len(self.starts) - 1, -1, -1):
            yield self.starts[k], stops[k], self.carries[k]

    def __repr__(self):
        return f"<{len(self.starts)} loop checkpoints every {self.stride} of {self.count} steps>"


@runtime.helper
def sqrt_checkpoints(length=None):
    """Checkpoints every ceil(sqrt(length)) steps; without a length, every k steps with k doubling."""
    if length is None:
        return LoopCheckpoints(1, doubling=True)
    return LoopCheckpoints(math.isqrt(max(length - 1, 0)) + 1, doubling=False)


@runtime.helper
def stride_checkpoints(stride):
    """Checkpoints every `stride` steps."""
    return LoopCheckpoints(stride, doubling=False)
