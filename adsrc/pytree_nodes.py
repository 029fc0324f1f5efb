"""User classes as pytrees, with JAX's protocol.

    adsrc.register_pytree_node(cls, flatten, unflatten)
        flatten(obj) -> (children, aux_data); unflatten(aux_data, children) -> obj
    @adsrc.register_pytree_node_class
        the class defines obj.tree_flatten() and classmethod cls.tree_unflatten(aux_data, children)
    adsrc.register_dataclass(cls, data_fields, meta_fields)   (or @adsrc.register_dataclass)

A registered object is a container like a dict or a dataclass: its children
are differentiated, and its aux data is static, part of the specialization
key (kinds.py), so it must be hashable. Inside the differentiated function
the object is used as it is (attributes read, methods called); the
cotangent of an attribute read is kept by attribute name (runtime.add_attr)
and given to the child that attribute is when the gradient is built
(`child_cotangents`). The gradient is `unflatten(aux_data, child_gradients)`,
an object of the same class, as in JAX.
"""

import dataclasses
import numbers

from .errors import TransformError

_NODES = {}      # class -> Node
CLASSES = "*classes"   # key among a function's static values: ((parameter, registered class), ...)
FIELDS = "*fields"     # and ((parameter, ((field, function), ...)), ...): fields holding known functions
# and ((parameter, ((field, class, element class, its own field classes), ...)), ...): fields holding objects of
# known classes, or lists of objects of one known class
FIELD_CLASSES = "*field_classes"
# and ((parameter, ((key, class), ...)), ...): lists, tuples and dicts holding registered objects, by position or key
ELEMENT_CLASSES = "*element_classes"


@dataclasses.dataclass(frozen=True)
class Node:
    cls: type
    flatten_fn: object
    unflatten_fn: object
    data_names: tuple = None     # register_dataclass: children by attribute name
    meta_names: tuple = None

    @property
    def name(self):
        return self.cls.__qualname__


def node_of(x):
    """The registration of x's class (exactly its class, as in JAX), or None."""
    return _NODES.get(type(x))


def is_node(x):
    return type(x) in _NODES


# -- registering ------------------------------------------------------------------------------------

def _check_class(cls, what):
    if not isinstance(cls, type):
        raise TypeError(f"{what} expects a class, got {cls!r}")
    if issubclass(cls, (tuple, list, dict)) or cls.__module__.split(".")[0] in ("numpy", "builtins"):
        raise TypeError(f"{what}: adsrc already knows how to treat {cls.__qualname__} values; only user "
                        "classes can be registered as pytrees")
    if cls in _NODES:
        raise ValueError(f"{what}: {cls.__qualname__} is already registered as a pytree")


def register_pytree_node(nodetype, flatten_func, unflatten_func):
    """Register a class as a pytree: flatten_func(obj) -> (children, aux_data) and
    unflatten_func(aux_data, children) -> obj (JAX's protocol).

    Its children are differentiated; aux_data is static (part of the
    specialization key, so it must be hashable), as in JAX.
    """
    _check_class(nodetype, "register_pytree_node")
    for fn, what in ((flatten_func, "flatten_func"), (unflatten_func, "unflatten_func")):
        if not callable(fn):
            raise TypeError(f"register_pytree_node: {what} for {nodetype.__qualname__} must be callable, "
                            f"got {fn!r}")
    _NODES[nodetype] = Node(nodetype, flatten_func, unflatten_func)
    return nodetype


def register_pytree_node_class(cls):
    """Class decorator: register cls with obj.tree_flatten() and classmethod cls.tree_unflatten(aux, children)."""
    if not isinstance(cls, type):
        raise TypeError(f"register_pytree_node_class decorates a class, got {cls!r}")
    for method in ("tree_flatten", "tree_unflatten"):
        if not callable(getattr(cls, method, None)):
            raise TypeError(f"register_pytree_node_class: {cls.__qualname__} has no method `{method}` (it "
                            "needs `tree_flatten(self) -> (children, aux_data)` and the classmethod "
                            "`tree_unflatten(cls, aux_data, children)`)")
    return register_pytree_node(cls, lambda obj: obj.tree_flatten(), cls.tree_unflatten)


