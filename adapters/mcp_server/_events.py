"""Resumable SSE streams: a bounded in-memory event store, one view per stateful HTTP session.

With an event store the SDK's transport opens each SSE stream with a priming event (an id and
no data, plus a ``retry`` hint) and numbers every event, so a client that lost its stream
reconnects with ``GET`` and ``Last-Event-ID`` and receives what it missed (SEP-1699). The
store is bounded so that a server cannot grow without limit: at most ``max_events`` events in
all (the oldest leave first) and none older than ``max_age`` seconds. A client that comes back
after its events left gets the SDK's answer for an unknown event id and starts over.

Rule: a stream belongs to one session, and so to the one caller that opened it (the SDK refuses
a session's id with another caller's credential). Event ids are random, so they cannot be
guessed, and each session stores and replays through its own view (:meth:`BoundedEventStore.
session`): stream ids are the clients' JSON-RPC request ids, which every client reuses, so they
are only ever looked up inside one session. A ``Last-Event-ID`` from another session, or one
this session never received, replays nothing: the client gets an empty stream, never another
session's events.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Any

from mcp.server import Server
from mcp.server.streamable_http import (
    EventCallback,
    EventId,
    EventMessage,
    EventStore,
    StreamId,
)
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types import JSONRPCMessage

__all__ = ["BoundedEventStore", "SessionScopedManager"]

#: Random bytes in an event id (128 bits: not guessable, not enumerable).
_ID_BYTES = 16


@dataclass(slots=True)
class _Event:
    owner: object
    stream: StreamId
    message: JSONRPCMessage | None
    at: float


class _SessionEvents(EventStore):
    """One session's events, held (and bounded) by the shared store."""

    def __init__(self, shared: BoundedEventStore) -> None:
        self._shared = shared

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        return self._shared._keep(self, stream_id, message)

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        return await self._shared._replay(self, last_event_id, send_callback)


class BoundedEventStore(EventStore):
    """Events per session and stream, in order, within a count and an age limit.

    The limits hold for all sessions together. Give each session its own view
    (:meth:`session`); used directly, the store is one session of its own.

    Args:
        max_events: Events kept in all; past it the oldest are dropped.
        max_age: Seconds an event is kept.
    """

    def __init__(self, max_events: int = 10_000, max_age: float = 300.0) -> None:
        self.max_events = max_events
        self.max_age = max_age
        self._events: OrderedDict[EventId, _Event] = OrderedDict()
        self._streams: dict[tuple[object, StreamId], deque[EventId]] = {}

    @property
    def size(self) -> int:
        """Events held now (no ``__len__``: the SDK tests the store for truth)."""
        return len(self._events)

    def session(self) -> EventStore:
        """A view for one session: it stores into this store and replays only its own events."""
        return _SessionEvents(self)

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        """Keep one event (``None``: a priming event) and return its (random) id."""
        return self._keep(self, stream_id, message)

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        """Send the events of ``last_event_id``'s stream that came after it; its stream id."""
        return await self._replay(self, last_event_id, send_callback)

    def _keep(self, owner: object, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        now = time.monotonic()
        event_id = secrets.token_urlsafe(_ID_BYTES)
        self._events[event_id] = _Event(owner, stream_id, message, now)
        self._streams.setdefault((owner, stream_id), deque()).append(event_id)
        self._trim(now)
        return event_id

    async def _replay(
        self, owner: object, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        self._trim(time.monotonic())
        last = self._events.get(last_event_id)
        if last is None or last.owner is not owner:  # unknown, expired, or another session's
            return None
        after = False
        for event_id in list(self._streams.get((owner, last.stream), ())):
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
            key = (oldest.owner, oldest.stream)
            ids = self._streams.get(key)
            if ids:
                ids.popleft()  # events leave in the order they came, so it is the stream's first
                if not ids:
                    del self._streams[key]


class SessionScopedManager(StreamableHTTPSessionManager):
    """The SDK's session manager, giving each new session its own view of the event store.

    The SDK hands the one ``event_store`` it was given to every session's transport; the
    transports key streams by JSON-RPC request id, which every client reuses, so one shared
    store would replay one session's events into another. Here each session is admitted with
    a fresh :meth:`BoundedEventStore.session` view instead.
    """

    def __init__(
        self, app: Server[Any], *, events: BoundedEventStore | None = None, **kwargs: Any
    ) -> None:
        super().__init__(app, event_store=events, **kwargs)
        self._shared_events = events

    def _admit_session(self, requestor: Any) -> Any:
        # Synchronous from here to the transport's creation: no other admission can interleave.
        if self._shared_events is not None:
            self.event_store = self._shared_events.session()
        return super()._admit_session(requestor)
