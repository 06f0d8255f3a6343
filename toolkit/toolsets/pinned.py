"""A tool with some arguments fixed: :class:`PinnedTool`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from toolkit.calls.spec import ToolSpec
from toolkit.context import ToolContext
from toolkit.errors import RegistrationError
from toolkit.result import ToolResult
from toolkit.tool import InlineTool, Tool, ToolRuns

__all__ = ["PinnedTool", "unpinned"]


class PinnedTool:
    """A tool with some arguments fixed: hidden from its schema, set on every call.

    Args:
        tool: The wrapped tool.
        pinned: Parameter name -> value; each must be a parameter of ``tool`` and valid for it.

    Raises:
        RegistrationError: A name is not a parameter of the tool, or a value does not fit its
            schema.
    """

    def __init__(self, tool: Tool, pinned: Mapping[str, Any]) -> None:
        spec = tool.spec
        unknown = sorted(set(pinned) - set(spec.parameters))
        if unknown:
            raise RegistrationError(
                f"Cannot pin {', '.join(map(repr, unknown))} of tool {tool.name!r}: it has no "
                f"such parameter. Its parameters: {', '.join(spec.parameters) or 'none'}."
            )
        from jsonschema import Draft202012Validator  # here: its import can take seconds

        errors = list(
            Draft202012Validator({**spec.input_schema, "required": []}).iter_errors(dict(pinned))
        )
        if errors:
            where = ".".join(str(p) for p in errors[0].absolute_path)
            raise RegistrationError(
                f"The pinned value of {where!r} for tool {tool.name!r} does not fit its schema: "
                f"{errors[0].message}."
            )
        self.inner = tool
        self.pinned = dict(pinned)
        self._spec = _without(spec, set(pinned))

    @property
    def name(self) -> str:
        """The registry name."""
        return self.inner.name

    @property
    def spec(self) -> ToolSpec:
        """The inner spec without the pinned parameters."""
        return self._spec

    @property
    def runs(self) -> ToolRuns:
        """The inner tool's way of running."""
        return self.inner.runs

    @property
    def waits_inline(self) -> bool:
        """Whether the inner remote tool waits in the calling thread (see :data:`ToolRuns`)."""
        return getattr(self.inner, "waits_inline", False) is True

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The inner tool's validation, with the pinned values set over the model's."""
        return self.inner.validate({**arguments, **self.pinned})

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        """Call the inner tool; pinned values are set even if validation was skipped."""
        return await self.inner.call({**self.pinned, **arguments}, context)

    def call_inline(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        """Run the inner tool right here (the invoker's sync path), pins set."""
        inner: InlineTool = self.inner  # type: ignore[assignment]  # runs_inline(self)
        return inner.call_inline({**self.pinned, **arguments}, context)

    def renamed(self, name: str) -> PinnedTool:
        """The same pinned tool under another name."""
        return PinnedTool(self.inner.renamed(name), self.pinned)

    def __repr__(self) -> str:
        return f"PinnedTool({self.inner!r}, pinned={sorted(self.pinned)})"


def _without(spec: ToolSpec, names: set[str]) -> ToolSpec:
    schema = dict(spec.input_schema)
    schema["properties"] = {k: v for k, v in spec.parameters.items() if k not in names}
    if "required" in schema:
        schema["required"] = [r for r in spec.required if r not in names]
    return replace(spec, input_schema=schema)


def unpinned(tool: Tool | None) -> Tool | None:
    """The tool behind any pins: a pinned local function runs as the function does."""
    while isinstance(tool, PinnedTool):
        tool = tool.inner
    return tool
