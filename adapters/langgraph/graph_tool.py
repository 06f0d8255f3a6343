"""Skills: a compiled LangGraph graph registered as one tool.

A multi-step workflow (look up, check, act, report) becomes a single call for the model: one
native tool call, or one ``<ACTION>`` block for a text-only model. The graph's input is the
call's arguments, validated against ``input_schema``; its output state is the result.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig

from toolkit import (
    ArgumentProblem,
    InvalidArguments,
    RegistrationError,
    Tool,
    ToolContext,
    ToolResult,
    ToolSpec,
)
from toolkit.toolsets.toolset import BaseToolset

if TYPE_CHECKING:
    from jsonschema import ValidationError

__all__ = ["GraphTool", "SkillToolset", "graph_tool"]

_KINDS = {"type": "type", "required": "missing", "additionalProperties": "unknown"}


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseMessage):
        return {"type": value.type, "content": value.text}
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if hasattr(value, "model_dump"):
        return _jsonable(value.model_dump())
    return str(value)


def _problem(error: ValidationError) -> ArgumentProblem:
    path = ".".join(str(p) for p in error.absolute_path)
    kind = _KINDS.get(str(error.validator), "value")
    return ArgumentProblem(param=path, kind=kind, message=error.message)  # type: ignore[arg-type]


class GraphTool:
    """A compiled graph as a :class:`~toolkit.Tool` (see :func:`graph_tool`)."""

    #: A graph's model and tool calls keep their own deadlines; the registry's default timeout
    #: for local functions does not cut a whole run short.
    runs: Literal["remote"] = "remote"

    def __init__(
        self,
        graph: Any,
        spec: ToolSpec,
        *,
        output_key: str | None = None,
        context_key: str | None = "configurable",
    ) -> None:
        self._graph = graph
        self._spec = spec
        from jsonschema import Draft202012Validator  # here: its import can take seconds

        self._validator = Draft202012Validator(spec.input_schema)
        self._output_key = output_key
        self._context_key = context_key

    @property
    def name(self) -> str:
        """The registry name."""
        return self._spec.name

    @property
    def spec(self) -> ToolSpec:
        """The spec every sink sees."""
        return self._spec

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Check ``arguments`` against the input schema.

        Raises:
            InvalidArguments: With one problem per violation.
        """
        errors = sorted(self._validator.iter_errors(arguments), key=lambda e: list(e.path))
        if errors:
            raise InvalidArguments([_problem(e) for e in errors])
        return arguments

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        """Run the graph on ``arguments``; the caller's context values go into its config."""
        config = RunnableConfig(configurable=dict(context.values))
        state = await self._graph.ainvoke(dict(arguments), config)
        value = state
        if self._output_key is not None and isinstance(state, Mapping):
            value = state.get(self._output_key)
        structured = _jsonable(value)
        if isinstance(structured, str):
            return ToolResult(content=structured, tool=self.name, call_id=context.call_id)
        text = json.dumps(structured, ensure_ascii=False, default=str)
        return ToolResult(
            content=text, structured=structured, tool=self.name, call_id=context.call_id
        )

    def renamed(self, name: str) -> GraphTool:
        """The same graph under another registry name."""
        from dataclasses import replace

        return GraphTool(self._graph, replace(self._spec, name=name), output_key=self._output_key)


def graph_tool(
    graph: Any,
    *,
    name: str,
    description: str,
    input_schema: dict[str, Any] | type | None = None,
    output_key: str | None = None,
    read_only: bool | None = None,
    destructive: bool | None = None,
) -> GraphTool:
    """A compiled LangGraph graph as a tool, so a whole workflow is one call for the model.

    Example:
        >>> registry.add(graph_tool(refund_graph, name="refund_order",
        ...                         description="Check and refund an order.",
        ...                         input_schema={"type": "object", "properties": {
        ...                             "order_id": {"type": "string"}}, "required": ["order_id"]}))
        ... # doctest: +SKIP

    Args:
        graph: A compiled graph (anything with ``ainvoke(input, config)``).
        name: The tool name (``^[a-zA-Z0-9_-]{1,64}$``).
        description: What the workflow does, for the model.
        input_schema: The arguments as a JSON Schema, or a pydantic model / TypedDict class;
            ``None``: the graph's own input schema.
        output_key: Return only this key of the final state (default: the whole state).
        read_only: The workflow changes nothing.
        destructive: The workflow may destroy data (asks for approval by default).

    Returns:
        The tool; add it with ``registry.add(...)``.
    """
    from toolkit import ToolAnnotations, is_valid_name

    if not is_valid_name(name):
        raise ValueError(f"graph_tool name {name!r} must match ^[a-zA-Z0-9_-]{{1,64}}$.")
    schema = _schema(graph, input_schema)
    spec = ToolSpec(
        name=name,
        description=description,
        input_schema=schema,
        annotations=ToolAnnotations(read_only=read_only, destructive=destructive),
        source=f"graph:{getattr(graph, 'name', type(graph).__name__)}",
    )
    return GraphTool(graph, spec, output_key=output_key)


def _schema(graph: Any, given: dict[str, Any] | type | None) -> dict[str, Any]:
    if isinstance(given, dict):
        schema = dict(given)
    elif given is not None:
        from pydantic import TypeAdapter

        schema = TypeAdapter(given).json_schema()
    else:
        try:
            schema = dict(graph.get_input_jsonschema())
        except Exception as exc:
            raise ValueError(
                f"graph_tool could not read the input schema of graph {getattr(graph, 'name', graph)!r} "
                f"({type(exc).__name__}: {exc}). Pass input_schema= (a JSON Schema dict or a "
                "pydantic model)."
            ) from exc
    schema.pop("title", None)
    schema.setdefault("type", "object")
    return schema


class SkillToolset(BaseToolset):
    """LangGraph skills (compiled graphs as tools) as a :class:`toolkit.Toolset`.

    Skills added later reach every registry the toolset was added to::

        skills = SkillToolset(graph_tool(refund_graph, name="refund_order", description="..."))
        registry.add_toolset_sync(skills)
        skills.add(graph_tool(report_graph, name="weekly_report", description="..."))

    Args:
        skills: The first skills.
    """

    def __init__(self, *skills: GraphTool) -> None:
        super().__init__()
        self._skills: dict[str, GraphTool] = {}
        for skill in skills:
            self._put(skill)

    async def get_tools(self) -> list[Tool]:
        """The skills, in the order they were added."""
        return list(self._skills.values())

    def add(self, skill: GraphTool) -> GraphTool:
        """Add a skill; registries holding this toolset get it at once.

        Raises:
            RegistrationError: The toolset has a skill of that name already.
        """
        self._put(skill)
        self._notify(list(self._skills.values()))
        return skill

    def _put(self, skill: GraphTool) -> None:
        if skill.name in self._skills:
            raise RegistrationError(
                f"SkillToolset already has a skill named {skill.name!r}; give the new graph "
                "another name (graph_tool(..., name=...))."
            )
        self._skills[skill.name] = skill

    def __repr__(self) -> str:
        return f"SkillToolset({', '.join(self._skills)})"
