""":class:`FunctionSchema`: a function's schemas plus its validator, binder and serializer."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

from toolkit.context import ToolContext
from toolkit.errors import ErrorCode, ToolError
from toolkit.schema._callable import EMPTY, ParamInfo
from toolkit.schema._serialize import serialize_plain
from toolkit.tool import ArgumentProblem, InvalidArguments, ProblemKind

__all__ = ["FunctionSchema"]

_POSITIONAL_ONLY = inspect.Parameter.POSITIONAL_ONLY

# pydantic error types that mean "right kind of value, wrong value".
_VALUE_ERRORS = frozenset(
    {
        "literal_error",
        "enum",
        "value_error",
        "assertion_error",
        "multiple_of",
        "finite_number",
        "decimal_max_digits",
        "decimal_max_places",
        "decimal_whole_digits",
        "uuid_version",
        "url_too_long",
    }
)
_VALUE_ERROR_PREFIXES = ("greater_than", "less_than", "too_short", "too_long", "string_")
_TYPE_ERROR_SUFFIXES = ("_type", "_parsing", "_instance_of", "_class_of")


class _Output(Protocol):
    def serialize(self, value: Any) -> tuple[str, Any]: ...


def _problem_kind(error_type: str) -> ProblemKind:
    if error_type == "missing":
        return "missing"
    if error_type in _VALUE_ERRORS or error_type.startswith(_VALUE_ERROR_PREFIXES):
        # string_type is a type error even though it starts with "string_"
        return "type" if error_type.endswith(_TYPE_ERROR_SUFFIXES) else "value"
    if error_type.endswith(_TYPE_ERROR_SUFFIXES) or "parsing" in error_type:
        return "type"
    return "other"


def _to_problem(error: ErrorDetails) -> ArgumentProblem:
    return ArgumentProblem(
        param=".".join(str(part) for part in error["loc"]),
        kind=_problem_kind(error["type"]),
        message=error["msg"],
    )


@dataclass(frozen=True, slots=True, eq=False)
class FunctionSchema:
    """Everything the toolkit needs to expose and call one Python function as a tool.

    Built by :func:`~toolkit.schema.build_function_schema`.

    Attributes:
        description: The tool description for the model (from the docstring unless given).
        input_schema: JSON Schema 2020-12 of the arguments the model sends.
        output_schema: JSON Schema of the structured result (an object), or ``None``.
        wraps_result: Whether structured results are wrapped as ``{"result": value}``.
        injected: Parameters left out of the schema (context, ``Injected``, framework-injected).
        context_params: Parameters annotated ``ToolContext``.
        param_names: Every parameter of the function, in signature order (injected included).
        is_async: Whether calling the function returns an awaitable.
    """

    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    wraps_result: bool
    injected: frozenset[str]
    context_params: tuple[str, ...]
    param_names: tuple[str, ...]
    is_async: bool
    _validator: Any = field(repr=False)  # the arguments model's SchemaValidator
    _fields: tuple[tuple[str, str], ...] = field(repr=False)  # (model field, parameter)
    _params: tuple[ParamInfo, ...] = field(repr=False)
    _output: _Output | None = field(repr=False)

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Validate and coerce the model's arguments; fill defaults.

        Keys that are not parameters are ignored here (the invoker reports them).

        Args:
            arguments: Parameter values by name, as decoded from the model's JSON.

        Returns:
            Python values by parameter name, for every parameter of the schema.

        Raises:
            InvalidArguments: One :class:`~toolkit.tool.ArgumentProblem` per validation error.
        """
        try:
            values = self._validator.validate_python(arguments).__dict__
        except ValidationError as exc:
            problems = [_to_problem(e) for e in exc.errors(include_url=False)]
            raise InvalidArguments(problems) from None
        return {param: values[name] for name, param in self._fields}

    def bind(
        self, validated: dict[str, Any], context: ToolContext
    ) -> tuple[list[Any], dict[str, Any]]:
        """Positional and keyword arguments for calling the function.

        The context goes to ``ToolContext`` parameters; injected parameters come from
        ``context.injected``, then ``context.values``, then their default.

        Args:
            validated: The output of :meth:`validate`.
            context: The call's context.

        Returns:
            ``(args, kwargs)``: call the function as ``fn(*args, **kwargs)``.

        Raises:
            ToolError: ``EXECUTION_ERROR`` when an injected parameter has no value.
        """
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for param in self._params:
            if param.context:
                value: Any = context
            elif param.injected:
                value = _injected_value(param, context)
            elif param.name in validated:
                value = validated[param.name]
            elif param.default is not EMPTY:
                value = _default_of(param)
            else:
                raise ToolError(
                    f"Argument `{param.name}` is missing after validation.",
                    code=ErrorCode.EXECUTION_ERROR,
                )
            if param.kind is _POSITIONAL_ONLY:
                args.append(value)
            else:
                kwargs[param.name] = value
        return args, kwargs

    def serialize(self, value: Any) -> tuple[str, Any]:
        """Text for the model and the structured JSON value (or ``None``) of a return value.

        See :mod:`toolkit.schema._serialize` for the rules.

        Raises:
            ToolError: ``EXECUTION_ERROR`` when an output schema exists and ``value`` does not
                match the declared return type.
        """
        if self._output is None:
            return serialize_plain(value)
        return self._output.serialize(value)


def _default_of(param: ParamInfo) -> Any:
    default = param.default
    if isinstance(default, FieldInfo):
        return default.get_default(call_default_factory=True, validated_data={})
    return default


def _injected_value(param: ParamInfo, context: ToolContext) -> Any:
    if param.name in context.injected:
        return context.injected[param.name]
    if param.name in context.values:
        return context.values[param.name]
    if param.default is not EMPTY:
        return _default_of(param)
    raise ToolError(
        f"The caller did not provide the injected parameter `{param.name}` of tool "
        f"`{context.tool or '?'}`. Put it in ToolContext.injected (or ToolContext.values), "
        "or give the parameter a default.",
        code=ErrorCode.EXECUTION_ERROR,
    )
