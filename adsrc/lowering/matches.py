"""`match` statements: an if/elif chain on the subject, computed once.

    match mode:                      subject = mode
        case "sum" | "total": ...    if subject == "sum" or subject == "total": ...
        case None: ...               elif subject is None: ...
        case 3 if k > 1: ...         elif subject == 3 and k > 1: ...
        case other: ...              else: other = subject; ...

Value patterns (literals and dotted names), None/True/False, `|` of those, and a last case that
catches anything (`_`, or a name that then holds the subject) are followed; other patterns (sequences,
mappings, classes) are refused by name.
"""

import gast

from .. import astutil


class Matches:
    """Mixin of the Normalizer: `match` statements."""

    def stmt_Match(self, s):
        subject = self.temp("subject")
        self.assign_to(gast.Name(id=subject, ctx=gast.Store(), annotation=None, type_comment=None), s.subject)
        chain = []
        for k, case in enumerate(s.cases):
            test, bind = self.case_test(case.pattern, subject, last=k == len(s.cases) - 1)
            if case.guard is not None:
                if bind is not None:
                    raise self.error(case.guard, "a `case` that captures a name and has a guard is not supported.",
                                     "Test the condition with an `if` inside the case.")
                test = case.guard if test is None else gast.BoolOp(op=gast.And(), values=[test, case.guard])
            body = list(case.body)
            if bind is not None:
                body.insert(0, gast.copy_location(gast.Assign(
                    targets=[gast.Name(id=bind, ctx=gast.Store(), annotation=None, type_comment=None)],
                    value=astutil.name(subject), type_comment=None), case))
            chain.append((test, body, case))
        node = []
        for test, body, case in reversed(chain):
            node = body if test is None else [gast.copy_location(gast.If(test=test, body=body, orelse=node),
                                                                 case.pattern)]
        for inner in node:
            self.stmt = inner
            self.statement(inner)

    def case_test(self, p, subject, last):
        """(the test of pattern p on the subject, or None for one that matches anything; the name it binds)."""
        if isinstance(p, gast.MatchAs) and p.pattern is None:
            if not last:
                raise self.error(p, "a `case` that matches anything must be the last one.", None)
            return None, p.name
        if isinstance(p, gast.MatchValue):
            return gast.Compare(left=astutil.name(subject), ops=[gast.Eq()], comparators=[p.value]), None
        if isinstance(p, gast.MatchSingleton):
            return gast.Compare(left=astutil.name(subject), ops=[gast.Is()],
                                comparators=[astutil.const(p.value)]), None
        if isinstance(p, gast.MatchOr):
            tests = [self.case_test(q, subject, False) for q in p.patterns]
            if any(t is None or b is not None for t, b in tests):
                raise self.error(p, "this `|` pattern is not supported.", "Use `if`/`elif` instead.")
            return gast.BoolOp(op=gast.Or(), values=[t for t, _ in tests]), None
        raise self.error(p, "adsrc follows `case` patterns of values, None/True/False, `|` of those and `_`; "
                            f"not this {type(p).__name__[5:].lower()} pattern.", "Use `if`/`elif` instead.")
