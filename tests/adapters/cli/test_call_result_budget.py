"""``toolkit call`` shows a result as a model would read it: cut past the budget, or whole."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
TOOLKIT = str(Path(sys.executable).with_name("toolkit"))
TARGET = "tests.support.big_results:whole"  # the registry sets no budget: the call decides


def _call(*flags: str) -> dict[str, object]:
    done = subprocess.run(
        [TOOLKIT, "call", TARGET, "server_log", '{"mb": 0.5}', "--json", *flags],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": str(Path(sys.executable).parent)},
    )
    assert done.returncode == 0, done.stderr
    payload: dict[str, object] = json.loads(done.stdout)
    return payload


def test_call_cuts_the_result_to_the_budget_it_is_given() -> None:
    cut = _call("--result-budget", "5000")
    content = str(cut["content"])
    assert len(content) <= 5_000 and "[Result cut to fit the context" in content
    assert cut["cut"] == {"full_size": 498_549, "shown_size": len(content)}
    whole = _call()
    assert len(str(whole["content"])) == 498_549 and "cut" not in whole
