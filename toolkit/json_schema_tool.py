"""One base for tools described by a JSON Schema: :class:`JsonSchemaTool`.

Remote MCP tools, HTTP endpoint tools and any future source whose arguments are described by a
JSON Schema (rather than a Python signature) validate through this class, so every source
reports the same problems in the same words: missing parameters, wrong types, bad values and
unknown names, which the invoker turns into its usual ``INVALID_PARAMS`` message (with "did
you mean" for unknown names).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from functools import cached_property
from typing import Any

import jsonschema

from toolkit.context import ToolContext
from toolkit.result import ToolResult
from toolkit.spec import ToolSpec
from toolkit.tool import ArgumentProblem, InvalidArguments, ProblemKind

__all__ = ["JsonSchemaTool", "schema_problems"]

_REQUIRED = re.compile(r"^'(.+)' is a required property")
_KINDS: dict[str, ProblemKind] = {
    "required": "missing",
    "type": "type",
    "additionalProperties": "unknown",
}


class JsonSchemaTool(ABC):
    """A tool whose arguments are checked against ``spec.input_schema`` with jsonschema.

    Subclasses provide :attr:`name`, :attr:`spec`, :meth:`call` and :meth:`renamed`; the
    validator is built once per instance from the spec's input schema (its ``$schema`` picks
    the draft; 2020-12 when absent). Arguments are returned unchanged when valid.
    """

    @property
    @abstractmethod
    def name(self) -> str:
        """The registry name."""

    @property
    @abstractmethod
    def spec(self) -> ToolSpec:
        """The spec every sink sees; its ``input_schema`` is what arguments are checked against."""

    @abstractmethod
    async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        """Run with validated arguments."""

    @abstractmethod
    def renamed(self, name: str) -> JsonSchemaTool:
        """The same tool under another registry name."""

    @cached_property
    def _validator(self) -> jsonschema.protocols.Validator:
        schema = self.spec.input_schema
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        return cls(schema)

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Check ``arguments`` against the input schema; valid arguments come back unchanged.

        Raises:
            InvalidArguments: With one problem per violation (missing, type, value, unknown).
        """
        problems = schema_problems(self._validator, arguments)
        if problems:
            raise InvalidArguments(problems)
        return arguments


def schema_problems(
    validator: jsonschema.protocols.Validator, arguments: dict[str, Any]
) -> list[ArgumentProblem]:
    """Every violation of ``validator``'s schema by ``arguments``, as argument problems."""
    errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.path))
    return [_problem(e) for e in errors]


def _problem(error: jsonschema.ValidationError) -> ArgumentProblem:
    path = ".".join(str(p) for p in error.absolute_path)
    kind: ProblemKind = _KINDS.get(str(error.validator), "value")
    if error.validator == "required":
        match = _REQUIRED.match(error.message)
        missing = match.group(1) if match else ""
        path = f"{path}.{missing}" if path else missing
        return ArgumentProblem(param=path, kind="missing", message=f"'{missing}' is required")
    return ArgumentProblem(param=path, kind=kind, message=error.message)
