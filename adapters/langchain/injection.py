"""What LangChain / LangGraph inject into a call, and how it becomes a :class:`ToolContext`.

Two channels, both closed to the model:

* **LangGraph parameters** a decorated function declares, as it would with ``@tool``:
  ``Annotated[..., InjectedState(...)]``, ``Annotated[str, InjectedToolCallId]``,
  ``Annotated[..., InjectedStore()]``, ``runtime: ToolRuntime``. They are filled from the
  ``ToolRuntime`` LangGraph hands the call and passed to the core in ``ToolContext.injected``.
* **Caller values** (tenant, user…) picked from the graph's runtime context or the config's
  ``configurable`` through an explicit ``context_keys`` mapping into ``ToolContext.values``.
  Nothing else of the runtime is passed on.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from langchain_core.tools import InjectedToolArg, InjectedToolCallId
from langgraph.prebuilt import InjectedState, InjectedStore, ToolRuntime

from toolkit.tool import Tool

__all__ = ["ContextKeys", "Injection", "context_values", "find_injections", "injected_values"]

#: Which caller values a tool's ``ToolContext.values`` receives: names (looked up under the
#: same name) or ``{context_key: source_key}``. Sources are the graph's runtime context (a
#: dict or an object with attributes), then ``config["configurable"]``.
ContextKeys = Sequence[str] | Mapping[str, str]

Kind = Literal["state", "store", "tool_call_id", "runtime", "other"]


@dataclass(frozen=True, slots=True)
class Injection:
    """A LangGraph-injected parameter of a tool's function.

    Attributes:
        param: The parameter name.
        kind: What fills it.
        field: For ``InjectedState("field")``: the state key, else ``None`` (whole state).
        hint: The annotation, as LangGraph's ``ToolNode`` reads it.
    """

    param: str
    kind: Kind
    field: str | None
    hint: Any


def _markers(hint: Any) -> list[Any]:
    members = get_args(hint) if get_origin(hint) in (Union, typing.Union) else (hint,)
    found: list[Any] = []
    for member in members:
        if get_origin(member) is Annotated:
            found.extend(member.__metadata__)
            member = get_args(member)[0]
        found.append(member)
    return found


def _classify(marker: Any) -> tuple[Kind, str | None] | None:
    cls = marker if isinstance(marker, type) else get_origin(marker) or type(marker)
    if not isinstance(cls, type):
        return None
    if issubclass(cls, ToolRuntime):
        return "runtime", None
    if issubclass(cls, InjectedState):
        return "state", marker.field if isinstance(marker, InjectedState) else None
    if issubclass(cls, InjectedStore):
        return "store", None
    if issubclass(cls, InjectedToolCallId):
        return "tool_call_id", None
    if issubclass(cls, InjectedToolArg):
        return "other", None
    return None


def find_injections(tool: Tool) -> list[Injection]:
    """The LangGraph-injected parameters of ``tool``'s function (none for remote tools).

    Only parameters the core already treats as injected (``spec.injected``) are considered,
    so a tool without a Python function behind it simply has none.
    """
    injected = tool.spec.injected
    fn = getattr(tool, "function", None)
    if not injected or fn is None:
        return []
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except (NameError, TypeError):
        return []
    found = []
    for param in injected:
        hint = hints.get(param)
        for marker in _markers(hint) if hint is not None else ():
            kind = _classify(marker)
            if kind is not None:
                found.append(Injection(param, kind[0], kind[1], hint))
                break
    return found


def _state_value(state: Any, field: str | None) -> Any:
    if field is None:
        return state
    if isinstance(state, Mapping):
        return state.get(field)
    return getattr(state, field, None)


def injected_values(
    injections: Sequence[Injection], runtime: ToolRuntime | None, tool_call_id: str | None
) -> dict[str, Any]:
    """Values for ``injections`` taken from the call's ``ToolRuntime`` (and tool-call id)."""
    values: dict[str, Any] = {}
    for inj in injections:
        if inj.kind == "tool_call_id":
            call_id = tool_call_id or (runtime.tool_call_id if runtime else None)
            if call_id is not None:
                values[inj.param] = call_id
        elif runtime is None:
            continue
        elif inj.kind == "state":
            values[inj.param] = _state_value(runtime.state, inj.field)
        elif inj.kind == "store":
            values[inj.param] = runtime.store
        elif inj.kind == "runtime":
            values[inj.param] = runtime
    return values


def _lookup(source: Any, key: str) -> tuple[bool, Any]:
    if source is None:
        return False, None
    if isinstance(source, Mapping):
        return (key in source), source.get(key)
    return hasattr(source, key), getattr(source, key, None)


def context_values(
    keys: ContextKeys | None, runtime_context: Any, configurable: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The caller values named by ``keys``, from the runtime context, then ``configurable``."""
    if not keys:
        return {}
    pairs = keys.items() if isinstance(keys, Mapping) else ((k, k) for k in keys)
    values: dict[str, Any] = {}
    for target, source in pairs:
        for origin in (runtime_context, configurable):
            found, value = _lookup(origin, source)
            if found:
                values[target] = value
                break
    return values
