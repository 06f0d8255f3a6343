"""``pip install -e '.[notebooks]'`` installs every package the notebooks import."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions, requires
from pathlib import Path

import nbformat
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
# The project's own packages: bench.search_eval is the tool catalog notebook 09 searches.
OURS = {"toolkit", "adapters", "examples", "tests", "bench"}


def _imported(path: Path) -> set[str]:
    """Top-level modules a notebook's code cells import."""
    found: set[str] = set()
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        source = "\n".join(
            ln for ln in cell.source.splitlines() if not ln.lstrip().startswith(("%", "!"))
        )
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
    return found - OURS - set(sys.stdlib_module_names)


def _closure(extra: str) -> set[str]:
    """Distributions ``mcp-toolkit[extra]`` installs, its own extras followed."""
    seen: set[str] = set()
    todo = [("mcp-toolkit", {extra})]
    while todo:
        name, extras = todo.pop()
        for line in requires(name) or []:
            req = Requirement(line)
            if req.marker and not any(req.marker.evaluate({"extra": e}) for e in extras | {""}):
                continue
            key = canonicalize_name(req.name)
            if key == "mcp-toolkit":
                todo.append(("mcp-toolkit", set(req.extras)))
            elif key not in seen:
                seen.add(key)
                todo.append((req.name, set(req.extras)))
    return seen


def test_the_notebooks_extra_installs_what_the_notebooks_import() -> None:
    provided = _closure("notebooks")
    where = packages_distributions()
    missing = {
        (path.name, module)
        for path in NOTEBOOKS
        for module in _imported(path)
        if not {canonicalize_name(d) for d in where.get(module, [module])} & provided
    }
    assert missing == set()


def test_the_check_sees_fastapi_in_notebook_07() -> None:
    [http] = [p for p in NOTEBOOKS if p.name.startswith("07_")]
    assert "fastapi" in _imported(http)
    assert "fastapi" in _closure("notebooks") and "fastapi" not in _closure("all")


def test_the_readme_says_how_to_open_the_notebooks_with_what_the_extra_installs() -> None:
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    front_end = {canonicalize_name(Requirement(r).name) for r in extra["notebooks"]}
    assert "jupyterlab" in front_end
    readme = (ROOT / "README.md").read_text()
    assert "pip install -e '.[notebooks]'" in readme
    opened = re.findall(r"jupyter lab (\S+)", readme)
    assert opened and all((ROOT / path).exists() for path in opened), opened
