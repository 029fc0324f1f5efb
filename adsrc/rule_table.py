"""A listing of the callables adsrc has derivative rules for (python -m adsrc rules)."""

from . import rules


def entries():
    """(group, name, kind) for every rule: differentiable first, then constants."""
    out = []
    for fn, rule in rules.FUNCTIONS.items():
        group = "constant" if rule.nondiff else rule.kind
        out.append((group, rule.name, "function"))
    for name, rule in rules.METHODS.items():
        out.append(("constant" if rule.nondiff else rule.kind, f"ndarray.{name}()", "method"))
    for name, rule in rules.ATTRIBUTES.items():
        out.append((rule.kind, f"ndarray.{name}", "attribute"))
    for op, rule in rules.OPERATORS.items():
        out.append(("constant" if rule.nondiff else rule.kind, rule.name, "operator"))
    return sorted(set(out), key=lambda e: (e[0] == "constant", e[2], e[1]))


def counts():
    es = entries()
    diff = [e for e in es if e[0] != "constant"]
    numpy_names = {e[1] for e in es if e[1].startswith("np.") or e[1].startswith("ndarray.")}
    return {"differentiable": len(diff), "constant": len(es) - len(diff), "total": len(es),
            "numpy callables": len(numpy_names)}


def report():
    lines = []
    current = None
    for group, name, kind in entries():
        if group != current:
            lines.append(f"\n[{group}]")
            current = group
        lines.append(f"  {name}  ({kind})")
    c = counts()
    lines.append(f"\n{c['differentiable']} differentiable rules, {c['constant']} constant (non-differentiable) "
                 f"rules; {c['numpy callables']} NumPy callables (functions, ufuncs, methods, attributes) "
                 f"covered in all.")
    return "\n".join(lines).lstrip("\n")
