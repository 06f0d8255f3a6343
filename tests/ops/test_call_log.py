"""The durable call log: written off the call path, read by ``toolkit calls`` in another process."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from adapters.cli import _render, app
from adapters.cli._calls import parse_time
from adapters.stores.sqlite import call_log_path
from toolkit import CallOptions, CallRecord, ToolRegistry, mcp_tool
from toolkit.records.call_log import CallLog, read_calls

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


@mcp_tool
def login(user: str, password: str) -> str:
    """Log a user in.

    Args:
        user: The user name.
        password: The user's password.
    """
    return f"welcome {user}"


@mcp_tool
def fail(reason: str) -> str:
    """Always fails.

    Args:
        reason: Why.
    """
    raise RuntimeError(reason)


def _registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(login)
    registry.register(fail)
    return registry


@pytest.fixture(autouse=True)
def _wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    for console in (_render.console, _render.err_console):
        monkeypatch.setattr(console, "width", 250)


def test_calls_made_by_another_process_show_up_in_toolkit_calls(tmp_path: Path) -> None:
    db = tmp_path / "calls.db"
    script = textwrap.dedent(
        f"""
        from toolkit import CallOptions, ToolRegistry
        from toolkit.records.call_log import CallLog
        from adapters.demo.warehouse_app import registry

        log = CallLog({str(db)!r}, caller="worker-7").attach(registry)
        registry.call_sync("query_bins", {{"tenant_code": "acme"}})
        registry.call_sync("no_such_tool", {{}})
        alice = CallOptions(caller="alice")
        registry.call_sync("query_bins", {{"tenant_code": "acme"}}, options=alice)
        log.close()
        assert log.written == 3, log.written
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr

    listed = runner.invoke(app, ["calls", "--log", str(db), "--json"])
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.stdout)
    assert [(r["tool"], r["outcome"], r["code"], r["caller"]) for r in rows] == [
        ("query_bins", "ok", None, "alice"),
        ("no_such_tool", "error", "TOOL_NOT_FOUND", "worker-7"),
        ("query_bins", "ok", None, "worker-7"),
    ]
    assert rows[0]["arguments"]["tenant_code"] == "acme"

    only_errors = json.loads(
        runner.invoke(app, ["calls", "--log", f"sqlite:///{db}", "--errors", "--json"]).stdout
    )
    assert [r["tool"] for r in only_errors] == ["no_such_tool"]
    by_caller = json.loads(
        runner.invoke(app, ["calls", "--log", str(db), "--caller", "alice", "--json"]).stdout
    )
    assert len(by_caller) == 1
    assert (
        json.loads(
            runner.invoke(app, ["calls", "--log", str(db), "--since", "1h", "--json"]).stdout
        ).__len__()
        == 3
    )
    assert (
        json.loads(
            runner.invoke(app, ["calls", "--log", str(db), "--until", "1h", "--json"]).stdout
        )
        == []
    )

    table = runner.invoke(app, ["calls", "--log", str(db), "--tool", "no_such_tool"])
    assert table.exit_code == 0
    assert "no_such_tool" in table.stdout and "TOOL_NOT_FOUND" in table.stdout
    assert "query_bins" not in table.stdout


def test_arguments_are_redacted_and_codes_filter(tmp_path: Path) -> None:
    registry = _registry()
    with CallLog(tmp_path / "calls.db").attach(registry) as log:
        registry.call_sync("login", {"user": "bob", "password": "hunter22"})
        registry.call_sync("fail", {"reason": "boom"})
        assert log.flush()
    stored = (
        sqlite3.connect(tmp_path / "calls.db").execute("SELECT arguments FROM calls").fetchall()
    )
    assert "hunter22" not in repr(stored)
    calls = read_calls(tmp_path / "calls.db", code="EXECUTION_ERROR")
    assert [c.tool for c in calls] == ["fail"]
    assert [c.tool for c in read_calls(tmp_path / "calls.db", code="ok")] == ["login"]
    assert read_calls(tmp_path / "calls.db", tool="login")[0].arguments == {
        "user": "bob",
        "password": "***",
    }
    mode = sqlite3.connect(tmp_path / "calls.db").execute("PRAGMA journal_mode").fetchone()
    assert mode == ("wal",)


def test_retention_keeps_the_newest_rows(tmp_path: Path) -> None:
    registry = _registry()
    with CallLog(tmp_path / "calls.db", max_rows=5, flush_interval=0.01).attach(registry) as log:
        for i in range(12):
            registry.call_sync("login", {"user": f"u{i}", "password": "x"})
            assert log.flush()
    calls = read_calls(tmp_path / "calls.db", limit=100)
    assert [c.arguments["user"] for c in calls] == [f"u{i}" for i in range(11, 6, -1)]


