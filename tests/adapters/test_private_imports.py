"""Third-party private modules are imported in one wrapper module each, never elsewhere."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OURS = {"adapters", "toolkit", "tests"}

#: Private third-party module -> the one file that may import it.
WRAPPERS = {
    "mcp.client._transport": "adapters/mcp_client/_sdk_private.py",
    "mcp.server._otel": "adapters/mcp_server/_spans.py",
    "typer._click": "adapters/cli/_typer_private.py",
    "httpcore._backends.auto": "adapters/_net.py",
    "httpcore2._backends.auto": "adapters/_net.py",
    "opentelemetry.metrics._internal": "toolkit/records/telemetry.py",
}


def _private_imports(source: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] not in OURS and any(p.startswith("_") for p in parts[1:]):
                found.add(name)
    return found


def test_each_private_third_party_module_is_imported_by_its_wrapper_only() -> None:
    seen: dict[str, set[str]] = {}
    for package in ("adapters", "toolkit"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for module in _private_imports(path.read_text()):
                seen.setdefault(module, set()).add(str(path.relative_to(ROOT)))
    assert {m: sorted(files) for m, files in seen.items()} == {m: [f] for m, f in WRAPPERS.items()}


def test_the_scan_sees_private_imports_and_skips_ours() -> None:
    source = (
        "from langgraph._internal._runnable import RunnableCallable\n"
        "import mcp.shared._x\nfrom adapters.cli._render import console\nimport json\n"
    )
    assert _private_imports(source) == {"langgraph._internal._runnable", "mcp.shared._x"}


def _core_imports(source: str) -> set[tuple[str, str]]:
    """``(module, name)`` of each name a module imports from the core."""
    found: set[tuple[str, str]] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] == "toolkit":
                found.update((node.module, alias.name) for alias in node.names)
    return found


def _public_core_names() -> set[str]:
    """``toolkit.__all__`` and the ``__all__`` of every room (a sub-package of the core)."""
    import importlib

    import toolkit

    names = set(toolkit.__all__)
    for room in sorted((ROOT / "toolkit").iterdir()):
        if (room / "__init__.py").exists():
            names |= set(importlib.import_module(f"toolkit.{room.name}").__all__)
    return names


def test_every_core_name_an_adapter_imports_is_public() -> None:
    public = _public_core_names()
    private = sorted(
        f"{path.relative_to(ROOT)}: {name} from {module}"
        for path in sorted((ROOT / "adapters").rglob("*.py"))
        for module, name in _core_imports(path.read_text())
        if name not in public
    )
    assert not private, (
        "adapters import core names that are in neither toolkit.__all__ nor a room's __all__ "
        f"(make them public on purpose, or keep them in the core): {private}"
    )


def test_the_core_name_scan_reads_from_imports() -> None:
    source = "from toolkit.calls.invoker import new_call_id\nfrom adapters.x import y\n"
    assert _core_imports(source) == {("toolkit.calls.invoker", "new_call_id")}
    assert "new_call_id" in _public_core_names()
