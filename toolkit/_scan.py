"""Finding decorated tools in modules, packages, classes and objects."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

from toolkit.decorator import definition_of
from toolkit.errors import RegistrationError


def import_target(name: str) -> ModuleType:
    """Import a dotted module name, with an error that says what to check."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        raise RegistrationError(
            f"Cannot scan {name!r}: module {exc.name!r} was not found. Check the dotted name and "
            "that its package is installed or on sys.path."
        ) from exc
    except Exception as exc:
        raise RegistrationError(
            f"Cannot scan {name!r}: importing it failed with {type(exc).__name__}: {exc}."
        ) from exc


def walk_modules(module: ModuleType) -> Iterator[ModuleType]:
    """``module`` and, for a package, every submodule below it (imported in name order)."""
    yield module
    path = getattr(module, "__path__", None)
    if path is None:
        return
    names = sorted(info.name for info in pkgutil.walk_packages(path, prefix=module.__name__ + "."))
    for name in names:
        try:
            yield importlib.import_module(name)
        except Exception as exc:
            raise RegistrationError(
                f"Cannot scan {module.__name__!r}: importing its submodule {name!r} failed with "
                f"{type(exc).__name__}: {exc}. Fix the import error, or scan a narrower module."
            ) from exc


def tools_in_module(module: ModuleType) -> Iterator[Callable[..., Any]]:
    """Decorated functions defined in ``module`` and static/class methods of its classes."""
    for _, value in sorted(vars(module).items()):
        if getattr(value, "__module__", None) != module.__name__:
            continue  # imported from elsewhere: found where it is defined
        if inspect.isclass(value):
            yield from _class_level_tools(value)
        elif definition_of(value) is not None and callable(value):
            yield value


def _class_level_tools(cls: type) -> Iterator[Callable[..., Any]]:
    for name, raw in vars(cls).items():
        if isinstance(raw, staticmethod | classmethod) and definition_of(raw) is not None:
            yield getattr(cls, name)


def tools_of_object(obj: Any) -> Iterator[Callable[..., Any]]:
    """Decorated methods of an instance (bound) or a class (static and class methods only)."""
    if inspect.isclass(obj):
        instance_methods = [
            n
            for n, raw in vars(obj).items()
            if inspect.isfunction(raw) and definition_of(raw) is not None
        ]
        if instance_methods:
            raise RegistrationError(
                f"{obj.__qualname__} has instance methods marked @mcp_tool "
                f"({', '.join(instance_methods)}); they need an instance. Scan an instance: "
                f"registry.scan({obj.__name__}(...))."
            )
        yield from _class_level_tools(obj)
        return
    seen: set[str] = set()
    for klass in type(obj).__mro__:
        for name, raw in vars(klass).items():
            if name in seen or definition_of(raw) is None:
                continue
            seen.add(name)
            yield getattr(obj, name)


def find_tools(target: ModuleType | str | object) -> list[Callable[..., Any]]:
    """Decorated tools of a module, dotted name (packages walked), class or instance, in order."""
    if isinstance(target, str):
        target = import_target(target)
    if not isinstance(target, ModuleType):
        return list(tools_of_object(target))
    found: list[Callable[..., Any]] = []
    seen: set[int] = set()
    for module in walk_modules(target):
        for fn in tools_in_module(module):
            if id(fn) not in seen:
                seen.add(id(fn))
                found.append(fn)
    return found
