"""Remote resources and prompts re-served by a registry (the gateway): each becomes a function
registered in ``registry.resources`` / ``registry.prompts`` that asks the remote server.

Names follow the tools' namespaces: a prompt is ``<prefix><name>`` (``ev_simple-prompt``) and a
resource URI gets the server's key as a scheme prefix (``ev+demo://resource/1``), so two
servers never clash and a client can tell where a resource lives.

The copy follows the server: on its resources or prompts ``list_changed`` the list is fetched
again in full and swapped in one step (entries added, removed, replaced); a failed fetch keeps
the old copy. Only entries this copy registered are ever removed.

Rule: what a remote server says about its catalog arrives whole (titles, descriptions,
argument descriptions, MIME types), and every URI the gateway hands out can be read through
the gateway. A client's subscription to a copied resource is relayed to the server
(``resources/subscribe``) and the server's ``notifications/resources/updated`` come back under
the served URI (and are asked for again after a reconnect to a restarted server); a server
that offers no subscriptions refuses it with a message that says so.
Each entry names its ``server``, so a caller sees it only if it sees one of that server's tools.
"""

from __future__ import annotations

import functools
import inspect
import keyword
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any
from urllib.parse import quote

import mcp_types

from adapters.mcp_client._catalog import Catalog
from adapters.mcp_wire import content_block
from toolkit.catalog.prompts import FunctionPrompt, PromptMessage, mcp_prompt
from toolkit.catalog.resources import Completer, FunctionResource, mcp_resource
from toolkit.errors import RegistrationError, ToolError
from toolkit.registry import ToolRegistry
from toolkit.result import ResourceContent

__all__ = ["register_catalog"]

log = logging.getLogger("toolkit.mcp")

_VARIABLE = re.compile(r"\{(\+?)([^{}]*)\}")

#: Distinct warnings remembered per copy; past it, skipped entries are logged at debug level.
_MAX_WARNED = 1000


def _function(
    name: str,
    params: list[tuple[str, bool, str | None]],
    doc: str,
    body: Callable[[dict[str, str]], Awaitable[Any]],
) -> Callable[..., Awaitable[Any]]:
    """An async function of keyword-only string parameters (``(name, required, description)``)
    that calls ``body`` with the arguments given."""

    async def proxy(**kwargs: str | None) -> Any:
        return await body({k: v for k, v in kwargs.items() if v is not None})

    kind = inspect.Parameter.KEYWORD_ONLY
    hints: dict[str, Any] = {}
    parameters = []
    for p, required, description in params:
        hint: Any = str if required else str | None
        hints[p] = Annotated[hint, description] if description else hint
        default = inspect.Parameter.empty if required else None
        parameters.append(inspect.Parameter(p, kind, annotation=hints[p], default=default))
    proxy.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    proxy.__annotations__ = hints
    proxy.__name__ = proxy.__qualname__ = re.sub(r"\W", "_", name)
    proxy.__doc__ = doc
    return proxy


def _completer(
    pool: Catalog,
    server: str,
    ref: mcp_types.PromptReference | mcp_types.ResourceTemplateReference,
    argument: str,
) -> Completer:
    async def complete(value: str, context: Mapping[str, str]) -> list[str]:
        return await pool.complete(server, ref, argument, value, context)

    return complete