def test_old_rows_expire(tmp_path: Path) -> None:
    db = tmp_path / "calls.db"
    registry = _registry()
    with CallLog(db).attach(registry) as log:
        registry.call_sync("login", {"user": "old", "password": "x"})
        assert log.flush()
    sqlite3.connect(db, isolation_level=None).execute(
        "UPDATE calls SET started_at = ?", (time.time() - 3 * 86400,)
    )
    with CallLog(db, retention_days=1).attach(registry) as log:
        registry.call_sync("login", {"user": "new", "password": "x"})
        assert log.flush()
    assert [c.arguments["user"] for c in read_calls(db)] == ["new"]


def test_a_broken_database_never_fails_a_call(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the log's folder should be")
    registry = _registry()
    with CallLog(blocker / "calls.db").attach(registry) as log:
        result = registry.call_sync("login", {"user": "bob", "password": "x"})
        assert not result.is_error
        assert log.flush()
    assert log.dropped == 1 and log.written == 0 and log.failures >= 1


def test_a_locked_database_is_counted_not_raised(tmp_path: Path) -> None:
    db = tmp_path / "calls.db"
    registry = _registry()
    with CallLog(db, busy_timeout=0.05).attach(registry) as log:
        registry.call_sync("login", {"user": "first", "password": "x"})
        assert log.flush()
        holder = sqlite3.connect(db, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        result = registry.call_sync("login", {"user": "locked", "password": "x"})
        assert not result.is_error
        assert log.flush()
        assert log.dropped == 1 and log.failures == 1
        holder.execute("ROLLBACK")
        registry.call_sync("login", {"user": "after", "password": "x"})
        assert log.flush()
    assert [c.arguments["user"] for c in read_calls(db)] == ["after", "first"]


def test_the_caller_is_a_field_of_the_record(tmp_path: Path) -> None:
    seen: list[CallRecord] = []
    registry = ToolRegistry()
    registry.register(login)
    options = CallOptions(caller="tenant-a", peer="10.0.0.9", on_record=seen.append)
    registry.call_sync("login", {"user": "a", "password": "x"}, options=options)
    registry.call_sync(
        "login", {"user": "b", "password": "x"}, options=options.replace(caller=None)
    )
    assert [(r.caller, r.peer) for r in seen] == [("tenant-a", "10.0.0.9"), (None, "10.0.0.9")]
    assert seen[0].to_dict()["caller"] == "tenant-a" and "caller" not in seen[1].to_dict()


def test_targets(tmp_path: Path) -> None:
    assert call_log_path("sqlite:////var/x.db") == Path("/var/x.db")
    with pytest.raises(ValueError, match="is not a SQLite file"):
        call_log_path("postgresql://db/calls")
    with pytest.raises(ValueError, match="no store for mysql:// URLs") as refused:
        CallLog("mysql://app:hunter22@db/calls")
    assert "hunter22" not in str(refused.value)
    with pytest.raises(ValueError, match="exactly one"):
        CallLog()


def test_toolkit_calls_explains_a_missing_log_and_a_bad_time(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["calls", "--log", str(tmp_path / "none.db")])
    assert missing.exit_code == 2
    assert "No call log at" in missing.output
    bad = runner.invoke(app, ["calls", "--log", str(tmp_path / "none.db"), "--since", "soon"])
    assert bad.exit_code == 2
    assert "Cannot read the time 'soon'" in bad.output
    assert parse_time("2h", now=10_000.0) == 10_000.0 - 7200


def test_the_log_file_is_private(tmp_path: Path) -> None:
    db = tmp_path / "calls.db"
    registry = _registry()
    with CallLog(db).attach(registry) as log:
        registry.call_sync("login", {"user": "bob", "password": "x"})
        assert log.flush()
    for path in (db, tmp_path / "calls.db-wal", tmp_path / "calls.db-shm"):
        if path.exists():
            assert path.stat().st_mode & 0o777 == 0o600, path


def test_an_old_log_gets_the_new_columns(tmp_path: Path) -> None:
    db = tmp_path / "calls.db"
    old = sqlite3.connect(db)
    old.executescript(
        "CREATE TABLE calls (id INTEGER PRIMARY KEY AUTOINCREMENT, call_id TEXT NOT NULL, "
        "tool TEXT NOT NULL, outcome TEXT NOT NULL, code TEXT, decision TEXT NOT NULL, "
        "attempts INTEGER NOT NULL, duration_ms REAL NOT NULL, started_at REAL NOT NULL, "
        "caller TEXT NOT NULL, arguments TEXT NOT NULL);"
    )
    old.execute(
        "INSERT INTO calls VALUES (1, 'c1', 'login', 'ok', NULL, 'allow', 1, 1.0, ?, 'x', '{}')",
        (time.time() - 60,),
    )
    old.commit()
    old.close()
    assert [c.host for c in read_calls(db)] == [""]  # read before the upgrade
    registry = _registry()
    with CallLog(db, host="box-1").attach(registry) as log:
        registry.call_sync("login", {"user": "bob", "password": "x"})
        assert log.flush()
    assert [(c.call_id == "c1", c.host) for c in read_calls(db)] == [(False, "box-1"), (True, "")]


def test_served_calls_are_logged_under_the_authenticated_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx

    from adapters.mcp_server import ServeSettings, create_app
    from tests.support.serving import serving

    monkeypatch.setenv("ALICE_TOKEN", "alice-token-0123456789")
    callers = tmp_path / "callers.json"
    callers.write_text(json.dumps({"callers": {"alice": {"token": "${ALICE_TOKEN}"}}}))
    db = tmp_path / "calls.db"
    settings = ServeSettings(
        target="tests.support.served_registry:registry",
        callers=str(callers),
        call_log=str(db),
        telemetry=False,
    )
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "Authorization": "Bearer alice-token-0123456789",
    }
    with serving(create_app(settings)) as base:
        answer = httpx.post(f"{base}/mcp", json=body, headers=headers, timeout=30)
        assert answer.status_code == 200 and '"3"' in answer.text.replace(" ", "")
    (call,) = read_calls(db)
    assert (call.tool, call.caller, call.peer) == ("add", "alice", "127.0.0.1")


def test_another_database_plugs_in_by_its_url_scheme(tmp_path: Path) -> None:
    from adapters.stores.sqlite import SqliteCallStore
    from toolkit.records.store import register_call_store

    def shard(target: str, busy_timeout: float) -> SqliteCallStore:
        name = target.split("://", 1)[1]  # shard://NAME: one SQLite file per name
        return SqliteCallStore(tmp_path / f"{name}.db", busy_timeout)

    register_call_store("shard", shard)
    registry = _registry()
    with CallLog("shard://eu").attach(registry) as log:
        registry.call_sync("login", {"user": "bob", "password": "x"})
        assert log.flush()
    assert [c.tool for c in read_calls("shard://eu")] == ["login"]
    assert (tmp_path / "eu.db").exists()


def test_toolkit_serve_refuses_an_unknown_call_log_without_showing_its_password() -> None:
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "toolkit"), "serve",
            "tests.support.served_registry:registry", "--transport", "http",
            "--call-log", "mysql://app:hunter22@db.invalid/calls",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "no store for mysql:// URLs" in done.stderr
    assert "hunter22" not in done.stderr + done.stdout and "app:***@" in done.stderr


