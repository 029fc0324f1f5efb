"""Shrinking a failing program: remove and simplify code while the failure persists.

Works on any program text (the AST), not on the generator's choices. Each
candidate must still be a fair test (proginst.validate: it runs, returns a
finite scalar, stays MARGIN away from every kink and threshold at the inputs)
and must fail the same way (same outcome kind; for crashes and refusals the
same first line with names and numbers blurred). Edits, biggest first, are
tried in passes until a pass changes nothing or the time budget is spent:
  1. delete half, a quarter, ... of a block, then single statements (a
     compound statement with everything in it);
  2. replace an if/for/while by its body, or drop an else;
  3. replace an expression by one of its operands (a call by an argument or
     its receiver, a binary operation by a side, a subscript by its value,
     a list by a shorter list).
With two inputs, shrinking keeps only the failing input when the failure
reproduces with it alone (a failure that needs both calls keeps both).
"""

import ast
import copy
import time

from progcheck import check
from proginst import validate


def _stmt_lists(tree):
    out = []
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            value = getattr(node, field, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                out.append((node, field))
    return out


def _delete(tree, start):
    """Trees with one statement deleted, outer statements first."""
    n = sum(len(getattr(node, field)) for node, field in _stmt_lists(tree))
    for k in range(start, n):
        new = copy.deepcopy(tree)
        j = k
        for node, field in _stmt_lists(new):
            body = getattr(node, field)
            if j < len(body):
                del body[j]
                if not body and field == "body":
                    body.append(ast.Pass())
                break
            j -= len(body)
        yield k, new


def _delete_chunks(tree, start):
    """Trees with half, a quarter, ... of a statement list deleted (at least two statements)."""
    sites = []
    for li, (node, field) in enumerate(_stmt_lists(tree)):
        n = len(getattr(node, field))
        size = n // 2
        while size >= 2:
            sites += [(li, a, size) for a in range(0, n - size + 1, size)]
            size //= 2
    for k in range(start, len(sites)):
        li, a, size = sites[k]
        new = copy.deepcopy(tree)
        node, field = _stmt_lists(new)[li]
        body = getattr(node, field)
        del body[a:a + size]
        if not body and field == "body":
            body.append(ast.Pass())
        yield k, new


def _unwrap(tree, start):
    """Trees with one if/for/while replaced by its body or its else, or an if without its else."""
    count = sum(isinstance(s, (ast.If, ast.For, ast.While)) for s in ast.walk(tree))
    for k in range(start, count):
        for variant in ("body", "orelse", "drop-else"):
            new = copy.deepcopy(tree)
            target = [s for s in ast.walk(new) if isinstance(s, (ast.If, ast.For, ast.While))][k]
            if variant == "drop-else":
                if target.orelse:
                    target.orelse = []
                    yield k, new
                continue
            repl = getattr(target, variant)
            if not repl:
                continue
            for node, field in _stmt_lists(new):
                body = getattr(node, field)
                if target in body:
                    i = body.index(target)
                    body[i:i + 1] = repl
                    yield k, new
                    break


def _operands(node):
    if isinstance(node, ast.Call):
        out = [a for a in node.args if not isinstance(a, ast.Starred)]
        f = node.func
        if isinstance(f, ast.Attribute) and not (isinstance(f.value, ast.Name) and f.value.id in ("np", "math")) \
                and not isinstance(f.value, ast.Attribute):
            out.append(f.value)             # x.copy() -> x, (expr).sum() -> expr
        return out
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.Subscript):
        return [node.value]
    if isinstance(node, ast.Attribute) and node.attr == "T":
        return [node.value]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    return []


def _sites(tree):
    out = []
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            items = value if isinstance(value, list) else [value]
            for i, node in enumerate(items):
                if isinstance(node, ast.expr) and not isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
                    out.append((parent, field, i if isinstance(value, list) else None, node))
    return out


def _simplify(tree, start):
    """Trees with one expression replaced by one of its operands, or a list literal shortened."""
    nodes = [s[3] for s in _sites(tree)]
    for k in range(start, len(nodes)):
        node = nodes[k]
        shorter = len(node.elts) if isinstance(node, ast.List) and len(node.elts) > 1 else 0
        for c in range(len(_operands(node)) + shorter):
            new = copy.deepcopy(tree)
            parent, field, i, target = _sites(new)[k]
            ops = _operands(target)
            if c < len(ops):
                repl = ops[c]
                if isinstance(repl, ast.Compare) and not isinstance(target, (ast.BoolOp, ast.UnaryOp)):
                    continue                    # no comparisons used as numbers
            else:
                repl = copy.deepcopy(target)
                del repl.elts[c - len(ops)]
            if i is None:
                setattr(parent, field, repl)
            else:
                getattr(parent, field)[i] = repl
            yield k, new


def shrink(src, inputs, params, target, budget=60.0, grad=None):
    """(smaller source, inputs) failing like target (an Outcome of check(src, inputs, params))."""
    deadline = time.monotonic() + budget

    def fails(text, inps):
        if validate(text, inps)[0] is not None:
            return False
        return check(text, inps, params, grad).signature == target.signature

    if target.which is not None and len(inputs) > 1 and fails(src, [inputs[target.which]]):
        inputs = [inputs[target.which]]
    tree = ast.parse(src)
    best = ast.unparse(tree)
    changed = True
    while changed and time.monotonic() < deadline:
        changed = False
        for edits in (_delete_chunks, _delete, _unwrap, _simplify):
            start = 0
            while time.monotonic() < deadline:
                for k, cand in edits(tree, start):
                    if time.monotonic() > deadline:
                        break
                    text = ast.unparse(cand)
                    if len(text) < len(best) and fails(text, inputs):
                        tree, best, changed, start = cand, text, True, k
                        break
                else:
                    break
    return best + "\n", inputs
