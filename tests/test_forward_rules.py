"""Forward mode of every rule the rule tests exercise (issue 16, item 2).

Every case of tests/rule_cases.py, rule_cases_more.py and scipy_rule_cases.py
is run through adsrc.jvp along a random tangent and checked

* against central finite differences along that tangent (explicit rtol/atol,
  NaN and inf fail), and
* against reverse mode: the dot-product test <u, J v> computed as
  <u, jvp(v)> and as <vjp(u), v> for a random cotangent u.

The generated forward code may fall back to `jvp_from_vjp` (one pullback per
output element) only for outputs of one element: a test watches its calls
while the cases run, and another checks the rule tables for differentiable
rules with no forward form.
"""

import numpy as np
import pytest

import adsrc
from adsrc import rules, runtime, transform
from adsrc.rules import jvp_rules

from forward_cases import FORWARD_CASES
from rule_cases import CASES
from rule_cases_more import OTHER_CASES

try:
    from scipy_rule_cases import SCIPY_CASES
except ImportError:         # SciPy is optional (the `test` extra installs it)
    SCIPY_CASES = []

ALL_CASES = CASES + OTHER_CASES + SCIPY_CASES + FORWARD_CASES

# Cases that fail because of a bug outside the rule tables, each marked strict so the test fails once
# the bug is fixed. differentiation/tangent_ops.py (tan_Apply) takes an elementwise rule's reverse
# template as its forward form before looking at jvp_rules.TEMPLATES, so np.imag (and .imag, np.abs and
# np.angle of complex values) get the wrong tangent: jvp of np.imag(z) along t is -1j t instead of Im t.
_IMAG_BUG = "tangent_ops.tan_Apply: np.imag's reverse template used as its forward form"
KNOWN_BUGS = {}


def _params():
    out = []
    for c in ALL_CASES:
        marks = [pytest.mark.xfail(reason=KNOWN_BUGS[c.id], strict=True)] if c.id in KNOWN_BUGS else []
        out.append(pytest.param(c, id=c.id, marks=marks))
    return out

# Differentiable rules that keep J t from the reverse templates, and why: each has an output of one
# element, so the fallback costs one pullback.
FALLBACK_ALLOWED = {
    "max": "max(a, b) / max(iterable) of numbers: a scalar",
    "min": "min(a, b) / min(iterable) of numbers: a scalar",
    ".item()": "a Python scalar",
}


def _rebuild(x, items):
    """A tuple or list of x's type (named tuples too) holding items."""
    return type(x)(*items) if hasattr(x, "_fields") else type(x)(items)


def _random_like(x, rng):
    if isinstance(x, (tuple, list)):
        return _rebuild(x, [_random_like(v, rng) for v in x])
    if np.iscomplexobj(x):
        return _random_like(np.real(x), rng) + 1j * _random_like(np.real(x), rng)
    if np.ndim(x) == 0 and not isinstance(x, np.ndarray):
        return float(rng.standard_normal())
    return rng.standard_normal(np.shape(x))


def _leaves(x):
    if isinstance(x, (tuple, list)):
        return [leaf for v in x for leaf in _leaves(v)]
    return [x]


def _float_leaves(x):
    """The leaves that carry derivatives (floating or complex values)."""
    return [v for v in _leaves(x) if np.asarray(v).dtype.kind in "fc"]


def _pair(a, b):
    """Re sum(a * b) over matching structures (JAX's pairing of cotangents and tangents)."""
    return sum(float(np.real(np.sum(np.asarray(x) * np.asarray(y)))) for x, y in zip(_leaves(a), _leaves(b)))


def _step(args, tangents, h):
    return [a + h * t for a, t in zip(args, tangents)]


def _finite_difference(fn, args, tangents, h):
    plus, minus = fn(*_step(args, tangents, h)), fn(*_step(args, tangents, -h))
    return [(np.asarray(p) - np.asarray(m)) / (2.0 * h) for p, m in zip(_float_leaves(plus), _float_leaves(minus))]


_FALLBACKS = []


@pytest.fixture(autouse=True, scope="module")
def watch_fallback():
    """Record the size of each output J t is computed for by jvp_from_vjp (bound into generated code
    when it is compiled: the forward code these tests compile calls the recorder)."""
    original = runtime.HELPERS["jvp_from_vjp"]

    def recording(pullback, tangents, ans):
        _FALLBACKS.append(sum(int(np.size(o)) for o in (ans if isinstance(ans, tuple) else (ans,))))
        return original(pullback, tangents, ans)
    runtime.HELPERS["jvp_from_vjp"] = recording
    # Rules with variants (svd, scipy's eigh, logsumexp) are copied when a function is lowered, and the
    # copies made before forward mode first ran lack forward forms (see the last test): install the forms,
    # then forget the functions other tests lowered, so these cases are lowered with them.
    jvp_rules.install()
    transform.clear_caches()
    yield
    runtime.HELPERS["jvp_from_vjp"] = original


