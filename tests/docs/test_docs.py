"""The README's and the guides' code runs as a reader would run it, and prints what they show.

Python blocks run in an empty directory, each document's blocks as the programs the prose
describes (a block whose first line is ``# continues ...`` runs after the block before it). Every
printed result a document shows (a comment beside or under a ``print``) is compared with what
that print really printed. The finite ``toolkit`` commands of the shell blocks run from the
repository root (they name ``examples/mcp.json``), and every JSON block parses.

``make`` lines are this suite and the demo (tested on its own); ``toolkit serve`` lines start
servers that run until stopped (the CLI's serve tests cover them). A block marked
``<!-- needs: postgres -->`` needs a database the reader brings: it is compiled here, and run
against the throwaway cluster of the ``postgres_url`` fixture (tests/conftest.py).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.doc_blocks import ROOT, Program, blocks, expectations, programs

RUNNER = Path(__file__).resolve().parents[1] / "support" / "doc_runner.py"
TOOLKIT = str(Path(sys.executable).with_name("toolkit"))
PROGRAMS = [p for p in programs() if p.needs is None]
NEEDING = [p for p in programs() if p.needs is not None]
LANGUAGES = {"python", "bash", "console", "json", "yaml", "text", ""}


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a reader with the package installed: this interpreter first on PATH."""
    env = {"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin", "COLUMNS": "120"}
    if "PYTHONPATH" in os.environ:  # a checkout under test, not the installed copy
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return {**env, **(extra or {})}


def _run(program: Program, tmp_path: Path, env: dict[str, str] | None = None) -> None:
    """Run ``program`` in an empty directory and compare each shown result with the real one."""
    source, records = tmp_path / "program.py", tmp_path / "records.json"
    source.write_text(program.source)
    workdir = tmp_path / "reader"
    workdir.mkdir()
    done = subprocess.run(
        [sys.executable, str(RUNNER), str(source), str(records)],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=180,
        env=_env(env),
    )
    assert done.returncode == 0, program.source[:300] + "\n" + done.stderr[-3000:]
    assert done.stdout.strip(), f"{program.name} prints what it shows"
    assert list(workdir.iterdir()) == [], f"{program.name} leaves no files behind"
    printed = json.loads(records.read_text())
    lines = program.source.splitlines()
    for shown in expectations(program.source):
        output = "".join(text for row, text in printed if shown.start <= row <= shown.end)
        assert shown.matches(output), (
            f"{program.name}, line {shown.start} `{lines[shown.start - 1].strip()}` shows\n"
            + "\n".join(shown.lines)
            + f"\nbut prints\n{output}"
        )


def test_the_docs_have_programs_and_they_show_results() -> None:
    docs = {p.doc for p in PROGRAMS}
    assert "README.md" in docs
    assert len(docs) >= 8, docs
    assert sum(len(expectations(p.source)) for p in PROGRAMS) >= 20


def test_every_block_names_a_language_the_tests_know() -> None:
    """A ``py`` fence would escape the run; each block says what it is."""
    strays = [(b.doc, b.lang, b.body[:60]) for b in blocks() if b.lang not in LANGUAGES]
    assert strays == []


@pytest.mark.xdist_alone  # a subprocess each: the programs spread over the workers
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_python_program_runs_and_prints_what_it_shows(program: Program, tmp_path: Path) -> None:
    _run(program, tmp_path)


@pytest.mark.parametrize("program", NEEDING, ids=lambda p: f"{p.name}-needs-{p.needs}")
def test_a_program_needing_a_server_compiles_and_runs_where_one_is_given(
    program: Program, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    compile(program.source, program.name, "exec")
    assert program.needs == "postgres", "the only server a reader brings is PostgreSQL"
    url = request.getfixturevalue("postgres_url")  # skips (or fails in CI) without a server
    _run(program, tmp_path, {"DATABASE_URL": str(url)})


def test_the_shown_results_check_is_real() -> None:
    """A wrong comment is caught: the check compares, it does not only look for comments."""
    [shown] = expectations("print(1 + 1)  # 3\n")
    assert not shown.matches("2\n")
    [under] = expectations('print("a\\nb\\nc")\n# a\n# ...\n')
    assert under.matches("a\nb\nc\n")
    assert not under.matches("b\nc\n")


def test_json_blocks_parse() -> None:
    bodies = [b.body for b in blocks() if b.lang == "json"]
    assert bodies
    for body in bodies:
        json.loads(body)


def _commands() -> list[str]:
    lines = [
        ln.split("#")[0].strip() for b in blocks() if b.lang == "bash" for ln in b.body.splitlines()
    ]
    return [ln for ln in lines if ln.startswith("toolkit ") and not ln.startswith("toolkit serve")]


@pytest.mark.parametrize("command", _commands())
def test_shell_commands_run(command: str) -> None:
    args = shlex.split(command)
    done = subprocess.run(
        [TOOLKIT, *args[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


# A reader who did not activate the venv: its programs are not on PATH.
BARE_PATH = {"PATH": "/usr/bin:/bin"}
QUERY = '{"tenant_code": "acme"}'


@pytest.mark.parametrize(
    "program", [p for p in PROGRAMS if '"command"' in p.source], ids=lambda p: p.name
)
def test_a_program_starting_a_server_runs_without_an_activated_venv(
    program: Program, tmp_path: Path
) -> None:
    _run(program, tmp_path, BARE_PATH)


def test_the_served_example_starts_its_server_with_the_callers_interpreter() -> None:
    """examples/served.json says a bare ``python``: ``toolkit mcp call`` runs its own."""
    assert (
        json.loads((ROOT / "examples" / "served.json").read_text())["mcpServers"]["warehouse"][
            "command"
        ]
        == "python"
    )
    done = subprocess.run(
        [TOOLKIT, "mcp", "call", "examples/served.json", "warehouse", "query_bins", QUERY],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(BARE_PATH),
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "query_bins ✓" in done.stdout
