"""Command line: python -m adsrc show FILE.py:NAME [options], python -m adsrc rules."""

import argparse
import ast
import contextlib
import importlib.util
import inspect
import os
import sys

SHOW_HELP = """\
Print the generated gradient code of NAME in FILE.py.

FILE.py is imported as a module to find NAME: its top-level code runs
(imports, definitions, and any other statement at top level, whose output
goes to stderr so that stdout holds only the generated code); its
`if __name__ == "__main__":` block does not run.

NAME may be a function, a callable object, a functools.partial, a method
(Class.method is the plain function) or an adsrc.grad / adsrc.value_and_grad
object, whose argnums, has_aux and static arguments are used (options given
here override them). Static arguments without a default need --static.
"""


def _load(target):
    path, sep, name = target.rpartition(":")
    if not sep or not path or not name:
        raise SystemExit(f"adsrc: expected FILE.py:NAME, got {target!r}")
    if not os.path.exists(path):
        raise SystemExit(f"adsrc: no such file: {path}")
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in sys.path:
        sys.path.insert(0, directory)
    modname = "_adsrc_cli_" + os.path.splitext(os.path.basename(path))[0]   # so __name__ != "__main__"
    spec = importlib.util.spec_from_file_location(modname, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    with contextlib.redirect_stdout(sys.stderr):
        spec.loader.exec_module(module)
    obj = module
    for part in name.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise SystemExit(f"adsrc: {path} has no function {name!r}") from None
    return obj


def _argnums(text):
    try:
        nums = tuple(int(p) for p in text.split(",") if p.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"--argnums expects integers like 0 or 0,2, got {text!r}") from None
    return nums[0] if len(nums) == 1 else nums


def _static(text):
    name, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"--static expects NAME=VALUE, got {text!r}")
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        parsed = value
    return name.strip(), parsed


def _names(value):
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def gradient_for(obj, argnums=None, has_aux=False, value_and_grad=False, statics=()):
    """(gradient object, notes) for what `show` prints: obj's own settings, overridden by the options given."""
    import adsrc
    from adsrc.fixed_gradients import FixedGradient
    from adsrc.gradient import Gradient
    if isinstance(obj, (Gradient, FixedGradient)):
        fun, options, with_value = obj.fun, dict(obj.options), obj.with_value
    else:
        fun, options, with_value = obj, {}, False
    if argnums is not None:
        options["argnums"] = argnums
    if has_aux:
        options["has_aux"] = True
    given = dict(statics)
    names = _names(options.get("static_argnames"))
    options["static_argnames"] = names + tuple(n for n in given if n not in names)
    g = (adsrc.value_and_grad if with_value or value_and_grad else adsrc.grad)(fun, **options)
    inner = g.inner if isinstance(g, FixedGradient) else g
    known = g.parts.known() if isinstance(g, FixedGradient) else {}
    missing, notes = [], []
    for name, (pos, default) in inner._statics.items():
        if name in given or name in known:
            continue
        if default is inspect.Parameter.empty:
            missing.append(name)
        else:
            notes.append(f"{name}={default!r} (its default; choose another with --static {name}=VALUE)")
    if missing:
        listed = ", ".join(f"`{n}`" for n in missing)
        verb, them = ("is a static argument", "its value") if len(missing) == 1 else \
            ("are static arguments", "their values")
        flags = " ".join(f"--static {n}=VALUE" for n in missing)
        raise ValueError(f"{listed} {verb} of `{inner._fname}` without a default, so the generated code depends "
                         f"on {them}: give {flags}")
    return g, notes


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m adsrc", description="adsrc: inspect generated gradient code")
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("show", help="print the generated source of a function's gradient (imports FILE.py)",
                          description=SHOW_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    show.add_argument("target", metavar="FILE.py:NAME", help="the file and the function (or object) in it")
    show.add_argument("--argnums", type=_argnums, default=None,
                      help="arguments to differentiate, e.g. 0 or 0,1 (default: the object's, else 0)")
    show.add_argument("--has-aux", action="store_true",
                      help="the function returns (value, aux): show the code that returns aux with the gradient")
    show.add_argument("--stage", choices=["adjoint", "lowered"], default="adjoint",
                      help="the gradient code (adjoint) or the program with cond/scan/while_loop (lowered)")
    show.add_argument("--static", type=_static, action="append", default=[], metavar="NAME=VALUE",
                      help="value of a static argument (a Python literal); repeatable")
    show.add_argument("--value-and-grad", action="store_true", help="show value_and_grad's code")
    sub.add_parser("rules", help="list the callables adsrc has derivative rules for")
    args = parser.parse_args(argv)

    from adsrc.errors import TransformError

    if args.command == "rules":
        from adsrc import rule_table
        print(rule_table.report())
        return 0
    obj = _load(args.target)
    try:
        g, notes = gradient_for(obj, args.argnums, args.has_aux, args.value_and_grad, args.static)
        text = g.source(stage=args.stage, **dict(args.static))
    except (TransformError, ValueError, TypeError) as e:
        print(f"adsrc: {e}", file=sys.stderr)
        return 1
    for note in notes:
        print(f"adsrc: the specialization for {note}", file=sys.stderr)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
