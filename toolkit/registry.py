"""``ToolRegistry``: every tool of an application, local or remote, under one unique name."""

from __future__ import annotations

import inspect
import logging
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from types import ModuleType
from typing import Any, Unpack

from toolkit.calls._sync import run_sync
from toolkit.calls.invoker import Invoker
from toolkit.calls.options import CallOptions, merge_options
from toolkit.calls.processor import ExceptionProcessor
from toolkit.calls.settings import RegistrySettings, SettingsFields
from toolkit.calls.spec import ToolSpec
from toolkit.catalog.prompts import PromptRegistry
from toolkit.catalog.resources import ResourceRegistry
from toolkit.context import ToolContext
from toolkit.decorator import check_name
from toolkit.errors import RegistrationError
from toolkit.function_tool import FunctionTool
from toolkit.governance.run_scope import RunScopes
from toolkit.policy import Approver, Policy
from toolkit.records import _auto_telemetry
from toolkit.result import CallRecord, ToolResult
from toolkit.results.reader import offer_reader
from toolkit.search import Searchable
from toolkit.tool import Tool
from toolkit.toolsets import _bindings, _scan
from toolkit.toolsets.toolset import OnClash, Toolset

__all__ = ["ENTRY_POINT_GROUP", "ToolRegistry"]

log = logging.getLogger("toolkit.registry")

#: Installed distributions publish tools (modules, objects, functions) under this group.
ENTRY_POINT_GROUP = "mcp_toolkit.tools"

Call = tuple[str, Mapping[str, Any] | str | None] | tuple[str, Mapping[str, Any] | str | None, str]