def register_dataclass(nodetype=None, data_fields=None, meta_fields=None):
    """Register a class whose attributes data_fields are children and meta_fields are static (JAX's
    register_dataclass). As `@register_dataclass` on a dataclass, fields declared with
    `field(metadata=dict(static=True))` are meta fields and the others data fields."""
    if nodetype is None:
        return lambda cls: register_dataclass(cls, data_fields, meta_fields)
    if not isinstance(nodetype, type):
        raise TypeError(f"register_dataclass expects a class, got {nodetype!r}")
    name = nodetype.__qualname__
    if data_fields is None and meta_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(f"register_dataclass: {name} is not a dataclass, so give its data_fields and "
                            "meta_fields")
        init = [f for f in dataclasses.fields(nodetype) if f.init]
        data_fields = [f.name for f in init if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in init if f.metadata.get("static", False)]
    elif data_fields is None or meta_fields is None:
        raise TypeError(f"register_dataclass: give both data_fields and meta_fields for {name} (or neither, "
                        "for a dataclass)")
    data, meta = _names(data_fields, "data_fields", name), _names(meta_fields, "meta_fields", name)
    if set(data) & set(meta):
        raise ValueError(f"register_dataclass: {', '.join(sorted(set(data) & set(meta)))} of {name} are both "
                         "data and meta fields")
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init}
        if init != set(data) | set(meta):
            raise ValueError(f"register_dataclass: the data and meta fields of {name} must be its init fields "
                             f"({', '.join(sorted(init))}), got {', '.join(sorted(set(data) | set(meta)))}")

    def flatten(obj):
        return tuple(getattr(obj, f) for f in data), tuple(getattr(obj, f) for f in meta)

    def unflatten(aux, children):
        return nodetype(**dict(zip(data, children)), **dict(zip(meta, aux)))

    _check_class(nodetype, "register_dataclass")
    _NODES[nodetype] = Node(nodetype, flatten, unflatten, data, meta)
    return nodetype


def _names(fields, what, name):
    if isinstance(fields, str) or not all(isinstance(f, str) for f in fields):
        raise TypeError(f"register_dataclass: {what} of {name} must be a sequence of attribute names")
    return tuple(fields)


def with_classes(statics, kinds, others=None):
    """Static values with the classes of the registered-pytree arguments among kinds ({param: key entry})
    and of others ({param: class}), so the function's methods calls on them are followed (lowering/calls.py)."""
    known = [(p, k[1]) for p, k in kinds.items() if isinstance(k, tuple) and
             (k[0] == "node" or k[0] == "fields" and _has_python_methods(k[1]))]
    known = tuple(sorted(known + list((others or {}).items()), key=lambda item: item[0]))
    elements = tuple(sorted((p, c) for p, c in ((p, _item_classes(k)) for p, k in kinds.items()) if c))
    if elements:
        statics = {**(statics or {}), ELEMENT_CLASSES: elements}
    fields = [(p, f) for p, f in ((p, _field_classes(k)) for p, k in kinds.items()) if f]
    if fields:
        given = dict((statics or {}).get(FIELD_CLASSES, ()))
        merged = {**dict(fields), **given}        # (what the caller made the object with comes first)
        statics = {**(statics or {}), FIELD_CLASSES: tuple(sorted(merged.items(), key=lambda item: item[0]))}
    return {**(statics or {}), CLASSES: known} if known else statics


def _object_class(kind):
    """The class of a registered-pytree or dataclass argument (its key entry) whose methods are followed."""
    if isinstance(kind, tuple) and kind and (kind[0] == "node" or kind[0] == "fields" and _has_python_methods(kind[1])):
        return kind[1]
    return None


def _field_classes(kind, depth=0):
    """((field, class, element class, its own field classes), ...) of the fields of a registered dataclass or a
    dataclass argument (its key entry) that hold objects of known classes or lists of objects of one class
    (`model.layers`, a list of Linear), as pytree_nodes.FIELD_CLASSES gives them; () if none."""
    if not isinstance(kind, tuple) or not kind or depth > 8:
        return ()
    if kind[0] == "node":
        node = _NODES.get(kind[1])
        names = node.data_names if node is not None else None
        if not names or len(names) != len(kind[3]):
            return ()
        children = [(f, k) for f, (_, k) in zip(names, kind[3])]
    elif kind[0] == "fields" and len(kind) == 3 and not issubclass(kind[1], tuple):
        children = list(kind[2])
    else:
        return ()
    out = []
    for field, k in children:
        cls, elem = _object_class(k), _element_class(k)
        if cls is not None or elem is not None:
            out.append((field, cls, elem, _field_classes(k, depth + 1) if cls is not None else ()))
    return tuple(sorted(out, key=lambda entry: entry[0]))


