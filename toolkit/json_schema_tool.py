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
from typing import TYPE_CHECKING, Any

from toolkit.calls.spec import ToolSpec
from toolkit.context import ToolContext
from toolkit.result import ToolResult
from toolkit.tool import ArgumentProblem, InvalidArguments, ProblemKind, ToolRuns

if TYPE_CHECKING:
    import jsonschema

__all__ = ["JsonSchemaTool", "schema_problems"]

#: JSON Schema type -> Python types of decoded JSON (bool is excluded from the numbers below).
_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}
#: Keywords a property may carry and still be checked by the fast path.
_FAST_KEYWORDS = frozenset({"type", "description", "title", "default", "enum", "examples"})
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

    #: Such a tool waits on a peer (a server, an endpoint, a graph) and keeps its own deadlines;
    #: a subclass that runs locally says ``"async"``.
    runs: ToolRuns = "remote"

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
        # Imported on first need: the fast check answers most calls, and jsonschema's import
        # can take seconds where rfc3987-syntax is installed (it compiles grammars at load).
        import jsonschema

        schema = self.spec.input_schema
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        return cls(schema)

    @cached_property
    def _fast(self) -> _FastCheck | None:
        return _FastCheck.of(self.spec.input_schema)

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Check ``arguments`` against the input schema; valid arguments come back unchanged.

        Raises:
            InvalidArguments: With one problem per violation (missing, type, value, unknown).
        """
        fast = self._fast
        if fast is not None and fast.accepts(arguments):
            return arguments
        problems = schema_problems(self._validator, arguments)
        if problems:
            raise InvalidArguments(problems)
        return arguments

    def view_facts(self) -> list[tuple[str, str]]:
        """Plain-text ``(label, value)`` pairs a notebook view shows beside the spec.

        Subclasses add what tells their tools apart (a server, an endpoint); none by default.
        """
        return []

    def _repr_html_(self) -> str:
        from toolkit.views import html_safe, html_tool

        def build() -> str:
            try:
                facts = self.view_facts()
            except Exception as exc:  # a broken fact shows as one, the spec still shows
                facts = [("problem", f"{type(exc).__name__}: {exc}")]
            return html_tool(self.spec, facts)

        return html_safe(f"tool {_name_of(self)}", build)


class _FastCheck:
    """A flat schema (typed properties, ``required``, ``enum``, extra properties allowed or
    not) checked without jsonschema. It only ever accepts: anything it does not accept goes to
    the full validator, which decides and words the problems, so results are the same either
    way."""

    __slots__ = ("enums", "extra_allowed", "properties", "required")

    def __init__(
        self,
        properties: dict[str, tuple[type, ...]],
        required: frozenset[str],
        enums: dict[str, list[Any]],
        extra_allowed: bool,
    ) -> None:
        self.properties = properties
        self.required = required
        self.enums = enums
        self.extra_allowed = extra_allowed

    @classmethod
    def of(cls, schema: dict[str, Any]) -> _FastCheck | None:
        if set(schema) - {
            "type",
            "properties",
            "required",
            "additionalProperties",
            "$schema",
            "title",
            "description",
        }:
            return None
        extra = schema.get("additionalProperties", True)
        if schema.get("type") != "object" or extra not in (True, False):
            return None  # a schema for extra properties needs the full validator
        properties: dict[str, tuple[type, ...]] = {}
        enums: dict[str, list[Any]] = {}
        for name, prop in (schema.get("properties") or {}).items():
            kind = prop.get("type") if isinstance(prop, dict) else None
            if not isinstance(kind, str) or kind not in _PY_TYPES or set(prop) - _FAST_KEYWORDS:
                return None
            properties[name] = _PY_TYPES[kind]
            if "enum" in prop:
                enums[name] = list(prop["enum"])
        return cls(
            properties, frozenset(schema.get("required") or ()), enums, extra_allowed=extra is True
        )

    def accepts(self, arguments: dict[str, Any]) -> bool:
        properties, enums = self.properties, self.enums
        for name, value in arguments.items():
            types = properties.get(name)
            if types is None:
                if self.extra_allowed:
                    continue  # an extra property the schema allows, whatever its value
                return False
            kind = type(value)
            # Exactly a type the schema names needs no isinstance; bool is an int to Python,
            # never a number to JSON Schema.
            if kind not in types and (kind is bool or not isinstance(value, types)):
                return False
            if (
                enums
                and name in enums
                and not any(type(a) is kind and a == value for a in enums[name])
            ):
                return False
        return self.required <= arguments.keys()


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


def _name_of(tool: JsonSchemaTool) -> str:
    try:
        return tool.name
    except Exception:
        return type(tool).__name__
