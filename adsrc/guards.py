"""What a transformation assumed about global and closure names, checked before each reuse.

When adsrc transforms `act(x)`, it looks up what the global (or closure
variable) `act` means and builds the derivative for that function. If the
user later rebinds `act` (a notebook cell redefining a helper, a global
switched to another activation, `model.act = np.sin`), the generated code
would be stale. A `Guards` object records each such lookup, as a chain from a
root (a module global, a closure cell, a static argument's value) through
attributes and constant indices, with the object it ended at. Before a
compiled gradient is reused, `still_valid()` walks every chain again and
checks it still ends at the same object; if not, the function is
transformed again.

Only lookups the transformation depends on are recorded: those ending at
functions, callable objects and modules. Data (arrays, numbers, parameter
dicts, `self.W`) is read by the generated code when it runs, so rebinding it
never needs a new transformation. A chain's intermediate objects are not
compared: `self.layer = Layer(...)` with a new layer of the same class keeps
the gradient, since its method is the same function.
"""

import keyword
import types

_MISSING = object()


def depends_on(value):
    """Does a transformation that resolved a name to value depend on which object it is?"""
    return callable(value) or isinstance(value, types.ModuleType)


def _unbound(value):
    # a bound method is a new object on every access: compare the function it binds
    return value.__func__ if isinstance(value, types.MethodType) else value


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:      # an empty cell
        return _MISSING


def _root(kind, namespace, name):
    if kind == "global":
        return namespace.get(name, _MISSING)
    if kind == "closure":
        return _cell_value(namespace)
    return namespace            # 'static': the static argument's value itself


def _walk(kind, namespace, name, path):
    """Where a chain ends now (_MISSING if a step fails)."""
    obj = _root(kind, namespace, name)
    try:
        for is_attr, step in path:
            obj = getattr(obj, step) if is_attr else obj[step]
    except Exception:
        return _MISSING
    return _unbound(obj)


class Guards:
    """Chains (kind, namespace, name, path) and the objects they ended at.

    kind is 'global' (namespace: the module's dict), 'closure' (the cell) or
    'static' (the value of static argument `name`); path is a tuple of
    (True, attribute) and (False, constant index) steps.
    """

    def __init__(self):
        self.entries = {}

    def record(self, kind, namespace, name, path, value):
        if kind == "static" and not path:
            return              # the specialization key already holds static values
        self.entries[(kind, id(namespace), name, tuple(path))] = (namespace, _unbound(value),
                                                                 isinstance(value, types.MethodType))

    def merge(self, other):
        self.entries.update(other.entries)

    def split_code(self, function):
        """(the code `function` had, the other chains) when a chain checks `function.__code__`, else (None, self).

        Every transformation depends on its function's code; a caller checks that
        chain itself, inline, which costs less than calling the compiled check.
        """
        rest = Guards()
        code = None
        for entry, (namespace, value, method) in self.entries.items():
            kind, _, _, path = entry
            if kind == "static" and namespace is function and path == ((True, "__code__"),):
                code = value
            else:
                rest.entries[entry] = (namespace, value, method)
        return (code, rest) if code is not None else (None, self)

    def changed(self):
        """The first chain that no longer ends at the object it did, as the user would write it, or None."""
        for (kind, _, name, path), (namespace, value, _) in self.entries.items():
            if _walk(kind, namespace, name, path) is not value:
                if path == ((True, "__code__"),):
                    return f"the code of `{name}`"
                return f"`{name}{''.join(f'.{s}' if a else f'[{s!r}]' for a, s in path)}`"
        return None

    def compile(self):
        """A function () -> bool: does every chain still end where it did? (None when there is none.)

        Generated for the chains at hand, one expression per chain
        (`ns0['act'] is v0`, `ns1.cell_contents.act is v1`, `ns2.__code__ is v2`); a
        step that fails (a missing name, attribute or key, an empty cell) fails the
        check. A check costs tens of nanoseconds per chain on every call.
        """
        if not self.entries:
            return None
        env = {"unbound": _unbound}
        tests = []
        for i, ((kind, _, name, path), (namespace, value, method)) in enumerate(self.entries.items()):
            env[f"ns{i}"], env[f"v{i}"] = namespace, value
            expr = {"global": f"ns{i}[{name!r}]", "closure": f"ns{i}.cell_contents", "static": f"ns{i}"}[kind]
            for j, (is_attr, step) in enumerate(path):
                if is_attr and step.isidentifier() and not keyword.iskeyword(step):
                    expr = f"{expr}.{step}"
                elif is_attr:
                    expr = f"getattr({expr}, {step!r})"
                else:
                    env[f"key{i}_{j}"] = step
                    expr = f"{expr}[key{i}_{j}]"
            tests.append(f"{'unbound(' + expr + ')' if method else expr} is v{i}")
        source = ("def still_valid():\n    try:\n        return " + " and ".join(tests) +
                  "\n    except Exception:\n        return False\n")
        exec(compile(source, "<adsrc guards>", "exec"), env)
        return env["still_valid"]
