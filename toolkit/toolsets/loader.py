"""Turning a command-line TARGET into a registry.

TARGET is a module or package name (``adapters.demo.warehouse``), ``module:attribute`` (a
``ToolRegistry``, a function, a class, an object, or a zero-argument factory that returns one of
these), a path to a ``.py`` file or a package directory, or ``path/to/file.py:attribute``.

Rule: a module (or file) that holds its own ``ToolRegistry`` is served as that registry, with
its settings, list changes and resources: the one called ``registry``, else the only one it
defines. Only a module without one is scanned for decorated functions. Either way the log says
which object was served.
"""

from __future__ import annotations

import importlib.util
import inspect
import logging
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from toolkit.decorator import definition_of
from toolkit.errors import RegistrationError
from toolkit.registry import ToolRegistry
from toolkit.toolsets._scan import import_target

__all__ = ["load_registry", "load_target"]

log = logging.getLogger("toolkit")


def load_target(target: str) -> Any:
    """Import what ``target`` names: a module, an attribute of one, or a file (``file.py:attr``)."""
    path = Path(target)
    if target.endswith(".py") or path.is_dir() or path.is_file():
        return _import_path(path)
    if target.count(":") > 1:
        raise RegistrationError(
            f"TARGET {target!r} has {target.count(':')} colons; it takes at most one, between "
            "a module or file and an attribute: app, app:registry, app.py, app.py:add or "
            "pkg.module:build_registry."
        )
    module_name, _, attribute = target.rpartition(":") if ":" in target else (target, "", "")
    if module_name.endswith(".py") or Path(module_name).is_file():
        module: ModuleType = _import_path(Path(module_name))
    else:
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
    if _is_factory(value):
        try:
            value = value()
        except Exception as exc:
            raise RegistrationError(
                f"Calling the factory {target!r} failed: {type(exc).__name__}: {exc}."
            ) from exc
    if isinstance(value, ToolRegistry):
        return value
    if isinstance(value, ModuleType):
        own = _own_registry(value, target)
        if own is not None:
            return own
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


def _own_registry(module: ModuleType, target: Any) -> ToolRegistry | None:
    """The registry ``module`` holds (``registry``, else its only one), logged; else ``None``."""
    found = {k: v for k, v in vars(module).items() if isinstance(v, ToolRegistry)}
    name = "registry" if "registry" in found else next(iter(found)) if len(found) == 1 else None
    if name is None:
        if found:
            log.warning(
                "%s holds several registries (%s) and none is called 'registry': scanning the "
                "module for @mcp_tool functions instead. Name one: %s:%s.",
                target,
                ", ".join(found),
                target,
                next(iter(found)),
            )
        return None
    log.info("serving %s:%s, the module's own registry", target, name)
    return found[name]


def _is_factory(value: Any) -> bool:
    """A plain function, not a tool, that takes no arguments: called to build the tools."""
    if not inspect.isfunction(value) or definition_of(value) is not None:
        return False
    try:
        params = inspect.signature(value).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(
        p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params
    )


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
