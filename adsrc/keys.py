"""Specialization keys, computed by a small function generated for each gradient.

A call's key is the kind of each differentiated argument ('array', 'scalar'
or 'other') followed by the type and value of each static argument, then,
only when some other parameter holds an object of the user's class or a
function not seen there before, the names of those parameters (so that the
call misses the cache and its gradient learns them, object_args.py), then the
type of each parameter keyed by its class. Every call computes it, so the
function that does is generated for the particular signature (positions,
names, defaults) to cost well under a microsecond.
"""

import inspect

import numpy as np

from . import names

_EMPTY = inspect.Parameter.empty
SIMPLE_STATIC = frozenset({int, float, bool, str, type(None), complex, bytes})
# values of exactly these types are neither objects of the user's classes nor functions: they never select a
# specialization of their own (object_args.py), and a call passing only these may skip looking (gradient.py)
PLAIN_TYPES = frozenset({np.ndarray, float, int, bool, complex, str, bytes, type(None), list, tuple, dict, set,
                         frozenset, np.float64, np.float32, np.int64, np.int32, np.bool_, np.complex128})


class Identity:
    """Key marker: the static value that follows is an object compared by identity (`self`)."""


def make_key_function(differentiated, statics, arg_kind, static_key, fname, by_identity=(), typed=(), others=(),
                      new_role=None):
    """A function (args, kwargs) -> key.

    differentiated: [(position, name, default)] of the differentiated parameters;
    statics: [(position or None, name, default)] of the static parameters;
    by_identity: names of static parameters keyed by the identity of their value;
    typed: [(position or None, name, default)] of parameters keyed by their value's type (object_args.py);
    others: [(position or None, name, default)] of the remaining parameters, whose names the key has when
    new_role(value) is true of their values (a type in plain_types never is).
    """
    namer = names.Namer({"args", "kwargs", "n"})
    lines = ["def key(args, kwargs):", "    n = len(args)"]
    env = {"_nd": np.ndarray, "F64": np.dtype(np.float64), "arg_kind": arg_kind, "static_key": static_key,
           "SIMPLE": SIMPLE_STATIC, "fname": fname, "missing": _missing, "Identity": Identity,
           "PLAIN": PLAIN_TYPES, "new_role": new_role}
    parts = []

    def fetch(var, pos, name, default):
        default_name = namer.fresh("default_" + name)
        env[default_name] = default
        fallback = f"kwargs[{name!r}] if {name!r} in kwargs else " + (
            f"missing(fname, {name!r})" if default is _EMPTY else default_name)
        if pos is None:
            lines.append(f"    {var} = {fallback}")
        else:
            lines.append(f"    {var} = args[{pos}] if n > {pos} else {fallback}")

    for pos, name, default in differentiated:
        v, k = namer.fresh("v"), namer.fresh("k")
        fetch(v, pos, name, default)
        lines.append(f"    {k} = 'scalar' if type({v}) is float else 'array' if type({v}) is _nd and "
                     f"({v}.dtype is F64 or {v}.dtype.kind == 'f') else arg_kind({v}, fname, {name!r})")
        parts.append(k)
    for pos, name, default in statics:
        v, t = namer.fresh("s"), namer.fresh("t")
        fetch(v, pos, name, default)
        if name in by_identity:
            lines.append(f"    {t}, {v} = Identity, id({v})")
            parts += [t, v]
            continue
        lines.append(f"    {t} = type({v})")
        lines.append(f"    if {t} not in SIMPLE:")
        lines.append(f"        {t}, {v} = tuple, static_key({v}, {name!r}, fname)")
        parts += [t, v]
    news = _others(lines, namer, env, others)
    typed_parts = []
    for pos, name, default in typed:
        v = namer.fresh("o")
        fetch(v, pos, name, default)
        typed_parts.append(f"type({v})")
    if news:
        lines.append(f"    if {news}:")
        lines.append(f"        return ({', '.join(parts + [news] + typed_parts)},)")
    lines.append(f"    return ({', '.join(parts + typed_parts)},)")
    exec(compile("\n".join(lines), f"<adsrc key of {fname}>", "exec"), env)
    return env["key"]


def _others(lines, namer, env, others):
    """Lines binding a tuple of the names of the other parameters whose values take a new role (an object of
    the user's class, a function); returns the tuple's name, or None without such parameters."""
    if not others:
        return None
    news = namer.fresh("new")
    lines.append(f"    {news} = ()")
    for pos, name, default in others:
        v, default_name = namer.fresh("p"), namer.fresh("default_" + name)
        env[default_name] = None if default is _EMPTY else default      # (missing: the call itself says so)
        fallback = f"kwargs.get({name!r}, {default_name})"
        lines.append(f"    {v} = args[{pos}] if n > {pos} else {fallback}" if pos is not None else
                     f"    {v} = {fallback}")
        lines.append(f"    if type({v}) not in PLAIN and new_role({v}):")
        lines.append(f"        {news} += ({name!r},)")
    return news


def _missing(fname, name):
    raise TypeError(f"`{fname}` is missing the argument `{name}`")


def hashable(x):
    """Can x be a dictionary key (or be looked up in a table keyed by objects)?"""
    try:
        hash(x)
        return True
    except TypeError:
        return False