class ToolRegistry(Searchable, RunScopes):
    """A set of tools with unique names and one call path.

    Args:
        settings: How calls run: processor, policy, approver, secrets, timeout, retry
            backoff, strict output (see :class:`~toolkit.RegistrySettings`).
        history: How many recent :class:`CallRecord` objects :attr:`records` keeps.
        **fields: Any field of :class:`~toolkit.RegistrySettings`, over ``settings``
            (``ToolRegistry(timeout=None)``).

    Example:
        >>> registry = ToolRegistry()
        >>> registry.scan("examples.warehouse")  # doctest: +SKIP
        >>> result = registry.call_sync("query_bins", {"tenant_code": "acme"})  # doctest: +SKIP
    """

    def __init__(
        self,
        settings: RegistrySettings | None = None,
        *,
        history: int = 1000,
        **fields: Unpack[SettingsFields],
    ) -> None:
        if settings is None:
            settings = RegistrySettings(**fields)  # type: ignore[arg-type]
        elif fields:
            settings = settings.replace(**fields)
        self._tools: dict[str, Tool] = {}
        #: Send each call to OpenTelemetry by itself (when ``opentelemetry-api`` is installed
        #: and the application configured an SDK); ``adapters.otel.instrument`` turns it off
        #: in favour of its own options.
        self.telemetry = True
        self._subscribers: list[Callable[[CallRecord], None]] = []
        self._listeners: list[Callable[[], None]] = []
        self.records: deque[CallRecord] = deque(maxlen=history)
        self.invoker = Invoker(self._tools, settings, on_record=self._on_record)
        #: The ``@mcp_resource`` functions served next to the tools (``scan`` finds them).
        self.resources = ResourceRegistry(settings.processor)
        #: The ``@mcp_prompt`` functions served next to the tools (``scan`` finds them).
        self.prompts = PromptRegistry(settings.processor)

    # -- configuration -------------------------------------------------------------------------

    @property
    def settings(self) -> RegistrySettings:
        """How this registry's calls run (a frozen value; change it with :meth:`configure`)."""
        return self.invoker.settings

    def configure(self, **fields: Unpack[SettingsFields]) -> None:
        """Change some :class:`~toolkit.RegistrySettings` fields for the calls from now on.

        Views made earlier with :meth:`filter` keep the settings they were made with.

        Example:
            >>> registry = ToolRegistry()
            >>> registry.configure(timeout=None)
            >>> registry.settings.timeout is None
            True
        """
        settings = self.invoker.settings = self.invoker.settings.replace(**fields)
        self.resources.processor = self.prompts.processor = settings.processor

    @property
    def processor(self) -> ExceptionProcessor:
        """The exception processor of every call."""
        return self.invoker.settings.processor

    @property
    def approver(self) -> Approver | None:
        """The registry's own approver (``None``: it has none, so ``"ask"`` denies unless a
        call's options bring one). Sinks read it to decide whether to ask their own user."""
        return self.invoker.settings.approver

    def output_enforced(self, spec: ToolSpec) -> bool:
        """Whether every successful result matches the output schema (strict output, the tool's
        or else the registry's): only then may a server publish it as a promise."""
        strict = spec.options.strict_output
        strict = self.invoker.settings.strict_output if strict is None else strict
        return strict and spec.output_schema is not None

    # -- adding and removing -------------------------------------------------------------------

    def register(
        self,
        target: Callable[..., Any] | Tool,
        *,
        name: str | None = None,
        namespace: str | None = None,
    ) -> Tool:
        """Add a function (decorated or not), a method, or any :class:`Tool`.

        Args:
            target: The function or tool.
            name: Registry name (default: the decorator's or the function's name).
            namespace: Prefix joined with ``_`` (``warehouse`` → ``warehouse_query_bins``).

        Raises:
            RegistrationError: The name is taken or invalid, or the function cannot be a tool.
        """
        tool: Tool
        if isinstance(target, FunctionTool) or (
            not inspect.isroutine(target) and isinstance(target, Tool)
        ):
            tool = target
            if name or namespace:
                tool = target.renamed(_qualified(name or target.name, namespace, target))
        elif callable(target):
            probe = FunctionTool(target, name=name)
            tool = probe.renamed(_qualified(probe.name, namespace, target)) if namespace else probe
        else:
            raise RegistrationError(
                f"Cannot register {target!r}: give a function, a method or a Tool."
            )
        return self.add(tool)

    def add(self, tool: Tool) -> Tool:
        """Add a ready :class:`Tool` under its own name.

        Raises:
            RegistrationError: A tool with that name is already registered, or a function
                cannot be a tool (``*args``, a parameter without a type…).
        """
        if isinstance(tool, FunctionTool):
            tool.check()  # a person must fix it: say so now, not mid-conversation
        existing = self._tools.get(tool.name)
        if existing is not None:
            if existing is tool:
                return tool
            raise RegistrationError(
                f"Tool name {tool.name!r} is already taken by {_bindings.source_of(existing)}; the new one "
                f"comes from {_bindings.source_of(tool)}. Rename one (@mcp_tool(name=...) or "
                "registry.register(fn, name=...)) or register it under a namespace "
                "(registry.scan(target, namespace='...'))."
            )
        self._tools[tool.name] = tool
        self._changed(tool.name)
        return tool

    def remove(self, name: str) -> Tool:
        """Remove and return a tool.

        Raises:
            KeyError: No tool has that name.
        """
        tool = self._tools.pop(name)
        self._changed(name)
        return tool

    def scan(
        self,
        target: ModuleType | str | object,
        *,
        namespace: str | None = None,
        public: bool = False,
        include: Collection[str] | None = None,
        exclude: Collection[str] = (),
    ) -> list[Tool]:
        """Register every ``@mcp_tool`` found in ``target``, or every public method of an object.

        ``@mcp_resource`` and ``@mcp_prompt`` functions of a module or instance go to
        :attr:`resources` and :attr:`prompts`.

        Args:
            target: A module, a dotted module or package name (a package is walked
                recursively), a class (its static and class methods) or an instance (its
                decorated methods, bound to it).
            namespace: Prefix for every name found.
            public: For an instance or a class: also every undecorated method its classes
                define, as if decorated (not: ``_names``, dunders, properties, nor the methods
                of bases from another package, such as ``httpx.Client``'s, unless ``include``
                names them).
            include: For an instance or a class: only these method names.
            exclude: For an instance or a class: leave these method names out.

        Returns:
            The tools added, in a stable order.

        Raises:
            RegistrationError: A name is taken, a method cannot be a tool or is not there;
                nothing found in ``target`` stays registered then.
        """
        with _scan.all_or_nothing(self):  # a scan that fails part-way adds nothing
            target = _scan.scan_served(target, self.resources, self.prompts)
            found = _scan.found_in(target, public=public, include=include, exclude=exclude)
            return _scan.register_all(found, lambda fn: self.register(fn, namespace=namespace))

    async def add_toolset(self, toolset: Toolset, *, on_clash: OnClash = "refuse") -> list[Tool]:
        """Add a :class:`~toolkit.Toolset`'s tools and keep them current.

        Args:
            on_clash: When a name is taken or given twice: ``"refuse"`` adds nothing and
                raises; ``"skip"`` adds the others and logs a warning per tool left out.

        Raises:
            RegistrationError: A name clashes (with ``"skip"``: every tool clashes), or the
                source cannot list tools.
        """
        return await _bindings.bind(self, toolset, on_clash)

    def add_toolset_sync(self, toolset: Toolset, *, on_clash: OnClash = "refuse") -> list[Tool]:
        """:meth:`add_toolset` for sync code."""
        return run_sync(_bindings.bind, self, toolset, on_clash)

    def discover(self, group: str = ENTRY_POINT_GROUP) -> list[Tool]:
        """Register tools published by installed distributions under an entry-point group.

        Each entry point may name a module or package (scanned), a :class:`ToolRegistry`
        (merged), a function (registered) or an object (scanned).
        """
        added: list[Tool] = []
        for value in _scan.entry_point_values(group):
            if isinstance(value, ToolRegistry):
                added.extend(self.add(t) for t in value)
            elif inspect.isfunction(value) or inspect.ismethod(value):
                added.append(self.register(value))
            else:
                added.extend(self.scan(value))
        return added

    # -- reading -------------------------------------------------------------------------------

    def get(self, name: str) -> Tool:
        """The tool called ``name``.

        Raises:
            KeyError: With the closest names in the message.
        """
        try:
            return self._tools[name]
        except KeyError:
            from toolkit.calls._messages import tool_not_found

            raise KeyError(tool_not_found(name, list(self._tools)).message) from None

    def names(self) -> list[str]:
        """Tool names, in registration order."""
        return list(self._tools)

    def specs(self) -> list[ToolSpec]:
        """Tool specs, in registration order."""
        return [t.spec for t in self._tools.values()]

    def tools(self) -> list[Tool]:
        """Tools, in registration order."""
        return list(self._tools.values())

    def filter(
        self, *, names: Iterable[str] | None = None, tags: Iterable[str] | None = None
    ) -> ToolRegistry:
        """A new registry with the tools named in ``names`` and/or carrying any of ``tags``.

        It shares this registry's settings, records and subscribers (a snapshot of the tools,
        not a live view).

        Raises:
            KeyError: A name in ``names`` is not registered.
        """
        wanted = None if names is None else list(names)
        for n in wanted or ():
            self.get(n)
        tagset = None if tags is None else set(tags)
        view = ToolRegistry(self.settings)
        view._tools.update(
            (n, t)
            for n, t in self._tools.items()
            if (wanted is None or n in wanted) and (tagset is None or tagset & t.spec.tags)
        )
        # One audit trail: the view's calls land in this registry's records and subscribers.
        view.records, view._subscribers = self.records, self._subscribers
        view.invoker.on_record = self._on_record
        return view

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __repr__(self) -> str:
        shown = ", ".join(list(self._tools)[:8])
        more = f", … {len(self._tools) - 8} more" if len(self._tools) > 8 else ""
        return f"ToolRegistry({len(self._tools)} tools: {shown}{more})"

    def _repr_html_(self) -> str:
        from toolkit.views._html import registry_html

        return registry_html(list(self._tools.values()))

    async def visible_names(
        self, context: ToolContext | None = None, *, policy: Policy | None = None
    ) -> list[str]:
        """The names of the tools a caller may see: those the policy does not deny it.

        The policy (``policy`` or the registry's) is asked once per tool with the caller's
        ``context`` and no arguments; ``"deny"`` (or a policy that raises) hides the tool.
        Listings per caller come from here, and so do the messages of calls made with
        ``CallOptions(hide_denied=True)``.
        """
        return await self.invoker.visible_names(context, policy)

    # -- calling -------------------------------------------------------------------------------

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | bytes | None = None,
        context: ToolContext | None = None,
        *,
        options: CallOptions | None = None,
        call_id: str | None = None,
    ) -> ToolResult:
        """Call a tool the way a model would; failures come back as error results.

        Args:
            name: Tool name.
            arguments: A dict, or a JSON object as a string.
            context: Caller data the model cannot see or set.
            options: Every per-call option in one value (see :class:`CallOptions`): policy,
                approver, propagate, timeout, on_record, hide_denied, caller.
            call_id: The model's tool-call id (default: a fresh correlation id).

        Returns:
            The result; ``is_error`` and ``error.code`` tell a failure.
        """
        merged = merge_options(options, context=context, call_id=call_id)
        return await self.invoker.call(name, arguments, merged)

    def call_sync(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | bytes | None = None,
        context: ToolContext | None = None,
        *,
        options: CallOptions | None = None,
        call_id: str | None = None,
    ) -> ToolResult:
        """:meth:`call` for code without an event loop (safe inside Jupyter's loop too).

        The same steps as :meth:`call`, blocking instead of awaiting: plain sync functions run
        in this thread (in a worker thread when a timeout applies), anything else runs on a
        shared background loop.
        """
        merged = merge_options(options, context=context, call_id=call_id)
        return self.invoker.call_sync(name, arguments, merged)

    async def call_many(
        self,
        calls: Sequence[Call],
        context: ToolContext | None = None,
        *,
        options: CallOptions | None = None,
        limit: int | None = None,
    ) -> list[ToolResult]:
        """Run calls concurrently, each isolated from the others' failures.

        Args:
            calls: ``(name, arguments)`` or ``(name, arguments, call_id)`` tuples.
            context: Shared caller data (each call gets its own copy).
            options: As in :meth:`call` (a ``call_id`` in a tuple wins over the options').
            limit: At most this many at once (default: all).

        Returns:
            One result per call, in the order of ``calls``.
        """
        import anyio

        shared = merge_options(options, context=context)
        results: list[ToolResult | None] = [None] * len(calls)
        gate = anyio.Semaphore(limit) if limit else None

        async def one(i: int, call: Call) -> None:
            name, arguments, *rest = call
            own = shared.replace(call_id=rest[0]) if rest and rest[0] else shared
            if gate is None:
                results[i] = await self.invoker.call(name, arguments, own)
            else:
                async with gate:
                    results[i] = await self.invoker.call(name, arguments, own)

        try:
            async with anyio.create_task_group() as tg:
                for i, call in enumerate(calls):
                    tg.start_soon(one, i, call)
        except BaseExceptionGroup as group:
            raise group.exceptions[0] from None
        return [r for r in results if r is not None]

    # -- observing -----------------------------------------------------------------------------

    def subscribe(self, callback: Callable[[CallRecord], None]) -> Callable[[], None]:
        """Call ``callback`` with every :class:`CallRecord`; returns an unsubscribe function."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback)

    def on_change(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` whenever tools are added or removed; returns an unsubscribe."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback)

    def _on_record(self, record: CallRecord) -> None:
        self.records.append(record)
        if self._subscribers:  # most registries have none: no copy, no loop
            for callback in list(self._subscribers):
                try:
                    callback(record)
                except Exception:
                    log.exception("call-record subscriber %r failed", callback)
        if self.telemetry:
            _auto_telemetry.emit(self, record)
        if record.full_size is not None:  # a cut result: the model may now read the rest
            offer_reader(self)

    def _changed(self, name: str) -> None:
        self._touched(name)
        for callback in list(self._listeners):
            try:
                callback()
            except Exception:
                log.exception("registry change listener %r failed", callback)


def _qualified(name: str, namespace: str | None, origin: Any) -> str:
    return check_name(f"{namespace}_{name}" if namespace else name, origin)
