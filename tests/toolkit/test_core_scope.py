"""The core holds what it uses: a module no other core module imports is a core entry or moves.

A helper that only adapters use (the network policy, ``${VAR}`` expansion) belongs in
``adapters/``, beside the code that needs it; the core keeps its own machinery and the public
entry modules listed below, each with the reason it is core. docs/ARCHITECTURE.md ("What the
core holds") says the same for readers.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Core modules that no other core module imports, each with the reason it is still the core's.
ENTRY_MODULES = {
    "toolkit.loader": "turns a TARGET into a registry with the core's private scanner",
    "toolkit.runtime": "the public face of the core's shared event loop (toolkit._sync)",
    "toolkit.wire_log": "masks wire traffic by the core's redaction rules, as call records are",
    "toolkit.json_schema_tool": "a public tool kind, exported from toolkit as JsonSchemaTool",
    "toolkit.toolset_kinds": "the one type table (as_toolset) every sink adds sources through",
    "toolkit.cache": "a built-in middleware of the call path, exported from toolkit as ResultCache",
    "toolkit.caller_budget": "a built-in middleware (a run per caller), exported as CallerBudget",
    "toolkit.rate_limit": "a built-in middleware of the call path, exported as RateLimit",
    "toolkit.task_runner": "runs long calls as tasks over the core's task store, for any sink",
}


def _by_name(package: str) -> re.Pattern[str]:
    """A module named as a string (``"toolkit._call_store_postgres:PostgresCallStore"``) for
    importlib: a lazy import that no ``import`` statement shows."""
    return re.compile(rf"({package}(?:\.\w+)+)(?::\w+)?")


def _module_names(package: Path) -> dict[str, Path]:
    names: dict[str, Path] = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _targets(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """Every module ``tree`` imports: at top level, lazily, for type checking, or by name."""
    by_name = _by_name(module.split(".")[0])
    here = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = here.split(".")[: len(here.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if match := by_name.fullmatch(node.value):
                found.add(match.group(1))
    # importing a.b.c imports its package a.b too (a itself is the facade, never counted)
    return found | {name.rsplit(".", i)[0] for name in found for i in range(name.count("."))}


def unused_modules(package: Path) -> set[str]:
    """Modules of ``package`` that none of its other modules imports.

    The package's own ``__init__`` does not count as a user: re-exporting a name is a door to
    a module, not a use of it.
    """
    modules = _module_names(package)
    facade = package.name
    used: set[str] = set()
    for name, path in modules.items():
        if name == facade:
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        used |= {t for t in _targets(tree, name, path.name == "__init__.py") if t != name}
    return set(modules) - used - {facade}


def test_every_core_module_is_used_by_the_core_or_is_a_listed_entry() -> None:
    strays = sorted(unused_modules(ROOT / "toolkit") - set(ENTRY_MODULES))
    assert not strays, (
        f"{', '.join(strays)}: no other toolkit module imports it. If only adapters use it, move "
        "it to adapters/ (git mv; a shared helper goes at the bottom of the layers contract in "
        "pyproject.toml, see docs/ARCHITECTURE.md 'What the core holds'). If it is a public "
        "entry of the core, add it to ENTRY_MODULES in tests/toolkit/test_core_scope.py with "
        "the reason it belongs to the core."
    )


def test_every_listed_entry_exists_and_is_still_unused_inside_the_core() -> None:
    unused = unused_modules(ROOT / "toolkit")
    stale = sorted(name for name in ENTRY_MODULES if name not in unused)
    assert not stale, (
        f"{', '.join(stale)}: gone, or now imported by another toolkit module; remove it from "
        "ENTRY_MODULES in tests/toolkit/test_core_scope.py"
    )


def test_adapter_helpers_live_in_adapters_not_in_the_core() -> None:
    for moved, home in [("network", "adapters.network"), ("env_vars", "adapters._env_vars")]:
        assert importlib.util.find_spec(f"toolkit.{moved}") is None, moved
        assert importlib.util.find_spec(home) is not None, home


def test_the_scan_sees_lazy_typed_and_by_name_imports(tmp_path: Path) -> None:
    """The check is real: each kind of import counts, and the facade's re-exports do not."""
    package = tmp_path / "core"
    package.mkdir()
    sources = {
        "__init__.py": "from core.exported import thing\n",
        "exported.py": "thing = 1\n",
        "main.py": (
            "from typing import TYPE_CHECKING\n"
            "from . import relative\n"
            "if TYPE_CHECKING:\n    from core.typed import T\n"
            "def f():\n    import core.lazy\n"
            "STORE = 'core.by_name:Store'\n"
        ),
        "relative.py": "",
        "typed.py": "",
        "lazy.py": "",
        "by_name.py": "",
        "orphan.py": "import core.main\n",
    }
    for name, text in sources.items():
        (package / name).write_text(text)
    assert unused_modules(package) == {"core.exported", "core.orphan"}