def _identifier(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


async def register_catalog(
    pool: Catalog, registry: ToolRegistry, server: str, prefix: str
) -> tuple[int, int]:
    """Add ``server``'s resources, templates and prompts to ``registry``, and keep them current.

    Ones that cannot be served under a valid name or URI, or whose name is taken, are skipped
    with a warning. When the server announces that its resources or prompts changed (and said
    it would, with ``listChanged``), that list is fetched again and swapped in: new entries
    added, removed ones removed, changed ones replaced, all in one step, so our own server's
    clients hear one ``list_changed``. If the fetch fails, the old entries stay (one warning).
    Local entries and other servers' are never touched. Call it once per registry and server.

    Returns:
        How many resources (templates included) and prompts were added.
    """
    copy = _Copy(pool, registry, server, prefix)
    resources = await copy.sync("resources", first=True)
    prompts = await copy.sync("prompts", first=True)
    connection = pool.connection(server)
    connection.followers.add("resources", lambda: copy.refresh("resources"))
    connection.followers.add("prompts", lambda: copy.refresh("prompts"))
    connection.followers.on_updated(lambda uri: registry.resources.updated(f"{server}+{uri}"))
    registry.resources.on_subscribe(copy.subscribe)
    registry.resources.on_unsubscribe(copy.unsubscribe)
    connection.followers.on_reconnect(copy.resubscribe)
    return resources, prompts


@dataclass(frozen=True)
class _Made:
    """One remote entry ready to serve: its key, how to register it, and how it was listed."""

    key: str  # the served URI (or template) or prompt name
    register: Callable[[ToolRegistry], FunctionResource | FunctionPrompt]
    listed: dict[str, Any]


@dataclass
class _Copy:
    """One server's resources and prompts as registered in one registry."""

    pool: Catalog
    registry: ToolRegistry
    server: str
    prefix: str
    #: Per list, what this copy registered by key: the registry's entry and the remote listing.
    entries: dict[str, dict[str, tuple[Any, dict[str, Any]]]] = field(
        default_factory=lambda: {"resources": {}, "prompts": {}}
    )
    #: The listings that answered at the first registration: on a refresh they must answer.
    listed: set[str] = field(default_factory=set)
    #: The warnings given about entries left out (each is given once).
    warned: set[str] = field(default_factory=set)
    #: The server's URIs this copy subscribed to for its clients.
    subscribed: set[str] = field(default_factory=set)

    async def subscribe(self, uri: str) -> None:
        """A client subscribes to ``uri``: if this copy serves it, subscribe on the server.

        Raises:
            ToolError: The server refused it or offers no subscriptions (the message says so).
        """
        remote = self._remote(uri)
        if remote is not None:
            await self.pool.subscribe_resource(self.server, remote)
            self.subscribed.add(remote)

    async def unsubscribe(self, uri: str) -> None:
        """Nobody listens to ``uri`` any more: let go of it on the server, if this copy
        subscribed there."""
        remote = self._remote(uri)
        if remote is not None and remote in self.subscribed:
            self.subscribed.discard(remote)
            await self.pool.unsubscribe_resource(self.server, remote)

    async def resubscribe(self) -> None:
        """A new connection to a restarted server: subscribe again to what clients listen to
        (never raises; a refusal is logged)."""
        for remote in sorted(self.subscribed):
            try:
                await self.pool.subscribe_resource(self.server, remote)
            except ToolError as exc:
                log.warning(
                    "MCP server %r: subscribing again to %r after a reconnect failed: %s",
                    self.server,
                    remote,
                    exc.message,
                )

    def _remote(self, uri: str) -> str | None:
        """The server's own URI for a served ``uri`` this copy serves, else ``None``."""
        mark = f"{self.server}+"
        served = self.registry.resources.find(uri)
        ours = self.entries["resources"].get(served.uri) if served is not None else None
        if uri.startswith(mark) and ours is not None and ours[0] is served:
            return uri[len(mark) :]
        return None

    async def refresh(self, kind: str) -> None:
        """Fetch list ``kind`` again and swap it in; never raises (the old copy stays)."""
        try:
            await self.sync(kind, first=False)
        except Exception as exc:
            if self._closing():
                return  # the pool is closing: the refresh no longer matters
            message = exc.message if isinstance(exc, ToolError) else repr(exc)
            log.warning(
                "refreshing the %s of MCP server %r failed; the old ones stay: %s",
                kind,
                self.server,
                message,
            )

    def _closing(self) -> bool:
        try:
            return self.pool.connection(self.server).state == "closed"
        except RuntimeError:  # the pool is closed already
            return True

    async def sync(self, kind: str, *, first: bool) -> int:
        """Fetch list ``kind`` in full, then bring this copy's entries in line in one step.

        Returns:
            How many entries this copy now serves.

        Raises:
            ToolError: A listing that answered before failed (nothing was changed).
        """
        pool, server = self.pool, self.server
        build: Callable[[Any], _Made]
        if kind == "resources":
            listing = [
                *await self._listing("resources", pool.resources(server), first),
                *await self._listing("templates", pool.resource_templates(server), first),
            ]
            build = functools.partial(_resource, pool, server)
        else:
            listing = await self._listing("prompts", pool.prompts(server), first)
            build = functools.partial(_prompt, pool, server, self.prefix)
        made: list[_Made] = []
        for item in listing:
            try:
                made.append(build(item))
            except RegistrationError as exc:
                self._skipped(str(exc))
        return self._swap(kind, made)

    def _skipped(self, message: str) -> None:
        """Warn of an entry left out, once: a refresh meets the same one again."""
        if message in self.warned or len(self.warned) >= _MAX_WARNED:
            log.debug("MCP server %r: %s", self.server, message)
            return
        self.warned.add(message)
        log.warning("MCP server %r: %s", self.server, message)

    async def _listing(self, name: str, fetch: Awaitable[list[Any]], first: bool) -> list[Any]:
        if first or name not in self.listed:  # a server may not serve every listing
            try:
                items = await fetch
            except Exception as exc:
                log.debug(
                    "MCP server %r: %s not listed, served without: %s", self.server, name, exc
                )
                return []
            self.listed.add(name)
            return items
        return await fetch

    def _swap(self, kind: str, made: list[_Made]) -> int:
        """Remove this copy's entries that are gone or changed, add the new and changed ones.

        Runs without awaiting, so readers never see half a list and our own server sends one
        ``list_changed`` for the whole swap.
        """
        served = self.registry.resources if kind == "resources" else self.registry.prompts
        old, fresh = self.entries[kind], {m.key: m for m in made}

        def unchanged(key: str) -> bool:
            entry, listed = old[key]
            same = key in fresh and fresh[key].listed == listed
            return same and served.get(key) is entry

        for key, (entry, _) in old.items():
            # Only ours is removed: never a local entry nor another server's.
            if not unchanged(key) and served.get(key) is entry:
                served.remove(key)
        kept: dict[str, tuple[Any, dict[str, Any]]] = {}
        for item in fresh.values():
            if item.key in old and unchanged(item.key):
                kept[item.key] = old[item.key]
                continue
            try:
                kept[item.key] = (item.register(self.registry), item.listed)
            except RegistrationError as exc:
                self._skipped(f"{kind[:-1]} {item.key!r} not re-served: {exc}")
        self.entries[kind] = kept
        return len(kept)


def _resource(
    pool: Catalog, server: str, entry: mcp_types.Resource | mcp_types.ResourceTemplate
) -> _Made:
    """One remote resource or template, served as ``<server>+<uri>``.

    Raises:
        RegistrationError: It cannot be served (the message says why).
    """
    if isinstance(entry, mcp_types.ResourceTemplate):
        remote = entry.uri_template
        variables = [m.group(2) for m in _VARIABLE.finditer(remote)]
    else:
        remote, variables = str(entry.uri), []
    served = f"{server}+{remote}"

    async def read(values: dict[str, str]) -> list[ResourceContent]:
        uri = _VARIABLE.sub(
            lambda m: quote(values.get(m.group(2), ""), safe="/" if m.group(1) else ""), remote
        )
        result = await pool.read_resource(server, uri)
        return [_content(f"{server}+{c.uri}", c) for c in result.contents]

    if not all(_identifier(v) for v in variables):
        raise RegistrationError(f"resource template {remote!r} not re-served (variable names)")
    doc = entry.description or entry.title or entry.name
    fn = _function(f"{server}_{entry.name}", [(v, True, None) for v in variables], doc, read)
    # The template's arguments complete as the remote server completes them.
    ref = mcp_types.ResourceTemplateReference(uri=remote)
    completions = {v: _completer(pool, server, ref, v) for v in variables}
    try:
        mcp_resource(served, title=entry.title, completions=completions, mime_type=entry.mime_type)(
            fn
        )
    except RegistrationError as exc:
        raise RegistrationError(f"resource {remote!r} not re-served: {exc}") from None
    name = f"{server}_{entry.name}"
    listed = entry.model_dump(mode="json")

    def register(registry: ToolRegistry) -> FunctionResource:
        resource = registry.resources.register(fn, name=name)
        resource.server = server  # seen only by callers who see one of the server's tools
        return resource

    return _Made(served, register, listed)


def _content(uri: str, item: Any) -> ResourceContent:
    text = getattr(item, "text", None)
    blob = None if text is not None else getattr(item, "blob", "")
    return ResourceContent(uri=uri, mime_type=item.mime_type, text=text, blob=blob)


def _prompt(pool: Catalog, server: str, prefix: str, prompt: mcp_types.Prompt) -> _Made:
    """One remote prompt, served as ``<prefix><name>``.

    Raises:
        RegistrationError: It cannot be served (the message says why).
    """
    arguments = [(a.name, bool(a.required), a.description) for a in prompt.arguments or []]
    if not all(_identifier(name) for name, _, _ in arguments):
        raise RegistrationError(f"prompt {prompt.name!r} not re-served (argument names)")

    async def get(values: dict[str, str]) -> list[PromptMessage]:
        result = await pool.get_prompt(server, prompt.name, values)
        return [PromptMessage(m.role, content_block(m.content)) for m in result.messages]

    fn = _function(prefix + prompt.name, arguments, prompt.description or prompt.name, get)
    ref = mcp_types.PromptReference(name=prompt.name)
    completions = {name: _completer(pool, server, ref, name) for name, _, _ in arguments}
    try:
        mcp_prompt(name=prefix + prompt.name, title=prompt.title, completions=completions)(fn)
    except RegistrationError as exc:
        raise RegistrationError(f"prompt {prompt.name!r} not re-served: {exc}") from None
    listed = prompt.model_dump(mode="json")

    def register(registry: ToolRegistry) -> FunctionPrompt:
        served = registry.prompts.register(fn)
        served.server = server  # seen only by callers who see one of the server's tools
        return served

    return _Made(prefix + prompt.name, register, listed)
