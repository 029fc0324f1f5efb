"""The array API's functions by name, each with the NumPy function whose rule gives its derivative.

`xp.NAME(...)` in a function written against the array API differentiates
with the rule of `np.<NUMPY[NAME]>`; the call itself stays as written, so it
runs in the argument's library. Where the array API names a keyword
differently, KEYWORDS renames it for the rule (`xp.clip(x, min=a)` is
`np.clip(x, a_min=a)` to the rule). Names not listed are refused with an
error naming the function (`refusal`).
"""

# differentiable: array-API name -> NumPy name (whose rule applies)
DIFFERENTIABLE = {
    # elementwise
    "abs": "absolute", "acos": "arccos", "acosh": "arccosh", "add": "add", "asin": "arcsin", "asinh": "arcsinh",
    "atan": "arctan", "atan2": "arctan2", "atanh": "arctanh", "cos": "cos", "cosh": "cosh",
    "divide": "divide", "exp": "exp", "expm1": "expm1", "hypot": "hypot", "log": "log", "log1p": "log1p",
    "log2": "log2", "log10": "log10", "logaddexp": "logaddexp", "multiply": "multiply", "negative": "negative", "positive": "positive", "pow": "power", "reciprocal": "reciprocal",
    "sin": "sin", "sinh": "sinh", "sqrt": "sqrt", "square": "square", "subtract": "subtract", "tan": "tan",
    "tanh": "tanh", "where": "where",
    # reductions
    "sum": "sum", "mean": "mean", "prod": "prod", "max": "max", "min": "min", "std": "std", "var": "var",
    "cumulative_sum": "cumulative_sum",
    # linear algebra
    "matmul": "matmul", "tensordot": "tensordot", "vecdot": "vecdot", "matrix_transpose": "matrix_transpose",
    # manipulation
    "reshape": "reshape", "permute_dims": "transpose",
    "expand_dims": "expand_dims", "squeeze": "squeeze", "flip": "flip", "broadcast_to": "broadcast_to",
    "moveaxis": "moveaxis",
    # creation from a value
    "asarray": "asarray",
}

# refused for now, with the reason (their rules multiply by boolean masks or index in ways the array API
# forbids; see the error message)
NOT_YET = {"clip": "its rule multiplies the cotangent by a boolean mask",
           "maximum": "its rule multiplies the cotangent by a boolean mask",
           "minimum": "its rule multiplies the cotangent by a boolean mask",
           "concat": "its rule splits the cotangent into a list the array API's functions do not take",
           "stack": "its rule splits the cotangent with NumPy's implicit trailing axes"}

# constants for differentiation (their outputs carry no gradient): array-API name -> NumPy name
CONSTANT = {
    "argmax": "argmax", "argmin": "argmin", "argsort": "argsort", "sign": "sign", "floor": "floor", "ceil": "ceil",
    "trunc": "trunc", "round": "round", "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite",
    "equal": "equal", "not_equal": "not_equal", "less": "less", "less_equal": "less_equal", "greater": "greater",
    "greater_equal": "greater_equal", "logical_and": "logical_and", "logical_or": "logical_or",
    "logical_not": "logical_not", "zeros": "zeros", "ones": "ones", "empty": "empty", "full": "full",
    "zeros_like": "zeros_like", "ones_like": "ones_like", "full_like": "full_like", "empty_like": "empty_like",
    "arange": "arange", "linspace": "linspace", "eye": "eye", "all": "all", "any": "any",
}

# NumPy rule parameter for an array-API keyword, by function
KEYWORDS = {
    "std": {"correction": "ddof"},
    "var": {"correction": "ddof"},
}

# namespace attributes that are not functions to differentiate (dtypes, constants, inspection)
NOT_FUNCTIONS = frozenset({"float32", "float64", "int32", "int64", "bool", "pi", "e", "inf", "nan", "newaxis",
                           "finfo", "iinfo", "result_type", "can_cast", "isdtype", "__array_api_version__"})


def numpy_function(name):
    """The NumPy callable whose rule `xp.<name>` uses, or None."""
    import numpy as np
    target = DIFFERENTIABLE.get(name) or CONSTANT.get(name)
    return getattr(np, target, None) if target is not None else None


def refusal(name):
    """Why `xp.<name>(...)` is refused, and what to do."""
    if name in NOT_YET:
        return (f"adsrc does not differentiate the array-API function `xp.{name}` yet: {NOT_YET[name]}, which "
                "array-API arrays do not allow. Write the step with mapped functions (`xp.where` for a masked "
                "choice, `xp.concat` of expanded arrays for a stack), or convert the arrays to NumPy (np.asarray).")
    return (f"adsrc has no derivative rule for the array-API function `xp.{name}` (functions of the namespace from "
            f"array_namespace(x) or x.__array_namespace__() are mapped by name to NumPy's rules; `{name}` is not "
            f"mapped). Mapped: {', '.join(sorted(DIFFERENTIABLE))}; constants: {', '.join(sorted(CONSTANT))}. "
            "Write the step with mapped functions, or compute it outside the differentiated function.")