def _item_classes(kind):
    """((position or key, class), ...) of the items of a list, tuple or dict argument (its key entry) that are
    registered-pytree or dataclass objects with methods (`layers = [Linear(W1), ReLU(), Linear(W2)]`), None for
    the others; () when none is."""
    if not (isinstance(kind, tuple) and len(kind) == 2 and kind[0] in ("list", "tuple", "dict") and kind[1]):
        return ()
    items = tuple((k, _object_class(c)) for k, c in kind[1])        # (None for an item of no such class)
    return items if any(c is not None for _, c in items) else ()


def _element_class(kind):
    """The class of the elements of a list or tuple argument (of the values of a dict) (its key entry) when all
    are registered-pytree objects of one class (`layers = [Dense(W1, b1), Dense(W2, b2)]`), else None."""
    if not (isinstance(kind, tuple) and len(kind) == 2 and kind[0] in ("list", "tuple", "dict") and kind[1]):
        return None
    classes = {_object_class(k) for _, k in kind[1]}
    return classes.pop() if len(classes) == 1 and None not in classes else None


def _has_python_methods(cls):
    """Does a dataclass or namedtuple class define methods or properties in the user's Python (`g.logpdf(x)`)?"""
    from .lowering.object_classes import _LIBRARY_PATHS
    for k in cls.__mro__[:-1]:
        for v in vars(k).values():
            fn = v.fget if isinstance(v, property) else getattr(v, "__func__", v)
            code = getattr(fn, "__code__", None)
            if code is not None and not any(part in code.co_filename for part in _LIBRARY_PATHS):
                return True
    return False


# -- flattening -----------------------------------------------------------------------------------

def flatten(node, x):
    """(children as a tuple, aux_data) of x, checked."""
    try:
        out = node.flatten_fn(x)
    except Exception as e:
        e.add_note(f"adsrc: raised by the flatten function registered for {node.name}")
        raise
    if not (isinstance(out, (tuple, list)) and len(out) == 2 and isinstance(out[0], (tuple, list))):
        raise TypeError(f"the flatten function registered for {node.name} must return (children, aux_data) "
                        f"with children a tuple or list, got {type(out).__name__}")
    return tuple(out[0]), out[1]


def unflatten(node, aux, children):
    try:
        return node.unflatten_fn(aux, tuple(children))
    except Exception as e:
        e.add_note(f"adsrc: raised by the unflatten function registered for {node.name}, building the "
                   f"gradient from the children's gradients (as in JAX, unflatten must accept any children)")
        raise


def aux_key(node, aux):
    """aux_data as a part of a specialization key: hashable, compared by value."""
    try:
        hash(aux)
    except TypeError:
        raise TypeError(f"the aux data (static part) of a {node.name} is not hashable: adsrc makes it part "
                        "of the specialization key, as JAX does. Return hashable aux data from its flatten "
                        "function (tuples, not lists; arrays belong in the children)") from None
    return (type(aux), aux)


# -- gradients --------------------------------------------------------------------------------------

def node_gradient(node, g, x, grad_output, add_cot, is_zero):
    """The gradient of a registered object x from its cotangent g: unflatten(aux, child gradients)."""
    children, aux = flatten(node, x)
    cots = child_cotangents(node, x, children, aux, g, add_cot, is_zero)
    return unflatten(node, aux, [grad_output(c, v) for c, v in zip(cots, children)])


def attribute_cotangents(g):
    """An object cotangent (a registered object or a dataclass of cotangents, as tree_leaves' rule and an
    output's cotangent give) as the dict of attribute cotangents that attribute reads accumulate; a
    registered class's children are found among its attributes (by name for register_dataclass)."""
    node = node_of(g)
    if node is None:
        return {f.name: getattr(g, f.name) for f in dataclasses.fields(g)}
    children, _ = flatten(node, g)
    if node.data_names is not None:
        return dict(zip(node.data_names, children))
    attrs = dict(vars(g)) if hasattr(g, "__dict__") else {}
    for k in type(g).__mro__:
        for name in getattr(k, "__slots__", ()):
            if hasattr(g, name):
                attrs[name] = getattr(g, name)
    out = {}
    for i, c in enumerate(children):
        if isinstance(c, float) and c == 0.0:
            continue
        hit = next((n for n, v in attrs.items() if v is c), None)
        if hit is None:
            raise TypeError(f"adsrc cannot tell which attribute of a {node.name} holds its child {i} (its "
                            "unflatten function does not store its children as attributes), so it cannot add "
                            "that child's cotangent to the ones its attribute reads gave. Register the class with "
                            "adsrc.register_dataclass, or store each child in an attribute in unflatten.")
        out[hit] = c
    return out


