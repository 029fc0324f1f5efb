"""Errors raised inside generated code get a note naming the user's line it came from."""

import linecache

from . import runtime


def annotate(e):
    """Add a note naming the user's line to an error raised inside generated code (and put back the NumPy
    error state a `with np.errstate(...)` block it left had set)."""
    runtime.errstate_reset()
    tb = e.__traceback__
    notes = []
    while tb is not None:
        fname = tb.tb_frame.f_code.co_filename
        if fname.startswith("<adsrc "):
            note = origin_note(fname, tb.tb_lineno)
            if note:
                notes.append(note)
        tb = tb.tb_next
    if not notes or getattr(e, "_adsrc_annotated", False):
        return
    try:
        e._adsrc_annotated = True
    except AttributeError:
        return
    if hasattr(e, "add_note"):
        e.add_note(notes[-1])
    elif len(e.args) == 1 and isinstance(e.args[0], str):
        e.args = (e.args[0] + "\n" + notes[-1],)   # Python 3.10 has no exception notes


def origin_note(filename, lineno):
    lines = linecache.getlines(filename)
    if not lines or lineno > len(lines):
        return None
    origin = filename[len("<adsrc "):-1].split(" from ", 1)[-1]
    for i in range(lineno - 1, -1, -1):
        text = lines[i].strip()
        if text.startswith("# line "):
            user_line, _, code = text[len("# line "):].partition(":")
            path = origin.rsplit(":", 1)[0]
            return (f"adsrc: the failing generated line {lineno} `{lines[lineno - 1].strip()}` comes from "
                    f"{path}, line {user_line}: {code.strip()}")
    return None

