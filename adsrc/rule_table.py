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
    order = {"elementwise": 0, "general": 1, "constant": 2}
    return sorted(set(out), key=lambda e: (order.get(e[0], 1), e[2], e[1]))


def _is_numpy(name):
    return name.startswith("np.") or name.startswith("ndarray.")


def counts():
    es = entries()
    diff = [e for e in es if e[0] != "constant"]
    return {"differentiable": len(diff), "constant": len(es) - len(diff), "total": len(es),
            "differentiable numpy callables": len({e[1] for e in diff if _is_numpy(e[1])}),
            "constant numpy callables": len({e[1] for e in es if e[0] == "constant" and _is_numpy(e[1])})}


def report():
    lines = []
    current = None
    for group, name, kind in entries():
        if (group, kind) != current:
            lines.append(f"\n[{group} {kind}s]")
            current = (group, kind)
        lines.append(f"  {name}")
    c = counts()
    lines.append(f"\n{c['differentiable numpy callables']} differentiable NumPy callables (functions, ufuncs, "
                 f"np.linalg, ndarray methods and attributes) and {c['constant numpy callables']} NumPy callables "
                 f"treated as constants; {c['differentiable']} differentiable rules in all (with the math "
                 f"module, builtins and operators).")
    return "\n".join(lines).lstrip("\n")
