"""Arguments rendered from graph state, with jinja2's sandbox.

* ``"{key}"`` or ``"{key.field}"`` — the value at that path in the state, type kept. A path
  reads mapping keys, list indexes and plain public attributes only: an attribute whose name
  starts with ``_``, a method or class, or anything Jinja2's sandbox calls unsafe is refused
  with a ``TemplateError`` naming the template (``{order.__class__.__init__.__globals__}`` is
  refused when the node is built, since no state holds such keys);
* ``"{{ expression }}"`` alone — the expression's value, type kept (``{{ items | length }}``);
* any other string with ``{{ }}`` or ``{% %}`` — rendered as text;
* dicts and lists are rendered item by item; other values are used as they are.

Templates are compiled once, when the node is built; a template that reads a missing key
raises ``TemplateError`` naming the template (a graph bug, not a model mistake).

``{{ }}`` and ``{% %}`` templates render in the same limited sandbox as HTTP response
templates (:mod:`adapters._template_guard`): the state may hold what a model wrote, so every
loop and size-producing operation counts against :data:`MAX_ITERATIONS`,
:data:`MAX_OUTPUT` (plus the size of the state) and :data:`MAX_SECONDS`; past a limit the
render raises ``TemplateError`` naming the template.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from jinja2 import TemplateError

from adapters._template_guard import (
    TemplateLimitError,
    compile_expression,
    compile_template,
    environment,
    rendering,
)

__all__ = ["MAX_ITERATIONS", "MAX_OUTPUT", "MAX_SECONDS", "TemplateError", "compile_arguments"]

#: Limits of one template render in a graph node.
MAX_ITERATIONS = 100_000
MAX_OUTPUT = 100_000
MAX_SECONDS = 0.5

_PATH = re.compile(r"^\{\s*([A-Za-z_][\w]*(?:\.[\w]+)*)\s*\}$")
_EXPRESSION = re.compile(r"^\{\{(?P<expr>(?:(?!\}\}).)*)\}\}$", re.S)

Renderer = Callable[[Mapping[str, Any]], Any]


def _path(path: str, source: str) -> Renderer:
    keys = path.split(".")
    for key in keys:
        if key.startswith("__") and key.endswith("__"):
            raise TemplateError(
                f"Template {source!r}: {key!r} is not allowed; a path reads mapping keys, list "
                "indexes and public attributes only. Pass the value in the state instead."
            )

    def render(scope: Mapping[str, Any]) -> Any:
        value: Any = scope
        for depth, key in enumerate(keys):
            if isinstance(value, Mapping) and key in value:
                value = value[key]
            elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
                value = value[int(key)]
            elif not isinstance(value, Mapping) and hasattr(value, key):
                value = _attribute(value, key, source)
            else:
                where = ".".join(keys[:depth]) or "the state"
                raise TemplateError(f"Template {source!r}: {where} has no {key!r}.")
        return value

    return render


def _attribute(obj: Any, name: str, source: str) -> Any:
    """A plain public attribute of ``obj`` (data, not a method, class or internal)."""
    if not name.startswith("_"):
        value = getattr(obj, name)
        if not callable(value) and environment.is_safe_attribute(obj, name, value):
            return value
    raise TemplateError(
        f"Template {source!r}: attribute {name!r} of {type(obj).__name__} is not readable "
        "from a template (only mapping keys, list indexes and plain public attributes are)."
    )


def _compile_string(text: str) -> Renderer:
    if match := _PATH.match(text):
        return _path(match.group(1), text)
    if match := _EXPRESSION.match(text.strip()):
        expression = compile_expression(match.group("expr"))
        return lambda scope: _guard(text, scope, lambda: expression(**scope))
    if "{{" in text or "{%" in text:
        template = compile_template(text)
        return lambda scope: _guard(text, scope, lambda: template.render(**scope))
    return lambda _scope: text


def _guard(source: str, scope: Mapping[str, Any], render: Callable[[], Any]) -> Any:
    try:
        with rendering(scope, MAX_ITERATIONS, MAX_OUTPUT, MAX_SECONDS):
            return render()
    except (TemplateError, TemplateLimitError) as exc:
        raise TemplateError(f"Template {source!r}: {exc}") from exc


def _compile(value: Any) -> Renderer:
    if isinstance(value, str):
        return _compile_string(value)
    if isinstance(value, Mapping):
        parts = {key: _compile(item) for key, item in value.items()}
        return lambda scope: {key: part(scope) for key, part in parts.items()}
    if isinstance(value, list | tuple):
        items = [_compile(item) for item in value]
        return lambda scope: [item(scope) for item in items]
    return lambda _scope: value


def compile_arguments(arguments: Mapping[str, Any]) -> Renderer:
    """A function ``state -> arguments`` for the templates in ``arguments``.

    Raises:
        TemplateError: At compile time for a syntax error; at render time for a missing key.
    """
    return _compile(dict(arguments))


def scope_of(state: Any) -> Mapping[str, Any]:
    """The names a template sees: the state's keys (or a model's / dataclass's fields)."""
    if isinstance(state, Mapping):
        return state
    if hasattr(state, "model_dump"):
        return {name: getattr(state, name) for name in type(state).model_fields}
    scope: Mapping[str, Any] = vars(state)
    return scope
