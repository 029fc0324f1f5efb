"""Forward templates for general rules beyond the core ones in jvp_rules.py (same format as its TEMPLATES:
rule name -> {parameter: template over `g`, that parameter's tangent}); their helpers live in
jvp_helpers.py (NumPy) and jvp_linalg.py (linear algebra, SciPy).

A template reads only parameters the rule's reverse templates read too (the lowering makes those
atoms). Rules that are not complex-ready (`real_only`) refuse complex arguments when the code runs,
in forward mode as in reverse mode.
"""

from . import jvp_helpers, jvp_linalg, numpy_more  # noqa: F401  (register the helpers)


def _real_only(name, text, *params):
    """The template, refusing complex arguments (as the reverse rule of a real_only rule does)."""
    if callable(text):
        return lambda **static: _real_only(name, text(**static), *params)
    return f"real_only({text}, {name!r}, {', '.join(params)})"


def _real_only_rule(name, templates):
    params = tuple(templates)
    return {p: _real_only(name, t, *params) for p, t in templates.items()}


_REDUCTIONS = {
    "prod_jvp(g, a, ans, axis, keepdims)": ("np.prod", ".prod()", "np.multiply.reduce"),
    "nanprod_jvp(g, a, ans, axis, keepdims)": ("np.nanprod",),
    "extremum_jvp(g, a, ans, axis, keepdims)": ("np.max", "np.min", "np.amax", "np.amin", "np.nanmax", "np.nanmin",
                                                ".max()", ".min()", "np.maximum.reduce", "np.minimum.reduce"),
    "ptp_jvp(g, a, ans, axis, keepdims)": ("np.ptp",),
    "var_jvp(g, a, ans, axis, ddof, keepdims, False)": ("np.var", ".var()"),
    "var_jvp(g, a, ans, axis, ddof, keepdims, True)": ("np.nanvar",),
    "std_jvp(g, a, ans, axis, ddof, keepdims, False)": ("np.std", ".std()"),
    "std_jvp(g, a, ans, axis, ddof, keepdims, True)": ("np.nanstd",),
    "nanmean_jvp(g, a, ans, axis, keepdims)": ("np.nanmean",),
    "median_jvp(g, a, ans, axis, keepdims)": ("np.median",),
}


def _svd(compute_uv=True, **_):
    return "svd_jvp(g, a, ans, full_matrices)" if compute_uv else "svdvals_jvp(g, a)"


def _scipy_eigh(eigvals_only=False, **_):
    uplo = "'L' if lower else 'U'"
    return f"eigvalsh_jvp(g, a, {uplo})" if eigvals_only else f"eigh_jvp(g, ans, {uplo})"


def _quantile(scale, k):
    return f"quantile_jvp(g, a, q, axis, keepdims, ans, {scale}, {k})"


def _cholesky(**static):
    """np.linalg.cholesky has `upper` from NumPy 2.0 on."""
    return "cholesky_jvp(g, ans, upper)" if "upper" in static else "cholesky_jvp(g, ans, False)"


