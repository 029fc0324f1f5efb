"""math.lgamma and math.gamma: their derivatives need ψ and its derivatives, which `math` lacks.

`math_polygamma(n, x)` computes ψ⁽ⁿ⁾(x) for Python floats (n = 0 is the digamma function) without SciPy:
the recurrence ψ⁽ⁿ⁾(x) = ψ⁽ⁿ⁾(x + 1) - (-1)ⁿ n! / x⁽ⁿ⁺¹⁾ moves x up to 15 or more, where the asymptotic series
(Bernoulli numbers B₂ ... B₁₄) is accurate to double precision. It is differentiable in x to any order.
"""

import math

from ..runtime import helper

_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)      # B_2, B_4, ..., B_14
_SHIFTED = 15.0


@helper
def math_polygamma(n, x):
    """ψ⁽ⁿ⁾(x) of a float x (n an integer >= 0); NaN at the poles 0, -1, -2, ..."""
    n = int(n)
    x = float(x)
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    sign = -1.0 if n % 2 == 0 else 1.0          # (-1) ** (n + 1)
    fact = math.factorial(n)
    total = 0.0
    while x < _SHIFTED:
        total += (1.0 / x if n == 0 else fact / x ** (n + 1))
        x += 1.0
    if n == 0:
        series = math.log(x) - 0.5 / x
        for k, b in enumerate(_BERNOULLI, start=1):
            series -= b / (2 * k * x ** (2 * k))
        return series - total
    series = math.factorial(n - 1) / x ** n + fact / (2.0 * x ** (n + 1))
    for k, b in enumerate(_BERNOULLI, start=1):
        series += b * math.factorial(2 * k + n - 1) / (math.factorial(2 * k) * x ** (2 * k + n))
    return sign * series + sign * total


def install(elementwise, functions, always):
    elementwise(math.lgamma, "math.lgamma", "g * math_polygamma(0, x)")
    elementwise(math.gamma, "math.gamma", "g * ans * math_polygamma(0, x)")
    elementwise(math_polygamma, "math_polygamma", None, "g * math_polygamma(x + 1, y)")
    for fn in (math.lgamma, math.gamma, math_polygamma):
        functions[fn].scalar_out = always
