"""Forward-mode forms of the rules (differentiation/tangent_ops.py says how each form is used).

Elementwise rules need nothing here: their reverse template, read with `g`
as the tangent, is their forward template. This table names the other
rules by the form of their tangent:

* LINEAR: linear in all differentiable arguments together (the call on tangents);
* MULTILINEAR: linear in each argument (`x_dot @ y + x @ y_dot`);
* TEMPLATES: a forward template per argument, `g` being that argument's tangent.

A rule in none of them gets J t from its reverse template (one pullback per
output element): exact, but slow for large outputs, so common rules belong here.
Rules are named as `python -m adsrc rules` lists them.
"""

from . import METHODS, ATTRIBUTES, FUNCTIONS, OPERATORS, template as parse

LINEAR = """
np.sum np.mean np.nansum np.reshape np.ravel np.transpose np.swapaxes np.moveaxis np.rollaxis np.squeeze
np.expand_dims np.atleast_1d np.atleast_2d np.atleast_3d np.broadcast_to np.broadcast_arrays
np.concatenate np.stack np.hstack np.vstack np.dstack np.column_stack np.append np.delete np.insert
np.split np.array_split np.hsplit np.vsplit np.dsplit np.unstack np.tile np.repeat np.resize
np.take np.take_along_axis np.compress np.extract np.diag np.diagflat np.diagonal np.trace np.tril np.triu
np.flip np.fliplr np.flipud np.roll np.rot90 np.diff np.cumsum np.cumulative_sum np.gradient
np.array np.asarray np.asanyarray np.copy np.matrix_transpose
np.linalg.trace np.linalg.diagonal np.linalg.matrix_transpose
np.fft.fft np.fft.ifft np.fft.fft2 np.fft.ifft2 np.fft.fftn np.fft.ifftn np.fft.rfft np.fft.irfft
np.fft.fftshift np.fft.ifftshift
.sum() .mean() .reshape() .ravel() .flatten() .transpose() .swapaxes() .squeeze() .take() .repeat()
.compress() .cumsum() .diagonal() .trace() .T .mT .real .imag
list tuple copy.copy copy.deepcopy zip(*...) iterating reversed sum stacking\\ scan\\ outputs
dict.values() list.extend list.insert del dict.setdefault .tolist() .get() .pop() .setdefault()
""".replace("\\ ", "\0").split()

MULTILINEAR = """
`@` np.dot np.matmul np.linalg.matmul np.inner np.outer np.linalg.outer np.tensordot np.linalg.tensordot
np.vdot np.vecdot np.linalg.vecdot np.matvec np.vecmat np.kron np.cross np.linalg.cross np.einsum
np.linalg.multi_dot np.convolve np.correlate np.trapezoid .dot()
scipy.signal.convolve scipy.signal.correlate scipy.integrate.trapezoid
""".split()

TEMPLATES = {
    "np.real": {"val": "np.real(g)"},
    "np.imag": {"val": "np.imag(g)"},
    "np.absolute": {"x": "abs_jvp(g, x, ans)"},
    "abs": {"x": "abs_jvp(g, x, ans)"},
    "np.fabs": {"x": "abs_jvp(g, x, ans)"},
    "np.angle": {"z": "angle_jvp(g, z, deg)"},
    "np.sign": {"x": "sign_jvp(g, x, ans)"},
    "einsum_of": {"operands": "einsum_of_jvp(g, subscripts, operands)"},
    "np.linalg.inv": {"a": "-(ans @ g @ ans)"},
    "np.linalg.solve": {"a": "-np.linalg.solve(a, g @ ans)", "b": "np.linalg.solve(a, g)"},
    "np.linalg.det": {"a": "det_jvp(g, a, ans)"},
    ".copy()": {"a": "copied(g)"},           # code may write into the copy: its tangent is not x's
    ".astype()": {"a": "copied(cast_cot(g, dtype))"},
}


# Rules on containers whose tangent needs the primal (an order, positions, keys): one template for
# all arguments, over the parameters and `t_<parameter>` (its tangent, zeros when it has none).
JOINT = {
    "dict.items()": "items_tangent(t_d)",
    "enumerate": "enumerate_tangent(t_seq)",
    "operator.getitem": "t_a[b]",
    "sorted": "sorted_tangent(iterable, t_iterable, key, reverse)",
    "sorted/seq": "sorted_by(t_seq, keys, reverse)",
    "dict": "dict_tangent(iterable, t_iterable)",
    "dict/x": "dict_tangent(x, t_x)",
    "type(...)": "made_like_tangent(x, value, t_value)",
    "dict.update": "dict_update_tangent(t_d, other, t_other)",
    "`|`": "or_tangent(x, y, t_x, t_y)",
    ".sort()": "sort_tangent(x, t_x, reverse, axis)",
    "list.remove": "remove_tangent(lst, t_lst, v)",
    "replace_obj": "replace_obj_tangent(m, old, t_m, t_new)",
    "replace_part": "replace_part_tangent(m, old, new, paths, t_m, t_new)",
    "replace_field": "field_tangent(t_obj, obj, name, value, t_value)",
    "field_tangent": "field_tangent(t_t_obj, obj, name, value, t_t_value)",
    "adsrc.ravel_pytree": "ravel_pytree_tangent(tree, t_tree)",
    "unravel": "unravel_tangent(unravel, t_flat)",
}


def form(rule):
    """'templates', 'linear', 'multilinear', 'elementwise' or None (J t from the reverse templates)."""
    if rule.jvp_joint is not None:
        return "joint"
    if rule.jvps:
        return "templates"
    if rule.jvp_form is not None:
        return rule.jvp_form
    return "elementwise" if rule.kind == "elementwise" else None


def reverse_as_forward(rule, pname, static):
    """An elementwise rule's reverse template read as its forward one (without a cotangent projection)."""
    t = rule.vjps[pname]
    forward = getattr(t, "forward", None)
    if forward is not None and not rule.real_only:
        return parse(forward)
    return rule.template(pname, static)


def template(rule, pname, static):
    t = rule.jvps[pname]
    return parse(t if isinstance(t, str) else t(**static))


def _rules_by_name():
    out = {}
    for table in (FUNCTIONS, METHODS, ATTRIBUTES, OPERATORS):
        for r in table.values():
            out.setdefault(r.name, []).append(r)
            if r.listing != r.name:
                out.setdefault(r.listing, []).append(r)
    return out


_installed = []


def install():
    """Mark the rules loaded so far with their forward forms (again after SciPy tables load)."""
    from . import _scipy_loaded
    state = (len(FUNCTIONS), len(_scipy_loaded))
    if _installed and _installed[-1] == state:
        return
    _installed.append(state)
    from . import jvp_more
    by_name = _rules_by_name()
    for names, kind in ((LINEAR + jvp_more.LINEAR, "linear"), (MULTILINEAR + jvp_more.MULTILINEAR, "multilinear")):
        for n in names:
            for r in by_name.get(n.replace("\0", " "), ()):
                r.jvp_form = kind
    for n, text in JOINT.items():
        name, _, first = n.partition("/")
        for r in by_name.get(name, ()):
            if not first or r.param_names[0] == first:
                if first or r.param_names[0] not in [k.partition("/")[2] for k in JOINT if k.startswith(name + "/")]:
                    r.jvp_joint = text
    for n, ts in {**TEMPLATES, **jvp_more.TEMPLATES}.items():
        for r in by_name.get(n, ()):
            r.jvps = ts
