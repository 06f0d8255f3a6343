"""The tool-source contract: :class:`Toolset`, what every source gives a registry.

A source (local functions, an HTTP API, MCP servers, LangGraph skills) hands the registry
``Tool`` objects. A :class:`Toolset` says how: :meth:`~Toolset.get_tools` lists them (it may
connect), :meth:`~Toolset.on_change` reports a new list (an MCP server's ``list_changed``), and
the source opens and closes like a file (``with`` / ``async with``, ``close`` / ``aclose``).
``registry.add_toolset(ts)`` adds the tools and keeps them current.

:class:`BaseToolset` gives a source the lifecycle defaults, change listeners and the wrapper
methods. The wrappers (:class:`FilteredToolset`, :class:`PrefixedToolset`,
:class:`RenamedToolset`, :class:`PinnedToolset`) change the list of any toolset and pass its
lifecycle through, so they stack: ``pool.filtered(...).pinned(...)``. A mistake a person must
fix (a rename or a pin naming a tool the source does not have, a pinned value the schema
rejects) is a :class:`~toolkit.RegistrationError` when the tools are first listed; on a later
change a wrapper applies what still fits and logs the rest.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from toolkit.calls.spec import is_valid_name
from toolkit.errors import RegistrationError
from toolkit.tool import Tool
from toolkit.toolsets.pinned import PinnedTool

if TYPE_CHECKING:
    from typing import Self

__all__ = [
    "WRAPPER_FIX",
    "BaseToolset",
    "FilteredToolset",
    "OnClash",
    "PinnedToolset",
    "PrefixedToolset",
    "RenamedToolset",
    "ToolsChanged",
    "Toolset",
    "WrapperToolset",
]

log = logging.getLogger("toolkit.toolset")

#: Called with a source's complete new tool list when it changes.
ToolsChanged = Callable[[list[Tool]], None]

#: What ``registry.add_toolset`` does with a tool whose name is taken or given twice:
#: ``"refuse"`` adds none of the toolset's tools and raises; ``"skip"`` adds the others and
#: logs a warning naming the tool left out, the source holding the name and the fix.
OnClash = Literal["refuse", "skip"]

#: The fix for a clash that fits every toolset: the wrappers.
WRAPPER_FIX = (
    "Add the toolset with a prefix (toolset.prefixed('...')), rename the tool "
    "(toolset.renamed({...})) or leave it out (toolset.filtered(...))."
)


@runtime_checkable
class Toolset(Protocol):
    """A source of tools: what it gives a :class:`~toolkit.ToolRegistry`.

    Add one with ``await registry.add_toolset(ts)`` (or ``registry.add_toolset_sync(ts)``);
    the registry takes the tools and, when the source reports a new list, swaps them in place.
    """

    async def get_tools(self) -> list[Tool]:
        """The source's tools now, under their registry names (may connect or fetch)."""
        ...

    def on_change(self, callback: ToolsChanged) -> Callable[[], None]:
        """Call ``callback`` with the full new list whenever it changes; returns an unsubscribe."""
        ...

    async def aclose(self) -> None:
        """Release what the source holds (connections, processes)."""
        ...

    def close(self) -> None:
        """:meth:`aclose` for sync code."""
        ...

    async def __aenter__(self) -> Any: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    def __enter__(self) -> Any: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class BaseToolset(ABC):
    """Defaults for a :class:`Toolset`: nothing to open or close, listeners, wrapper methods.

    A subclass implements :meth:`get_tools`, calls :meth:`_notify` when its list changes, and
    overrides the lifecycle methods when it holds something.
    """

    def __init__(self) -> None:
        self._change_listeners: list[ToolsChanged] = []

    @abstractmethod
    async def get_tools(self) -> list[Tool]:
        """The source's tools (a subclass implements it)."""

    def on_change(self, callback: ToolsChanged) -> Callable[[], None]:
        """Call ``callback`` with the new list whenever it changes; returns an unsubscribe."""
        listeners = self._listeners_list()
        listeners.append(callback)
        return lambda: listeners.remove(callback) if callback in listeners else None

    def clash_fix(self, tool: Tool) -> str:
        """How a person keeps ``tool`` when its name is taken (for messages; a source with
        its own configuration overrides it with that configuration's words)."""
        return WRAPPER_FIX

    def _notify(self, tools: list[Tool]) -> None:
        for callback in list(self._listeners_list()):
            try:
                callback(list(tools))
            except Exception:
                log.exception("toolset change listener %r failed", callback)

    def _listeners_list(self) -> list[ToolsChanged]:
        # Subclasses with their own __init__ need not call ours.
        if "_change_listeners" not in self.__dict__:
            self._change_listeners = []
        return self._change_listeners

    async def aclose(self) -> None:  # noqa: B027 - a hook with a default, not abstract
        """Nothing to release by default."""

    def close(self) -> None:  # noqa: B027 - a hook with a default, not abstract
        """Nothing to release by default."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- wrappers ---------------------------------------------------------------------------

    def filtered(self, keep: Callable[[Tool], bool]) -> FilteredToolset:
        """Only the tools for which ``keep(tool)`` is true."""
        return FilteredToolset(self, keep)

    def prefixed(self, prefix: str) -> PrefixedToolset:
        """Every tool renamed ``<prefix>_<name>``."""
        return PrefixedToolset(self, prefix)

    def renamed(self, names: Mapping[str, str]) -> RenamedToolset:
        """Tools renamed by ``{old name: new name}``."""
        return RenamedToolset(self, names)

    def pinned(self, arguments: Mapping[str, Mapping[str, Any]]) -> PinnedToolset:
        """Arguments fixed per tool, ``{tool: {parameter: value}}``, hidden from the model."""
        return PinnedToolset(self, arguments)


class WrapperToolset(BaseToolset):
    """A toolset that changes the list of ``inner`` and passes its lifecycle through.

    Args:
        inner: The wrapped toolset.
    """

    def __init__(self, inner: Toolset) -> None:
        super().__init__()
        self.inner = inner

    async def get_tools(self) -> list[Tool]:
        """The inner toolset's tools, changed by this wrapper.

        Raises:
            RegistrationError: The wrapper names a tool the source does not have, or the new
                names are invalid.
        """
        return self._apply(await self.inner.get_tools(), strict=True)

    def on_change(self, callback: ToolsChanged) -> Callable[[], None]:
        """Report the inner toolset's changes, changed by this wrapper."""

        def changed(tools: list[Tool]) -> None:
            try:
                callback(self._apply(tools, strict=False))
            except RegistrationError as exc:
                log.warning("kept the old tools of %r: %s", self, exc)

        return self.inner.on_change(changed)

    @abstractmethod
    def _apply(self, tools: list[Tool], *, strict: bool) -> list[Tool]:
        """The inner toolset's ``tools`` as this wrapper shows them (``strict``: at listing,
        a mistake raises; on a change, the old tools are kept)."""

    async def aclose(self) -> None:
        """Close the inner toolset."""
        await self.inner.aclose()

    def close(self) -> None:
        """Close the inner toolset (sync)."""
        self.inner.close()

    async def __aenter__(self) -> Any:
        await self.inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.inner.__aexit__(exc_type, exc, tb)

    def __enter__(self) -> Any:
        self.inner.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.inner.__exit__(exc_type, exc, tb)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.inner!r})"


