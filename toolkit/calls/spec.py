"""The description of a tool as every sink sees it: :class:`ToolSpec`.

A spec is plain data (JSON Schemas are dicts) so that the same object feeds LangChain, an MCP
server's ``tools/list`` and OpenAI function definitions without conversion.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from toolkit.calls.processor import ExceptionProcessor
    from toolkit.context import ToolContext

__all__ = [
    "NAME_PATTERN",
    "PrepareHook",
    "TaskSupport",
    "ToolAnnotations",
    "ToolOptions",
    "ToolSpec",
    "UnknownParams",
    "is_valid_name",
]

#: The portable tool-name rule: MCP, OpenAI and Gemini all accept it.
NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

UnknownParams = Literal["error", "ignore"]

#: Whether a tool runs as a task (MCP's ``execution.taskSupport``): never, when asked, always.
TaskSupport = Literal["forbidden", "optional", "required"]

#: ``prepare(spec, context)``: the spec to offer a caller for this run, or ``None`` to hide it.
PrepareHook = Callable[["ToolSpec", "ToolContext"], "ToolSpec | None"]


def is_valid_name(name: str) -> bool:
    """Whether ``name`` satisfies the portable rule ``^[a-zA-Z0-9_-]{1,64}$``."""
    return bool(NAME_PATTERN.match(name))


@dataclass(frozen=True, slots=True)
class ToolAnnotations:
    """Behaviour hints, as in MCP's ``ToolAnnotations`` (untrusted when they come from afar).

    Attributes:
        title: A human-readable title.
        read_only: The tool does not change its environment.
        destructive: The tool may destroy or overwrite data (asks for approval by default).
        idempotent: Calling it twice with the same arguments has no further effect.
        open_world: The tool talks to an open world (the internet, other people's systems).
    """

    title: str | None = None
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None

    def to_mcp(self) -> dict[str, Any]:
        """The MCP wire form (``readOnlyHint`` …), leaving out what is unset."""
        pairs = {
            "title": self.title,
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }
        return {k: v for k, v in pairs.items() if v is not None}


@dataclass(frozen=True, slots=True)
class ToolOptions:
    """How the invoker runs a tool.

    Attributes:
        timeout: Seconds before the call fails with ``TIMEOUT`` (``None``: no limit).
        retries: Extra attempts for retryable failures (0: try once).
        strict: Provider strict mode: ``True``, ``False`` or ``None`` for "auto".
        unknown_params: ``"error"`` (default) tells the model it sent a parameter that does
            not exist; ``"ignore"`` drops it silently.
        coerce_json_strings: Decode JSON held in a string for object/array parameters, as a
            fallback after validation fails.
        requires_approval: Ask before running (``None``: ask when ``destructive``).
        processor: A per-tool exception processor, consulted before the registry's.
        strict_output: ``True``: a return value that breaks the declared output schema fails
            the call (``EXECUTION_ERROR``); ``False``: it reaches the model unstructured, with
            a warning once per tool; ``None``: the registry's setting (lenient by default).
        return_direct: An agent ends its run with this tool's result as the final answer.
        sequential: An agent never runs this tool concurrently with other calls of a turn.
        prepare: Decides per run whether and how an agent offers the tool to its model.
        result_budget: Characters of this tool's result a model reads before it is cut
            (:mod:`toolkit.results.budget`; ``0``: never cut); ``None``: the registry's setting.
            (:mod:`toolkit.results.budget`; ``0``: never cut); ``None``: the registry's setting.
        task_support: Whether an MCP client may run it as a task (:mod:`toolkit.tasks.runner`):
            ``"forbidden"`` (default), ``"optional"`` or ``"required"``.
    """

    timeout: float | None = None
    retries: int = 0
    strict: bool | None = None
    unknown_params: UnknownParams = "error"
    coerce_json_strings: bool = True
    requires_approval: bool | None = None
    processor: ExceptionProcessor | None = None
    strict_output: bool | None = None
    return_direct: bool = False
    sequential: bool = False
    prepare: PrepareHook | None = None
    result_budget: int | None = None
    task_support: TaskSupport = "forbidden"


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """Everything a model or a protocol needs to know about a tool.

    Attributes:
        name: The registry name (``^[a-zA-Z0-9_-]{1,64}$``).
        description: What the tool does, for the model.
        input_schema: JSON Schema 2020-12 of the arguments, ``type: object``.
        output_schema: JSON Schema of the structured result (an object), or ``None``.
        annotations: Behaviour hints.
        tags: Free labels for filtering.
        options: How the invoker runs it.
        source: Where it came from (``module:function``, ``mcp://server/tool``), for messages.
        injected: Parameters filled by the caller, never by the model.
        wraps_result: The output schema wraps a non-object result as ``{"result": ...}``.
        examples: Example arguments, valid against ``input_schema`` (shown to models).
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None
    annotations: ToolAnnotations = field(default_factory=ToolAnnotations)
    tags: frozenset[str] = frozenset()
    options: ToolOptions = field(default_factory=ToolOptions)
    source: str = ""
    injected: frozenset[str] = frozenset()
    wraps_result: bool = False
    examples: tuple[Mapping[str, Any], ...] = ()

    @property
    def title(self) -> str | None:
        """The annotation title, if any."""
        return self.annotations.title

    @property
    def parameters(self) -> dict[str, Any]:
        """The ``properties`` of the input schema."""
        props = self.input_schema.get("properties", {})
        return props if isinstance(props, dict) else {}

    @property
    def required(self) -> list[str]:
        """Names of the required parameters."""
        req = self.input_schema.get("required", [])
        return list(req) if isinstance(req, list) else []

    @property
    def needs_approval(self) -> bool:
        """Whether the default policy asks a human first (explicit flag, else destructive)."""
        if self.options.requires_approval is not None:
            return self.options.requires_approval
        return bool(self.annotations.destructive)

    def renamed(self, name: str) -> ToolSpec:
        """A copy of this spec under another name."""
        return replace(self, name=name)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able summary (used by ``toolkit inspect --json``)."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
            "output_schema": self.output_schema,
            "annotations": self.annotations.to_mcp(),
            "tags": sorted(self.tags),
            "source": self.source,
        }
