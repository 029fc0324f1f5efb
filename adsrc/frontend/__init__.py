"""Frontend: a user function's source, parsed with gast, with its names resolvable (see source.py)."""

from .source import (UserFunction, higher_order_error, is_gradient, lambda_to_def, load, local_names,  # noqa: F401
                     param_names, resolve, signature, source_function, unwrap, varargs_hint)
from .static_values import static_sequence, static_value  # noqa: F401
