"""Queries on the alias analysis's facts (analysis/aliases.py): how two names may share an object.

`relations(state, m, n)` is what lowering/functionalize.py follows when n's object
changes; `params_reached` is what analysis/summaries.py reports a function changes.
"""

from .aliases import FOREIGN

SAME, DERIVED, BASE, HOLDS, HOLDS_PART, UNKNOWN = "same", "derived", "base", "holds", "holds part", "unknown"


def relations(state, m, n):
    """How name m may relate to the object of name n: a list of (kind, path) pairs.

    SAME: m may be n's object; DERIVED: m may be a part or view of it (path from n
    to m); BASE: n may be a part or view of m's object (path from m to n); HOLDS: m
    may hold n's object in a container; HOLDS_PART: m may hold a part or view of
    n's object in a container (path from n to the part held); UNKNOWN: they may
    share memory in a way adsrc does not know.
    """
    out = []
    n_refs = state.refs(n)
    m_refs = state.refs(m)
    m_by_obj = {}
    for rm in m_refs:
        m_by_obj.setdefault(rm.obj, []).append(rm)
    m_objs = set(m_by_obj)
    holds = {}           # an object of m -> {object: the paths of the references to it that it may hold}
    for rn in n_refs:
        if rn.obj == FOREIGN:
            continue
        for rm in m_by_obj.get(rn.obj, ()):
            if rn.path is None or rm.path is None:
                out.append((UNKNOWN, None))
            elif rm.path == rn.path:
                out.append((SAME, ()))
            elif rm.path[:len(rn.path)] == rn.path:
                out.append((DERIVED, rm.path[len(rn.path):]))
            elif rn.path[:len(rm.path)] == rm.path:
                out.append((BASE, rn.path[len(rm.path):]))
            else:
                out.append((UNKNOWN, None))        # two parts of one object (a common base may be gone)
        for obj in m_objs:
            if obj == rn.obj:
                continue
            if obj not in holds:
                holds[obj] = by_obj = {}
                for h in state.held(obj):
                    by_obj.setdefault(h.obj, set()).add(h.path)
            paths = holds[obj].get(rn.obj)
            if paths and (rn.path is None or None in paths or rn.path in paths):
                out.append((HOLDS, None))       # m may hold the part of n's object n refers to
            elif paths and all(p[:len(rn.path)] == rn.path for p in paths):
                # m holds parts of the part of n's object n refers to (`held = {"r": v[0]}`, n is v)
                out += [(HOLDS_PART, p[len(rn.path):]) for p in paths]
            elif paths:
                out.append((UNKNOWN, None))     # m holds another part of n's object
    unique = list(dict.fromkeys(out))
    # in an order that does not depend on where objects live in memory (generated code is deterministic)
    return sorted(unique, key=_order)


def _order(relation):
    kind, path = relation
    return kind, repr([step.key for step in path]) if path else ""


def is_foreign(state, n):
    return any(r.obj == FOREIGN for r in state.refs(n))


def params_reached(state, n):
    """Parameters whose objects a change to n's object may change."""
    out = set()
    for r in state.refs(n):
        if r.obj[0] == "param":
            out.add(r.obj[1])
        for h in state.holders(r.obj):
            if h[0] == "param":
                out.add(h[1])
    return out
