"""Registry tools as OpenAI function definitions, with strict mode per tool."""

from __future__ import annotations

import warnings
from collections.abc import Collection, Iterable
from typing import Any, Literal

from adapters.openai.strict import NotStrictable, to_strict_schema
from toolkit.tool import Tool

__all__ = ["MAX_TOOLS", "StrictMode", "StrictSchemaWarning", "select_tools", "to_openai_tools"]

#: OpenAI rejects a request with more tools than this (``array_above_max_length``).
MAX_TOOLS = 128

StrictMode = bool | Literal["auto"]


class StrictSchemaWarning(UserWarning):
    """A tool could not be made strict and is sent non-strict."""


def select_tools(
    tools: Iterable[Tool],
    *,
    names: Collection[str] | None = None,
    tags: Collection[str] | None = None,
) -> list[Tool]:
    """The tools of a registry (or any iterable of tools) matching ``names`` and ``tags``.

    Args:
        tools: A ``ToolRegistry`` or an iterable of tools.
        names: Keep only these names (``None``: all). Unknown names raise.
        tags: Keep only tools carrying at least one of these tags (``None``: all).

    Raises:
        KeyError: When ``names`` contains a name that is not there.
    """
    available = list(tools)
    if names is not None:
        known = {t.name for t in available}
        missing = sorted(set(names) - known)
        if missing:
            raise KeyError(
                f"No tool named {', '.join(map(repr, missing))}; available: "
                f"{', '.join(sorted(known)) or '(none)'}. Fix the names= argument."
            )
        wanted = set(names)
        available = [t for t in available if t.name in wanted]
    if tags is not None:
        tag_set = set(tags)
        available = [t for t in available if t.spec.tags & tag_set]
    return available


def _function(tool: Tool, strict: StrictMode) -> dict[str, Any]:
    spec = tool.spec
    schema = dict(spec.input_schema)
    schema.pop("$schema", None)
    function: dict[str, Any] = {"name": spec.name, "description": spec.description}
    wants = spec.options.strict if strict == "auto" else strict
    try_strict = wants is not False
    if try_strict:
        try:
            function["parameters"] = to_strict_schema(schema)
            function["strict"] = True
            return function
        except NotStrictable as exc:
            if wants is True:
                warnings.warn(
                    f"Tool {spec.name!r} is sent without strict mode: {exc}. Change the "
                    f"parameter's type, or set strict=False on the tool to silence this.",
                    StrictSchemaWarning,
                    stacklevel=3,
                )
    function["parameters"] = schema
    if strict is not False:
        function["strict"] = False
    return function


def to_openai_tools(
    tools: Iterable[Tool],
    *,
    strict: StrictMode = False,
    names: Collection[str] | None = None,
    tags: Collection[str] | None = None,
    api: Literal["chat", "responses"] = "chat",
) -> list[dict[str, Any]]:
    """OpenAI function definitions for the tools of a registry.

    Args:
        tools: A ``ToolRegistry`` (or any iterable of tools).
        strict: ``False``: plain schemas. ``True``: strict schemas; a tool that cannot be made
            strict is sent non-strict with a :class:`StrictSchemaWarning` (one bad tool never
            sinks the toolset). ``"auto"``: each tool's own ``strict`` option decides, and a
            tool without one is strict when its schema allows it.
        names: Only these tools.
        tags: Only tools with one of these tags.
        api: ``"chat"`` for Chat Completions (``{"type": "function", "function": {...}}``),
            ``"responses"`` for the Responses API (flat ``{"type": "function", "name": ...}``).

    Returns:
        One definition per tool, in registry order.

    Raises:
        ValueError: When more than 128 tools would be sent (OpenAI rejects such requests).
        KeyError: When ``names`` contains an unknown name.
    """
    chosen = select_tools(tools, names=names, tags=tags)
    if len(chosen) > MAX_TOOLS:
        raise ValueError(
            f"{len(chosen)} tools exceed OpenAI's limit of {MAX_TOOLS} per request. Send fewer: "
            "pass names=... or tags=..., or split the tools between agents."
        )
    functions = [_function(tool, strict) for tool in chosen]
    if api == "responses":
        return [{"type": "function", **fn} for fn in functions]
    return [{"type": "function", "function": fn} for fn in functions]
