"""A pending approval saved in a SQLite checkpoint is resumed by a fresh process."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TOOLS = '''
from toolkit import ToolRegistry, mcp_tool

@mcp_tool(destructive=True)
def delete_bin(code: str) -> str:
    """Delete a storage bin.

    Args:
        code: The bin code.
    """
    return f"deleted {code} in process " + __import__("os").environ["STEP"]

def registry() -> ToolRegistry:
    reg = ToolRegistry()
    reg.register(delete_bin)
    return reg
'''

STEP = """
import json, os, sys
from langgraph.types import Command
from adapters.langgraph import build_agent, sqlite_checkpointer
from adapters.testing import ScriptedChatModel
from approval_tools import registry

turns = {
    "ask": [{"tool_calls": [{"name": "delete_bin", "args": {"code": "B-1"}}]}],
    "resume": ["B-1 is gone."],
}[os.environ["STEP"]]
reg = registry()
records = []
reg.subscribe(lambda r: records.append([r.tool, r.decision, r.outcome]))
agent = build_agent(
    ScriptedChatModel(turns=turns), reg, checkpointer=sqlite_checkpointer(sys.argv[1])
)
config = {"configurable": {"thread_id": "order-42"}}
if os.environ["STEP"] == "ask":
    state = agent.invoke({"messages": [("user", "delete B-1")]}, config)
    pending = [i.value for i in state["__interrupt__"]]
    print(json.dumps({"pending": pending}))
else:
    pending = [i.value for i in agent.get_state(config).interrupts]
    state = agent.invoke(Command(resume="approve"), config)
    tool_texts = [m.text for m in state["messages"] if m.type == "tool"]
    print(json.dumps({
        "pending": pending,
        "tools": tool_texts,
        "answer": state["messages"][-1].text,
        "records": [r for r in records if r[2] != "raised"],
    }))
"""


def _step(tmp_path: Path, step: str) -> dict:
    done = subprocess.run(
        [sys.executable, str(tmp_path / "step.py"), str(tmp_path / "state" / "agent.db")],
        cwd=ROOT,
        env={"PYTHONPATH": f"{ROOT}:{tmp_path}", "STEP": step, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_fresh_process_resumes_a_pending_approval(tmp_path: Path) -> None:
    (tmp_path / "approval_tools.py").write_text(textwrap.dedent(TOOLS))
    (tmp_path / "step.py").write_text(textwrap.dedent(STEP))

    first = _step(tmp_path, "ask")
    assert [(p["tool"], p["arguments"]) for p in first["pending"]] == [
        ("delete_bin", {"code": "B-1"})
    ]

    second = _step(tmp_path, "resume")
    assert [p["tool"] for p in second["pending"]] == ["delete_bin"]
    assert second["tools"] == ["deleted B-1 in process resume"]
    assert second["records"] == [["delete_bin", "approved", "ok"]]
    assert second["answer"] == "B-1 is gone."
