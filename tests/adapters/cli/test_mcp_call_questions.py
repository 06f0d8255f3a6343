"""``toolkit mcp call`` asks the person once: the server's own approval question is answered
from the person's answer (or ``--yes``), the end of input is a refusal, and the time the
person took is not the call's duration."""

from __future__ import annotations

import re
from pathlib import Path

from tests.adapters.cli.test_mcp_call import DELETE, _config, _on_a_terminal, _toolkit

EOF_KEY = b"\x04"  # Ctrl-D at the start of a line: the end of input on a terminal


def _asking_warehouse(tmp_path: Path) -> Path:
    """The demo warehouse served as is: the server asks its client before delete_bin."""
    return _config(tmp_path, "adapters.demo.warehouse_app:registry")


def test_a_destructive_remote_tool_asks_once_even_when_the_server_asks_too(
    tmp_path: Path,
) -> None:
    seen = _on_a_terminal(
        ["mcp", "call", str(_asking_warehouse(tmp_path)), "wh", *DELETE],
        (b"Run it with", b"y\n", 0),
    )
    assert "Bin A-02-01 deleted." in seen
    assert seen.count("[y/n]") == 1, seen
    assert "may change or delete data" in seen and "(you approved this call)" in seen
    assert "Send these answers" not in seen


def test_yes_answers_the_servers_own_approval_question_too(tmp_path: Path) -> None:
    done = _toolkit("mcp", "call", str(_asking_warehouse(tmp_path)), "wh", *DELETE, "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Bin A-02-01 deleted." in done.stdout
    assert "elicitation" not in done.stdout + done.stderr


def test_the_end_of_input_at_the_question_is_a_refusal(tmp_path: Path) -> None:
    seen = _on_a_terminal(
        ["mcp", "call", str(_asking_warehouse(tmp_path)), "wh", *DELETE],
        (b"Run it with", EOF_KEY, 0),
    )
    assert "not run: delete_bin was not run: no answer came (the input ended)" in seen
    assert "PROTOCOL_ERROR" not in seen and "Abort" not in seen
    assert "deleted." not in seen


def test_the_end_of_input_at_a_servers_question_dismisses_it(tmp_path: Path) -> None:
    config = _config(tmp_path, "tests.support.asking_server:registry")
    seen = _on_a_terminal(
        ["mcp", "call", str(config), "wh", "reserve", '{"sku": "X"}'], (b"How many:", EOF_KEY, 0)
    )
    assert "nothing reserved (cancel)" in seen
    assert "PROTOCOL_ERROR" not in seen and "Abort" not in seen


def test_the_persons_answer_time_is_not_the_calls_duration(tmp_path: Path) -> None:
    config = _config(tmp_path, "tests.support.asking_server:registry")
    pause = 3.0
    seen = _on_a_terminal(
        ["mcp", "call", str(config), "wh", "reserve", '{"sku": "X"}'], (b"How many:", b"3\n", pause)
    )
    assert "reserved 3 of X" in seen
    assert "Send these answers" not in seen
    shown = re.search(r"reserve ✓ · ([\d.]+) ms", seen)
    assert shown is not None, seen
    assert float(shown.group(1)) < pause * 1000  # the call itself took far less than the pause


def test_yes_declines_a_question_it_cannot_answer_and_says_so(tmp_path: Path) -> None:
    config = _config(tmp_path, "tests.support.asking_server:registry")
    done = _toolkit("mcp", "call", str(config), "wh", "reserve", '{"sku": "X"}', "--yes")
    assert "nothing reserved (decline)" in done.stdout
    assert "--yes cannot answer quantity" in " ".join(done.stderr.split())
