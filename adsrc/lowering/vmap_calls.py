"""`adsrc.vmap(f, in_axes, out_axes, axis_size)(args)` inside a function adsrc differentiates: the loop vmap runs.

The call becomes the call of a function written here once per axes, keywords and number of arguments,
which adsrc follows like any function of the user's (f is passed to it as a function value):

    def vmapped_0_None(fun, a0, a1):        # in_axes=(0, None), out_axes=0
        n = vmap_size((a0, a1), axes, axis_size)
        e0 = vmap_unstack(a0, axes[0], n)
        outs = [fun(e0[i], a1) for i in range(n)]
        return vmap_stack(outs, out_axes)

An argument may be a pytree and its in_axes entry a pytree prefix of it; keyword arguments are mapped
over axis 0, as in JAX. vmap_unstack and vmap_stack, with their derivatives, are in rules/vmap_rules.py.
An f that is neither a name nor a lambda (`vmap(vmap(g))`, `vmap(adsrc.grad(g))`, `vmap(obj.method)`) is
called from a lambda, so that adsrc follows that call as it follows any call.
"""

import gast
import numpy as np

from .. import astutil, tree_util
from ..cache import made_once
from ..frontend.source import define
from ..ir import nodes as ir
from ..vmap import Vmapped, vmap, vmap_size, vmap_stack
from ..rules.vmap_rules import vmap_unstack

_MADE = {}

_HINT = ("adsrc differentiates `vmap(f, in_axes, out_axes, axis_size)(...)` with in_axes, out_axes and "
         "axis_size known when transforming (literals or constants: ints, None, tuples, lists, dicts of "
         "them). Write the loop instead: `np.stack([f(x[i]) for i in range(len(x))])`.")
_OPTIONS = ("in_axes", "out_axes", "axis_size")


class VmapCalls:
    """Mixin of the Normalizer's Calls."""

    def vmap_now(self, e, target):
        """`adsrc.vmap(f, ...)(args)`: emitted as the loop (above): True, or False for another call."""
        maker = e.func
        if self.static(maker.func) is not vmap:
            return False
        if not maker.args or len(maker.args) > 4 or any(isinstance(a, gast.Starred) for a in maker.args) or \
                any(k.arg not in _OPTIONS for k in maker.keywords):
            raise self.error(e, "adsrc cannot follow this call of adsrc.vmap.", _HINT)
        options = dict(zip(_OPTIONS, maker.args[1:]))
        options.update((k.arg, k.value) for k in maker.keywords)
        known = {k: self.vmap_option(v) for k, v in options.items()}
        try:
            made = Vmapped(lambda *a: None, known.get("in_axes", 0), known.get("out_axes", 0),
                           known.get("axis_size"))
        except (TypeError, ValueError) as err:
            raise self.error(e, f"adsrc cannot follow this call of adsrc.vmap: {err}", _HINT) from None
        return self.vmapped_call(e, made, maker.args[0], target)

    def vmap_option(self, node):
        """The value of an in_axes/out_axes/axis_size expression known when transforming (a literal tuple,
        list or dict of constants, or a constant's name), or the object meaning it cannot be known."""
        if isinstance(node, (gast.Tuple, gast.List)):
            parts = [self.vmap_option(x) for x in node.elts]
            return tuple(parts) if isinstance(node, gast.Tuple) else parts
        if isinstance(node, gast.Dict) and None not in node.keys:
            return {self.vmap_option(k): self.vmap_option(v) for k, v in zip(node.keys, node.values)}
        return self.known_option(node)

    def vmap_value(self, e, target):
        """`f = adsrc.vmap(g, ...)` bound once here: calls `f(x)` are `adsrc.vmap(g, ...)(x)` (vmap_now)."""
        if isinstance(target, str) and target in self.single:
            self.functions[target] = ("applied", e)
        self.emit_op(ir.Opaque, target, self.plain_call(e, e.func), e, describe="a vmapped function used as a value",
                     hint="Call it in this function.", function=True)

    def vmapped_call(self, e, obj, fun, target):
        """The call e of the vmapped function obj (its function: the expression fun, or obj.fun): True."""
        if any(isinstance(a, gast.Starred) for a in e.args) or any(k.arg is None for k in e.keywords):
            raise self.error(e, "adsrc cannot follow this call of a vmapped function (*args or **kwargs).",
                             "Pass the arguments one by one.")
        try:
            axes = obj.axes(len(e.args))
        except ValueError as err:
            raise self.error(e, str(err)) from None
        keywords = tuple(k.arg for k in e.keywords)
        if all(ax is None for ax in axes) and not keywords and obj.axis_size is None:
            raise self.error(e, "vmap needs at least one mapped argument (an in_axes entry that is not None) "
                                "or axis_size=.")
        if fun is not None and not isinstance(fun, (gast.Name, gast.Lambda)):
            fun = _calling_lambda(fun, len(e.args), keywords)
        known = obj.fun if fun is None else None       # a vmapped function made outside: its function known
        key = (_frozen(axes), _frozen(obj.out_axes), obj.axis_size, keywords, known)
        make = lambda: _loop(axes, obj.out_axes, obj.axis_size, keywords, known)  # noqa: E731
        try:
            loop = made_once(_MADE, key, make)
        except TypeError:                               # an unhashable part: made each time
            loop = make()
        call = gast.Call(func=astutil.name(self.bind(loop.__name__, loop)),
                         args=([] if fun is None else [fun]) + list(e.args) + [k.value for k in e.keywords],
                         keywords=[])
        self.call(gast.copy_location(call, e), target)
        return True


