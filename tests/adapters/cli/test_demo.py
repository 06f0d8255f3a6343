"""``toolkit demo`` as a newcomer runs it: the real console script, the real carriers MCP server
over stdio, and the real OpenAI client against the local stub for the real-model path."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import pytest
from rich.console import Console
from typer.testing import CliRunner

from adapters.cli import _demo_run, app
from adapters.cli._demo_model import ModelChoice
from adapters.cli._demo_run import DemoOptions, run_demo
from adapters.mcp_client import McpServerConfig
from adapters.testing import Call, OpenAIStub, Turn

ROOT = Path(__file__).resolve().parents[3]
TOOLKIT = Path(sys.executable).parent / "toolkit"
OFFLINE = ModelChoice(api_key=None, name="unused", base_url=None)


@dataclass
class Run:
    """A finished ``toolkit demo`` process, and every process it started."""

    returncode: int
    out: str
    err: str
    children: set[int] = field(default_factory=set)

    @property
    def flat(self) -> str:
        """stdout without panel and table frames, whitespace collapsed."""
        text = self.out
        for frame in "│┃":
            text = text.replace(frame, " ")
        return " ".join(text.split())


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["COLUMNS"] = "160"  # fewer wrapped lines to read through; the look is checked at 100
    env.update(extra)
    return env


def _demo(*args: str, env: dict[str, str] | None = None) -> Run:
    """Run the console script with stdin not a terminal, watching its process tree."""
    children: set[int] = set()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(
            [str(TOOLKIT), "demo", *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            cwd=ROOT,
            env=env or _env(),
        )
        deadline = time.monotonic() + 120
        with proc:
            while proc.poll() is None:
                assert time.monotonic() < deadline, "toolkit demo did not finish in 120 s"
                try:
                    children.update(c.pid for c in psutil.Process(proc.pid).children(True))
                except psutil.NoSuchProcess:
                    break
                time.sleep(0.05)
            proc.wait()
        out.seek(0)
        err.seek(0)
        return Run(proc.returncode, out.read(), err.read(), children)


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub(model="gpt-stub-demo", api_key="sk-demo") as server:
        yield server


# -- offline, the way `make demo` runs ------------------------------------------------------------


def test_offline_run_recovers_quotes_remotely_denies_without_a_terminal() -> None:
    run = _demo()
    assert run.returncode == 0, run.err
    text = run.flat
    assert "offline: scripted model; set OPENAI_API_KEY to use a real one" in text
    # The tools and where they come from: local modules and the MCP server.
    assert "11 tools in one registry: 9 local functions, 2 from an MCP server" in text
    assert "adapters.demo.warehouse.bins" in text and "mcp://carriers/quote_shipment" in text
    # The failing call comes back as a message, and the model uses it.
    assert "get_bin ✗ EXECUTION_ERROR" in text
    assert "bin A-1-1 not found. Bin codes look like 'A-01-01'; query_bins lists them." in text
    assert 'query_bins(tenant_code="acme", warehouse_id=1)' in text
    assert 'get_bin(code="A-01-01")' in text
    # The remote call went over stdio to the carriers server and came back.
    assert 'carriers_quote_shipment(weight_kg=2.5, country="DE")' in text
    assert "carriers_quote_shipment ✓" in text and '"price_eur": 7.9' in text
    # The destructive call waited, and nobody could approve it.
    assert "approval needed" in text
    assert "denied: stdin is not a terminal, so nobody can approve; run with --yes" in text
    assert "delete_bin ✗ DENIED" in text
    assert "Not run: it needs a person's approval and none can be asked here" in text
    # The answer and the call log.
    assert "costs 7.90 EUR" in text and "I did not delete bin A-02-01" in text
    assert "call log: 5 calls in 5 turns, 2 failed" in text
    assert " deny " in text and "tokens: none reported" in text  # nobody rejected it
    assert "Traceback" not in run.out + run.err
    # The MCP server was a child process, and it is gone.
    assert run.children, "the carriers server should have run as a child process"
    assert [pid for pid in run.children if _alive(pid)] == []


def test_yes_approves_the_destructive_call() -> None:
    run = _demo("--yes", "--no-remote")
    assert run.returncode == 0, run.err
    text = run.flat
    assert "--no-remote: the carriers MCP server is not started" in text
    assert "9 tools in one registry: 9 local functions" in text and "mcp://" not in text
    assert "approved (--yes)" in text and "delete_bin ✓" in text
    assert "Bin A-02-01 deleted." in text
    assert "I have no shipping quote: the carriers server is not connected." in text
    assert "Bin A-02-01 is deleted." in text
    assert "call log: 4 calls in 5 turns, 1 failed" in text and "approved" in text


# -- a real model: the OpenAI client against a real HTTP server on 127.0.0.1 ---------------------


def test_openai_compatible_endpoint_drives_the_agent(stub: OpenAIStub) -> None:
    def answer(request: dict[str, Any]) -> Turn:
        tool_texts = [m["content"] for m in request["messages"] if m["role"] == "tool"]
        return Turn(text="From the tools: " + " | ".join(map(str, tool_texts)))

    stub.script(
        Turn(
            tool_calls=[
                Call("get_bin", {"code": "A-1-1"}),
                Call("carriers_quote_shipment", {"weight_kg": 1, "country": "FR"}),
                Call("reports_my_tenant", {}),
            ]
        ),
        answer,
    )
    env = _env(OPENAI_API_KEY="sk-demo", OPENAI_BASE_URL=stub.url, OPENAI_MODEL="not-this-one")
    run = _demo("--model", "gpt-stub-demo", env=env)
    assert run.returncode == 0, run.err
    text = run.flat
    assert f"model: gpt-stub-demo at {stub.url}" in text and "offline" not in text
    assert stub.rejections == [] and len(stub.requests) == 2
    assert {r["model"] for r in stub.requests} == {"gpt-stub-demo"}
    sent = {t["function"]["name"] for t in stub.requests[0]["tools"]}
    assert {"get_bin", "delete_bin", "carriers_quote_shipment"} <= sent
    # Both results, the failure and the remote quote, reached the model and its answer.
    assert "From the tools: Error [EXECUTION_ERROR] in tool 'get_bin'" in text
    assert '"price_eur": 6.7' in text
    assert "| acme" in text  # the tenant came from the application, not the model
    assert "call log: 3 calls in 2 turns, 1 failed" in text
    assert "tokens: 20 in, 10 out, 30 total" in text
    assert [pid for pid in run.children if _alive(pid)] == []


def test_rejected_key_is_one_clear_line_and_exit_2(stub: OpenAIStub) -> None:
    env = _env(OPENAI_API_KEY="sk-wrong", OPENAI_BASE_URL=stub.url)
    run = _demo("--no-remote", env=env)
    assert run.returncode == 2
    err = " ".join(run.err.split())
    assert f"error: the model endpoint {stub.url} rejected the API key (HTTP 401)" in err
    assert "Check OPENAI_API_KEY" in err
    assert "Traceback" not in run.out + run.err and stub.remaining == 0


def test_unreachable_endpoint_is_one_clear_line_and_exit_2() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    run = _demo(env=_env(OPENAI_API_KEY="sk-demo", OPENAI_BASE_URL=url))
    assert run.returncode == 2
    err = " ".join(run.err.split())
    assert f"error: cannot reach the model endpoint {url}" in err
    assert "Check OPENAI_BASE_URL" in err
    assert "Traceback" not in run.out + run.err
    # The MCP server had started before the model failed; it is shut down all the same.
    assert run.children and [pid for pid in run.children if _alive(pid)] == []


def test_a_closed_stdout_ends_the_demo_quietly() -> None:
    """``toolkit demo | head``: the reader goes away while the MCP server is up."""
    proc = subprocess.Popen(
        [str(TOOLKIT), "demo"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=_env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert "mcp-toolkit demo" in proc.stdout.readline().decode()
    proc.stdout.close()  # every later write fails with a broken pipe
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in err


# -- in process: options that need no second process ---------------------------------------------


def test_model_option_without_a_key_says_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    done = CliRunner().invoke(app, ["demo", "--model", "llama3.1"])
    assert done.exit_code == 2
    assert "--model llama3.1 needs OPENAI_API_KEY" in " ".join(done.output.split())


@pytest.mark.anyio
async def test_max_iterations_ends_with_an_answer_from_what_was_found() -> None:
    buffer = io.StringIO()
    options = DemoOptions(OFFLINE, max_iterations=1, remote=False)
    await run_demo(options, Console(file=buffer, width=160))
    text = " ".join(buffer.getvalue().replace("│", " ").split())
    assert "get_bin ✗ EXECUTION_ERROR" in text and "query_bins(" not in text
    assert "I could not find bin A-1-1." in text
    assert "call log: 1 call in 2 turns, 1 failed" in text


@pytest.mark.anyio
async def test_a_remote_server_that_cannot_start_leaves_the_local_demo_running(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    missing = tmp_path / "no_such_server.py"  # a real process that exits at start
    broken = McpServerConfig(name="carriers", command=sys.executable, args=(str(missing),))
    monkeypatch.setattr(_demo_run, "carriers_config", lambda: broken)
    buffer = io.StringIO()
    await run_demo(DemoOptions(OFFLINE, approve=True), Console(file=buffer, width=160))
    text = " ".join(buffer.getvalue().replace("│", " ").split())
    assert "remote tools skipped: MCP server 'carriers' is unreachable" in text
    assert "no_such_server.py" in text  # the server's own last words say why
    assert "9 tools in one registry: 9 local functions" in text
    assert "I have no shipping quote: the carriers server is not connected." in text
    assert "Bin A-02-01 is deleted." in text
