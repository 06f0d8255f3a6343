"""Finding decorated tools in modules, packages, classes and objects."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from importlib.metadata import entry_points
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

from toolkit.catalog.prompts import PROMPT_ATTRIBUTE
from toolkit.catalog.resources import RESOURCE_ATTRIBUTE
from toolkit.decorator import definition_of
from toolkit.errors import RegistrationError

if TYPE_CHECKING:
    from toolkit.catalog.prompts import PromptRegistry
    from toolkit.catalog.resources import ResourceRegistry
    from toolkit.registry import ToolRegistry

T = TypeVar("T")


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


def found_in(
    target: ModuleType | str | object,
    *,
    public: bool = False,
    include: Collection[str] | None = None,
    exclude: Collection[str] = (),
) -> list[tuple[str | None, Callable[..., Any]]]:
    """What ``registry.scan`` registers: ``(name, callable)`` pairs, where the name is the
    attribute of an undecorated method picked by ``public`` (``None`` for decorated tools)."""
    if isinstance(target, str):
        target = import_target(target)
    if not isinstance(target, ModuleType):
        methods = methods_of_object(target, public=public, include=include, exclude=exclude)
        return [(None if definition_of(fn) else name, fn) for name, fn in methods]
    if public or include is not None or exclude:
        raise RegistrationError(
            f"Cannot scan module {target.__name__!r} with public/include/exclude: they select "
            "the methods of an object or a class. Decorate the module's functions with "
            "@mcp_tool, or register them one by one."
        )
    found: dict[int, Callable[..., Any]] = {}
    for module in walk_modules(target):
        for fn in tools_in_module(module):
            found.setdefault(id(fn), fn)
    return [(None, fn) for fn in found.values()]


def scan_served(
    target: ModuleType | str | object, resources: ResourceRegistry, prompts: PromptRegistry
) -> ModuleType | object:
    """Add the ``@mcp_resource``/``@mcp_prompt`` functions of ``target`` (a module, a dotted
    name, or an instance) to ``resources`` and ``prompts``; returns the target, imported."""
    if isinstance(target, str):
        target = import_target(target)
    if isinstance(target, ModuleType):
        for module in walk_modules(target):
            resources.scan_module(module)
            prompts.scan_module(module)
    elif not inspect.isclass(target):
        resources.scan_object(target)
        prompts.scan_object(target)
    return target


@contextmanager
def all_or_nothing(registry: ToolRegistry) -> Iterator[None]:
    """Undo what the block added to ``registry`` (tools, resources, prompts) if it raises: a
    scan that fails part-way leaves the registry as it was."""
    tools = set(registry.names())
    resources = {r.uri for r in registry.resources}
    prompts = {p.name for p in registry.prompts}
    try:
        yield
    except BaseException:
        for name in [n for n in registry.names() if n not in tools]:
            registry.remove(name)
        for uri in [r.uri for r in registry.resources if r.uri not in resources]:
            registry.resources.remove(uri)
        for name in [p.name for p in registry.prompts if p.name not in prompts]:
            registry.prompts.remove(name)
        raise


def entry_point_values(group: str) -> Iterator[Any]:
    """What each entry point of ``group`` names, loaded, in name order.

    Raises:
        RegistrationError: An entry point failed to load (named, with the error).
    """
    for ep in sorted(entry_points(group=group), key=lambda e: e.name):
        try:
            yield ep.load()
        except Exception as exc:
            raise RegistrationError(
                f"Entry point {ep.name!r} ({ep.value}) in group {group!r} failed to load: "
                f"{type(exc).__name__}: {exc}"
            ) from exc


def register_all(
    found: list[tuple[str | None, Callable[..., Any]]], register: Callable[[Any], T]
) -> list[T]:
    """``register`` each callable found; a method picked by ``public`` that cannot be a tool
    gets the way out added to the message."""
    added: list[T] = []
    for undecorated, fn in found:
        try:
            added.append(register(fn))
        except RegistrationError as exc:
            if undecorated is None:
                raise
            raise RegistrationError(
                f"{exc} Or leave it out: scan(..., exclude=[{undecorated!r}])."
            ) from exc
    return added


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


def methods_of_object(
    obj: Any,
    *,
    public: bool,
    include: Collection[str] | None = None,
    exclude: Collection[str] = (),
) -> Iterator[tuple[str, Callable[..., Any]]]:
    """``(attribute name, method)`` of the tools an object offers, in definition order.

    Decorated methods always; with ``public``, every other method its classes define too,
    except names with a leading underscore (dunders included), properties and other
    descriptors, and what built-in bases such as ``object`` or ``dict`` bring.

    Rule: ``public`` takes undecorated methods only from the object's own class and its bases
    from the same project (the top-level package of the class's module): a subclass of
    ``httpx.Client``, ``threading.Thread`` or a pydantic model offers its own methods, never
    ``get``/``send``/``start``/``model_validate`` of the library, unless ``include`` names
    them. ``include`` keeps only the names listed, ``exclude`` leaves names out; a name that
    is no method of the object is a :class:`RegistrationError` (a typo would otherwise pass
    unnoticed).
    """
    is_class = inspect.isclass(obj)
    owner = obj if is_class else type(obj)
    home = _project(owner)
    found: dict[str, Any] = {}
    foreign: set[str] = set()  # undecorated methods of a base from another project
    for klass in owner.__mro__:
        if klass.__module__ == "builtins":
            continue
        for name, raw in vars(klass).items():
            if name not in found and _offered(name, raw, public):
                found[name] = raw
                if _project(klass) != home and definition_of(raw) is None:
                    foreign.add(name)
    wanted = (*(include or ()), *exclude)
    unknown = [n for n in wanted if n not in found]
    if unknown:
        raise RegistrationError(
            f"Cannot scan {owner.__qualname__}: {', '.join(map(repr, unknown))} "
            f"{'is' if len(unknown) == 1 else 'are'} not among its methods. Methods found: "
            f"{', '.join(found) or '(none)'}."
        )
    chosen = [
        n
        for n in found
        if (n in include if include is not None else n not in foreign) and n not in set(exclude)
    ]
    if is_class:
        needs_instance = [n for n in chosen if inspect.isfunction(found[n])]
        if needs_instance:
            what = "to register" if public else "marked @mcp_tool"
            how = ", public=True), or leave them out with exclude=[...]." if public else ")."
            raise RegistrationError(
                f"{owner.__qualname__} has instance methods {what} "
                f"({', '.join(needs_instance)}); they need an instance. Scan an instance: "
                f"registry.scan({owner.__name__}(...){how}"
            )
    for name in chosen:
        yield name, getattr(obj, name)


def _project(cls: type) -> str:
    """The top-level package of the module defining ``cls`` (``httpx`` for ``httpx.Client``)."""
    return str(getattr(cls, "__module__", "") or "").partition(".")[0]


def _offered(name: str, raw: Any, public: bool) -> bool:
    if definition_of(raw) is not None:
        return callable(getattr(raw, "__func__", raw))
    if not public or name.startswith("_"):
        return False
    func = getattr(raw, "__func__", raw)
    if hasattr(func, RESOURCE_ATTRIBUTE) or hasattr(func, PROMPT_ATTRIBUTE):
        return False  # served as a resource or a prompt, not as a tool
    return inspect.isfunction(raw) or isinstance(raw, staticmethod | classmethod)
