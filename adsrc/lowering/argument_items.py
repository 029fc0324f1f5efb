"""Mixin of the Normalizer's Objects: the classes of the objects a list, tuple or dict argument holds, as the
call passes them (pytree_nodes.ELEMENT_CLASSES, part of the specialization's key), and of a tree_map's result.

    def loss(layers, x):               # layers = [Linear(W1, b1), ReLU(), Linear(W2, b2)]
        for layer in layers:           # unrolled, each layer's class known
            x = layer(x)
        return np.sum(layers[-1].W) + np.sum(x)
"""

import gast

from .. import astutil

_LIST_CHANGES = frozenset({"append", "extend", "insert", "__setitem__", "update", "setdefault"})


class ArgumentItems:
    """Mixin of the Normalizer (objects.py)."""

    def parameter_items(self, name):
        """{position or key: class} of the objects the parameter `name` holds when the call passes a list, tuple
        or dict of registered objects and the function neither rebinds nor changes it (the classes are part of
        the specialization's key), else None."""
        items = self.uf.item_classes.get(name)
        if not items or any(name in s for s in self.scopes[1:]):
            return None
        for n in astutil.walk(self.uf.node):
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and \
                    isinstance(n.func.value, gast.Name) and n.func.value.id == name and n.func.attr in _LIST_CHANGES:
                return None         # layers.append(...): its items may be of other classes
            if isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, (gast.Store, gast.Del)) and \
                    isinstance(n.value, gast.Name) and n.value.id == name:
                return None
        return items

    def parameter_element_class(self, name):
        """The class of every item of the parameter `name` (parameter_items), else None."""
        items = self.parameter_items(name)
        classes = set(items.values()) if items else set()
        return classes.pop() if len(classes) == 1 and None not in classes else None

    def parameter_item_class(self, v):
        """The class of `layers[1]` or `blocks["enc"]`, a constant position or key of such a parameter, else
        None."""
        if not isinstance(v, gast.Subscript) or not isinstance(v.value, gast.Name) or \
                not astutil.is_constant_literal(v.slice):
            return None
        key = astutil.literal_value(v.slice)         # (`layers[-1]`: a negative constant too)
        items = self.parameter_items(v.value.id) if type(key) in (int, str) else None
        if not items:
            return None
        if isinstance(key, int) and key < 0 and all(isinstance(k, int) for k in items):
            key += len(items)           # (a list's or tuple's items are all there, by position)
        return items.get(key)

    def tree_mapped(self, value):
        """The tree (a name holding an object of a known class) that `tree_map(f, tree, ...)` maps, whose
        structure and so class the result has, else None."""
        from .. import tree_util
        if isinstance(value, gast.Call) and self.resolved(value.func) is tree_util.tree_map and \
                len(value.args) >= 2 and not any(isinstance(a, gast.Starred) for a in value.args) and \
                not any(k.arg == "is_leaf" for k in value.keywords) and isinstance(value.args[1], gast.Name) and \
                self.known_class(value.args[1]) is not None:
            return value.args[1]
        return None
