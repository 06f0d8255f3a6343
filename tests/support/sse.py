"""Server-sent events as a test reads them off a raw HTTP stream."""

from __future__ import annotations

from collections.abc import Iterator


def sse_events(lines: Iterator[str]) -> Iterator[dict[str, str]]:
    """SSE events as dicts of their fields (``id``, ``data``, ``retry``...)."""
    event: dict[str, str] = {}
    for line in lines:
        if not line:
            if event:
                yield event
            event = {}
            continue
        field, _, value = line.partition(":")
        event[field] = value[1:] if value.startswith(" ") else value
