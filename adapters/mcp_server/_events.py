"""Resumable SSE streams: a bounded in-memory event store for stateful HTTP sessions.

With an event store the SDK's transport opens each SSE stream with a priming event (an id and
no data, plus a ``retry`` hint) and numbers every event, so a client that lost its stream
reconnects with ``GET`` and ``Last-Event-ID`` and receives what it missed (SEP-1699). The
store is bounded so that a server cannot grow without limit: at most ``max_events`` events in
all (the oldest leave first) and none older than ``max_age`` seconds. A client that comes back
after its events left gets the SDK's answer for an unknown event id and starts over.
"""

from __future__ import annotations

import itertools
import time
from collections import OrderedDict, deque
from dataclasses import dataclass

from mcp.server.streamable_http import (
    EventCallback,
    EventId,
    EventMessage,
    EventStore,
    StreamId,
)
from mcp_types import JSONRPCMessage

__all__ = ["BoundedEventStore"]


@dataclass(slots=True)
class _Event:
    stream: StreamId
    message: JSONRPCMessage | None
    at: float


class BoundedEventStore(EventStore):
    """Events per stream, in order, within a count and an age limit.

    Args:
        max_events: Events kept in all; past it the oldest are dropped.
        max_age: Seconds an event is kept.
    """

    def __init__(self, max_events: int = 10_000, max_age: float = 300.0) -> None:
        self.max_events = max_events
        self.max_age = max_age
        self._events: OrderedDict[EventId, _Event] = OrderedDict()
        self._streams: dict[StreamId, deque[EventId]] = {}
        self._ids = itertools.count(1)

    @property
    def size(self) -> int:
        """Events held now (no ``__len__``: the SDK tests the store for truth)."""
        return len(self._events)

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        """Keep one event (``None``: a priming event) and return its id."""
        now = time.monotonic()
        event_id = f"{next(self._ids)}"
        self._events[event_id] = _Event(stream_id, message, now)
        self._streams.setdefault(stream_id, deque()).append(event_id)
        self._trim(now)
        return event_id

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        """Send the events of ``last_event_id``'s stream that came after it; its stream id."""
        self._trim(time.monotonic())
        last = self._events.get(last_event_id)
        if last is None:
            return None
        after = False
        for event_id in list(self._streams.get(last.stream, ())):
            if after:
                event = self._events.get(event_id)
                if event is not None and event.message is not None:
                    await send_callback(EventMessage(event.message, event_id))
            after = after or event_id == last_event_id
        return last.stream

    def _trim(self, now: float) -> None:
        while self._events:
            oldest_id, oldest = next(iter(self._events.items()))
            if len(self._events) <= self.max_events and now - oldest.at <= self.max_age:
                return
            del self._events[oldest_id]
            ids = self._streams.get(oldest.stream)
            if ids:
                ids.popleft()  # events leave in the order they came, so it is the stream's first
                if not ids:
                    del self._streams[oldest.stream]
