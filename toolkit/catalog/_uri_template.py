"""URI templates of resources: RFC 6570 level 1 (``{name}``) plus ``{+name}`` for paths.

``{name}`` matches one segment (no ``/``, ``?`` or ``#``) and is percent-decoded; ``{+name}``
matches the rest of the path, slashes included. That is the subset MCP clients send and the
SDK's own server matches; anything else is refused at registration, not guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, unquote

__all__ = ["UriTemplate", "UriTemplateError"]

_PART = re.compile(r"\{([^{}]*)\}")
_VAR = re.compile(r"^(\+?)([A-Za-z_][A-Za-z0-9_]*)$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")

#: Longest URI matched; a longer one is not one of ours (and costs nothing to refuse).
MAX_URI_LENGTH = 8192


class UriTemplateError(ValueError):
    """The template is not one this module can match; the message says why."""


@dataclass(frozen=True, slots=True)
class UriTemplate:
    """A parsed template: its text, variable names and the pattern that matches URIs.

    Attributes:
        text: The template as written, such as ``orders://{order_id}``.
        variables: Variable names in order of appearance.
    """

    text: str
    variables: tuple[str, ...]
    _pattern: re.Pattern[str]
    _reserved: frozenset[str]

    @classmethod
    def parse(cls, text: str) -> UriTemplate:
        """Parse ``text``.

        Raises:
            UriTemplateError: No scheme, unbalanced braces, an expression other than
                ``{name}``/``{+name}``, or a name used twice.
        """
        if not _SCHEME.match(text):
            raise UriTemplateError(
                f"{text!r} has no scheme: a resource URI starts with one, such as "
                f"'orders://{{order_id}}' or 'file:///config.json'"
            )
        pattern, names, reserved, pos = [], [], set(), 0
        for match in _PART.finditer(text):
            literal = text[pos : match.start()]
            if "{" in literal or "}" in literal:
                raise UriTemplateError(f"{text!r} has an unbalanced brace")
            pattern.append(re.escape(literal))
            var = _VAR.match(match.group(1).strip())
            if var is None:
                raise UriTemplateError(
                    f"{text!r}: {{{match.group(1)}}} is not a supported expression; write "
                    f"{{name}} for one path segment or {{+name}} for the rest of a path, where "
                    f"name is a Python identifier"
                )
            plus, name = var.groups()
            if name in names:
                raise UriTemplateError(f"{text!r} uses {{{name}}} twice")
            names.append(name)
            if plus:
                reserved.add(name)
            pattern.append(f"(?P<{name}>[^?#]+)" if plus else f"(?P<{name}>[^/?#]+)")
            pos = match.end()
        tail = text[pos:]
        if "{" in tail or "}" in tail:
            raise UriTemplateError(f"{text!r} has an unbalanced brace")
        pattern.append(re.escape(tail))
        return cls(text, tuple(names), re.compile("".join(pattern)), frozenset(reserved))

    @property
    def is_template(self) -> bool:
        """Whether the URI has variables (a template) or is one fixed resource."""
        return bool(self.variables)

    def match(self, uri: str) -> dict[str, str] | None:
        """The variables' values if ``uri`` matches, else ``None``."""
        if len(uri) > MAX_URI_LENGTH:
            return None
        found = self._pattern.fullmatch(uri)
        if found is None:
            return None
        return {name: unquote(value) for name, value in found.groupdict().items()}

    def expand(self, values: dict[str, str]) -> str:
        """The URI for ``values`` (each percent-encoded as its expression asks)."""

        def one(match: re.Match[str]) -> str:
            name = match.group(1).strip().lstrip("+")
            return quote(str(values[name]), safe="/" if name in self._reserved else "")

        return _PART.sub(one, self.text)
