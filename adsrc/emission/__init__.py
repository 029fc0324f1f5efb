"""Emission: generated gast -> readable Python source (user-line comments), compiled and registered.

source.py prints and compiles; copyprop.py and dce.py tidy the generated code first.
"""

from .source import compile_function, filename_for, register_source, render, unique_filename, unparse  # noqa: F401
