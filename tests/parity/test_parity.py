"""One behaviour, every entry point, the same result.

Each behaviour (a policy that sees the call's context, approval, retries, timeouts, exception
rules, redaction, records, propagated exceptions, context and injected values, progress) runs
through every entry point (``call``, ``call_sync``, ``call_many``, LangChain ``invoke`` and
``ainvoke``, LangGraph's ``ToolNode``, ``build_agent``, the MCP server over stdio and over HTTP,
and ``toolkit call``), and must give the same outcome. The registry lives in
:mod:`tests.parity.parity_tools`, so a server subprocess serves the very same tools.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import httpx2
import mcp_types as types
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.errors import GraphBubbleUp
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from typer.testing import CliRunner

from adapters.cli import app
from adapters.langchain import to_langchain_tools
from adapters.langgraph import build_agent
from adapters.mcp_server import ERROR_META_KEY, build_server, http_app
from adapters.testing import ScriptedChatModel
from tests.adapters.mcp_server.conftest import serving
from tests.parity import parity_tools
from toolkit import CallOptions, ToolResult

ROOT = Path(__file__).resolve().parents[2]
TARGET = "tests.parity.parity_tools:registry"
REG = parity_tools.registry
PROPAGATE = CallOptions(propagate=(GraphBubbleUp,))
#: Where the registry, in this process or a server process, writes its call records.
RECORDS = Path(tempfile.mkdtemp(prefix="parity-")) / "records.jsonl"


@dataclass(frozen=True)
class Outcome:
    """A result as every sink can tell it: failed or not, the error code, the text."""

    error: bool
    code: str | None
    text: str


@dataclass(frozen=True)
class Behaviour:
    tool: str
    arguments: dict[str, Any]
    code: str | None = None  # None: success
    contains: str = ""
    absent: str = ""
    raises: bool = False  # propagates out of in-process entry points
    #: Entry points where the behaviour is a different, documented one (see NOT_APPLICABLE).
    skip: frozenset[str] = frozenset()


IN_GRAPH = frozenset(
    {"build_agent", "tool_node"}
)  # "ask" is answered through interrupt() in a graph
OUT_OF_PROCESS = frozenset({"mcp_stdio", "mcp_http", "cli"})  # no caller to propagate to

BEHAVIOURS: dict[str, Behaviour] = {
    "success": Behaviour("add", {"a": 40, "b": 2}, contains="42"),
    "policy_sees_context": Behaviour("guarded", {"note": "n"}, contains="guarded n"),
    "approval_approved": Behaviour("wipe", {"scope": "tmp"}, contains="wiped tmp", skip=IN_GRAPH),
    "approval_rejected": Behaviour(
        "wipe", {"scope": "all"}, "DENIED", "only tmp may be wiped", skip=IN_GRAPH
    ),
    "retries": Behaviour("flaky", {}, contains="ok after 2 attempts"),
    "timeout": Behaviour("sleepy", {"seconds": 3}, "TIMEOUT", "0.3 s"),
    "exception_rule": Behaviour(
        "find_bin", {"code": "B-9"}, "EXECUTION_ERROR", "Bin B-9 does not exist"
    ),
    "redaction": Behaviour(
        "login", {"user": "bob", "password": "hunter22"}, "EXECUTION_ERROR", "***", "hunter22"
    ),
    "invalid_params": Behaviour("add", {"a": "forty"}, "INVALID_PARAMS", "`a`"),
    "context": Behaviour("whoami", {"note": "hi"}, contains="hi: tool=whoami call_id=yes"),
    "injected_default": Behaviour("stamp", {"note": "n"}, contains="n for none"),
    "injected_refused": Behaviour(
        "stamp", {"note": "n", "tenant": "evil"}, "INVALID_PARAMS", "set by the application"
    ),
    "propagated": Behaviour(
        "interrupts", {"note": "x"}, raises=True, skip=IN_GRAPH | OUT_OF_PROCESS
    ),
    "progress": Behaviour("progress", {"steps": 2}, contains="2 steps"),
}


# -- reading each sink's answer ----------------------------------------------------------------


def _from_result(result: ToolResult) -> Outcome:
    return Outcome(result.is_error, result.code.value if result.code else None, result.content)


def _from_message(message: ToolMessage) -> Outcome:
    error = message.status == "error"
    code = message.artifact["error"]["code"] if error and message.artifact else None
    return Outcome(error, code, str(message.content))


def _from_mcp(result: types.CallToolResult) -> Outcome:
    text = "".join(b.text for b in result.content if isinstance(b, types.TextContent))
    meta = (result.meta or {}).get(ERROR_META_KEY) or {}
    return Outcome(bool(result.is_error), meta.get("code"), text)


def _tool_call(behaviour: Behaviour) -> dict[str, Any]:
    return {
        "name": behaviour.tool,
        "args": behaviour.arguments,
        "id": "call_1",
        "type": "tool_call",
    }


# -- entry points -------------------------------------------------------------------------------


async def via_call(b: Behaviour) -> Outcome:
    return _from_result(await REG.call(b.tool, b.arguments, options=PROPAGATE))


async def via_call_sync(b: Behaviour) -> Outcome:
    return _from_result(
        await anyio.to_thread.run_sync(
            lambda: REG.call_sync(b.tool, b.arguments, options=PROPAGATE)
        )
    )


async def via_call_many(b: Behaviour) -> Outcome:
    return _from_result((await REG.call_many([(b.tool, b.arguments)], options=PROPAGATE))[0])


def _lc_tool(name: str) -> Any:
    return next(t for t in to_langchain_tools(REG) if t.name == name)


async def via_langchain_invoke(b: Behaviour) -> Outcome:
    tool = _lc_tool(b.tool)
    return _from_message(await anyio.to_thread.run_sync(tool.invoke, _tool_call(b)))


async def via_langchain_ainvoke(b: Behaviour) -> Outcome:
    return _from_message(await _lc_tool(b.tool).ainvoke(_tool_call(b)))


async def via_tool_node(b: Behaviour) -> Outcome:
    builder = StateGraph(MessagesState)
    builder.add_node("tools", ToolNode(to_langchain_tools(REG)))
    builder.add_edge(START, "tools")
    builder.add_edge("tools", END)
    state = MessagesState(messages=[AIMessage("", tool_calls=[_tool_call(b)])])
    graph = builder.compile()
    out = await anyio.to_thread.run_sync(lambda: graph.invoke(state))
    return _from_message(out["messages"][-1])


async def via_build_agent(b: Behaviour) -> Outcome:
    model = ScriptedChatModel(
        turns=[{"tool_calls": [{"name": b.tool, "args": b.arguments}]}, "Done."]
    )
    agent = build_agent(model, REG)
    state = await anyio.to_thread.run_sync(agent.invoke, {"messages": [("user", "go")]})
    return _from_message(next(m for m in state["messages"] if isinstance(m, ToolMessage)))


async def _over_mcp(client: Client, b: Behaviour, seen: list[float]) -> Outcome:
    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    return _from_mcp(await client.call_tool(b.tool, b.arguments, progress_callback=on_progress))


class _Servers:
    """One stdio server process and one HTTP server for the whole module (starting a server
    per case would dominate the run time); the stdio session lives on its own event loop."""

    def __init__(self) -> None:
        self.stack = contextlib.ExitStack()
        self.portal: BlockingPortal | None = None
        self.stdio: Client | None = None
        self.url = ""

    def open_stdio(self) -> tuple[BlockingPortal, Client]:
        if self.stdio is None:
            env = {**os.environ, "PYTHONPATH": str(ROOT), "PARITY_RECORDS": str(RECORDS)}
            params = StdioServerParameters(
                command=sys.executable,
                args=["-m", "adapters.mcp_server", TARGET],
                env=env,
                cwd=str(ROOT),
            )
            self.portal = self.stack.enter_context(start_blocking_portal())
            self.stdio = self.stack.enter_context(
                self.portal.wrap_async_context_manager(Client(params))
            )
        assert self.portal is not None
        return self.portal, self.stdio

    def open_http(self) -> str:
        if not self.url:
            self.url = self.stack.enter_context(serving(http_app(build_server(REG, name="parity"))))
        return self.url


SERVERS = _Servers()


@pytest.fixture(scope="module", autouse=True)
def _servers() -> Iterator[None]:
    with SERVERS.stack:
        yield


async def via_mcp_stdio(b: Behaviour) -> Outcome:
    portal, client = SERVERS.open_stdio()
    seen: list[float] = []
    outcome = await anyio.to_thread.run_sync(portal.call, _over_mcp, client, b, seen)
    if b.tool == "progress":
        assert seen == [1, 2]
    return outcome


async def via_mcp_http(b: Behaviour) -> Outcome:
    url = SERVERS.open_http()
    seen: list[float] = []
    http = httpx2.AsyncClient(timeout=httpx2.Timeout(20))
    async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
        outcome = await _over_mcp(client, b, seen)
    if b.tool == "progress":
        assert seen == [1, 2]
    return outcome


async def via_cli(b: Behaviour) -> Outcome:
    args = ["call", TARGET, b.tool, json.dumps(b.arguments), "--json"]
    result = await anyio.to_thread.run_sync(lambda: CliRunner().invoke(app, args))
    data = json.loads(result.stdout)
    assert result.exit_code == (1 if data["is_error"] else 0)
    error = data.get("error") or {}
    return Outcome(data["is_error"], error.get("code"), data["content"])


ENTRY_POINTS: dict[str, Callable[[Behaviour], Awaitable[Outcome]]] = {
    "call": via_call,
    "call_sync": via_call_sync,
    "call_many": via_call_many,
    "langchain_invoke": via_langchain_invoke,
    "langchain_ainvoke": via_langchain_ainvoke,
    "tool_node": via_tool_node,
    "build_agent": via_build_agent,
    "mcp_stdio": via_mcp_stdio,
    "mcp_http": via_mcp_http,
    "cli": via_cli,
}

CASES = [
    pytest.param(behaviour, entry, id=f"{behaviour}-{entry}")
    for behaviour, spec in BEHAVIOURS.items()
    for entry in ENTRY_POINTS
    if entry not in spec.skip
]


@pytest.fixture
def records(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    RECORDS.write_text("")
    monkeypatch.setenv("PARITY_RECORDS", str(RECORDS))
    yield RECORDS


@pytest.mark.anyio
@pytest.mark.parametrize(("behaviour", "entry"), CASES)
async def test_every_entry_point_behaves_the_same(
    behaviour: str, entry: str, records: Path
) -> None:
    b = BEHAVIOURS[behaviour]
    run = ENTRY_POINTS[entry]
    if b.raises:
        with pytest.raises(parity_tools.Interrupt):
            await run(b)
        return
    outcome = await run(b)
    assert outcome.error is (b.code is not None), outcome
    assert outcome.code == b.code, outcome
    assert b.contains in outcome.text, outcome
    if b.absent:
        assert b.absent not in outcome.text, outcome
    # Every call leaves one record, with secrets masked, whichever process served it.
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    mine = [r for r in lines if r["tool"] == b.tool]
    assert len(mine) == 1, lines
    assert mine[0]["outcome"] == ("error" if b.code else "ok")
    assert "hunter22" not in json.dumps(mine[0])
