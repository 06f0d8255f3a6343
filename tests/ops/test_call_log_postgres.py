"""The call log on PostgreSQL: many processes write one table; failures never reach a call."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from adapters.cli import _render, app
from tests.support.postgres import PostgresCluster
from toolkit import CallOptions, ToolRegistry, mcp_tool
from toolkit.records.call_log import CallLog, read_calls

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

WRITER = """
import sys
from toolkit import CallOptions
from toolkit.records.call_log import CallLog
from adapters.demo.warehouse_app import registry

url, host, who = sys.argv[1:4]
log = CallLog(url, caller=f"{host}-process", host=host).attach(registry)
for i in range(3):
    registry.call_sync("query_bins", {"tenant_code": "acme"})
registry.call_sync("no_such_tool", {}, options=CallOptions(caller=who))
log.close()
assert log.written == 4 and log.dropped == 0, (log.written, log.dropped)
"""


@mcp_tool
def login(user: str, password: str) -> str:
    """Log a user in.

    Args:
        user: The user name.
        password: The user's password.
    """
    return f"welcome {user}"


def _registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(login)
    return registry


@pytest.fixture(autouse=True)
def _wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    for console in (_render.console, _render.err_console):
        monkeypatch.setattr(console, "width", 250)


def _calls(*args: str) -> list[dict[str, object]]:
    listed = runner.invoke(app, ["calls", *args, "--json", "--limit", "100"])
    assert listed.exit_code == 0, listed.output
    return list(json.loads(listed.stdout))


def test_two_processes_write_one_log_and_toolkit_calls_lists_both(postgres_url: str) -> None:
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(WRITER), postgres_url, host, who],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
        )
        for host, who in (("replica-a", "alice"), ("replica-b", "bob"))
    ]  # started together: both create the table on first use, at the same moment
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err

    rows = _calls("--log", postgres_url)
    assert len(rows) == 8
    assert {(r["host"], r["caller"]) for r in rows} == {
        ("replica-a", "replica-a-process"),
        ("replica-a", "alice"),
        ("replica-b", "replica-b-process"),
        ("replica-b", "bob"),
    }
    by_host = _calls("--log", postgres_url, "--host", "replica-b")
    assert len(by_host) == 4 and {r["host"] for r in by_host} == {"replica-b"}
    by_caller = _calls("--log", postgres_url, "--caller", "alice")
    assert [(r["tool"], r["code"]) for r in by_caller] == [("no_such_tool", "TOOL_NOT_FOUND")]
    assert len(_calls("--log", postgres_url, "--errors")) == 2
    assert len(_calls("--log", postgres_url, "--tool", "query_bins", "--since", "1h")) == 6

    table = runner.invoke(app, ["calls", "--log", postgres_url, "--host", "replica-a"])
    assert table.exit_code == 0 and "replica-a" in table.stdout and "replica-b" not in table.stdout


def test_the_password_never_shows(
    postgres: PostgresCluster, postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    secret = postgres.password
    table = runner.invoke(app, ["calls", "--log", postgres_url])  # no table yet
    assert table.exit_code == 2 and "No call log in" in table.output
    assert secret not in table.output and "***" in table.output

    wrong = postgres_url.replace(secret, "wrong-password-123")
    caplog.set_level(logging.INFO, logger="toolkit")
    registry = _registry()
    with CallLog(wrong).attach(registry) as log:
        assert not registry.call_sync("login", {"user": "bob", "password": "x"}).is_error
        assert log.flush()
    assert log.dropped == 1 and log.failures == 1
    assert "password authentication failed" in caplog.text
    refused = runner.invoke(app, ["calls", "--log", wrong])
    assert refused.exit_code == 2 and "password authentication failed" in refused.output
    shown = caplog.text + refused.output + repr(log) + log.target
    assert "wrong-password-123" not in shown and secret not in shown


def test_a_locked_table_drops_the_batch_and_counts_it(postgres_url: str) -> None:
    registry = _registry()
    with CallLog(postgres_url, busy_timeout=0.2, flush_interval=0.01).attach(registry) as log:
        registry.call_sync("login", {"user": "first", "password": "x"})
        assert log.flush()
        with psycopg.connect(postgres_url) as holder:
            holder.execute("LOCK TABLE toolkit_calls IN ACCESS EXCLUSIVE MODE")
            started = time.monotonic()
            assert not registry.call_sync("login", {"user": "locked", "password": "x"}).is_error
            assert time.monotonic() - started < 0.2  # the call never waited for the lock
            assert log.flush(timeout=15)
            assert log.dropped == 1 and log.failures == 1
        registry.call_sync("login", {"user": "after", "password": "x"})
        assert log.flush()
    users = [c.arguments["user"] for c in read_calls(postgres_url)]
    assert users == ["after", "first"]
    assert read_calls(postgres_url)[0].arguments["password"] == "***"


def test_an_unreachable_database_never_fails_a_call() -> None:
    closed = "postgresql://toolkit:pw-unreachable@127.0.0.1:1/postgres"  # nothing listens there
    registry = _registry()
    with CallLog(closed, flush_interval=0.01).attach(registry) as log:
        for i in range(3):
            result = registry.call_sync("login", {"user": f"u{i}", "password": "x"})
            assert not result.is_error and result.content == f"welcome u{i}"
        assert log.flush(timeout=30)
    assert log.written == 0 and log.dropped == 3 and log.failures >= 1
    refused = runner.invoke(app, ["calls", "--log", closed])
    assert refused.exit_code == 2 and "Cannot connect to the call log" in refused.output
    assert "pw-unreachable" not in refused.output


def test_retention_and_odd_tool_names(postgres_url: str) -> None:
    registry = _registry()
    options = {"max_rows": 5, "flush_interval": 0.01, "prune_interval": 0.0}
    with CallLog(postgres_url, **options).attach(registry) as log:  # type: ignore[arg-type]
        for i in range(12):
            registry.call_sync("login", {"user": f"u{i}", "password": "x"})
            assert log.flush()
        registry.call_sync("nul\x00name", {})
        assert log.flush()
    assert log.dropped == 0
    calls = read_calls(postgres_url, limit=100)
    assert calls[0].tool == "nul\ufffdname" and calls[0].code == "TOOL_NOT_FOUND"
    assert [c.arguments["user"] for c in calls[1:]] == [f"u{i}" for i in range(11, 7, -1)]

    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("UPDATE toolkit_calls SET started_at = %s", (time.time() - 3 * 86400,))
    with CallLog(postgres_url, retention_days=1).attach(registry) as log:
        registry.call_sync("login", {"user": "new", "password": "x"})
        assert log.flush()
    assert [c.arguments["user"] for c in read_calls(postgres_url)] == ["new"]


def test_the_peer_and_the_caller_are_both_kept(postgres_url: str) -> None:
    registry = _registry()
    with CallLog(postgres_url).attach(registry) as log:
        options = CallOptions(caller="alice", peer="10.1.2.3")
        registry.call_sync("login", {"user": "a", "password": "x"}, options=options)
        assert log.flush()
    (call,) = read_calls(postgres_url, caller="alice")
    assert (call.caller, call.peer) == ("alice", "10.1.2.3")


def test_an_old_table_gets_the_answer_columns_and_keeps_them(postgres_url: str) -> None:
    from toolkit.governance import ResultCache

    first = _registry()
    with CallLog(postgres_url).attach(first) as log:
        first.call_sync("login", {"user": "a", "password": "x"})
        assert log.flush()
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # a table of the version before
        conn.execute("ALTER TABLE toolkit_calls DROP COLUMN answered_by, DROP COLUMN full_size")
    registry = ToolRegistry(middleware=[ResultCache(ttl=60)])
    registry.register(ping)
    with CallLog(postgres_url).attach(registry) as log:
        registry.call_sync("ping", {})
        registry.call_sync("ping", {})
        assert log.flush()
    assert [(c.tool, c.answered_by) for c in read_calls(postgres_url)] == [
        ("ping", "cache"),
        ("ping", None),
        ("login", None),
    ]


@mcp_tool(read_only=True)
def ping() -> str:
    """Answer pong."""
    return "pong"
