"""A listing of the callables adsrc has derivative rules for (python -m adsrc rules).

NumPy, the math module, builtins and Python's operators are listed by kind of rule; SciPy's rules
(loaded for the listing, and otherwise only once a program imports the SciPy module) by module,
with their count.
"""

from . import rules

SCIPY_MODULES = ("scipy.special", "scipy.stats", "scipy.linalg", "scipy.signal", "scipy.integrate")


def _is_scipy(name):
    return name.startswith("scipy.")


def entries():
    """(group, name, kind) for every rule but SciPy's: differentiable first, then constants."""
    out = []
    for fn, rule in rules.FUNCTIONS.items():
        if _is_scipy(rule.listing):
            continue
        group = "constant" if rule.nondiff else rule.kind
        out.append((group, rule.listing, "function"))
    for name, rule in rules.METHODS.items():
        owner = "dict" if rule.view else "ndarray"       # d.get(k) is a dict's
        out.append(("constant" if rule.nondiff else rule.kind, f"{owner}.{name}()", "method"))
    for name, rule in rules.ATTRIBUTES.items():
        out.append((rule.kind, f"ndarray.{name}", "attribute"))
    for op, rule in rules.OPERATORS.items():
        out.append(("constant" if rule.nondiff else rule.kind, rule.name, "operator"))
    for obj, rule in rules.numpy_more.SUBSCRIPTS.values():
        out.append(("general", rule.name, "subscript"))
    order = {"elementwise": 0, "general": 1, "constant": 2}
    return sorted(set(out), key=lambda e: (order.get(e[0], 1), e[2], e[1]))


def scipy_entries():
    """{module: sorted names} of SciPy's differentiable rules (empty when SciPy is not installed)."""
    rules.load_scipy_tables(all_tables=True)
    out = {m: set() for m in SCIPY_MODULES}
    for rule in rules.FUNCTIONS.values():
        if _is_scipy(rule.listing) and not rule.nondiff:
            module = next((m for m in SCIPY_MODULES if rule.listing.startswith(m + ".")), None)
            if module is not None:
                out[module].add(rule.listing)
    return {m: sorted(names) for m, names in out.items()}


def _is_numpy(name):
    return name.startswith("np.") or name.startswith("ndarray.")


def counts():
    es = entries()
    diff = [e for e in es if e[0] != "constant"]
    sci = scipy_entries()
    return {"differentiable": len(diff) + sum(len(v) for v in sci.values()), "constant": len(es) - len(diff),
            "total": len(es) + sum(len(v) for v in sci.values()),
            "differentiable numpy callables": len({e[1] for e in diff if _is_numpy(e[1])}),
            "constant numpy callables": len({e[1] for e in es if e[0] == "constant" and _is_numpy(e[1])}),
            "differentiable scipy callables": sum(len(v) for v in sci.values()),
            **{f"{m} callables": len(v) for m, v in sci.items()}}


def report():
    lines = []
    current = None
    for group, name, kind in entries():
        if (group, kind) != current:
            lines.append(f"\n[{group} {kind}s]")
            current = (group, kind)
        lines.append(f"  {name}")
    sci = scipy_entries()
    for module, names in sci.items():
        if names:
            lines.append(f"\n[{module}: {len(names)} differentiable]")
            lines.extend(f"  {n}" for n in names)
    c = counts()
    per_module = ", ".join(f"{m} {len(v)}" for m, v in sci.items())
    scipy_line = (f"{c['differentiable scipy callables']} differentiable SciPy callables ({per_module})"
                  if c["differentiable scipy callables"] else "no SciPy rules (SciPy is not installed)")
    lines.append(f"\n{c['differentiable numpy callables']} differentiable NumPy callables (functions, ufuncs, "
                 f"np.linalg, np.fft, ndarray methods and attributes) and {c['constant numpy callables']} NumPy "
                 f"callables treated as constants; {scipy_line}; {c['differentiable']} differentiable rules in "
                 f"all (with the math module, builtins, the operator module and Python's operators).")
    return "\n".join(lines).lstrip("\n")
