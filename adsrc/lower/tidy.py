"""Tidy the lowered program: a branch's result takes the name of the output it becomes.

`if c: y = sin(x)` lowers to a branch computing `y_1` and an output `y_2`;
when `y_1` is defined in the branch and used for nothing but that output,
the branch assigns `y_2` directly. Names defined inside a branch are only
visible there, so the rename stays inside the branch.
"""

from .. import astutil
from .. import old_ir as ir


def _top_level_definitions(body):
    out = {}
    for s in body:
        for n in ir.defined_names(s):
            out[n] = out.get(n, 0) + 1
    return out


def _rename_block(body, mapping):
    for s in body:
        if isinstance(s, ir.Assign):
            astutil.rename(s.value, mapping)
            s.target = _rename_target(s.target, mapping)
        elif isinstance(s, (ir.Effect,)):
            astutil.rename(s.value, mapping)
        elif isinstance(s, ir.Raw):
            astutil.rename(s.node, mapping)
        elif isinstance(s, ir.Cond):
            astutil.rename(s.pred, mapping)
            for br in (s.true, s.false):
                _rename_block(br.body, mapping)
                br.results = [astutil.rename(r, mapping) for r in br.results]
            s.outs = [mapping.get(o, o) for o in s.outs]
        elif isinstance(s, ir.Loop):
            s.init = [astutil.rename(v, mapping) for v in s.init]
            if s.xs is not None:
                astutil.rename(s.xs, mapping)
            _rename_block(s.test_body, mapping)
            if s.test is not None:
                astutil.rename(s.test, mapping)
            _rename_block(s.body, mapping)
            s.results = [astutil.rename(r, mapping) for r in s.results]
            s.outs = [mapping.get(o, o) for o in s.outs]
        elif isinstance(s, ir.LocalDef):
            for st in ir.walk(s.fn.body):
                pass


def _rename_target(t, mapping):
    if isinstance(t, str):
        return mapping.get(t, t)
    return tuple(_rename_target(e, mapping) for e in t)


def tidy(body):
    for s in ir.walk(body):
        if not isinstance(s, ir.Cond):
            continue
        for br in (s.true, s.false):
            defs = _top_level_definitions(br.body)
            names = [r.id for r in br.results if isinstance(r, astutil.gast.Name)]
            mapping = {}
            for out, r in zip(s.outs, br.results):
                if isinstance(r, astutil.gast.Name) and defs.get(r.id) == 1 and names.count(r.id) == 1:
                    mapping[r.id] = out
            if mapping:
                _rename_block(br.body, mapping)
                br.results = [astutil.rename(r, mapping) for r in br.results]
    return body
