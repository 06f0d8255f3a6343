"""The README's install section matches the project: its extras, its command, make's .venv."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def _install_section() -> str:
    return README.split("## Install\n", 1)[1].split("\n## ", 1)[0]


def test_the_install_section_comes_first_and_installs_from_a_checkout() -> None:
    assert README.index("## Install") < README.index("## A tour")
    section = _install_section()
    assert "pip install -e '.[all]'" in section
    assert "pip install mcp-toolkit\n" not in README  # not published: that command fails


def test_the_extras_table_lists_exactly_the_extras_of_pyproject() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    rows = [ln for ln in _install_section().splitlines() if ln.startswith("| `[")]
    listed = {name for row in rows for name in re.findall(r"`\[(\w+)\]`", row.split("|")[1])}
    assert listed == set(extras)


def test_make_puts_everything_in_the_venv_the_readme_names() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^VENV := \.venv$", makefile, re.MULTILINE)
    assert "pip install -q -e '.[dev]'" in makefile
    section = _install_section()
    assert ". .venv/bin/activate" in section
    assert ".venv/bin/toolkit" in section


def test_the_readme_is_a_front_page_with_a_link_per_capability() -> None:
    lines = README.splitlines()
    assert len(lines) <= 400
    order = ["## Install", "## Two commands", "## A tour in 30 lines", "## Capabilities"]
    assert [README.index(h) for h in order] == sorted(README.index(h) for h in order)
    capabilities = README.split("## Capabilities\n", 1)[1].split("\n## ", 1)[0]
    assert "<!-- One paragraph and a link per capability." in capabilities
    assert "<!-- End of the capabilities list. -->" in capabilities
    paragraphs = [p for p in capabilities.split("\n\n") if p.startswith("**")]
    linked = {m for p in paragraphs for m in re.findall(r"\]\((docs/[\w.-]+\.md)", p)}
    assert all(re.search(r"\]\(docs/[\w.-]+\.md", p) for p in paragraphs)
    assert all((ROOT / path).is_file() for path in linked)
    guides = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")} - {"docs/ARCHITECTURE.md"}
    assert guides <= linked, guides - linked  # every guide is reachable from the front page


def test_the_readme_counts_the_notebooks_it_calls_a_course() -> None:
    words = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    notebooks = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    said = re.search(r"a course in (\w+)\s+parts", README)
    assert said is not None
    assert said.group(1) == words[len(notebooks) - 1]
