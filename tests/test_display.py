"""g.source() in a notebook: a str whose HTML shows the code highlighted and the user's lines on tinted rows."""

import functools
import html
import importlib.util
import inspect
import re
import sys

import numpy as np

import adsrc


def piecewise(x, y):
    if x[0] < 0:
        return np.sum(x * y)
    return np.sum(np.sin(x) & 1 if y[0] > 1 else np.exp(x))


IF_LINE = inspect.getsourcelines(piecewise)[1] + 1      # `if x[0] < 0:` in this file


def _text_of(markup):
    """The text a browser shows for the HTML (tags removed, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def _user_lines(source):
    return [line.strip() for line in source.splitlines() if line.strip().startswith("# line ")]


def test_source_is_a_str_that_prints_as_before():
    src = adsrc.grad(piecewise).source()
    assert isinstance(src, str)
    assert str(src) == src and src.startswith("def piecewise_grad(x, y):")
    assert src.splitlines()[1].strip() == f"# line {IF_LINE}: if x[0] < 0:"


def test_html_highlights_the_code_with_pygments():
    assert importlib.util.find_spec("pygments"), "pygments is a test dependency: install .[test]"
    src = adsrc.grad(piecewise).source()
    markup = src._repr_html_()
    assert markup.startswith('<div class="adsrc-source"><pre')
    assert '<span style="color: #008000; font-weight: bold">def</span>' in markup     # keywords highlighted
    assert "x[0] < 0" not in markup and "&lt;" in markup and "&amp;" in markup       # the code is escaped
    assert _text_of(markup) == src.rstrip("\n")                                       # nothing lost or added
    user = re.findall(r'<span class="adsrc-user-line" style="[^"]*">(.*?)</span>\n', markup + "\n")
    assert len(user) == len(_user_lines(src)) >= 4
    first = user[0]
    assert _text_of(first) == f"# line {IF_LINE}: if x[0] < 0:"
    assert '<span style="color: #008000; font-weight: bold">if</span>' in first      # the user's code as code


def test_html_without_pygments_is_escaped_plain_text(monkeypatch):
    for name in [m for m in sys.modules if m == "pygments" or m.startswith("pygments.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pygments", None)          # `import pygments` raises ImportError
    src = adsrc.grad(piecewise).source()
    markup = src._repr_html_()
    assert "color: #008000" not in markup                       # no highlighting
    assert "&lt;" in markup and "x[0] < 0" not in markup
    assert _text_of(markup) == src.rstrip("\n")
    assert markup.count('class="adsrc-user-line"') == len(_user_lines(src))


def test_markdown_is_a_fenced_python_block():
    src = adsrc.grad(piecewise).source()
    md = src._repr_markdown_()
    assert md.startswith("```python\ndef piecewise_grad(x, y):") and md.endswith("\n```\n")


def test_every_source_displays(tmp_path):
    lowered = adsrc.grad(piecewise).source(stage="lowered")
    assert "cond(" in _text_of(lowered._repr_html_())
    partial_source = adsrc.grad(functools.partial(piecewise, y=np.ones(3))).source()
    assert hasattr(partial_source, "_repr_html_")


def test_ipython_shows_the_code_not_a_quoted_string():
    class Printer:
        def text(self, text):
            self.shown = text
    printer = Printer()
    src = adsrc.grad(piecewise).source()
    src._repr_pretty_(printer, False)
    assert printer.shown == src.rstrip("\n") and "\\n" not in printer.shown
