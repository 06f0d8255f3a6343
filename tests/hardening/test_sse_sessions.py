"""Resumed SSE streams belong to one session and one caller (issue 22, item 1).

Two real HTTP sessions on 127.0.0.1: the first (an admin) runs a tool whose result is private;
the second, in its own session, sends ``Last-Event-ID`` guesses (small numbers, and even the
first session's real event ids). It gets an empty stream or a refusal, never the admin's events.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from adapters.mcp_server import build_server, http_app, load_callers
from tests.support.serving import serving
from tests.support.sse import sse_events
from toolkit import ToolRegistry, mcp_tool

VERSION = "2025-11-25"
ACCEPT = "application/json, text/event-stream"
ADMIN = "admin-token-0123456789abcdef"
GUEST = "guest-token-0123456789abcdef"
PRIVATE = "PAYROLL-ROW-4242"


@mcp_tool
def admin_report() -> str:
    """The private report only the admin asked for."""
    return f"report: {PRIVATE}"


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    mp = pytest.MonkeyPatch()
    mp.setenv("ADMIN_TOKEN", ADMIN)
    mp.setenv("GUEST_TOKEN", GUEST)
    callers = load_callers(
        {"callers": {"admin": {"token": "${ADMIN_TOKEN}"}, "guest": {"token": "${GUEST_TOKEN}"}}}
    )
    registry = ToolRegistry()
    registry.register(admin_report)
    with serving(http_app(build_server(registry, callers=callers), stateless=False)) as url:
        yield url
    mp.undo()


def _session(client: httpx.Client, token: str) -> dict[str, str]:
    hello = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": VERSION,
            "capabilities": {},
            "clientInfo": {"name": "sse-test", "version": "1"},
        },
    }
    auth = {"Authorization": f"Bearer {token}"}
    answer = client.post("/mcp", json=hello, headers={"Accept": ACCEPT, **auth})
    assert answer.status_code == 200, answer.text
    headers = {
        **auth,
        "Accept": ACCEPT,
        "mcp-session-id": answer.headers["mcp-session-id"],
        "mcp-protocol-version": VERSION,
    }
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    client.post("/mcp", json=note, headers=headers)
    return headers


def _admin_call(client: httpx.Client, headers: dict[str, str]) -> list[dict[str, str]]:
    """The admin's call over SSE: its events (priming event and result), ids included."""
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "admin_report"}}
    with client.stream("POST", "/mcp", json=call, headers=headers) as response:
        events = list(sse_events(response.iter_lines()))
    assert any(PRIVATE in e.get("data", "") for e in events)
    return events


def _resume(client: httpx.Client, headers: dict[str, str], last_id: str) -> tuple[int, str]:
    """GET with ``Last-Event-ID``: the status and what the stream carried up to its end or
    its first result (a resumed stream of one's own stays open for what comes next)."""
    resume = {**headers, "Accept": "text/event-stream", "Last-Event-ID": last_id}
    seen: list[str] = []
    quiet = httpx.Timeout(20, read=2)  # a stream left open with nothing more to say ends here
    with client.stream("GET", "/mcp", headers=resume, timeout=quiet) as response:
        try:
            for event in sse_events(response.iter_lines()):
                seen.append(json.dumps(event))
                if '"result"' in event.get("data", ""):
                    break
        except httpx.ReadTimeout:
            pass
        return response.status_code, "\n".join(seen)


def test_a_second_session_guessing_event_ids_gets_none_of_the_first_sessions_events(
    base: str,
) -> None:
    with httpx.Client(base_url=base, timeout=20) as client:
        admin = _session(client, ADMIN)
        admin_ids = [e["id"] for e in _admin_call(client, admin) if "id" in e]
        guest = _session(client, GUEST)
        guesses = [str(n) for n in range(0, 40)] + admin_ids
        answers = [_resume(client, guest, guess) for guess in guesses]
    assert all(status in (200, 404) for status, _ in answers)
    leaked = [guess for guess, (_, body) in zip(guesses, answers, strict=True) if PRIVATE in body]
    assert leaked == []
    assert all('"result"' not in body for _, body in answers)  # no one's results at all


def test_the_same_caller_in_another_session_cannot_resume_the_first_sessions_stream(
    base: str,
) -> None:
    with httpx.Client(base_url=base, timeout=20) as client:
        first = _session(client, ADMIN)
        priming = _admin_call(client, first)[0]["id"]
        second = _session(client, ADMIN)
        _, elsewhere = _resume(client, second, priming)
        _, at_home = _resume(client, first, priming)  # its own session: the result comes back
    assert PRIVATE not in elsewhere
    assert PRIVATE in at_home


def test_event_ids_are_random_not_a_counter(base: str) -> None:
    with httpx.Client(base_url=base, timeout=20) as client:
        headers = _session(client, ADMIN)
        ids = [e["id"] for _ in range(3) for e in _admin_call(client, headers) if "id" in e]
    assert len(set(ids)) == len(ids)
    assert all(len(i) >= 20 and not i.isdigit() for i in ids)


def test_another_caller_presenting_a_session_id_is_told_the_session_does_not_exist(
    base: str,
) -> None:
    with httpx.Client(base_url=base, timeout=20) as client:
        admin = _session(client, ADMIN)
        priming = _admin_call(client, admin)[0]["id"]
        stolen = {**admin, "Authorization": f"Bearer {GUEST}"}
        status, body = _resume(client, stolen, priming)
    assert status == 404
    assert PRIVATE not in body


def test_an_unauthenticated_initialize_is_refused(base: str) -> None:
    hello: dict[str, Any] = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": VERSION,
            "capabilities": {},
            "clientInfo": {"name": "anonymous", "version": "1"},
        },
    }
    for auth in ({}, {"Authorization": "Bearer not-a-callers-token-at-all"}):
        answer = httpx.post(
            f"{base}/mcp", json=hello, headers={"Accept": ACCEPT, **auth}, timeout=20
        )
        assert answer.status_code == 401
        assert "mcp-session-id" not in answer.headers
        assert "callers file" in json.loads(answer.text)["error_description"]