TEMPLATES = {
    **{name: {"a": text} for text, names in _REDUCTIONS.items() for name in names},
    "np.average": {"a": "average_jvp(g, a, axis, weights, keepdims, ans, 0)",
                   "weights": "average_jvp(g, a, axis, weights, keepdims, ans, 1)"},
    "np.quantile": {"a": _quantile(1.0, 0), "q": _quantile(1.0, 1)},
    "np.percentile": {"a": _quantile(100.0, 0), "q": _quantile(100.0, 1)},
    # orderings and cumulative products
    "np.sort": {"a": "sort_jvp(g, a, axis)"},
    "np.partition": {"a": "partition_jvp(g, a, ans, axis)"},
    "np.unique": {"ar": "unique_jvp(g, ar, ans)"},
    "np.cumprod": {"a": "cumprod_jvp(g, a, ans, axis)"},
    ".cumprod()": {"a": "cumprod_jvp(g, a, ans, axis)"},
    "np.multiply.accumulate": {"a": "cumprod_jvp(g, a, ans, axis)"},
    "np.nancumprod": {"a": "nancumprod_jvp(g, a, ans, axis)"},
    "np.nancumsum": {"a": "nancumsum_jvp(g, a, axis)"},
    "np.cumulative_prod": {"x": "cumulative_prod_jvp(g, x, ans, axis, include_initial)"},
    # several outputs, constructors, conversions, draws
    "np.modf": {"x": "modf_jvp(g, ans)"},
    "np.divmod": {"x": "divmod_jvp(g, x, y, ans, 0)", "y": "divmod_jvp(g, x, y, ans, 1)"},
    "np.full": {"fill_value": "full_jvp(g, ans)"},
    "np.full_like": {"fill_value": "full_jvp(g, ans)"},
    ".fill()": {"v": "full_jvp(g, ans)"},
    "np.array": {"object": "array_jvp(g, dtype, ans)"},
    "np.asarray": {"a": "array_jvp(g, dtype, ans)"},
    "np.asanyarray": {"a": "array_jvp(g, dtype, ans)"},
    "np.arange": {"start": "arange_jvp(g, stop, ans, 0)", "step": "arange_jvp(g, stop, ans, 1)"},
    "np.random.normal": {"loc": "random_jvp(g, ans, loc, scale, 0, 'normal')",
                         "scale": "random_jvp(g, ans, loc, scale, 1, 'normal')"},
    "np.random.uniform": {"low": "random_jvp(g, ans, low, high, 0, 'uniform')",
                          "high": "random_jvp(g, ans, low, high, 1, 'uniform')"},
    "np.real_if_close": {"a": "real_if_close_cot(g, a, ans)"},       # Re t where the result dropped Im
    # the list of matrices is multilinear item by item (not in the list as a whole)
    "np.linalg.multi_dot": {"arrays": "multi_dot_jvp(g, arrays)"},
    "np.interp": {p: f"interp_jvp(g, x, xp, fp, left, right, ans, {k})"
                  for k, p in enumerate(("x", "xp", "fp", "left", "right"))},
    "np.polyval": {"p": "np.polyval(g, x)", "x": "polyval_vjp(g, p, x, 1)"},     # elementwise in x
    "np.pad": {"array": "pad_jvp(g, array, pad_width, mode, stat_length)",
               "constant_values": "pad_value_jvp(g, array, pad_width, ans)"},
    # np.linalg
    # the core forms of these miss cases: b a stack of vectors, a singular matrix, NaNs in nansum's input
    "np.linalg.solve": {"a": "solve_jvp(g, a, b, ans, 0)", "b": "solve_jvp(g, a, b, ans, 1)"},
    "np.linalg.det": {"a": "det_any_jvp(g, a, ans)"},
    "np.nansum": {"a": "nansum_jvp(g, a, axis, keepdims)"},
    "np.linalg.matrix_power": {"a": "matrix_power_jvp(g, a, n)"},
    "np.linalg.slogdet": {"a": "slogdet_jvp(g, a, ans)"},
    "np.linalg.eig": {"a": "eig_jvp(g, ans)"},
    "np.linalg.eigvals": {"a": "eigvals_jvp(g, a)"},
    "np.linalg.pinv": _real_only_rule("np.linalg.pinv", {"a": "pinv_jvp(g, a, ans)"}),
    "np.linalg.cholesky": {"a": _cholesky},
    "np.linalg.eigh": {"a": "eigh_jvp(g, ans, UPLO)"},
    "np.linalg.eigvalsh": {"a": "eigvalsh_jvp(g, a, UPLO)"},
    "np.linalg.qr": _real_only_rule("np.linalg.qr", {"a": "qr_jvp(g, ans)"}),
    "np.linalg.svd": {"a": _svd},
    "np.linalg.svdvals": {"x": "svdvals_jvp(g, x)"},
    "np.linalg.lstsq": _real_only_rule("np.linalg.lstsq", {"a": "lstsq_jvp(g, a, b, ans, 0)",
                                                           "b": "lstsq_jvp(g, a, b, ans, 1)"}),
    "np.linalg.norm": {"x": "norm_jvp(g, x, ans, ord, axis, keepdims)"},
    "np.linalg.vector_norm": {"x": "vector_norm_jvp(g, x, ans, ord, axis, keepdims)"},
    "np.linalg.matrix_norm": {"x": "matrix_norm_jvp(g, x, ans, ord, keepdims)"},
    # scipy.linalg
    "scipy.linalg.cholesky": _real_only_rule("scipy.linalg.cholesky", {"a": "cholesky_jvp(g, ans, not lower)"}),
    "scipy.linalg.cho_factor": _real_only_rule("scipy.linalg.cho_factor", {"a": "cho_factor_jvp(g, ans)"}),
    "scipy.linalg.cho_solve": _real_only_rule("scipy.linalg.cho_solve", {
        "c_and_lower": "cho_solve_jvp(g, c_and_lower, b, ans, 0)", "b": "cho_solve_jvp(g, c_and_lower, b, ans, 1)"}),
    "scipy.linalg.lu_factor": _real_only_rule("scipy.linalg.lu_factor", {"a": "lu_factor_jvp(g, ans)"}),
    "scipy.linalg.lu_solve": _real_only_rule("scipy.linalg.lu_solve", {
        "lu_and_piv": "lu_solve_jvp(g, lu_and_piv, b, ans, trans, 0)",
        "b": "lu_solve_jvp(g, lu_and_piv, b, ans, trans, 1)"}),
    "scipy.linalg.solve_triangular": _real_only_rule("scipy.linalg.solve_triangular", {
        "a": "solve_triangular_jvp(g, a, b, ans, trans, lower, unit_diagonal, 0)",
        "b": "solve_triangular_jvp(g, a, b, ans, trans, lower, unit_diagonal, 1)"}),
    "scipy.linalg.solve": _real_only_rule("scipy.linalg.solve", {
        "a": "scipy_solve_jvp(g, a, b, ans, assume_a, lower, transposed, 0)",
        "b": "scipy_solve_jvp(g, a, b, ans, assume_a, lower, transposed, 1)"}),
    "scipy.linalg.inv": _real_only_rule("scipy.linalg.inv", {"a": "-(ans @ g @ ans)"}),
    "scipy.linalg.det": _real_only_rule("scipy.linalg.det", {"a": "det_any_jvp(g, a, ans)"}),
    "scipy.linalg.expm": {"A": "expm_jvp(g, A)"},
    "scipy.linalg.sqrtm": _real_only_rule("scipy.linalg.sqrtm", {"A": "sqrtm_jvp(g, ans)"}),
    "scipy.linalg.solve_sylvester": {"a": "solve_sylvester_jvp(g, a, b, ans, 0)",        # complex-ready
                                     "b": "solve_sylvester_jvp(g, a, b, ans, 1)",
                                     "q": "solve_sylvester_jvp(g, a, b, ans, 2)"},
    "scipy.linalg.solve_banded": _real_only_rule("scipy.linalg.solve_banded", {
        "ab": "solve_banded_jvp(g, l_and_u, ab, ans, 1)", "b": "solve_banded_jvp(g, l_and_u, ab, ans, 2)"}),
    "scipy.linalg.svd": _real_only_rule("scipy.linalg.svd", {"a": _svd}),
    "scipy.linalg.svdvals": _real_only_rule("scipy.linalg.svdvals", {"a": "svdvals_jvp(g, a)"}),
    "scipy.linalg.eigh": _real_only_rule("scipy.linalg.eigh", {"a": _scipy_eigh}),
    "scipy.linalg.eigvalsh": _real_only_rule("scipy.linalg.eigvalsh", {"a": "eigvalsh_jvp(g, a, 'L' if lower else 'U')"}),
    # scipy.special and scipy.stats
    "scipy.special.logsumexp": _real_only_rule("scipy.special.logsumexp", {
        "a": "logsumexp_jvp(g, a, b, ans, axis, keepdims, 0)", "b": "logsumexp_jvp(g, a, b, ans, axis, keepdims, 1)"}),
    "scipy.special.softmax": _real_only_rule("scipy.special.softmax", {"x": "softmax_jvp(g, ans, axis)"}),
    "scipy.special.log_softmax": _real_only_rule("scipy.special.log_softmax", {"x": "log_softmax_jvp(g, ans, axis)"}),
    **{f"scipy.stats.dirichlet.{m}": _real_only_rule(f"scipy.stats.dirichlet.{m}", {
        "x": f"dirichlet_jvp(g, x, alpha, ans, {m!r}, 0)", "alpha": f"dirichlet_jvp(g, x, alpha, ans, {m!r}, 1)"})
       for m in ("logpdf", "pdf")},
    **{f"scipy.stats.multivariate_normal.{m}": _real_only_rule(f"scipy.stats.multivariate_normal.{m}", {
        p: f"mvn_jvp(g, x, mean, cov, ans, {m!r}, {k})" for k, p in enumerate(("x", "mean", "cov"))})
       for m in ("logpdf", "pdf")},
}



def _index_concat(which, k):
    def template(**static):
        given = ", ".join(o for o in numpy_more._ITEMS if static[o] is not None)
        return f"index_concat_jvp(g, {which!r}, ({given},), {k})"
    return template


# np.r_[...] / np.c_[...] are rules of subscripts, outside the tables jvp_rules.install reads: their
# forward templates are set here
for _, _rule in numpy_more.SUBSCRIPTS.values():
    _which = _rule.name[3:5]
    _rule.jvps = {o: _index_concat(_which, k) for k, o in enumerate(numpy_more._ITEMS)}

# linear in all differentiable arguments together: the call itself on their tangents
LINEAR = ["np.add.reduce", "np.add.accumulate", "np.linspace", "np.bincount", "np.select", "np.meshgrid", "view_assign",
          "ufunc.at\0(on\0a\0copy)"]
MULTILINEAR = []
