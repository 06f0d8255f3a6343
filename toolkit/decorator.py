"""``@mcp_tool``: mark a function or method as a tool, cheaply.

The decorator returns the very function it was given, with one attribute added,
``__mcp_tool__`` (a :class:`ToolDefinition`). Calling the function, ``inspect.signature`` and
other decorators see no difference. Nothing is parsed here: the schema is built on first use.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from toolkit.calls.spec import (
    NAME_PATTERN,
    PrepareHook,
    TaskSupport,
    ToolAnnotations,
    ToolOptions,
    UnknownParams,
)
from toolkit.errors import RegistrationError

if TYPE_CHECKING:
    from toolkit.calls.processor import ExceptionProcessor
    from toolkit.schema import FunctionSchema

__all__ = ["ATTRIBUTE", "ToolDefinition", "definition_of", "mcp_tool", "where"]

F = TypeVar("F", bound=Callable[..., Any])

#: The attribute ``@mcp_tool`` sets on a function.
ATTRIBUTE = "__mcp_tool__"


def where(fn: Any) -> str:
    """``module:qualname (file:line)`` of a function, for messages to developers."""
    target = inspect.unwrap(getattr(fn, "__func__", fn))
    module = getattr(target, "__module__", None) or "?"
    qualname = getattr(target, "__qualname__", None) or repr(target)
    code = getattr(target, "__code__", None)
    loc = f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""
    return f"{module}:{qualname}{loc}"


def check_name(name: str, fn: Any) -> str:
    """``name`` if it satisfies the portable rule, else a :class:`RegistrationError`."""
    if NAME_PATTERN.match(name):
        return name
    suggestion = sanitize_name(name)
    raise RegistrationError(
        f"Tool name {name!r} of {where(fn)} is not valid: tool names must match "
        f"^[a-zA-Z0-9_-]{{1,64}}$ (the rule MCP, OpenAI and Gemini all accept). "
        f"Use @mcp_tool(name={suggestion!r}) or register it with name={suggestion!r}."
    )


def sanitize_name(name: str) -> str:
    """A valid tool name close to ``name``: other characters become ``_``, cut to 64."""
    cleaned = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in name)
    return cleaned.strip("_")[:64] or "tool"


@dataclass(slots=True)
class ToolDefinition:
    """What ``@mcp_tool`` recorded about a function; the schema is built and cached lazily.

    Attributes:
        fn: The decorated function (unbound for methods).
        name: The tool name, or ``None`` for the function's own name.
        description: An explicit description, or ``None`` for the docstring's.
        annotations: Behaviour hints.
        tags: Labels for filtering.
        options: How the invoker runs it.
        output_schema: ``True`` (from the return annotation), ``False``, or an explicit schema.
        param_descriptions: Descriptions that win over the docstring's.
        examples: Example arguments, checked against the schema when the tool is made.
    """

    fn: Callable[..., Any]
    name: str | None = None
    description: str | None = None
    annotations: ToolAnnotations = field(default_factory=ToolAnnotations)
    tags: frozenset[str] = frozenset()
    options: ToolOptions = field(default_factory=ToolOptions)
    output_schema: bool | dict[str, Any] = True
    param_descriptions: Mapping[str, str] | None = None
    examples: tuple[Mapping[str, Any], ...] = ()
    _schemas: dict[bool, FunctionSchema] = field(default_factory=dict, repr=False)

    @property
    def tool_name(self) -> str:
        """The name the tool gets when no one renames it."""
        return self.name or str(getattr(self.fn, "__name__", "tool"))

    def schema_for(self, target: Callable[..., Any]) -> FunctionSchema:
        """The function schema for ``target`` (the function, or a method bound to anything).

        Built once per kind (plain or bound) and cached: every instance's bound method has the
        same signature without ``self``.
        """
        bound = inspect.ismethod(target)
        cached = self._schemas.get(bound)
        if cached is None:
            from toolkit.schema import build_function_schema

            cached = build_function_schema(
                target,
                description=self.description,
                param_descriptions=self.param_descriptions,
                output_schema=self.output_schema,
            )
            self._schemas[bound] = cached
        return cached


def definition_of(obj: Any) -> ToolDefinition | None:
    """The :class:`ToolDefinition` of a decorated function, method or descriptor, if any."""
    target = getattr(obj, "__func__", obj)
    found = getattr(target, ATTRIBUTE, None)
    return found if isinstance(found, ToolDefinition) else None


@overload
def mcp_tool(fn: F, /) -> F: ...


@overload
def mcp_tool(
    fn: None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    tags: Iterable[str] = (),
    title: str | None = None,
    timeout: float | None = None,
    retries: int = 0,
    read_only: bool | None = None,
    destructive: bool | None = None,
    idempotent: bool | None = None,
    open_world: bool | None = None,
    strict: bool | None = None,
    requires_approval: bool | None = None,
    unknown_params: UnknownParams = "error",
    coerce_json_strings: bool = True,
    processor: ExceptionProcessor | None = None,
    output_schema: bool | dict[str, Any] = True,
    strict_output: bool | None = None,
    param_descriptions: Mapping[str, str] | None = None,
    return_direct: bool = False,
    sequential: bool = False,
    prepare: PrepareHook | None = None,
    examples: Iterable[Mapping[str, Any]] = (),
    result_budget: int | None = None,
    task: bool | Literal["optional", "required"] = False,
) -> Callable[[F], F]: ...


def mcp_tool(
    fn: Any = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    tags: Iterable[str] = (),
    title: str | None = None,
    timeout: float | None = None,
    retries: int = 0,
    read_only: bool | None = None,
    destructive: bool | None = None,
    idempotent: bool | None = None,
    open_world: bool | None = None,
    strict: bool | None = None,
    requires_approval: bool | None = None,
    unknown_params: UnknownParams = "error",
    coerce_json_strings: bool = True,
    processor: ExceptionProcessor | None = None,
    output_schema: bool | dict[str, Any] = True,
    strict_output: bool | None = None,
    param_descriptions: Mapping[str, str] | None = None,
    return_direct: bool = False,
    sequential: bool = False,
    prepare: PrepareHook | None = None,
    examples: Iterable[Mapping[str, Any]] = (),
    result_budget: int | None = None,
    task: bool | Literal["optional", "required"] = False,
) -> Any:
    """Mark a function, async function or method as a tool.

    Use bare (``@mcp_tool``) or with options (``@mcp_tool(name="find_bins", retries=2)``). The
    function is returned unchanged, so calling it directly works as before.

    Args:
        fn: The function (when used bare).
        name: Tool name (default: the function's name); must match ``^[a-zA-Z0-9_-]{1,64}$``.
        description: Description for the model (default: the docstring without its sections).
        tags: Labels for filtering the registry.
        title: Human-readable title.
        timeout: Seconds before the call fails with ``TIMEOUT``.
        retries: Extra attempts for retryable failures, with exponential backoff.
        read_only: The tool changes nothing.
        destructive: The tool may destroy data; the default policy asks a human first.
        idempotent: Repeating the call has no further effect.
        open_world: The tool reaches systems outside the application.
        strict: Provider strict schemas: ``True``, ``False`` or ``None`` (auto).
        requires_approval: Ask a human before each call (default: when ``destructive``).
        unknown_params: ``"error"`` tells the model about parameters that do not exist;
            ``"ignore"`` drops them.
        coerce_json_strings: Accept a JSON string for an object/array parameter as a fallback.
        processor: Exception rules for this tool, tried before the registry's.
        output_schema: ``True`` derives it from the return annotation, ``False`` disables it,
            a dict is used as is.
        strict_output: ``True`` makes a return value that breaks the output schema a failed
            call (``EXECUTION_ERROR``), as a strict application may want; by default
            (``None``: the registry's setting, lenient unless changed) the model still gets the
            value, unstructured, and a warning names the mismatch once per tool.
        param_descriptions: Parameter descriptions that win over the docstring's.
        return_direct: An agent (``build_agent``) ends its run with this tool's result as the
            final answer, without another model call.
        sequential: An agent never runs this tool at the same time as other calls of the
            same model turn (the others still run concurrently with each other).
        prepare: ``prepare(spec, context) -> spec | None``, asked on each agent run: return
            the spec to offer (changed description or schema) or ``None`` to hide the tool.
        examples: Example arguments (dicts), checked against the input schema when the
            tool is made; shown to models (Anthropic ``input_examples``, ``<ACTION>``
            few-shot calls, the MCP tool's ``_meta``).
        result_budget: Characters of the result a model reads before it is cut to its head
            and tail (the rest kept for ``read_result``); ``0`` never cuts; ``None`` (default):
            the registry's ``result_budget``. See :mod:`toolkit.results.budget`.
        task: The tool is long-running: an MCP client may call it as a task (answered at once,
            its result fetched later; ``True`` or ``"optional"``), or must (``"required"``).
            See docs/tasks.md.

    Raises:
        RegistrationError: The name is invalid, or the target is not a function.
    """
    if retries < 0:
        raise RegistrationError(f"retries must be 0 or more, not {retries}")
    if timeout is not None and timeout <= 0:
        raise RegistrationError(f"timeout must be a positive number of seconds, not {timeout}")
    if result_budget is not None and result_budget < 0:
        raise RegistrationError(
            f"result_budget must be 0 (no limit) or a number of characters, not {result_budget}"
        )

    def decorate(target: Any) -> Any:
        func = target.__func__ if isinstance(target, staticmethod | classmethod) else target
        if not callable(func) or not hasattr(func, "__name__"):
            raise RegistrationError(
                f"@mcp_tool decorates functions and methods, not {type(target).__name__} objects."
            )
        definition = ToolDefinition(
            fn=func,
            name=check_name(name, func) if name else None,
            description=description,
            annotations=ToolAnnotations(title, read_only, destructive, idempotent, open_world),
            tags=frozenset(tags),
            options=ToolOptions(
                timeout=timeout,
                retries=retries,
                strict=strict,
                unknown_params=unknown_params,
                coerce_json_strings=coerce_json_strings,
                requires_approval=requires_approval,
                processor=processor,
                strict_output=strict_output,
                return_direct=return_direct,
                sequential=sequential,
                prepare=prepare,
                result_budget=result_budget,
                task_support=_task_support(task),
            ),
            output_schema=output_schema,
            param_descriptions=param_descriptions,
            examples=tuple(dict(e) if isinstance(e, Mapping) else e for e in examples),
        )
        if name is None and func.__name__ != "<lambda>":
            check_name(func.__name__, func)
        setattr(func, ATTRIBUTE, definition)
        return target

    return decorate(fn) if fn is not None else decorate


def _task_support(task: bool | str) -> TaskSupport:
    if task is True or task == "optional":
        return "optional"
    if task is False:
        return "forbidden"
    if task == "required":
        return "required"
    raise RegistrationError(f"task must be True, False, 'optional' or 'required', not {task!r}")
