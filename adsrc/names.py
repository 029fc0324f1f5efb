"""Deterministic names for generated variables, derived from the user's names."""

import builtins
import keyword
import re

_BUILTINS = frozenset(dir(builtins))


def identifier(text):
    """A valid identifier made from `text` ('np.linalg.inv' -> 'inv')."""
    text = text.rsplit(".", 1)[-1]
    text = re.sub(r"\W", "_", text).strip("_") or "t"
    if text[0].isdigit():
        text = "t" + text
    return text


class Namer:
    """Hands out fresh names that never collide with names already in use.

    A fresh name is the requested base if it is free, else `base_1`, `base_2`
    and so on. Names of Python builtins and keywords are never handed out, so
    generated code cannot shadow them.
    """

    def __init__(self, reserved=()):
        self.used = set(reserved)
        self.helpers = {}    # allocated name -> helper base name (see runtime.HELPERS)
        self._helper_names = {}
        self._next = {}      # stem -> the next suffix worth trying (names are never freed)
        self.origins = {}    # a name handed out in place of another (`q_1` for the user's `q`) -> that name

    def __clone__(self, memo):
        new = Namer()
        new.used, new.helpers = set(self.used), dict(self.helpers)
        new._helper_names, new._next = dict(self._helper_names), dict(self._next)
        new.origins = dict(self.origins)
        memo[id(self)] = new
        return new

    __deepcopy__ = __clone__

    def share(self, base):
        """The user's code already uses `base` for the helper of that name (like `np`)."""
        self._helper_names[base] = base
        self.helpers[base] = base

    def helper(self, base):
        """The name generated code uses for the runtime helper `base` (one per Namer)."""
        name = self._helper_names.get(base)
        if name is None:
            name = self.fresh(base)
            self._helper_names[base] = name
            self.helpers[name] = base
        return name

    def reserve(self, names):
        self.used.update(names)

    def fresh(self, base):
        base = identifier(base)
        if self._free(base):
            self.used.add(base)
            return base
        stem = re.sub(r"_\d+$", "", base) or base
        i = self._next.get(stem, 1)
        while not self._free(f"{stem}_{i}"):
            i += 1
        self._next[stem] = i + 1
        name = f"{stem}_{i}"
        self.used.add(name)
        self.origins[name] = base
        return name

    def user(self, name):
        """The name the user wrote for a name handed out in its place (for messages): `q_1` -> `q`."""
        while name in self.origins:
            name = self.origins[name]
        return name

    def _free(self, name):
        return name not in self.used and name not in _BUILTINS and not keyword.iskeyword(name)
