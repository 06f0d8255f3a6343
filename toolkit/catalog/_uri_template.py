"""URI templates of resources: RFC 6570 level 1 (``{name}``) plus ``{+name}`` for paths.

``{name}`` matches one segment (no ``/``, ``?`` or ``#``) and is percent-decoded; ``{+name}``
matches the rest of the path, slashes included. That is the subset MCP clients send and the
SDK's own server matches; anything else is refused at registration, not guessed at.

Rule: matching takes time linear in the URI's length, whatever a client sends. Two variables
must have literal text between them (``{a}{b}`` cannot be told apart and is refused at
registration); a variable's value ends at the first occurrence of the text that follows it, the
last one's at the end of the URI, and nothing is ever tried twice (no backtracking). A URI
longer than :data:`MAX_URI_LENGTH` matches no template.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, unquote

from toolkit.catalog.path_values import path_value_problem

__all__ = ["MAX_URI_LENGTH", "UriTemplate", "UriTemplateError"]

_PART = re.compile(r"\{([^{}]*)\}")
_VAR = re.compile(r"^(\+?)([A-Za-z_][A-Za-z0-9_]*)$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")

#: Longest URI matched; a longer one is not one of ours (and costs nothing to refuse).
MAX_URI_LENGTH = 8192


class UriTemplateError(ValueError):
    """The template is not one this module can match; the message says why."""


@dataclass(frozen=True, slots=True)
class _Variable:
    """A variable and the literal text after it (up to the next variable or the end)."""

    name: str
    reserved: bool
    after: str


@dataclass(frozen=True, slots=True)
class UriTemplate:
    """A parsed template: its text, variable names and how to match URIs.

    Attributes:
        text: The template as written, such as ``orders://{order_id}``.
        variables: Variable names in order of appearance.
    """

    text: str
    variables: tuple[str, ...]
    _head: str
    _parts: tuple[_Variable, ...]

    @classmethod
    def parse(cls, text: str) -> UriTemplate:
        """Parse ``text``.

        Raises:
            UriTemplateError: No scheme, unbalanced braces, an expression other than
                ``{name}``/``{+name}``, a name used twice, or two variables with nothing
                between them.
        """
        if not _SCHEME.match(text):
            raise UriTemplateError(
                f"{text!r} has no scheme: a resource URI starts with one, such as "
                f"'orders://{{order_id}}' or 'file:///config.json'"
            )
        literals: list[str] = []
        found: list[tuple[str, bool]] = []
        pos = 0
        for match in _PART.finditer(text):
            literal = text[pos : match.start()]
            if "{" in literal or "}" in literal:
                raise UriTemplateError(f"{text!r} has an unbalanced brace")
            var = _VAR.match(match.group(1).strip())
            if var is None:
                raise UriTemplateError(
                    f"{text!r}: {{{match.group(1)}}} is not a supported expression; write "
                    f"{{name}} for one path segment or {{+name}} for the rest of a path, where "
                    f"name is a Python identifier"
                )
            plus, name = var.groups()
            if any(name == seen for seen, _ in found):
                raise UriTemplateError(f"{text!r} uses {{{name}}} twice")
            if plus and any(reserved for _, reserved in found):
                raise UriTemplateError(
                    f"{text!r} has two {{+name}} variables, so nothing tells where one path "
                    f"ends and the next begins; keep one {{+name}} and make the others {{name}}"
                )
            if found and not literal:
                raise UriTemplateError(
                    f"{text!r}: {{{found[-1][0]}}} and {{{name}}} are adjacent, so nothing tells "
                    f"where one ends and the next begins; put literal text between them, such "
                    f"as {{{found[-1][0]}}}-{{{name}}}"
                )
            literals.append(literal)
            found.append((name, bool(plus)))
            pos = match.end()
        tail = text[pos:]
        if "{" in tail or "}" in tail:
            raise UriTemplateError(f"{text!r} has an unbalanced brace")
        literals.append(tail)
        parts = tuple(
            _Variable(name, reserved, literals[i + 1]) for i, (name, reserved) in enumerate(found)
        )
        return cls(text, tuple(name for name, _ in found), literals[0], parts)

    @property
    def is_template(self) -> bool:
        """Whether the URI has variables (a template) or is one fixed resource."""
        return bool(self.variables)

    def match(self, uri: str) -> dict[str, str] | None:
        """The variables' values (percent-decoded) if ``uri`` matches, else ``None``.

        Linear in ``len(uri)``, with one choice per variable and no backtracking: variables
        before the ``{+name}`` (or before the last variable) end at the first occurrence of
        the literal after them; those after it start at the last occurrence of the literal
        before them; the ``{+name}`` (or the last variable) takes what is left between.
        """
        if len(uri) > MAX_URI_LENGTH or not uri.startswith(self._head):
            return None
        parts = self._parts
        if not parts:
            return {} if len(uri) == len(self._head) else None
        values: dict[str, str] = {}
        middle = next((i for i, p in enumerate(parts) if p.reserved), len(parts) - 1)
        pos = len(self._head)
        for part in parts[:middle]:
            end = uri.find(part.after, pos)
            if end <= pos or not _fits(part, uri, pos, end, values):
                return None
            pos = end + len(part.after)
        end = len(uri) - len(parts[-1].after)
        if end <= pos or not uri.endswith(parts[-1].after):
            return None
        for j in range(len(parts) - 1, middle, -1):
            before = parts[j - 1].after
            start = uri.rfind(before, pos, end)
            if start < 0 or not _fits(parts[j], uri, start + len(before), end, values):
                return None
            end = start
        if not _fits(parts[middle], uri, pos, end, values):
            return None
        return {name: values[name] for name in self.variables}

    def problem(self, values: dict[str, str]) -> str | None:
        """Why matched ``values`` cannot be served (see :mod:`toolkit.catalog.path_values`), or ``None``.

        A ``{name}`` value decoded to ``..``, or holding ``/``, ``\\`` or NUL, and a
        ``{+name}`` value with a ``..`` segment or NUL, would reach outside what the template
        serves.
        """
        for part in self._parts:
            why = path_value_problem(values.get(part.name, ""), segment=not part.reserved)
            if why is not None:
                brace = f"{{+{part.name}}}" if part.reserved else f"{{{part.name}}}"
                return f"the value of {brace} {why}"
        return None

    def expand(self, values: dict[str, str]) -> str:
        """The URI for ``values`` (each percent-encoded as its expression asks)."""
        reserved = {p.name for p in self._parts if p.reserved}

        def one(match: re.Match[str]) -> str:
            name = match.group(1).strip().lstrip("+")
            return quote(str(values[name]), safe="/" if name in reserved else "")

        return _PART.sub(one, self.text)


def _fits(part: _Variable, uri: str, start: int, end: int, values: dict[str, str]) -> bool:
    """Whether ``uri[start:end]`` can be ``part``'s value; if so, keep it, decoded."""
    raw = uri[start:end]
    if not raw or "?" in raw or "#" in raw or (not part.reserved and "/" in raw):
        return False
    values[part.name] = unquote(raw)
    return True