def test_toolkit_calls_counts_one_call_and_keeps_arguments_readable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = _registry()
    with CallLog(tmp_path / "calls.db", caller="caller-with-a-long-name").attach(registry) as log:
        registry.call_sync("login", {"user": "bartholomew-the-reviewer", "password": "x"})
        assert log.flush()
    monkeypatch.setattr(_render.console, "width", 100)  # a log viewer's width
    table = runner.invoke(app, ["calls", "--log", str(tmp_path / "calls.db")])
    assert table.exit_code == 0, table.output
    assert "1 call in " in table.stdout and "1 calls" not in table.stdout
    # The arguments column gets the room: what every row shares goes to the title.
    assert '{"user": "bartholomew-the-reviewer",' in table.stdout, table.stdout
    flat = " ".join(table.stdout.split())
    assert "caller caller-with-a-long-name" in flat and " host " in flat
    assert "│ caller" not in table.stdout


@mcp_tool(read_only=True)
def report(lines: int) -> str:
    """A long read-only report.

    Args:
        lines: How many lines.
    """
    return "\n".join(f"line {i} of the report" for i in range(lines))


def test_the_log_keeps_who_answered_and_how_much_was_cut(tmp_path: Path) -> None:
    from toolkit.governance import ResultCache

    db = tmp_path / "calls.db"
    registry = ToolRegistry(middleware=[ResultCache(ttl=60)], result_budget=500)
    registry.register(report)
    with CallLog(db).attach(registry) as log:
        first = registry.call_sync("report", {"lines": 200})
        second = registry.call_sync("report", {"lines": 200})
        assert not first.is_error and not second.is_error
        assert log.flush()
    newest, oldest = read_calls(db)
    assert (oldest.answered_by, newest.answered_by) == (None, "cache")
    full = len(report(200))
    assert oldest.full_size == full and oldest.to_dict()["full_size"] == full
    shown = runner.invoke(app, ["calls", "--log", str(db)])
    assert shown.exit_code == 0, shown.output
    assert "by cache" in shown.output and f"cut of {full:,}" in shown.output
