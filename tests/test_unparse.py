"""Generated gast is printed directly (emission/source.py): round trips through the printer.

gast differs from ast where the printer looks (parameters and `except ... as e`
are Name nodes, class checks name gast classes), so each construct here is
printed and parsed back, and must give the same tree.
"""

import ast

import gast
import pytest

from adsrc.emission.source import unparse

SOURCES = {
    "elif chain": "def f(x):\n    if x > 1:\n        y = 1\n    elif x > 0:\n        y = 2\n    elif x:\n"
                  "        y = 3\n    else:\n        y = 4\n    return y\n",
    "nested if in else": "def f(x):\n    if x:\n        y = 1\n    else:\n        y = 2\n        if y:\n"
                         "            y = 3\n    return y\n",
    "parameters": "def f(a, b=1, /, c=2, *args, d, e=3, **kw):\n    return a\n",
    "keyword-only without *args": "def f(a, *, k=1):\n    return (lambda x, y=2, *r, z, **q: x)(a, z=k)\n",
    "except as": "def f(x):\n    try:\n        y = 1 / x\n    except ZeroDivisionError as err:\n        y = err\n"
                 "    except Exception:\n        y = 0\n    return y\n",
    "f-strings": "def f(x):\n    return f'{x!r:>{10}} and {x + 1:.3f} {{braces}}'\n",
    "boolean and comparison precedence": "def f(a, b):\n    return (a or b) and not (a < b < 3) or -a ** 2\n",
    "loops with else": "def f(xs):\n    for i, x in enumerate(xs):\n        if x:\n            break\n"
                       "    else:\n        i = -1\n    while i:\n        i -= 1\n    else:\n        pass\n    return i\n",
}


@pytest.mark.parametrize("name", SOURCES)
def test_printing_gast_round_trips(name):
    source = SOURCES[name]
    printed = unparse(gast.parse(source).body[0])
    assert ast.dump(ast.parse(printed)) == ast.dump(ast.parse(source)), printed


def test_elif_chains_print_as_elif():
    printed = unparse(gast.parse(SOURCES["elif chain"]).body[0])
    assert printed.count("elif ") == 2 and "else:\n        if" not in printed


def test_a_conditional_expression_or_lambda_in_a_comprehension_keeps_its_parentheses():
    # printed bare, `for t in a if c else b` is a comprehension over `a` with the condition `c`: a SyntaxError
    import ast
    from adsrc.conversions import ast_to_gast
    from adsrc.emission.source import unparse
    for text in ["[t for t in (a if c else b)]", "(t for t in (lambda: 1)())", "[t for t in a if (p if q else r)]",
                 "{k: v for k, v in (d1 if c else d2).items()}"]:
        node = ast_to_gast(ast.parse(text, mode="eval").body)
        printed = unparse(node)
        assert ast.dump(ast.parse(printed, mode="eval").body) == ast.dump(ast.parse(text, mode="eval").body), printed
