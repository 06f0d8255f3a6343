"""Questions to a 2026-07-28 client: answered by calling again (multi-round-trip requests).

From protocol 2026-07-28 on, a server does not send its own requests in the middle of a call.
A tool that asks (``context.elicit``, or ``context.sample`` for the client's model) instead
ends the round: the server answers the call with an ``InputRequiredResult`` holding the
question, the client answers and calls the tool again, and the tool runs again from its start.
Each question is keyed by its place in the tool's run (``elicit-0``, ``sample-0``…), so a tool
asks the same questions in the same order and every answer given so far comes back to it;
earlier answers travel in the ``requestState``, which the SDK's ``RequestStateBoundary`` seals
and verifies, so a client cannot forge them. This is the same replay rule LangGraph interrupts
follow.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping
from typing import Any

import mcp_types
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp_types.version import is_version_at_least

from toolkit.calls.interaction import Elicitation

__all__ = ["STATE_KEY_ENV", "InputRequired", "Rounds", "state_boundary"]

#: Environment variable with the key that seals ``requestState`` (shared by every worker and
#: replica of one service; without it each process makes its own key).
STATE_KEY_ENV = "TOOLKIT_REQUEST_STATE_KEY"


class InputRequired(Exception):
    """The round ends: the client must answer ``requests`` and call again."""

    def __init__(self, requests: dict[str, mcp_types.InputRequest], answers: dict[str, Any]):
        super().__init__("the tool needs the client's input")
        self.requests = requests
        self.answers = answers

    def result(self) -> dict[str, Any]:
        """The ``InputRequiredResult`` on the wire (``requestState`` is sealed on the way out)."""
        wire = mcp_types.InputRequiredResult(
            input_requests=self.requests,
            request_state=json.dumps(self.answers) if self.answers else None,
        )
        return wire.model_dump(by_alias=True, exclude_none=True, mode="json")


class Rounds:
    """The answers a call carries, and the questions its tool asks in this round."""

    def __init__(self, answers: Mapping[str, Any]) -> None:
        self.answers = dict(answers)
        self._asked = 0
        self._sampled = 0

    @classmethod
    def of(cls, protocol: str | None, params: mcp_types.CallToolRequestParams) -> Rounds | None:
        """The rounds of a 2026-07-28 call; ``None`` for older clients (they are asked mid-call)."""
        if protocol is None or not _asks_in_rounds(protocol):
            return None
        answers: dict[str, Any] = {}
        if params.request_state:
            try:
                earlier = json.loads(params.request_state)
            except ValueError:
                earlier = {}
            answers.update(earlier if isinstance(earlier, dict) else {})
        for key, response in (params.input_responses or {}).items():
            if isinstance(response, mcp_types.ElicitResult):
                answers[key] = {"action": response.action, "content": response.content or {}}
            elif isinstance(response, mcp_types.CreateMessageResult):
                answers[key] = {"text": _text(response.content)}
        return cls(answers)

    def elicit(self, message: str, schema: Mapping[str, Any]) -> Elicitation:
        """The answer to this question if the client gave it; else the round ends here."""
        key = f"elicit-{self._asked}"
        self._asked += 1
        answer = self.answers.get(key)
        if isinstance(answer, dict) and answer.get("action") in ("accept", "decline", "cancel"):
            return Elicitation(action=answer["action"], content=dict(answer.get("content") or {}))
        params = mcp_types.ElicitRequestFormParams(message=message, requested_schema=dict(schema))
        raise InputRequired({key: mcp_types.ElicitRequest(params=params)}, self.answers)

    def sample(self, request: mcp_types.CreateMessageRequestParams) -> str:
        """The client model's answer if it gave it; else the round ends here."""
        key = f"sample-{self._sampled}"
        self._sampled += 1
        answer = self.answers.get(key)
        if isinstance(answer, dict) and isinstance(answer.get("text"), str):
            return str(answer["text"])
        raise InputRequired({key: mcp_types.CreateMessageRequest(params=request)}, self.answers)


def _text(content: Any) -> str:
    blocks = content if isinstance(content, list) else [content]
    return "\n".join(b.text for b in blocks if isinstance(b, mcp_types.TextContent))


def state_boundary(name: str) -> RequestStateBoundary:
    """Server middleware sealing ``requestState`` with ``$TOOLKIT_REQUEST_STATE_KEY`` (or a
    per-process key), so a client cannot forge earlier answers."""
    key = os.environ.get(STATE_KEY_ENV)
    security = RequestStateSecurity(keys=[key]) if key else RequestStateSecurity.ephemeral()
    return RequestStateBoundary(security, default_audience=name)


@functools.lru_cache(maxsize=64)
def _asks_in_rounds(protocol: str) -> bool:
    """Whether a client of ``protocol`` answers questions in rounds (read once per version)."""
    return is_version_at_least(protocol, "2026-07-28")
