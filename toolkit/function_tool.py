"""``FunctionTool``: a local Python function as a :class:`~toolkit.tool.Tool`."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from toolkit.calls._workers import run_awaitable
from toolkit.calls.examples import check_examples
from toolkit.calls.spec import ToolSpec
from toolkit.calls.wire import content_result
from toolkit.context import ToolContext
from toolkit.decorator import ToolDefinition, check_name, definition_of, where
from toolkit.errors import ToolError
from toolkit.result import ToolResult
from toolkit.schema import FunctionSchema
from toolkit.schema._callable import inspect_callable
from toolkit.schema._serialize import serialize_plain
from toolkit.tool import ToolRuns

__all__ = ["FunctionTool"]


class FunctionTool:
    """A local function, async function or bound method, run through the invoker.

    The schema is built on first access to :attr:`spec` (or first call) and cached on the
    function's definition, so creating a ``FunctionTool`` costs next to nothing.

    Args:
        fn: The callable; decorated with ``@mcp_tool`` or not.
        name: Registry name (default: the decorator's name, else the function's name).
    """

    __slots__ = ("_definition", "_fn", "_is_async", "_name", "_schema", "_spec")

    def __init__(self, fn: Callable[..., Any], *, name: str | None = None) -> None:
        definition = definition_of(fn)
        if definition is None:
            definition = ToolDefinition(fn=getattr(fn, "__func__", fn))
        self._fn = fn
        self._definition = definition
        self._name = check_name(name or definition.tool_name, fn)
        self._schema: FunctionSchema | None = None
        self._spec: ToolSpec | None = None
        target = inspect.unwrap(getattr(fn, "__func__", fn))
        self._is_async = inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(fn)

    @property
    def name(self) -> str:
        """The registry name."""
        return self._name

    @property
    def function(self) -> Callable[..., Any]:
        """The wrapped callable."""
        return self._fn

    @property
    def is_async(self) -> bool:
        """Whether the function is a coroutine function."""
        return self._is_async

    @property
    def runs(self) -> ToolRuns:
        """``"async"`` for a coroutine function, else ``"sync"``."""
        return "async" if self._is_async else "sync"

    @property
    def schema(self) -> FunctionSchema:
        """The function schema (built on first use)."""
        if self._schema is None:
            self._schema = self._definition.schema_for(self._fn)
        return self._schema

    @property
    def spec(self) -> ToolSpec:
        """The tool spec (built on first use)."""
        if self._spec is None:
            d, s = self._definition, self.schema
            self._spec = ToolSpec(
                name=self._name,
                description=s.description,
                input_schema=s.input_schema,
                output_schema=s.output_schema,
                annotations=d.annotations,
                tags=d.tags,
                options=d.options,
                source=where(self._fn),
                injected=s.injected,
                wraps_result=s.wraps_result,
                examples=d.examples,
            )
        return self._spec

    def check(self) -> None:
        """Fail now, cheaply, if the function can never be a tool; the schema stays lazy.

        Reads the signature and type hints only (tens of microseconds, not the milliseconds of
        a schema): ``*args``, ``**kwargs``, a parameter without a type, a hint that does not
        resolve, an unbound ``self``.

        Raises:
            RegistrationError: Naming the function and the fix; also for an ``examples=``
                entry that does not fit the input schema (the schema is built for those).
        """
        inspect_callable(self._fn)
        if self._definition.examples:
            check_examples(self.spec, where(self._fn))

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Validate and coerce with pydantic; raises ``InvalidArguments``."""
        return self.schema.validate(arguments)

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        """Run the function (sync functions in a worker thread) and serialize its result."""
        args, kwargs = self.schema.bind(arguments, context)
        if self._is_async:
            value = await self._fn(*args, **kwargs)
        else:
            value = await run_awaitable(functools.partial(self._fn, *args, **kwargs))
        return self._result(value)

    def call_inline(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        """Run a sync function in the calling thread (the invoker's fast path, no event loop)."""
        args, kwargs = self.schema.bind(arguments, context)
        return self._result(self._fn(*args, **kwargs))

    def _result(self, value: Any) -> ToolResult:
        rich = content_result(value, tool=self._name)
        if rich is not None:
            return rich
        try:
            text, structured = self.schema.serialize(value)
        except ToolError as mismatch:
            # The function ran: the model gets the value as it would without an output schema,
            # without the structured copy that breaks it. The invoker decides (strict or not).
            text, _ = serialize_plain(value)
            return ToolResult(content=text, tool=self._name, output_mismatch=mismatch)
        return ToolResult(content=text, structured=structured, tool=self._name)

    def renamed(self, name: str) -> FunctionTool:
        """The same function under another registry name."""
        return FunctionTool(self._fn, name=name)

    def __repr__(self) -> str:
        try:
            return f"FunctionTool({self._name!r}, {where(self._fn)})"
        except Exception:  # a repr never raises, whatever the callable is
            return f"FunctionTool({self._name!r})"

    def _repr_html_(self) -> str:
        from toolkit.views._html import error_html, spec_html

        try:
            return spec_html(self.spec)
        except Exception as exc:  # a notebook shows the problem instead of a traceback
            return error_html(self._name, exc)
