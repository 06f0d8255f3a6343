"""Approvals across processes on PostgreSQL: paused in one, resumed by a fresh one, run once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from adapters.langgraph import async_postgres_checkpointer, postgres_checkpointer
from tests.support.postgres import PostgresCluster

ROOT = Path(__file__).resolve().parents[2]
TOOLKIT = Path(sys.executable).parent / "toolkit"

TOOLS = '''
import os
from toolkit import ToolRegistry, mcp_tool

@mcp_tool(destructive=True)
def delete_bin(code: str) -> str:
    """Delete a storage bin.

    Args:
        code: The bin code.
    """
    with open(os.environ["RUNS"], "a") as runs:  # the side effect, counted by the test
        runs.write(f"{code} {os.getpid()}\\n")
    return f"deleted {code}"

def registry() -> ToolRegistry:
    reg = ToolRegistry()
    reg.register(delete_bin)
    return reg
'''

STEP = """
import json, os, sys
from langgraph.types import Command
from adapters.langgraph import build_agent, postgres_checkpointer
from adapters.testing import ScriptedChatModel
from approval_tools import registry

step = os.environ["STEP"]
turns = {
    "ask": [{"tool_calls": [{"name": "delete_bin", "args": {"code": "B-1"}}]}],
    "resume": ["B-1 is gone."],
    "look": [],
}[step]
agent = build_agent(
    ScriptedChatModel(turns=turns), registry(), checkpointer=postgres_checkpointer(sys.argv[1])
)
config = {"configurable": {"thread_id": "order-42"}}
if step == "ask":
    state = agent.invoke({"messages": [("user", "delete B-1")]}, config)
    print(json.dumps({"pending": [i.value for i in state["__interrupt__"]]}))
elif step == "resume":
    pending = [i.value for i in agent.get_state(config).interrupts]
    state = agent.invoke(Command(resume="approve"), config)
    print(json.dumps({
        "pending": pending,
        "tools": [m.text for m in state["messages"] if m.type == "tool"],
        "answer": state["messages"][-1].text,
    }))
else:
    state = agent.get_state(config)
    print(json.dumps({
        "pending": [i.value for i in state.interrupts],
        "answer": state.values["messages"][-1].text,
    }))
"""


def _step(tmp_path: Path, url: str, step: str) -> dict:
    done = subprocess.run(
        [sys.executable, str(tmp_path / "step.py"), url],
        cwd=ROOT,
        env={
            "PYTHONPATH": f"{ROOT}:{tmp_path}",
            "STEP": step,
            "RUNS": str(tmp_path / "runs.txt"),
            "PATH": "/usr/bin:/bin",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _runs(tmp_path: Path) -> list[str]:
    path = tmp_path / "runs.txt"
    return path.read_text().splitlines() if path.exists() else []


def test_a_fresh_process_resumes_the_approval_and_the_tool_runs_once(
    tmp_path: Path, postgres_url: str
) -> None:
    (tmp_path / "approval_tools.py").write_text(textwrap.dedent(TOOLS))
    (tmp_path / "step.py").write_text(textwrap.dedent(STEP))

    first = _step(tmp_path, postgres_url, "ask")  # sets the tables up on first use
    assert [(p["tool"], p["arguments"]) for p in first["pending"]] == [
        ("delete_bin", {"code": "B-1"})
    ]
    assert _runs(tmp_path) == []

    second = _step(tmp_path, postgres_url, "resume")
    assert [p["tool"] for p in second["pending"]] == ["delete_bin"]
    assert second["tools"] == ["deleted B-1"]
    assert second["answer"] == "B-1 is gone."
    (run,) = _runs(tmp_path)
    assert run.startswith("B-1 ") and run != f"B-1 {os.getpid()}"

    third = _step(tmp_path, postgres_url, "look")  # a third process sees it done
    assert third == {"pending": [], "answer": "B-1 is gone."}
    assert len(_runs(tmp_path)) == 1


def test_toolkit_demo_answers_a_saved_approval_from_postgresql(postgres_url: str) -> None:
    def demo(*args: str) -> str:
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
        env["COLUMNS"] = "200"
        done = subprocess.run(
            [str(TOOLKIT), "demo", "--no-remote", "--checkpoint", postgres_url, *args],
            stdin=subprocess.DEVNULL,
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        text = done.stdout
        for frame in "│┃":
            text = text.replace(frame, " ")
        return " ".join(text.split())

    password = postgres_url.split(":")[2].split("@")[0]
    first = demo()
    assert "approval needed" in first and "waiting for approval" in first
    assert "delete_bin ✓" not in first
    second = demo("--yes")
    assert "resuming the run saved in postgresql://" in second
    assert "delete_bin ✓" in second and "Bin A-02-01 is deleted." in second
    assert password not in first + second and ":***@" in second


def test_an_unreachable_database_is_explained_without_its_password(
    postgres: PostgresCluster,
) -> None:
    wrong = postgres.url_of("postgres", password="not-the-password-42")
    with pytest.raises(ConnectionError, match="password authentication failed") as failed:
        postgres_checkpointer(wrong)
    assert "not-the-password-42" not in str(failed.value)
    assert ":***@" in str(failed.value)


@pytest.mark.anyio
async def test_the_async_checkpointer_sets_up_once_and_saves(postgres_url: str) -> None:
    async with async_postgres_checkpointer(postgres_url) as first:
        assert [c async for c in first.alist(None)] == []
    async with async_postgres_checkpointer(postgres_url) as again:  # set up already: no error
        assert [c async for c in again.alist(None)] == []
