"""Every notebook runs top to bottom, offline, in a fresh kernel, without an error.

The kernel starts in ``notebooks/``, as JupyterLab starts it for a notebook opened there, so a
notebook that finds its helpers by a path relative to the repository root fails here too.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def test_the_course_is_complete() -> None:
    assert [p.name[:2] for p in NOTEBOOKS] == [f"{i:02d}" for i in range(1, len(NOTEBOOKS) + 1)]
    assert len(NOTEBOOKS) >= 1


@pytest.mark.xdist_alone  # a kernel each: the notebooks spread over the workers
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    env_backup = os.environ.pop("OPENAI_API_KEY", None)  # the course runs offline
    try:
        NotebookClient(
            nb,
            timeout=180,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
        ).execute()
    finally:
        if env_backup is not None:
            os.environ["OPENAI_API_KEY"] = env_backup
    errors = [
        out
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    assert not errors
    outputs = [c for c in nb.cells if c.cell_type == "code" and c.get("outputs")]
    assert len(outputs) >= 3, "a tour shows its results"
    # Tables are the project's own views: every cell left-aligned by its own style attribute.
    cells = [
        tag
        for cell in outputs
        for out in cell["outputs"]
        for tag in re.findall(r"<t[dh]\b[^>]*>", out.get("data", {}).get("text/html", ""))
    ]
    assert [tag for tag in cells if "text-align:left" not in tag] == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_imports_only_what_a_reader_has(path: Path) -> None:
    """The project root is the one path a notebook adds: no benchmark folder on sys.path."""
    code = "\n".join(
        c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"
    )
    added = re.findall(r"sys\.path\.insert\(0, ([^)]*\)?)\)", code)
    assert all("bench" not in where for where in added), added
