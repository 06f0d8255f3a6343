"""The connection of a stateless 2026-07-28 request, its envelope validated once per envelope.

``Connection.from_envelope`` validates the request's ``clientInfo`` and ``clientCapabilities``
into models, builds ``InitializeRequestParams`` from them and creates an event and an exit
stack, for every request: about as much CPU as the tool call it serves. Clients send the same
envelope with every request, so here the models are made once per distinct envelope (a bounded
map, forgotten all at once past its size) and each request gets a connection of its own
(fresh ``state``; the event and the exit stack made only if something reads them) holding
them. A handler sees what ``from_envelope`` gives it: the same version, the same client
params and capabilities (equal models; shared between requests with the same envelope, as a
session's requests share its handshake's), set ``initialized``, no back-channel.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from functools import cached_property
from typing import Any

import anyio
from mcp.server.connection import Connection

__all__ = ["EnvelopeConnections", "has_cleanup"]

#: Distinct envelopes remembered (a client sends one; many clients, a few).
_LIMIT = 256
#: Envelopes whose ``repr`` is longer than this are validated for each request, not kept.
_MAX_KEY = 4096


class _BornReady(Connection):
    """A connection built from remembered envelope models; lazy event and exit stack."""

    def __init__(self, template: Connection) -> None:  # sets what the parent's would set
        self.outbound = template.outbound
        self.protocol_version = template.protocol_version
        self.session_id = None
        self._client_params = template.client_params
        self.client_capabilities = template.client_capabilities
        self.state = {}

    @cached_property
    def initialized(self) -> anyio.Event:  # type: ignore[override]
        event = anyio.Event()
        event.set()
        return event

    @cached_property
    def exit_stack(self) -> AsyncExitStack:  # type: ignore[override]
        return AsyncExitStack()


def has_cleanup(connection: Connection) -> bool:
    """Whether anything was pushed onto ``connection``'s exit stack (it must be unwound)."""
    if isinstance(connection, _BornReady):
        stack = connection.__dict__.get("exit_stack")
        if stack is None:  # never read, so nothing was pushed
            return False
    else:
        stack = connection.exit_stack
    return bool(getattr(stack, "_exit_callbacks", True))


class EnvelopeConnections:
    """``Connection.from_envelope``, the envelope's models made once per distinct envelope."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, str, str], Connection] = {}

    def of(self, version: str, client_info: Any, capabilities: Any) -> Connection:
        """A fresh connection for one request with this envelope (raw ``_meta`` values, as
        parsed from JSON: their ``repr`` tells two envelopes apart)."""
        key = (version, repr(client_info), repr(capabilities))
        template = self._known.get(key)
        if template is None:
            template = Connection.from_envelope(version, client_info, capabilities)
            if len(key[1]) + len(key[2]) > _MAX_KEY:
                return template
            if len(self._known) >= _LIMIT:
                self._known.clear()
            self._known[key] = template
        return _BornReady(template)
