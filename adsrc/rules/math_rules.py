"""Derivative rules for the `math` module (scalars in, Python floats out)."""

import math

from . import FUNCTIONS, NOT_STATIC, elementwise, math_gamma, nondiff

UNARY = {
    math.exp: "g * ans",
    math.expm1: "g * (ans + 1.0)",
    math.log1p: "g / (1.0 + x)",
    math.log2: "g / (x * 0.6931471805599453)",
    math.log10: "g / (x * 2.302585092994046)",
    math.sqrt: "g * 0.5 / ans",
    math.sin: "g * math.cos(x)",
    math.cos: "-g * math.sin(x)",
    math.tan: "g * (1.0 + ans * ans)",
    math.asin: "g / math.sqrt(1.0 - x * x)",
    math.acos: "-g / math.sqrt(1.0 - x * x)",
    math.atan: "g / (1.0 + x * x)",
    math.sinh: "g * math.cosh(x)",
    math.cosh: "g * math.sinh(x)",
    math.tanh: "g * (1.0 - ans * ans)",
    math.asinh: "g / math.sqrt(x * x + 1.0)",
    math.acosh: "g / math.sqrt(x * x - 1.0)",
    math.atanh: "g / (1.0 - x * x)",
    math.fabs: "g * (1.0 if x > 0 else -1.0 if x < 0 else 0.0)",
    math.erf: "g * 1.1283791670955126 * math.exp(-x * x)",
    math.erfc: "-g * 1.1283791670955126 * math.exp(-x * x)",
    math.degrees: "g * 57.29577951308232",
    math.radians: "g * 0.017453292519943295",
}
if hasattr(math, "exp2"):
    UNARY[math.exp2] = "g * ans * 0.6931471805599453"
if hasattr(math, "cbrt"):
    UNARY[math.cbrt] = "g / (3.0 * ans * ans)"

for _fn, _t in UNARY.items():
    elementwise(_fn, "math." + _fn.__name__, _t)


def _always(**_):
    return True


def _log_x(base=NOT_STATIC, **_):
    return "g / x" if base is None else "g / (x * math.log(base))"


elementwise(math.log, "math.log", _log_x, "-g * ans / (base * math.log(base))", signature="x, base=None, /")
elementwise(math.pow, "math.pow", "power_dx(g, x, y)", "power_dy(g, x, ans)")
elementwise(math.atan2, "math.atan2", "g * y / (x * x + y * y)", "-g * x / (x * x + y * y)")
elementwise(math.copysign, "math.copysign", "g * math.copysign(1.0, x) * math.copysign(1.0, ans)", None)
elementwise(math.fmod, "math.fmod", "g", "-g * math.trunc(x / y)")           # x - trunc(x / y) y
for _fn in list(UNARY) + [math.log, math.pow, math.atan2, math.copysign, math.fmod]:
    FUNCTIONS[_fn].scalar_out = _always
math_gamma.install(elementwise, FUNCTIONS, _always)
for _fn in (math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite, math.isclose,
            math.factorial, math.comb, math.perm, math.gcd):
    nondiff(_fn, "math." + _fn.__name__)
