"""Reading a callable: its parameters with resolved type hints, its docstring, its name.

Accepted: plain and async functions, bound methods (``self``/``cls`` are already bound and so
not parameters), ``functools.partial`` objects (bound arguments are not parameters), callable
instances, and functions wrapped by other decorators (``__wrapped__`` is followed for the
signature and the hints). String annotations and ``from __future__ import annotations`` work:
hints are resolved with ``typing.get_type_hints(..., include_extras=True)``.

An un-annotated parameter takes the type of its default (``limit=10`` is an ``int``; a
``None`` default means ``Any``); an un-annotated parameter without a default is a
registration error, because nothing says what the model should send.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic.fields import FieldInfo

from toolkit.errors import RegistrationError
from toolkit.schema._injection import is_context_annotation, is_injected_annotation

__all__ = ["CallableInfo", "ParamInfo", "describe_callable", "inspect_callable"]

EMPTY: Any = inspect.Parameter.empty


@dataclass(frozen=True, slots=True)
class ParamInfo:
    """One parameter of a tool function."""

    name: str
    kind: inspect._ParameterKind
    annotation: Any
    default: Any  # ``EMPTY`` when there is none
    injected: bool
    context: bool


@dataclass(frozen=True, slots=True)
class CallableInfo:
    """What :func:`inspect_callable` learns about a callable."""

    params: tuple[ParamInfo, ...]
    return_hint: Any  # ``EMPTY`` when not annotated
    doc: str | None
    label: str
    is_async: bool


def _hint_source(fn: Any) -> Any:
    """The plain function whose ``__annotations__`` and globals describe ``fn``."""
    seen: set[int] = set()
    while id(fn) not in seen:
        seen.add(id(fn))
        if isinstance(fn, functools.partial):
            fn = fn.func
        elif inspect.ismethod(fn):
            fn = fn.__func__
        elif hasattr(fn, "__wrapped__"):
            fn = fn.__wrapped__
        elif not inspect.isroutine(fn) and not isinstance(fn, type) and callable(fn):
            fn = type(fn).__call__
        else:
            break
    return fn


def describe_callable(fn: Any) -> str:
    """``module.qualname (file:line)`` for error messages, as far as it can be known."""
    source = _hint_source(fn)
    module = getattr(source, "__module__", None) or "?"
    qualname = getattr(source, "__qualname__", None) or getattr(source, "__name__", repr(fn))
    label = f"{module}.{qualname}"
    code = getattr(source, "__code__", None)
    if code is not None:
        label += f" ({code.co_filename}:{code.co_firstlineno})"
    return label


def _fail(fn: Any, problem: str, fix: str) -> RegistrationError:
    return RegistrationError(f"Cannot make a tool of {describe_callable(fn)}: {problem}. {fix}")


def _resolve_hints(fn: Any, source: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(source, include_extras=True)
    except NameError as exc:
        raise _fail(
            fn,
            f"a type hint cannot be resolved ({exc})",
            "Import that name at module level (an import under `if TYPE_CHECKING:` is not "
            "visible at runtime) or write the annotation without quotes.",
        ) from exc
    except Exception as exc:
        raise _fail(
            fn, f"its type hints cannot be evaluated ({exc!r})", "Fix the annotations."
        ) from exc


def _annotation_for(fn: Any, param: inspect.Parameter, hints: dict[str, Any]) -> Any:
    if param.name in hints:
        return hints[param.name]
    default = param.default
    if isinstance(default, FieldInfo):
        default = default.get_default(call_default_factory=True)
        if default is None and param.default.default_factory is None:
            default = EMPTY
    if default is None:
        return Any
    if default is not EMPTY:
        return type(default)
    if param.name in ("self", "cls"):
        raise _fail(
            fn,
            f"`{param.name}` is not bound",
            "Register the method from an instance (`obj.method`) or the class "
            "(`Class.method` for a classmethod), not the function found on the class.",
        )
    raise _fail(
        fn,
        f"parameter `{param.name}` has no type hint and no default that shows its type",
        f"Add a type hint, e.g. `{param.name}: str`, so the model knows what to send.",
    )


def _check_kind(fn: Any, param: inspect.Parameter) -> None:
    if param.kind is inspect.Parameter.VAR_POSITIONAL:
        raise _fail(
            fn,
            f"`*{param.name}` cannot be described in a JSON Schema (models send named arguments)",
            f"Replace it with a list parameter, e.g. `{param.name}: list[str]`.",
        )
    if param.kind is inspect.Parameter.VAR_KEYWORD:
        raise _fail(
            fn,
            f"`**{param.name}` cannot be described in a JSON Schema (its keys are unknown)",
            "Declare each accepted argument as its own parameter, or take one "
            f"`{param.name}: dict[str, Any]` parameter.",
        )


def inspect_callable(fn: Callable[..., Any]) -> CallableInfo:
    """Read ``fn``'s parameters, hints and docstring, or raise :class:`RegistrationError`."""
    if not callable(fn):
        raise RegistrationError(f"Cannot make a tool of {fn!r}: it is not callable.")
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise _fail(
            fn, f"its signature cannot be read ({exc})", "Wrap it in a Python function."
        ) from exc
    source = _hint_source(fn)
    hints = _resolve_hints(fn, source)
    params = []
    for param in signature.parameters.values():
        _check_kind(fn, param)
        annotation = _annotation_for(fn, param, hints)
        params.append(
            ParamInfo(
                name=param.name,
                kind=param.kind,
                annotation=annotation,
                default=param.default,
                injected=is_injected_annotation(annotation),
                context=is_context_annotation(annotation),
            )
        )
    doc = inspect.getdoc(source) if isinstance(fn, functools.partial) else inspect.getdoc(fn)
    return CallableInfo(
        params=tuple(params),
        return_hint=hints.get("return", EMPTY),
        doc=doc,
        label=describe_callable(fn),
        is_async=inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(source),
    )
