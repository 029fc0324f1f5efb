"""Random programs with loops, branches, break/continue, lists and calls, checked against finite differences.

The generator is deterministic (fixed seeds), so a failure names a program
that can be regenerated and read: the module text is in the failure message.
"""

import importlib.util
import os
import random
import sys

import numpy as np
import pytest

from adsrc.checks import check_grads

SEEDS = range(int(os.environ.get("ADSRC_RANDOM_PROGRAMS", 150)))

UNARY = ["np.sin({})", "np.tanh({})", "np.cos({})", "({}) * 0.5", "np.exp(0.3 * np.tanh({}))", "-({})",
         "np.sqrt(1.0 + ({}) ** 2)"]
BINARY = ["({}) + ({})", "({}) - ({})", "({}) * ({})", "np.maximum({}, {})", "({}) / (1.5 + np.tanh({}) ** 2)"]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.lines = []
        self.n = 0
        self.helpers = []

    def fresh(self):
        self.n += 1
        return f"v{self.n}"

    def expr(self, scalars, arrays, depth=0):
        r = self.r
        kind = r.random()
        if depth > 2 or kind < 0.3:
            pool = scalars + arrays
            if arrays and r.random() < 0.2:
                return f"{r.choice(arrays)}[{r.randrange(3)}]"
            return r.choice(pool) if pool else "1.0"
        if kind < 0.6:
            return r.choice(UNARY).format(self.expr(scalars, arrays, depth + 1))
        if kind < 0.7 and arrays:
            return f"np.sum({self.expr(scalars, arrays, depth + 1)})"
        if kind < 0.75 and self.helpers:
            return f"{r.choice(self.helpers)}({self.expr(scalars, arrays, depth + 1)})"
        a, b = self.expr(scalars, arrays, depth + 1), self.expr(scalars, arrays, depth + 1)
        return r.choice(BINARY).format(a, b)

    def scalar_expr(self, scalars, arrays):
        e = self.expr(scalars, arrays)
        return f"np.sum({e})" if arrays and self.r.random() < 0.5 else f"np.mean({e})"

    def block(self, indent, scalars, arrays, depth, in_loop):
        """Emit statements; returns (scalars, arrays) definitely assigned afterwards."""
        r = self.r
        scalars, arrays = list(scalars), list(arrays)
        for _ in range(r.randint(1, 3)):
            choice = r.random()
            pad = "    " * indent
            if choice < 0.4 or depth >= 2:
                v = self.fresh()
                if r.random() < 0.5 and arrays:
                    self.lines.append(f"{pad}{v} = {self.expr(scalars, arrays)} + 0.0 * {arrays[0]}")
                    arrays.append(v)
                else:
                    self.lines.append(f"{pad}{v} = {self.scalar_expr(scalars, arrays)}")
                    scalars.append(v)
            elif choice < 0.48 and arrays:
                # item assignment on a local array (made fresh here, or one assigned before)
                local = [a for a in arrays if a != "xs"]
                if not local or r.random() < 0.3:
                    v = self.fresh()
                    self.lines.append(f"{pad}{v} = {r.choice(['np.zeros(3)', 'xs * 1.0', 'np.ones(3) * acc'])}")
                    arrays.append(v)
                    local.append(v)
                arr = r.choice(local)
                index = r.choice(["0", "1", "2", "-1", "1:", ":2", "::2"])
                op = r.choice(["=", "+=", "*="])
                rhs = self.scalar_expr(scalars, arrays) if ":" not in index else \
                    f"np.tanh({self.expr(scalars, arrays)} + 0.0 * xs)[{index}]"
                self.lines.append(f"{pad}{arr}[{index}] {op} {rhs}")
            elif choice < 0.52:
                # lists: append, concatenate, read the last element
                kind = r.random()
                if kind < 0.6:
                    self.lines.append(f"{pad}ls.append({self.scalar_expr(scalars, arrays)})")
                elif kind < 0.8:
                    self.lines.append(f"{pad}ls = ls + [{self.scalar_expr(scalars, arrays)}]")
                else:
                    v = self.fresh()
                    self.lines.append(f"{pad}{v} = ls[-1] * 0.5")
                    scalars.append(v)
            elif choice < 0.535:
                # unpacking an array into scalars
                a, b, c = self.fresh(), self.fresh(), self.fresh()
                self.lines.append(f"{pad}{a}, {b}, {c} = {self.expr(scalars, arrays)} + 0.0 * xs")
                scalars += [a, b, c]
            elif choice < 0.55:
                target = r.choice(scalars)
                self.lines.append(f"{pad}{target} = {target} * 0.7 + {self.scalar_expr(scalars, arrays)} * 0.3")
            elif choice < 0.75:
                cond = f"np.sum({self.expr(scalars, arrays)}) > {r.uniform(-0.5, 0.5):.3f}"
                self.lines.append(f"{pad}if {cond}:")
                s1, a1 = self.block(indent + 1, scalars, arrays, depth + 1, in_loop)
                if r.random() < 0.7:
                    self.lines.append(f"{pad}else:")
                    s2, a2 = self.block(indent + 1, scalars, arrays, depth + 1, in_loop)
                else:
                    s2, a2 = scalars, arrays
                scalars = [v for v in s1 if v in s2]
                arrays = [v for v in a1 if v in a2]
            elif choice < 0.9:
                k = r.choice([0, 1, 2, 3])
                var = f"i{self.n}"
                self.n += 1
                if r.random() < 0.5:
                    self.lines.append(f"{pad}for {var} in range({k}):")
                else:
                    self.lines.append(f"{pad}for {var} in {r.choice(arrays) if arrays else 'xs'}:")
                acc = r.choice(scalars)
                self.lines.append(f"{pad}    {acc} = {acc} * 0.6 + np.tanh({self.scalar_expr(scalars, arrays)}) * 0.4 "
                                  f"+ 0.1 * np.sum({var}) * {acc}")
                self.block(indent + 1, scalars, arrays, depth + 1, True)
                if r.random() < 0.5:
                    # the carried value updated differently on each side of a branch
                    self.lines.append(f"{pad}    if np.sum({self.expr(scalars, arrays)}) > {r.uniform(-0.5, 0.5):.3f}:")
                    self.lines.append(f"{pad}        {acc} = {acc} + {self.scalar_expr(scalars, arrays)} * 0.2")
                    if r.random() < 0.7:
                        self.lines.append(f"{pad}    else:")
                        self.lines.append(f"{pad}        {acc} = {acc} * 0.5 + np.tanh({self.scalar_expr(scalars, arrays)})")
                if r.random() < 0.3:
                    self.lines.append(f"{pad}    if np.sum({self.expr(scalars, arrays)}) > {r.uniform(0, 1):.3f}:")
                    self.lines.append(f"{pad}        {r.choice(['break', 'continue'])}")
                    self.lines.append(f"{pad}    {acc} = {acc} + 0.1 * np.sin({acc})")
            else:
                c = f"c{self.n}"
                self.n += 1
                acc = r.choice(scalars)
                self.lines.append(f"{pad}{c} = 0")
                self.lines.append(f"{pad}while {c} < {r.randint(0, 3)}:")
                self.lines.append(f"{pad}    {acc} = np.tanh({acc} + {self.scalar_expr(scalars, arrays)})")
                self.lines.append(f"{pad}    {c} += 1")
        return scalars, arrays

    def program(self):
        self.helpers = []
        helper_src = []
        if self.r.random() < 0.5:
            helper_src = ["def helper(z):", f"    return np.tanh(z) * {self.r.uniform(0.5, 1.5):.3f} + z * 0.1", ""]
            self.helpers = ["helper"]
        self.lines = ["def f(xs, s):", "    acc = s * 1.0", "    ls = [s * 1.0]"]
        scalars, arrays = self.block(1, ["s", "acc"], ["xs"], 0, False)
        hs = "hs"
        self.lines += [f"    {hs} = []", "    for t in xs:", f"        {hs}.append(t * acc)"]
        final = " + ".join(f"np.sum({v})" for v in scalars + arrays)
        self.lines.append(f"    return {final} + np.sum(sum({hs})) * 0.1 + np.sum(np.array(ls)) * 0.1")
        return "import numpy as np\n\n" + "\n".join(helper_src) + "\n" + "\n".join(self.lines) + "\n"


def load(seed, tmp_path):
    src = Gen(seed).program()
    path = tmp_path / f"random_program_{seed}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"random_program_{seed}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module, src


@pytest.mark.parametrize("seed", SEEDS)
def test_random_program(seed, tmp_path):
    module, src = load(seed, tmp_path)
    xs = np.random.default_rng(seed).uniform(-1, 1, 3)
    try:
        check_grads(module.f, (xs, 0.4), argnums=(0, 1), full=True, rtol=1e-5, atol=1e-6)
    except AssertionError as e:
        raise AssertionError(f"{e}\n--- program (seed {seed}) ---\n{src}") from None
