"""Turning a command-line TARGET into a registry.

TARGET is a module or package name (``examples.warehouse``), ``module:attribute`` (a
``ToolRegistry``, a function, a class or an object), or a path to a ``.py`` file or a package
directory.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from toolkit._scan import import_target
from toolkit.errors import RegistrationError
from toolkit.registry import ToolRegistry

__all__ = ["load_registry", "load_target"]


def load_target(target: str) -> Any:
    """Import what ``target`` names: a module, an attribute of one, or a file."""
    path = Path(target)
    if target.endswith(".py") or path.is_dir() or path.is_file():
        return _import_path(path)
    module_name, _, attribute = target.partition(":")
    module = import_target(module_name)
    if not attribute:
        return module
    value: Any = module
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise RegistrationError(
                f"{module_name!r} has no attribute {attribute!r} (TARGET {target!r})."
            ) from None
    return value


def load_registry(target: str | Any) -> ToolRegistry:
    """A registry with the tools ``target`` names (see the module docstring)."""
    value = load_target(target) if isinstance(target, str) else target
    if isinstance(value, ToolRegistry):
        return value
    registry = ToolRegistry()
    if callable(value) and not isinstance(value, type) and hasattr(value, "__code__"):
        registry.register(value)
    else:
        registry.scan(value)
    if not len(registry):
        raise RegistrationError(
            f"No tools found in {target!r}: mark functions with @mcp_tool, or point at a "
            "ToolRegistry with module:attribute."
        )
    return registry


def _import_path(path: Path) -> ModuleType:
    path = path.resolve()
    if not path.exists():
        raise RegistrationError(f"No such file or directory: {path}")
    if path.is_dir():
        if not (path / "__init__.py").exists():
            raise RegistrationError(f"{path} is a directory but not a package (no __init__.py).")
        sys.path.insert(0, str(path.parent))
        return import_target(path.name)
    sys.path.insert(0, str(path.parent))
    name = path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise RegistrationError(f"Cannot import {path}: not a Python file.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        where = f" (line {exc.lineno})" if isinstance(exc, SyntaxError) else ""
        raise RegistrationError(
            f"Importing {path} failed{where}: {type(exc).__name__}: {exc}. Fix the file and retry."
        ) from exc
    return module
