"""docs/ARCHITECTURE.md says truthfully which adapters import each other."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ADAPTERS = ROOT / "adapters"
# helpers every adapter may use (the two layers of shared helpers in the layers contract)
SHARED = {
    "_extras",
    "_net",
    "_decode",
    "_template_guard",
    "network",
    "_env_vars",
    "_template_sizes",
}
NAME = re.compile(r"adapters\.([a-z]\w*)")
MODULE = re.compile(r"adapters(\.\w+)+")  # a module named as a string, for importlib


def _referenced(tree: ast.AST) -> set[str]:
    """Adapter packages a module imports, directly, lazily, or by name for importlib."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = [node.value] if MODULE.fullmatch(node.value) else []
        else:
            continue
        for name in names:
            match = NAME.match(name)
            if match and match.group(1) not in SHARED:
                found.add(match.group(1))
    return found


def _actual() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for package in sorted(p for p in ADAPTERS.iterdir() if (p / "__init__.py").exists()):
        uses: set[str] = set()
        for module in package.rglob("*.py"):
            uses |= _referenced(ast.parse(module.read_text()))
        uses.discard(package.name)
        if uses:
            graph[package.name] = uses
    return graph


def _documented() -> dict[str, set[str]]:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    table = text.split("<!-- adapter imports: begin -->")[1].split("<!-- adapter imports: end -->")[
        0
    ]
    graph: dict[str, set[str]] = {}
    for row in table.strip().splitlines()[2:]:
        adapter, imports = row.split("|")[1:3]
        graph[NAME.search(adapter).group(1)] = set(NAME.findall(imports))  # type: ignore[union-attr]
    return graph


def test_the_architecture_lists_every_import_between_adapters() -> None:
    assert _documented() == _actual()


def test_the_scan_sees_lazy_and_by_name_imports() -> None:
    """The check is real: a lazy import and an importlib name both count."""
    tree = ast.parse(
        "def f():\n    from adapters.otel import x\nLAZY = 'adapters.mcp_server._cli'\n"
    )
    assert _referenced(tree) == {"otel", "mcp_server"}


PATH = re.compile(r"`([\w./<>-]+\.(?:py|toml|md)|[\w./<>-]+/)`")


def _where_to_change() -> dict[str, list[str]]:
    """Each row of the "where to make a change" table: the change -> the paths it names."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    table = text.split("<!-- where to change: begin -->")[1].split("<!-- where to change: end -->")[
        0
    ]
    rows: dict[str, list[str]] = {}
    for row in table.strip().splitlines()[2:]:
        change, files = row.split("|")[1:3]
        rows[change.strip()] = PATH.findall(files)
    return rows


def test_the_files_the_change_table_names_exist() -> None:
    rows = _where_to_change()
    assert {"a new per-call option", "a new source", "a new sink", "a new error code"} <= set(rows)
    for change, paths in rows.items():
        assert paths, change
        for path in paths:
            if "<" in path:  # a package the reader creates: its parent must exist
                path = path.split("<")[0]
            assert (ROOT / path).exists(), f"{change}: {path} does not exist"


def test_a_new_per_call_option_touches_at_most_three_files() -> None:
    paths = _where_to_change()["a new per-call option"]
    steps = {"toolkit/calls/_effective.py", "toolkit/calls/invoker.py"}  # the one or the other
    assert len([p for p in paths if p not in steps]) + 1 <= 3


def _layered() -> set[str]:
    """The modules and packages the layers contract of pyproject.toml names."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    (layers,) = [
        c["layers"] for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"
    ]
    return {name.strip() for layer in layers for name in layer.split("|")}


def test_every_adapter_module_has_a_layer_and_a_place_in_the_map() -> None:
    """A shared helper joins the layers contract and the architecture, as packages do."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    layers = text.split("contract orders every adapter package")[1].split("## ")[0]
    for path in sorted(ADAPTERS.iterdir()):
        if path.name == "__init__.py" or path.name.startswith((".", "__pycache__")):
            continue
        if path.suffix != ".py" and not (path / "__init__.py").exists():
            continue  # py.typed and other data
        name = f"adapters.{path.stem}"
        assert name in _layered(), f"{name} is in no layer of pyproject.toml's layers contract"
        assert f"`{name}`" in layers, f"{name} is not in docs/ARCHITECTURE.md's layers table"


def test_the_change_table_scan_reads_paths() -> None:
    assert PATH.findall("`toolkit/calls/options.py` (x), `adapters/<name>/`, `ToolRegistry`") == [
        "toolkit/calls/options.py",
        "adapters/<name>/",
    ]
