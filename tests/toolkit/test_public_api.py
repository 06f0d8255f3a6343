"""The core's public surface, and the rules that keep it small and acyclic."""

from __future__ import annotations

import ast
from pathlib import Path

import toolkit

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "toolkit"
MAX_LINES = 500  # the style guide: no file over ~500 lines

SURFACE = {
    # writing tools
    "mcp_tool",
    "ToolContext",
    "Injected",
    # serving data and how to use the tools
    "mcp_resource",
    "mcp_prompt",
    "PromptMessage",
    # one registry, one call path
    "ToolRegistry",
    "RegistrySettings",
    "CallOptions",
    "UNSET",
    "Unset",
    "ToolResult",
    "CallRecord",
    "Content",
    "TextContent",
    "ImageContent",
    "AudioContent",
    "ResourceContent",
    # failures
    "ToolError",
    "ErrorCode",
    "RegistrationError",
    "ExceptionProcessor",
    # who may run what
    "Policy",
    "Decision",
    "CallRequest",
    "Approval",
    "Approver",
    "default_policy",
    # new tool sources
    "Tool",
    "Toolset",
    "as_toolset",
    "ToolSpec",
    "ToolAnnotations",
    "ToolOptions",
    "ArgumentProblem",
    "InvalidArguments",
    # governing runs: middleware around every call, budgets, loops, caches, rate limits
    "Middleware",
    "ToolCall",
    "CallNext",
    "RunBudget",
    "Run",
    "ResultCache",
    "RateLimit",
    "CallerBudget",
}


def test_the_public_surface_is_what_a_user_writes() -> None:
    assert set(toolkit.__all__) <= SURFACE | {"JsonSchemaTool"}
    assert set(toolkit.__all__) >= SURFACE
    for name in toolkit.__all__:
        value = getattr(toolkit, name)
        aliases = {"Approver", "CallNext", "Content", "Decision", "Injected", "Policy"}
        assert getattr(value, "__doc__", None) or name in aliases, name


def test_names_moved_out_of_all_stay_importable() -> None:
    from toolkit import ENTRY_POINT_GROUP, FunctionTool, Invoker, is_valid_name, run_sync

    assert ENTRY_POINT_GROUP == "mcp_toolkit.tools"
    assert all(callable(x) for x in (FunctionTool, Invoker, is_valid_name, run_sync))


def _imports(path: Path, package: str) -> set[str]:
    """Modules imported by ``path`` anywhere but under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for n in ast.walk(node))
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {m for m in found if m.split(".")[0] == package}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def test_adapters_use_only_public_core_modules() -> None:
    offenders = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in sorted((ROOT / "adapters").rglob("*.py"))
        for module in _imports(path, "toolkit")
        if any(part.startswith("_") for part in module.split(".")[1:])
    ]
    assert not offenders, offenders


def test_the_core_has_no_import_cycle() -> None:
    modules = {_module_name(p): p for p in CORE.rglob("*.py")}
    graph = {
        name: {m for m in _imports(path, "toolkit") if m in modules and m != "toolkit"}
        for name, path in modules.items()
        if name != "toolkit"  # the package facade imports everything by design
    }
    cycles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        if node in trail:
            cycles.append([*trail[trail.index(node) :], node])
            return
        for nxt in graph.get(node, ()):
            if not nxt.startswith(node + "."):  # a package importing its own submodules
                visit(nxt, [*trail, node])

    for start in graph:
        visit(start, [])
    assert not cycles, cycles[0]


def test_core_and_adapter_files_stay_small() -> None:
    big = {
        str(p.relative_to(ROOT)): n
        for package in (CORE, ROOT / "adapters")
        for p in package.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert not big, (
        f"over {MAX_LINES} lines: {big}. Split the module by job (see docs/ARCHITECTURE.md)."
    )
