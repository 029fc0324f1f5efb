"""Generated source as a notebook shows it: syntax-highlighted, with the user's lines standing out.

`Gradient.source()` returns a `Source`: a `str` (print it, compare it, write
it to a file) that Jupyter and IPython display as highlighted code. Each
`# line N: ...` comment, which names the line of your function the code
below it comes from, is shown on a tinted row with your code highlighted as
code rather than faded like a comment. Pygments does the highlighting when
it is installed; without it the code is shown plain (escaped) with the same
tinted rows.
"""

import html
import re

from . import transform

USER_LINE = re.compile(r"^(\s*)# line (\d+): (.*)$")

_PRE_STYLE = ("font-family: monospace; font-size: 0.9em; line-height: 1.35; padding: 0.6em 0.8em; "
              "background: #f8f8f8; border: 1px solid #e3e3e3; border-radius: 4px; overflow-x: auto")
_USER_STYLE = "background-color: #fff3c4; font-weight: bold"
_LABEL_STYLE = "color: #7a5d00"


class Source(str):
    """Generated Python source: a str that notebooks display highlighted."""

    __slots__ = ()

    def _repr_html_(self):
        return to_html(self)

    def _repr_markdown_(self):
        fence = "````" if "```" in self else "```"
        return f"{fence}python\n{self.rstrip()}\n{fence}\n"

    def _repr_pretty_(self, printer, cycle):
        printer.text(str(self).rstrip("\n"))     # IPython's terminal: the code itself, not a quoted string


def to_html(text):
    """HTML for generated source: <pre> with highlighted code and tinted rows for the user's lines."""
    lines = text.rstrip("\n").split("\n")
    highlight = _pygments()
    code = highlight(text.rstrip("\n")) if highlight else None
    rendered = code.split("\n") if code is not None else None
    if rendered is None or len(rendered) != len(lines):
        rendered = [html.escape(line) for line in lines]
    out = []
    for line, shown in zip(lines, rendered):
        m = USER_LINE.match(line)
        if m:
            indent, number, user_code = m.groups()
            user_html = highlight(user_code) if highlight else html.escape(user_code)
            shown = (f'{indent}<span class="adsrc-user-line" style="{_USER_STYLE}">'
                     f'<span style="{_LABEL_STYLE}"># line {number}:</span> {user_html}</span>')
        out.append(shown)
    body = "\n".join(out)
    return f'<div class="adsrc-source"><pre style="{_PRE_STYLE}">{body}</pre></div>'


def _pygments():
    """A function highlighting Python into inline-styled HTML spans, or None without Pygments."""
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
    except ImportError:
        return None
    lexer = PythonLexer(stripnl=False, ensurenl=False)
    formatter = HtmlFormatter(nowrap=True, noclasses=True, style="default")

    def run(code):
        return highlight(code, lexer, formatter).rstrip("\n")
    return run
def unit_source(unit):
    """Source of a unit followed by the units it calls (each once)."""
    seen, out, stack = set(), [], [unit]
    while stack:
        u = stack.pop(0)
        if id(u) in seen:
            continue
        seen.add(id(u))
        out.append(u.text)
        stack.extend(u.callees)
    return "\n\n".join(t.rstrip("\n") for t in out) + "\n"


def lowered_source(fun, statics=None, key=()):
    """The lowered program of fun and of the user functions it calls."""
    seen, out, stack = set(), [], [fun]
    while stack:
        f = stack.pop(0)
        if f in seen:
            continue
        seen.add(f)
        lw = transform.lowered(f, statics, key) if f is fun else transform.lowered(f)
        text, _ = lw.source()
        out.append(text)
        stack.extend(transform.called_functions(lw))
    return "\n\n".join(t.rstrip("\n") for t in out) + "\n"

