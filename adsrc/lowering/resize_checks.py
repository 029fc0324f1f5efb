"""`x.resize(shape)` changes x's buffer, which NumPy allows only when nothing else refers to it: with
refcheck=True (the default) it raises ValueError if another name holds the array or a view of it, and always
if x is itself a view of another array. adsrc follows a resize as a new value (functionalize.py); where the alias
analysis says another name of the function may share x's object that way, the call is refused here, naming the
names, rather than computing a value where Python raises."""

import gast

from ..analysis import relations as rel


def check_resize(fz, s, state):
    """Refuse `r.resize(...)` (MutatingCall s) when r may be a view of another name's array, or, with refcheck not
    written False, when another name may refer to r's array or a part of it."""
    r = s.receiver
    refcheck = s.args[1] if len(s.args) > 1 else None
    checked = not (isinstance(refcheck, gast.Constant) and refcheck.value is False)
    views_of, sharing = [], []
    for m in sorted(state.pts):
        if m == r or m not in fz.user_names:
            continue
        kinds = {k for k, _ in rel.relations(state, m, r)}
        if rel.BASE in kinds:
            views_of.append(m)
        elif kinds:
            sharing.append(m)
    where = f"`{r}.resize(...)`"
    if views_of:
        raise fz.uf.error(s.loc, f"{where}: `{r}` may be a view of `{views_of[0]}`'s array, which NumPy does not "
                                 "resize (ValueError: cannot resize this array: it does not own its data).",
                          f"Resize a copy (`{r} = {r}.copy()` first), or use np.resize / np.pad for a new array.")
    if checked and sharing:
        names = ", ".join(f"`{m}`" for m in sharing)
        raise fz.uf.error(s.loc, f"{where}: {names} may refer to the same array or to a part of it, and NumPy's "
                                 "reference check then raises ValueError (refcheck=True).",
                          "Pass refcheck=False if the other names are meant to see the new array, or resize a "
                          f"copy (`{r} = {r}.copy()` first).")
