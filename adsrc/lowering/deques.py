"""`collections.deque`, followed as a list: `deque(xs)` is `list(xs)`, `q.popleft()` is `q.pop(0)` and
`q.appendleft(v)` is `q.insert(0, v)`. A deque with a `maxlen` bound to a name once is cut back to its
last `maxlen` items after each `append`/`extend` (its first ones after `appendleft`), as the deque drops them.
"""

import builtins

import gast

from .. import astutil


class Deques:
    """Mixin of the Normalizer's Calls."""

    def deque_call(self, e, target):
        """`collections.deque(xs)`, followed as the list `list(xs)` (its methods popleft and appendleft as pop(0)
        and insert(0, v)); a deque with a maxlen, which drops items as others arrive, is refused."""
        maxlen = e.args[1] if len(e.args) > 1 else next((k.value for k in e.keywords if k.arg == "maxlen"), None)
        if maxlen is not None and not (isinstance(maxlen, gast.Constant) and maxlen.value is None):
            # its methods that add items then cut it to maxlen (method_call); a name bound to it once only
            if not isinstance(target, str) or target not in self.single or len(self.scopes) > 1:
                raise self.error(e, "adsrc follows a deque with a `maxlen` when it is bound to a name once.",
                                 "Keep a list and cut it yourself: `window.append(v); window = window[-n:]`.")
            limit, below = self.temp("maxlen"), self.temp("from_end")
            self.assign_to(astutil.name(limit, gast.Store()), maxlen)
            self.assign_to(astutil.name(below, gast.Store()), gast.UnaryOp(op=gast.USub(), operand=astutil.name(limit)))
            self.deque_limits[target] = (limit, below)
            items = e.args[:1] or [k.value for k in e.keywords if k.arg == "iterable"]
            whole = gast.Call(func=self.builtin_name("list"), args=items, keywords=[])
            cut = gast.Slice(lower=astutil.name(below), upper=None, step=None)
            return self.value(gast.Subscript(value=whole, slice=cut, ctx=gast.Load()), target)
        if any(isinstance(a, gast.Starred) for a in e.args) or \
                any(k.arg not in ("maxlen", "iterable") for k in e.keywords):
            raise self.error(e, "adsrc follows `deque(iterable)` with its argument written out.", None)
        items = e.args[:1] or [k.value for k in e.keywords if k.arg == "iterable"]
        call = gast.Call(func=self.builtin_name("list"), args=items, keywords=[])
        return self.call(gast.copy_location(call, e), target)

    def builtin_name(self, name):
        """A name generated code reads the builtin `name` by (`list`, unless this function rebinds it)."""
        obj = getattr(builtins, name)
        return astutil.name(name) if self.static(astutil.name(name)) is obj else astutil.name(self.bind(name, obj))

    def deque_method(self, e):
        """`q.popleft()` as `q.pop(0)` and `q.appendleft(v)` as `q.insert(0, v)`; other calls as they are."""
        name = e.func.attr
        if name not in ("popleft", "appendleft") or any(isinstance(a, gast.Starred) for a in e.args) or e.keywords:
            return e
        name = "pop" if name == "popleft" else "insert"
        return gast.copy_location(gast.Call(func=gast.Attribute(value=e.func.value, attr=name, ctx=gast.Load()),
                                            args=[astutil.const(0)] + list(e.args), keywords=[]), e)

    def cut_deque(self, receiver, name):
        """After `q.append(v)` (name) on a deque with a maxlen: `q = q[-n:]` (`q = q[:n]` after appendleft)."""
        limits = self.deque_limits.get(receiver)
        if limits is None or name not in ("append", "extend", "insert"):
            return
        limit, below = limits
        cut = gast.Slice(lower=astutil.name(below), upper=None, step=None) if name != "insert" else \
            gast.Slice(lower=None, upper=astutil.name(limit), step=None)
        self.assign_to(astutil.name(receiver, gast.Store()),
                       gast.Subscript(value=astutil.name(receiver), slice=cut, ctx=gast.Load()))