def _check(case, seed):
    rng = np.random.default_rng(seed)
    args = case.args
    tangents = tuple(_random_like(a, rng) for a in args)
    before = [np.array(a, copy=True) for a in args]
    del _FALLBACKS[:]
    out, out_dot = adsrc.jvp(case.fn, args, tangents)
    fallbacks = list(_FALLBACKS)
    for a, b in zip(args, before):
        assert np.array_equal(np.asarray(a), b, equal_nan=True), "an input was mutated"
    expected = case.fn(*args)
    for o, e in zip(_float_leaves(out), _float_leaves(expected)):
        np.testing.assert_allclose(o, e, rtol=1e-12, atol=1e-12, err_msg="jvp's primal output")
    assert len(_leaves(out_dot)) == len(_leaves(expected)), "the output tangent does not have the output's structure"
    dots = [d for d, o in zip(_leaves(out_dot), _leaves(expected)) if np.asarray(o).dtype.kind in "fc"]
    outs = _float_leaves(expected)
    for d, o in zip(dots, outs):
        assert np.shape(d) == np.shape(o), f"a tangent of shape {np.shape(d)} for an output of shape {np.shape(o)}"
        assert np.all(np.isfinite(d)), f"a tangent is not finite: {d}"
    # (a) central differences along the tangent
    fd = _finite_difference(case.fn, args, tangents, 1e-6)
    scale = max(1.0, max(float(np.max(np.abs(f), initial=0.0)) for f in fd))
    for d, f in zip(dots, fd):
        np.testing.assert_allclose(d, f, rtol=max(case.rtol, 1e-5), atol=max(case.atol, 1e-6) * scale,
                                   err_msg="J t disagrees with central differences")
    # (b) the dot-product test <u, J t> = <J^T u, t>
    u = [_random_like(o, rng) for o in outs]
    _, pullback = adsrc.vjp(case.fn, *args)
    cot = pullback(_structured(expected, u))
    cot = cot if len(args) > 1 else (cot,)
    lhs, rhs = _pair(u, dots), _pair(cot, tangents)
    assert abs(lhs - rhs) <= 1e-8 * (1.0 + abs(lhs) + abs(rhs)), f"<u, J t> = {lhs} but <J^T u, t> = {rhs}"
    return fallbacks


def _structured(like, flat):
    """Cotangents of `like`'s structure from the flat list of its float leaves' cotangents."""
    it = iter(flat)

    def build(x):
        if isinstance(x, (tuple, list)):
            return _rebuild(x, [build(v) for v in x])
        if np.asarray(x).dtype.kind in "fc":
            return next(it)
        return np.zeros(np.shape(x)) if np.ndim(x) else 0.0
    return build(like)


@pytest.mark.parametrize("case", _params())
def test_rule_jvp_matches_finite_differences_and_vjp(case):
    fallbacks = _check(case, abs(hash(case.id)) % 2 ** 32)
    big = [n for n in fallbacks if n > 1]
    assert not big, (f"J t computed by one pullback per output element (jvp_from_vjp) for outputs of sizes {big}: "
                     f"give {case.rules} a forward form (adsrc/rules/jvp_more.py)")


def _user_rule(rule):
    """A rule added with adsrc.defvjp: its templates call functions from outside adsrc."""
    for text in dict.values(rule.vjps):
        if isinstance(text, str):
            for name in rules.template(text.replace("{key}", "None")).names:
                fn = runtime.HELPERS.get(name)
                if callable(fn) and not (getattr(fn, "__module__", None) or "adsrc").startswith("adsrc"):
                    return True
    return False


def _all_rules():
    """adsrc's differentiable rules by listed name (not the rules other tests add with adsrc.defvjp)."""
    rules.load_scipy_tables(all_tables=True)
    jvp_rules.install()
    out = {}
    for r in [r for t in (rules.FUNCTIONS, rules.METHODS, rules.ATTRIBUTES, rules.OPERATORS) for r in t.values()]:
        if not r.nondiff and dict.keys(r.vjps) and not _user_rule(r):
            out.setdefault(r.listing, []).append(r)
    return out


def test_only_scalar_rules_fall_back_to_pullbacks():
    missing = sorted(name for name, rs in _all_rules().items()
                     if any(jvp_rules.form(r) is None for r in rs) and name not in FALLBACK_ALLOWED)
    assert not missing, f"rules with array outputs whose J t takes one pullback per element: {missing}"


def test_fallback_allow_list_is_current():
    table = _all_rules()
    stale = sorted(n for n in FALLBACK_ALLOWED if n not in table or all(jvp_rules.form(r) for r in table[n]))
    assert not stale, f"allowed to fall back, but no such rule or it has a forward form: {stale}"


def test_rules_with_variants_have_forward_forms_in_a_fresh_process(tmp_path):
    import os
    import subprocess
    import sys
    code = ("import numpy as np, adsrc\n"
            "def f(a):\n"
            "    return np.linalg.svd(a, compute_uv=False)\n"
            "src = adsrc.jvp.source(f, (np.eye(3),), (np.eye(3),))\n"
            "assert 'jvp_from_vjp' not in src, src\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    script = tmp_path / "svd_values.py"      # a file: adsrc reads the function's source
    script.write_text(code)
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert "Error" not in result.stderr.replace("AssertionError", ""), result.stderr
    assert result.returncode == 0, result.stderr
