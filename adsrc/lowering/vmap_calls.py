"""`adsrc.vmap(f, in_axes, out_axes)(args)` inside a function adsrc differentiates: the loop vmap runs.

The call becomes the call of a function written here once per axes and number of arguments, which adsrc
follows like any function of the user's (f is passed to it as a function value):

    def vmapped_0_None(fun, a0, a1):        # in_axes=(0, None), out_axes=0
        n = vmap_sizes(np.shape(a0)[0])
        outs = [fun(a0[i], a1) for i in range(n)]
        return vmap_stack(outs, 0)

A mapped axis other than 0 is moved to the front first (np.moveaxis). vmap_stack stacks each leaf of
the results' pytrees along its out_axes (vmap.py, with its derivative rules).
"""

import gast
import numpy as np

from .. import astutil
from ..cache import made_once
from ..ir import nodes as ir
from ..frontend.source import define
from ..vmap import Vmapped, vmap, vmap_sizes, vmap_stack

_MADE = {}

_HINT = ("adsrc differentiates `vmap(f, in_axes, out_axes)(...)` with in_axes and out_axes known when "
         "transforming (ints or None), positional arguments, and f returning one array or number. Write the "
         "loop instead: `np.stack([f(x[i]) for i in range(len(x))])`.")


class VmapCalls:
    """Mixin of the Normalizer's Calls."""

    def vmap_now(self, e, target):
        """`adsrc.vmap(f, ...)(args)`: emitted as the loop (above): True, or False for another call."""
        maker = e.func
        if self.static(maker.func) is not vmap:
            return False
        if not maker.args or len(maker.args) > 3 or any(isinstance(a, gast.Starred) for a in maker.args) or \
                any(k.arg not in ("in_axes", "out_axes") for k in maker.keywords):
            raise self.error(e, "adsrc cannot follow this call of adsrc.vmap.", _HINT)
        options = dict(zip(("in_axes", "out_axes"), maker.args[1:]))
        options.update((k.arg, k.value) for k in maker.keywords)
        known = {k: self.known_option(v) for k, v in options.items()}
        try:
            made = Vmapped(lambda *a: None, known.get("in_axes", 0), known.get("out_axes", 0))
        except (TypeError, ValueError):
            raise self.error(e, "adsrc cannot follow this call of adsrc.vmap.", _HINT) from None
        return self.vmapped_call(e, made, maker.args[0], target)

    def vmap_value(self, e, target):
        """`f = adsrc.vmap(g, ...)` bound once here: calls `f(x)` are `adsrc.vmap(g, ...)(x)` (vmap_now)."""
        if isinstance(target, str) and target in self.single:
            self.functions[target] = ("applied", e)
        self.emit_op(ir.Opaque, target, self.plain_call(e, e.func), e, describe="a vmapped function used as a value",
                     hint="Call it in this function.", function=True)

    def vmapped_call(self, e, obj, fun, target):
        """The call e of the vmapped function obj (its function: the expression fun, or obj.fun): True."""
        if e.keywords or any(isinstance(a, gast.Starred) for a in e.args):
            raise self.error(e, "adsrc cannot follow this call of a vmapped function.", _HINT)
        try:
            axes = obj.axes(len(e.args))
        except ValueError as err:
            raise self.error(e, str(err)) from None
        if all(ax is None for ax in axes):
            raise self.error(e, "vmap needs at least one mapped argument (an in_axes entry that is not None).")
        known = obj.fun if fun is None else None       # a vmapped function made outside: its function known
        out_axes = tuple(obj.out_axes) if isinstance(obj.out_axes, list) else obj.out_axes
        loop = made_once(_MADE, (axes, out_axes, known), lambda: _loop(axes, out_axes, known))
        call = gast.Call(func=astutil.name(self.bind(loop.__name__, loop)),
                         args=([] if fun is None else [fun]) + list(e.args), keywords=[])
        self.call(gast.copy_location(call, e), target)
        return True


def _loop(axes, out_axis, fun=None):
    """The function that runs fun over the mapped axes (see the module's docstring); fun is its first
    parameter, or, when it is given, a global of the function."""
    args = [f"a{k}" for k in range(len(axes))]
    lines, elements, sizes = [], [], []
    for a, ax in zip(args, axes):
        if ax is None:
            elements.append(a)
            continue
        sizes.append(f"np.shape({a})[{ax}]")
        if ax != 0:
            lines.append(f"    {a} = np.moveaxis({a}, {ax}, 0)")
        elements.append(f"{a}[i]")
    name = "vmapped_" + "_".join(str(ax).replace("-", "m") for ax in axes)
    text = (f"def {name}({', '.join(([] if fun else ['fun']) + args)}):\n"
            f"    n = vmap_sizes({', '.join(sizes)})\n" + "".join(line + "\n" for line in lines) +
            f"    outs = [fun({', '.join(elements)}) for i in range(n)]\n"
            f"    return vmap_stack(outs, {out_axis!r})\n")
    return define(text, name, {"np": np, "vmap_sizes": vmap_sizes, "vmap_stack": vmap_stack, "fun": fun},
                  "vmap loop")