def _frozen(axes):
    leaves, treedef = tree_util.tree_flatten(axes)
    return tuple(leaves), treedef


def _calling_lambda(fun, count, keywords):
    """`lambda a0, ..., k0, ...: fun(a0, ..., name=k0, ...)`, a gast node placed where fun is."""
    params = [f"a{k}" for k in range(count)] + [f"k{k}" for k in range(len(keywords))]
    args = gast.arguments(args=[gast.Name(id=p, ctx=gast.Param(), annotation=None, type_comment=None)
                                for p in params], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                          kwarg=None, defaults=[])
    body = gast.Call(func=fun, args=[astutil.name(p) for p in params[:count]],
                     keywords=[gast.keyword(arg=k, value=astutil.name(p)) for k, p in zip(keywords, params[count:])])
    lam = gast.Lambda(args=args, body=body)
    for node in (lam, args, body, *args.args, *body.args, *body.keywords, *(k.value for k in body.keywords)):
        gast.copy_location(node, fun)
    return lam


def _loop(axes, out_axes, axis_size, keywords, fun=None):
    """The function that runs fun over the mapped axes (see the module's docstring); fun is its first
    parameter, or, when it is given, a global of the function."""
    args = [f"a{k}" for k in range(len(axes))] + [f"k{k}" for k in range(len(keywords))]
    all_axes = tuple(axes) + (0,) * len(keywords)
    lines, elements = [], []
    for k, (a, ax) in enumerate(zip(args, all_axes)):
        if ax is None:
            elements.append(a)
            continue
        lines.append(f"    e{k} = vmap_unstack({a}, axes[{k}], n)\n")
        elements.append(f"e{k}[i]")
    passed = elements[:len(axes)] + [f"{name}={x}" for name, x in zip(keywords, elements[len(axes):])]
    name = "vmapped_" + "_".join(_short(ax) for ax in axes) + "".join(f"_{k}" for k in keywords)
    text = (f"def {name}({', '.join(([] if fun else ['fun']) + args)}):\n"
            f"    n = vmap_size(({''.join(a + ', ' for a in args)}), axes, axis_size)\n" + "".join(lines) +
            f"    outs = [fun({', '.join(passed)}) for i in range(n)]\n"
            f"    return vmap_stack(outs, out_axes)\n")
    return define(text, name, {"np": np, "vmap_size": vmap_size, "vmap_unstack": vmap_unstack,
                               "vmap_stack": vmap_stack, "fun": fun, "axes": all_axes, "out_axes": out_axes,
                               "axis_size": axis_size}, "vmap loop")


def _short(ax):
    return str(ax).replace("-", "m") if ax is None or isinstance(ax, int) else "tree"
