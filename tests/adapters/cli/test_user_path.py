"""The CLI on a user's own project, run as a person runs it: the console script, from their
directory, with their file names, reading stderr for what went wrong."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

TOOLKIT = str(Path(sys.executable).parent / "toolkit")
LONG = "reconcile_inbound_shipments_against_purchase_orders_for_tenant"

APP = textwrap.dedent(
    f'''
    """A user's own application module."""

    from toolkit import ToolRegistry, mcp_tool


    @mcp_tool(destructive=True)
    def wipe(scope: str) -> str:
        """Wipe a scope.

        Args:
            scope: What to wipe.
        """
        return f"wiped {{scope}}"


    @mcp_tool
    def crash(n: int) -> int:
        """Divide by n.

        Args:
            n: The divisor.
        """
        return 10 // n


    @mcp_tool
    def {LONG}(tenant: str) -> str:
        """A tool with a long name.

        Args:
            tenant: The tenant.
        """
        return tenant


    def build_registry() -> ToolRegistry:
        """The application's factory."""
        registry = ToolRegistry()
        for tool in (wipe, crash, {LONG}):
            registry.register(tool)
        return registry


    registry = build_registry()
    '''
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP)
    return tmp_path


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    return env


def _toolkit(cwd: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TOOLKIT, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
        input=stdin,
    )


@pytest.mark.parametrize("target", ["app.py:registry", "./app.py:registry", "app:registry"])
def test_target_is_found_from_the_users_directory(project: Path, target: str) -> None:
    done = _toolkit(project, "inspect", target)
    assert done.returncode == 0, done.stderr
    assert f"3 tools in {target}" in done.stdout and "wipe" in done.stdout


def test_a_zero_argument_factory_is_called_not_listed(project: Path) -> None:
    done = _toolkit(project, "inspect", "app:build_registry")
    assert done.returncode == 0, done.stderr
    assert "3 tools in app:build_registry" in done.stdout
    assert "The application's factory" not in done.stdout


def test_one_tool_is_one_tool(tmp_path: Path) -> None:
    (tmp_path / "single.py").write_text(
        'from toolkit import mcp_tool\n\n\n@mcp_tool\ndef ping() -> str:\n    """Ping."""\n'
        '    return "pong"\n'
    )
    done = _toolkit(tmp_path, "inspect", "single.py", "--check")
    assert done.returncode == 0, done.stderr
    assert "1 tool in single.py" in done.stdout and "1 tools" not in done.stdout
    assert "1 tool, all documented" in done.stderr


def test_long_names_are_never_cut_off_in_a_pipe(project: Path) -> None:
    done = _toolkit(project, "inspect", "app:registry")
    assert done.returncode == 0, done.stderr
    assert LONG in done.stdout  # whole, on one line: piped output is not squeezed to 80 columns
    assert "…" not in done.stdout


def test_version_and_log_options_work_before_and_after_the_command(project: Path) -> None:
    version = _toolkit(project, "--version")
    assert version.returncode == 0 and version.stdout.startswith("mcp-toolkit ")
    after = _toolkit(
        project, "call", "app:registry", LONG, '{"tenant": "acme"}', "--log-level", "INFO"
    )
    assert after.returncode == 0, after.stderr
    assert "INFO toolkit.calls: call " in after.stderr and LONG in after.stderr
    before = _toolkit(project, "-v", "inspect", "app:registry")
    assert before.returncode == 0, before.stderr
    wrong = _toolkit(project, "--log-level", "LOUD", "inspect", "app:registry")
    assert wrong.returncode == 2 and "'LOUD' is not a level" in wrong.stderr


def test_call_shows_the_traceback_only_when_asked(project: Path) -> None:
    quiet = _toolkit(project, "call", "app:registry", "crash", '{"n": 0}')
    assert quiet.returncode == 1
    assert "EXECUTION_ERROR" in quiet.stdout and "Traceback" not in quiet.stderr
    assert "--traceback" in quiet.stderr
    loud = _toolkit(project, "call", "app:registry", "crash", '{"n": 0}', "--traceback")
    assert loud.returncode == 1
    assert "Traceback (most recent call last)" in loud.stderr
    assert "ZeroDivisionError" in loud.stderr and "return 10 // n" in loud.stderr


def test_destructive_call_needs_yes_and_says_so_to_the_person(project: Path) -> None:
    refused = _toolkit(project, "call", "app:registry", "wipe", '{"scope": "cache"}')
    assert refused.returncode == 1
    assert "wipe is destructive" in refused.stderr and "Add --yes" in refused.stderr
    assert "wiped" not in refused.stdout
    approved = _toolkit(project, "call", "app:registry", "wipe", '{"scope": "cache"}', "--yes")
    assert approved.returncode == 0, approved.stderr
    assert "wiped cache" in approved.stdout


def test_call_prints_what_the_model_reads(project: Path) -> None:
    done = _toolkit(project, "call", "app:registry", LONG, '{"tenant": "acme"}')
    assert done.returncode == 0, done.stderr
    assert "acme" in done.stdout and "✓" in done.stdout


def test_help_imports_no_adapter(project: Path) -> None:
    code = (
        "import sys\n"
        "from adapters.cli import app\n"
        "try:\n"
        "    app(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted(m for m in ('mcp', 'langchain_core', 'langgraph', 'httpx', 'adapters.mcp_client',"
        " 'adapters.mcp_server') if m in sys.modules)\n"
        "print('heavy:', heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=project, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "heavy: []" in done.stdout
    assert "serve" in done.stdout and "demo" in done.stdout


def test_stdio_serve_has_a_banner_logs_calls_and_stops_on_ctrl_c(project: Path) -> None:
    server = subprocess.Popen(
        [TOOLKIT, "serve", "app:registry"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        assert server.stderr is not None
        banner = server.stderr.readline()
        assert "Serving 3 tools, 0 resources and 0 prompts from app:registry over stdio" in banner
        assert "Ctrl-C" in banner
        server.send_signal(signal.SIGINT)
        t0 = time.monotonic()
        assert server.wait(timeout=10) == 130
        assert time.monotonic() - t0 < 5
        assert "Stopped" in server.stderr.read()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_http_serve_logs_one_line_per_call_with_its_ref(project: Path) -> None:
    import socket

    import anyio

    from adapters.mcp_client import McpClientPool
    from toolkit import ToolRegistry

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [TOOLKIT, "serve", "app:registry", "--transport", "http", "--port", str(port)],
        cwd=project,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )

    async def call() -> str:
        config = {"app": {"url": f"http://127.0.0.1:{port}/mcp", "connect_timeout": 20}}
        async with McpClientPool(config) as pool:
            registry = ToolRegistry()
            await pool.register_into(registry, prefix="")
            result = await registry.call("crash", {"n": 0})
            return str(result.content)

    try:
        assert server.stderr is not None
        assert "Serving 3 tools" in server.stderr.readline()
        content = anyio.run(call)
        line = server.stderr.readline()
        while not line.startswith("call "):
            line = server.stderr.readline()
        assert line.startswith("call crash EXECUTION_ERROR ") and " ms ref " in line
        ref = line.split(" ref ")[1].strip()
        assert ref in content  # the ref a message quotes is the one the server's log shows
        # Said once across the hop: one code prefix, one ref.
        assert content.count("Error [") == 1 and content.count("(ref ") == 1
        assert content.startswith("Error [EXECUTION_ERROR] in tool 'crash': ")
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
