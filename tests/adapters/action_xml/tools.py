"""The tools the protocol tests talk about: scalars, lists, nested objects, free text, odd names."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from toolkit import ToolRegistry, mcp_tool


class FileRef(BaseModel):
    """One file to read."""

    path: str
    start_line: int | None = None


class ReadArgs(BaseModel):
    """The files to read."""

    file: list[FileRef]


class Address(BaseModel):
    """A postal address."""

    street: str
    city: str


@mcp_tool(read_only=True)
def ReadWorldStateTool(path: str, default_value: Any = None) -> Any:
    """Reads a value from the shared world state.

    Args:
        path: The dot-separated path to the value (e.g. "environment.time.current_hour").
        default_value: Value to return if path is not found.
    """
    world = {"environment.weather.current_conditions": "sunny"}
    return world.get(path, default_value)


@mcp_tool
def PublishEventTool(event_type: str, payload: dict[str, Any] | None = None) -> str:
    """Publishes an event to the event bus.

    Args:
        event_type: The type of the event (e.g. "agent.action.completed").
        payload: A JSON object describing the event.
    """
    return f"published {event_type} with {sorted((payload or {}).items())}"


@mcp_tool(read_only=True)
def read_file(args: ReadArgs) -> str:
    """Read one or more files.

    Args:
        args: The files.
    """
    return ", ".join(f.path for f in args.file)


@mcp_tool
def ApplyDiffTool(file_path: str, diff_content: str) -> str:
    """Apply a SEARCH/REPLACE diff to a file.

    Args:
        file_path: The file to change.
        diff_content: The diff, exactly as written.
    """
    return f"applied {len(diff_content.splitlines())} lines to {file_path}"


@mcp_tool
def register_people(
    names: list[str], address: Address, priority: Literal["low", "high"] = "low"
) -> str:
    """Register people living at one address.

    Args:
        names: Their names.
        address: Where they live.
        priority: How soon to process them.
    """
    return f"{len(names)} people at {address.city} ({priority})"


@mcp_tool(read_only=True)
def set_counter(
    count: int, enabled: bool, ratio: float = 1.0, tags: list[str] | None = None
) -> dict[str, Any]:
    """Set the counter.

    Args:
        count: The new value.
        enabled: Whether it counts.
        ratio: A scale.
        tags: Labels.
    """
    return {"count": count, "enabled": enabled, "ratio": ratio, "tags": tags or []}


@mcp_tool(name="3d-render", read_only=True)
def render_3d(scene: str) -> str:
    """Render a scene in 3D.

    Args:
        scene: The scene name.
    """
    return f"rendered {scene}"


@mcp_tool(name="-dash", read_only=True)
def dash(value: str) -> str:
    """A tool whose name starts with a hyphen.

    Args:
        value: Anything.
    """
    return value


def protocol_registry() -> ToolRegistry:
    """A registry with every tool of this module."""
    registry = ToolRegistry()
    for fn in (
        ReadWorldStateTool,
        PublishEventTool,
        read_file,
        ApplyDiffTool,
        register_people,
        set_counter,
        render_3d,
        dash,
    ):
        registry.register(fn)
    return registry
