"""Who is calling: bearer tokens mapped to callers (tenant, user, scopes) in a serve config.

A callers file (JSON or YAML)::

    callers:
      alice: {token: "${ALICE_TOKEN}", tenant: acme, user: alice, scopes: [read, write]}
      ci:    {token: "${CI_TOKEN}", tenant: acme, scopes: [read]}

Each request's ``Authorization: Bearer`` token is compared (constant time) with every caller's;
the match's fields go into ``ToolContext.values`` (``caller``, ``tenant``, ``user``,
``scopes``), so the policy can decide by caller. Rule: a caller only ever hears about the tools
it may see: ``tools/list`` shows only the tools the policy does not deny it, and its calls are
made with ``CallOptions(hide_denied=True)``, so a hidden tool is ``TOOL_NOT_FOUND`` (no schema,
no parameters) and not-found and did-you-mean messages name its visible tools only.
"""

from __future__ import annotations

import hmac
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from toolkit.context import ToolContext
from toolkit.policy import Policy
from toolkit.registry import ToolRegistry

__all__ = ["Caller", "CallerMap", "load_callers", "request_origin", "visible_entries"]

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True, slots=True)
class Caller:
    """One known caller.

    Attributes:
        name: The caller's name in the config.
        tenant: Their tenant, if any.
        user: Their user id, if any.
        scopes: What they may do, for the policy to read.
    """

    name: str
    tenant: str | None = None
    user: str | None = None
    scopes: tuple[str, ...] = ()

    def values(self) -> dict[str, Any]:
        """The caller as ``ToolContext.values`` entries."""
        out: dict[str, Any] = {"caller": self.name, "scopes": list(self.scopes)}
        if self.tenant is not None:
            out["tenant"] = self.tenant
        if self.user is not None:
            out["user"] = self.user
        return out


@dataclass(frozen=True, slots=True)
class CallerMap:
    """Token → caller; tokens are never shown."""

    _by_token: tuple[tuple[bytes, Caller], ...] = field(default=(), repr=False)

    def identify(self, authorization: str | None) -> Caller | None:
        """The caller whose token this ``Authorization`` header carries, else ``None``."""
        scheme, _, presented = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not presented.strip():
            return None
        given = presented.strip().encode()
        found: Caller | None = None
        for token, caller in self._by_token:
            if hmac.compare_digest(given, token):  # no early exit: constant time per caller
                found = caller
        return found

    def __len__(self) -> int:
        return len(self._by_token)


def load_callers(source: str | Path | Mapping[str, Any]) -> CallerMap:
    """Read a callers file (or mapping); tokens come from ``${VAR}`` environment variables.

    Raises:
        ValueError: The file is malformed, a caller has no token, or a variable is unset.
    """
    data: Any = source
    if not isinstance(source, Mapping):
        text = Path(source).read_text()
        data = json.loads(text) if str(source).endswith(".json") else yaml.safe_load(text)
    callers = (data or {}).get("callers") if isinstance(data, Mapping) else None
    if not isinstance(callers, Mapping) or not callers:
        raise ValueError(f"{source}: expected a non-empty 'callers' mapping of name to caller.")
    pairs: list[tuple[bytes, Caller]] = []
    for name, raw in callers.items():
        if not isinstance(raw, Mapping) or not raw.get("token"):
            raise ValueError(f"caller {name!r} has no 'token' (use a ${{VAR}} reference).")
        token = _expand(str(raw["token"]), str(name))
        caller = Caller(
            name=str(name),
            tenant=raw.get("tenant"),
            user=raw.get("user"),
            scopes=tuple(str(s) for s in raw.get("scopes", ())),
        )
        pairs.append((token.encode(), caller))
    return CallerMap(tuple(pairs))


def _expand(text: str, caller: str) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        got = os.environ.get(name, "")
        if not got:
            raise ValueError(f"caller {caller!r}: environment variable {name} is unset or empty.")
        return got

    expanded = _VAR.sub(value, text).strip()
    if len(expanded) < 16:
        raise ValueError(f"caller {caller!r}: the token is shorter than 16 characters.")
    return expanded


async def visible_entries(
    registry: ToolRegistry,
    entries: Sequence[dict[str, Any]],
    values: Mapping[str, Any],
    policy: Policy | None = None,
) -> list[dict[str, Any]]:
    """The ``tools/list`` entries of the tools this caller may see (the core's visibility rule,
    :meth:`~toolkit.ToolRegistry.visible_names`, with ``policy`` or the registry's)."""
    visible = set(await registry.visible_names(ToolContext(values=values), policy=policy))
    return [entry for entry in entries if entry["name"] in visible]


def request_origin(request: Any, header: str | None) -> tuple[str | None, str | None]:
    """Who an HTTP request says it comes from: ``(caller, peer)``.

    ``caller`` is the value of ``header`` (a trusted proxy's, such as ``X-Caller``) when the
    server was told to read one, else the peer; ``peer`` is the client's address. Both are
    ``None`` for a request that did not come over HTTP (stdio).
    """
    client = getattr(request, "client", None)
    peer = str(client.host) if client is not None and getattr(client, "host", None) else None
    if not header:
        return peer, peer
    headers = getattr(request, "headers", None)
    named = headers.get(header) if headers is not None else None
    return named or peer, peer
