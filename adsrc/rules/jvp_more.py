"""Forward templates for general rules beyond the core ones in jvp_rules.py (same format as its TEMPLATES:
rule name -> {parameter: template over `g`, that parameter's tangent}); their helpers live in jvp_helpers.py."""

TEMPLATES = {}
LINEAR = []
MULTILINEAR = []
