"""Schemas from Python callables: JSON Schemas, validation, binding and result serialization.

:func:`build_function_schema` reads a function's signature, type hints and docstring and
returns a :class:`FunctionSchema` that holds the input and output JSON Schemas and knows how to
validate the model's arguments, bind them (with the caller's context and injected values) for
the call, and serialize what the function returns.
"""

from toolkit.schema._builder import build_function_schema
from toolkit.schema._docstring import DocstringInfo, parse_docstring
from toolkit.schema._function_schema import FunctionSchema
from toolkit.schema._injection import is_context_annotation, is_injected_annotation
from toolkit.schema._refs import inline_local_refs
from toolkit.views._describe import describe_type

__all__ = [
    "DocstringInfo",
    "FunctionSchema",
    "build_function_schema",
    "describe_type",
    "inline_local_refs",
    "is_context_annotation",
    "is_injected_annotation",
    "parse_docstring",
]