class FilteredToolset(WrapperToolset):
    """Only the tools of ``inner`` for which ``keep(tool)`` is true."""

    def __init__(self, inner: Toolset, keep: Callable[[Tool], bool]) -> None:
        super().__init__(inner)
        self._keep = keep

    def _apply(self, tools: list[Tool], *, strict: bool) -> list[Tool]:
        return [tool for tool in tools if self._keep(tool)]


class PrefixedToolset(WrapperToolset):
    """Every tool of ``inner`` renamed ``<prefix>_<name>``.

    Raises:
        RegistrationError: The prefix does not fit the tool-name rule.
    """

    def __init__(self, inner: Toolset, prefix: str) -> None:
        if not is_valid_name(prefix):
            raise RegistrationError(
                f"Toolset prefix {prefix!r} is not valid: it becomes part of tool names, which "
                "must match ^[a-zA-Z0-9_-]{1,64}$. Use letters, digits, '_' or '-'."
            )
        super().__init__(inner)
        self.prefix = prefix

    def _apply(self, tools: list[Tool], *, strict: bool) -> list[Tool]:
        out: list[Tool] = []
        for tool in tools:
            name = f"{self.prefix}_{tool.name}"
            if is_valid_name(name):
                out.append(tool.renamed(name))
            elif strict:
                raise RegistrationError(
                    f"Tool {tool.name!r} becomes {name!r} with prefix {self.prefix!r}, longer "
                    "than the 64 characters tool names may have; use a shorter prefix or filter "
                    "the tool out."
                )
            else:
                log.warning("skipped tool %r: %r is not a valid tool name", tool.name, name)
        return out


class RenamedToolset(WrapperToolset):
    """Tools of ``inner`` renamed by ``{old name: new name}``; the others keep their names.

    Raises:
        RegistrationError: A new name does not fit the tool-name rule.
    """

    def __init__(self, inner: Toolset, names: Mapping[str, str]) -> None:
        bad = [new for new in names.values() if not is_valid_name(new)]
        if bad:
            raise RegistrationError(
                f"Cannot rename to {bad[0]!r}: tool names must match ^[a-zA-Z0-9_-]{{1,64}}$."
            )
        super().__init__(inner)
        self.names = dict(names)

    def _apply(self, tools: list[Tool], *, strict: bool) -> list[Tool]:
        if strict:
            _require_known(self.names, tools, "rename")
        return [
            tool.renamed(self.names[tool.name]) if tool.name in self.names else tool
            for tool in tools
        ]


class PinnedToolset(WrapperToolset):
    """Arguments fixed per tool, ``{tool: {parameter: value}}``, as :class:`PinnedTool`.

    A pinned parameter disappears from the tool's schema, so the model neither sees nor sets
    it, and every call runs with the pinned value.
    """

    def __init__(self, inner: Toolset, arguments: Mapping[str, Mapping[str, Any]]) -> None:
        super().__init__(inner)
        self.arguments = {tool: dict(values) for tool, values in arguments.items()}

    def _apply(self, tools: list[Tool], *, strict: bool) -> list[Tool]:
        if strict:
            _require_known(self.arguments, tools, "pin arguments of")
        out: list[Tool] = []
        for tool in tools:
            values = self.arguments.get(tool.name)
            if not values:
                out.append(tool)
                continue
            try:
                out.append(PinnedTool(tool, values))
            except RegistrationError:
                if strict:
                    raise
                log.warning("left tool %r out: its pinned arguments no longer fit", tool.name)
        return out


def _require_known(wanted: Mapping[str, Any], tools: list[Tool], verb: str) -> None:
    have = {tool.name for tool in tools}
    missing = sorted(set(wanted) - have)
    if missing:
        raise RegistrationError(
            f"Cannot {verb} {', '.join(map(repr, missing))}: the toolset has no such tool. "
            f"Its tools: {', '.join(sorted(have)) or 'none'}."
        )
