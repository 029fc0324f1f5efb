"""Code that checkpointing runs a second time must compute the same values again.

A checkpointed loop re-runs its steps in the backward pass, and a checkpointed
call re-runs its function. A random draw there (`rng.normal()`,
`np.random.rand()`), or a call adsrc cannot see into, would give other values
the second time, and the gradient would silently be that of another
computation. Such code is refused, naming the line and the call, with what to
do instead. Functions called from it are read too (their Python code, for
names that draw random numbers).
"""

import types

from ..ir import nodes as ir
from ..ir.walk import walk

# names whose call draws a random number (NumPy's legacy functions and Generator methods, `random`)
_DRAWS = frozenset({
    "rand", "randn", "randint", "random_sample", "random_integers", "ranf", "normal", "uniform",
    "standard_normal", "integers", "choice", "permutation", "shuffle", "permuted", "binomial", "poisson",
    "exponential", "multivariate_normal", "lognormal", "dirichlet", "multinomial", "geometric", "chisquare",
    "gauss", "randrange", "getrandbits",
})
# ... and names that draw only when read from a random module (`np.random.gamma`, not `scipy.special.gamma`)
_DRAWS_FROM_RANDOM = frozenset({"gamma", "beta", "logistic", "laplace", "bytes", "sample", "random"})


def _rule_draws(rule):
    fn = getattr(rule, "fn", None)
    module = getattr(fn, "__module__", "") or ""
    return "random" in module.split(".") or rule.name.startswith(("np.random.", "random."))


def _code_draws(code, seen):
    if code in seen:
        return False
    seen.add(code)
    names = set(code.co_names)
    if _DRAWS & names or "random" in names and _DRAWS_FROM_RANDOM & (names - {"random"}):
        return True
    return any(_code_draws(c, seen) for c in code.co_consts if isinstance(c, types.CodeType))


def _callee_draws(fn):
    fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    return code is not None and _code_draws(code, set())


def first_rerun_hazard(body):
    """The first statement of body whose value may differ when it runs again, or None."""
    for s in walk(body):
        if isinstance(s, ir.Opaque) and not s.function and not s.fresh:
            return s
        if isinstance(s, ir.Apply) and _rule_draws(s.rule):
            return s
        if isinstance(s, ir.CallUser) and _callee_draws(s.callee):
            return s
    return None


def refuse_rerun_hazards(adj, body, what):
    """Raise the error naming the first statement of body that may compute other values when run again."""
    s = first_rerun_hazard(body)
    if s is None:
        return
    if isinstance(s, ir.Opaque):
        call = s.describe
    elif isinstance(s, ir.Apply):
        call = f"`{s.rule.name}`"
    else:
        call = f"`{getattr(s.callee, '__qualname__', 'a function')}`"
    raise adj.error(s, f"{what} runs this code again in the backward pass, but {call} may give other values the "
                       "second time (a random draw, or a call adsrc cannot see into), which would make the "
                       "gradient wrong.",
                    "Draw random numbers before the loop or outside the checkpointed function and pass them in "
                    "(for example `noise = rng.normal(size=T)`, then `noise[t]`), or do not checkpoint this "
                    "code.")



def refuse_drawing_callee(adj, s):
    """A checkpointed call runs its function again: refuse one whose code draws random numbers."""
    if _callee_draws(s.callee):
        raise adj.error(s, f"adsrc.checkpoint runs `{getattr(s.callee, '__qualname__', 'the function')}` again in "
                           "the backward pass, but it draws random numbers, which would give other values the "
                           "second time and make the gradient wrong.",
                        "Draw the random numbers outside the checkpointed function and pass them in.")
