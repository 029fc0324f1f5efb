"""What a transformation assumed about global and closure names, checked before each reuse.

When adsrc transforms `act(x)`, it looks up what the global (or closure
variable) `act` means and builds the derivative for that function. If the
user later rebinds `act` (a notebook cell redefining a helper, a global
switched to another activation), the generated code would be stale. A
`Guards` object records every such name with the object it meant; before a
compiled gradient is reused, `still_valid()` checks each name still means the
same object (by identity), and the function is transformed again if not.

Only names whose values the transformation depends on are recorded:
functions, callable objects and modules. Data (arrays, numbers, dicts of
parameters) is read by the generated code when it runs, so rebinding it
never needs a new transformation.
"""

import types

_MISSING = object()


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:      # an empty cell
        return _MISSING


def depends_on(value):
    """Does a transformation that resolved a name to value depend on which object it is?"""
    return callable(value) or isinstance(value, types.ModuleType)


class Guards:
    """(kind, name) -> (namespace, object) for kind 'global' (namespace: the
    module's dict) and 'closure' (namespace: the cell)."""

    def __init__(self):
        self.entries = {}

    def record(self, kind, name, namespace, value):
        self.entries[(kind, name)] = (namespace, value)

    def merge(self, other):
        self.entries.update(other.entries)

    def changed(self):
        """The first name that no longer means the object it meant, or None."""
        for (kind, name), (namespace, value) in self.entries.items():
            now = namespace.get(name, _MISSING) if kind == "global" else _cell_value(namespace)
            if now is not value:
                return f"{kind} `{name}`"
        return None

    def compile(self):
        """A function () -> bool telling whether every name still holds (None when nothing to check).

        Generated for the names at hand, so the check costs tens of
        nanoseconds per name on every call.
        """
        if not self.entries:
            return None
        env = {"MISSING": _MISSING, "cell_value": _cell_value}
        tests = []
        for i, ((kind, name), (namespace, value)) in enumerate(self.entries.items()):
            env[f"ns{i}"], env[f"v{i}"] = namespace, value
            now = f"ns{i}.get({name!r}, MISSING)" if kind == "global" else f"cell_value(ns{i})"
            tests.append(f"{now} is v{i}")
        source = "def still_valid():\n    return " + " and ".join(tests) + "\n"
        exec(compile(source, "<adsrc guards>", "exec"), env)
        return env["still_valid"]
