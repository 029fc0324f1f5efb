"""Command line: python -m adsrc show FILE.py:FUNC [options], python -m adsrc rules."""

import argparse
import ast
import importlib.util
import os
import sys


def _load(target):
    path, sep, name = target.rpartition(":")
    if not sep or not path or not name:
        raise SystemExit(f"adsrc: expected FILE.py:FUNCTION, got {target!r}")
    if not os.path.exists(path):
        raise SystemExit(f"adsrc: no such file: {path}")
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in sys.path:
        sys.path.insert(0, directory)
    modname = "_adsrc_cli_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(modname, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    spec.loader.exec_module(module)
    obj = module
    for part in name.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise SystemExit(f"adsrc: {path} has no function {name!r}") from None
    return getattr(obj, "fun", obj)   # an @adsrc.grad-decorated function: its undecorated function


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


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m adsrc", description="adsrc: inspect generated gradient code")
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("show", help="print the generated source of a function's gradient")
    show.add_argument("target", help="FILE.py:FUNCTION")
    show.add_argument("--argnums", type=_argnums, default=0, help="arguments to differentiate, e.g. 0 or 0,1")
    show.add_argument("--stage", choices=["adjoint", "lowered"], default="adjoint",
                      help="the gradient code (adjoint) or the program with cond/scan/while_loop (lowered)")
    show.add_argument("--static", type=_static, action="append", default=[], metavar="NAME=VALUE",
                      help="value of a static argument (a Python literal); repeatable")
    show.add_argument("--value-and-grad", action="store_true", help="show value_and_grad's code")
    sub.add_parser("rules", help="list the callables adsrc has derivative rules for")
    args = parser.parse_args(argv)

    import adsrc
    from adsrc.errors import TransformError

    if args.command == "rules":
        from adsrc import rule_table
        print(rule_table.report())
        return 0
    fun = _load(args.target)
    statics = dict(args.static)
    make = adsrc.value_and_grad if args.value_and_grad else adsrc.grad
    try:
        kwargs = {"static_argnames": tuple(statics)} if statics else {}
        g = make(fun, argnums=args.argnums, **kwargs)
        print(g.source(stage=args.stage, **statics), end="")
    except (TransformError, ValueError, TypeError) as e:
        print(f"adsrc: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