def _holds_float(v):
    from .kinds import _has_float_leaf, _leaf
    return _has_float_leaf(_leaf(v))


def child_cotangents(node, x, children, aux, g, add_cot, is_zero):
    """The cotangent of each child of x from g, x's cotangent: a dict of attribute cotangents (attribute
    reads, runtime.add_attr), or an object of x's class (a cotangent given for an output)."""
    if is_zero(g):
        return [0.0] * len(children)
    if type(g) is type(x):
        return list(flatten(node, g)[0])
    if not isinstance(g, dict):
        raise TypeError(f"internal error: cotangent {type(g).__name__} for a {node.name}")
    cots = [0.0] * len(children)
    for name, c in g.items():
        if is_zero(c):
            continue
        i = _child_index(node, x, name, children, aux)
        if i is not None:
            cots[i] = add_cot(cots[i], c)
    return cots


def _child_index(node, x, name, children, aux):
    """Which child the attribute `name` of x is (None: a static attribute, no gradient); refuses when it
    cannot tell."""
    if node.data_names is not None:
        if name in node.data_names:
            return node.data_names.index(name)
        if name in node.meta_names:
            return None
    value = getattr(x, name)
    hits = [i for i, child in enumerate(children) if child is value]
    if len(hits) == 1:
        twins = [k for k, v in getattr(x, "__dict__", {}).items() if v is value and k != name]
        if twins and isinstance(value, numbers.Number):
            # Python shares equal constants (self.scale = 1.0; self.eps = 1.0): which one is the child?
            raise TransformError(f"the attribute `{name}` of a {node.name} was differentiated, but it is the "
                                 f"same {type(value).__name__} object as `{twins[0]}`, so adsrc cannot tell "
                                 f"which of them is child {hits[0]} of its flatten function. Make the child an "
                                 "array (np.asarray(v, float)) or register the class with "
                                 "adsrc.register_dataclass, which names its children.")
        return hits[0]
    if len(hits) > 1:
        raise TransformError(f"the attribute `{name}` of a {node.name} was differentiated, but it is children "
                             f"{hits} of its flatten function at once, so adsrc cannot tell which child its "
                             "gradient belongs to. Return each array once from the flatten function.")
    if not _holds_float(value) or _in_aux(value, aux):
        return None
    raise TransformError(f"the attribute `{name}` of a {node.name} was differentiated, but it is not one of the "
                         f"children its flatten function returns (it is the same object as none of them), so "
                         "adsrc cannot tell which child its gradient belongs to. Return it from the flatten "
                         "function as a child, or compute it in the differentiated function from the children.")


def internal_cotangent(ct, out):
    """A cotangent given for an output, in the form generated code keeps: the cotangent of an object with
    attributes (a dataclass, a registered pytree) is a dict of its attributes' cotangents."""
    if isinstance(out, (tuple, list)) and not hasattr(out, "_fields"):
        return type(ct)(internal_cotangent(c, o) for c, o in zip(ct, out))
    if isinstance(out, dict):
        return {k: internal_cotangent(ct[k], out[k]) for k in out}
    node = node_of(out)
    if node is not None:
        children = flatten(node, out)[0]
        cots = flatten(node, ct)[0]
        names = node.data_names or tuple(_attribute_of(node, out, child, i) for i, child in enumerate(children))
        return {name: internal_cotangent(c, child) for name, c, child in zip(names, cots, children)}
    if dataclasses.is_dataclass(out) and not isinstance(out, type):
        return {f.name: internal_cotangent(getattr(ct, f.name), getattr(out, f.name))
                for f in dataclasses.fields(out)}
    return ct


def _attribute_of(node, out, child, i):
    names = [k for k, v in vars(out).items() if v is child] if hasattr(out, "__dict__") else []
    if len(names) != 1:
        raise TransformError(f"child {i} of the {node.name} output is {'several' if names else 'none'} of its "
                             "attributes, so adsrc cannot tell where its cotangent goes. Return the object's "
                             "attributes themselves, each once, from its flatten function.")
    return names[0]


def _in_aux(value, aux, depth=0):
    if aux is value:
        return True
    if depth < 4 and isinstance(aux, (tuple, list)):
        return any(_in_aux(value, a, depth + 1) for a in aux)
    if depth < 4 and isinstance(aux, dict):
        return any(_in_aux(value, a, depth + 1) for a in aux.values())
    return False
