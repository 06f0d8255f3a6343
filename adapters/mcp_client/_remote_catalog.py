"""Remote resources and prompts re-served by a registry (the gateway): each becomes a function
registered in ``registry.resources`` / ``registry.prompts`` that asks the remote server.

Names follow the tools' namespaces: a prompt is ``<prefix><name>`` (``ev_simple-prompt``) and a
resource URI gets the server's key as a scheme prefix (``ev+demo://resource/1``), so two
servers never clash and a client can tell where a resource lives.
"""

from __future__ import annotations

import inspect
import keyword
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import quote

import mcp_types

from adapters.mcp_client._catalog import Catalog
from adapters.mcp_wire import content_block
from toolkit.errors import RegistrationError
from toolkit.prompts import PromptMessage, mcp_prompt
from toolkit.registry import ToolRegistry
from toolkit.resources import Completer, mcp_resource
from toolkit.result import ResourceContent

__all__ = ["register_catalog"]

log = logging.getLogger("toolkit.mcp")

_VARIABLE = re.compile(r"\{(\+?)([^{}]*)\}")


def _function(
    name: str,
    params: list[tuple[str, bool]],
    doc: str,
    body: Callable[[dict[str, str]], Awaitable[Any]],
) -> Callable[..., Awaitable[Any]]:
    """An async function of keyword-only string parameters (``(name, required)``) that calls
    ``body`` with the arguments given."""

    async def proxy(**kwargs: str | None) -> Any:
        return await body({k: v for k, v in kwargs.items() if v is not None})

    kind = inspect.Parameter.KEYWORD_ONLY
    parameters = [
        inspect.Parameter(p, kind, annotation=str)
        if required
        else inspect.Parameter(p, kind, annotation=str | None, default=None)
        for p, required in params
    ]
    proxy.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    proxy.__annotations__ = {p: (str if required else str | None) for p, required in params}
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
    """Add ``server``'s resources, templates and prompts to ``registry``.

    Ones that cannot be served under a valid name or URI are skipped with a warning.

    Returns:
        How many resources (templates included) and prompts were added.
    """
    resources = prompts = 0
    for resource in await _optional(pool.resources(server)):
        resources += _add_resource(pool, registry, server, str(resource.uri), resource, [])
    for template in await _optional(pool.resource_templates(server)):
        names = [m.group(2) for m in _VARIABLE.finditer(template.uri_template)]
        resources += _add_resource(pool, registry, server, template.uri_template, template, names)
    for prompt in await _optional(pool.prompts(server)):
        prompts += _add_prompt(pool, registry, server, prefix, prompt)
    return resources, prompts


async def _optional(listing: Awaitable[list[Any]]) -> list[Any]:
    """A listing, or nothing when the server does not serve that feature."""
    try:
        return await listing
    except Exception as exc:
        log.debug("a listing failed, served without it: %s", exc)
        return []


def _add_resource(
    pool: Catalog,
    registry: ToolRegistry,
    server: str,
    remote: str,
    entry: mcp_types.Resource | mcp_types.ResourceTemplate,
    variables: list[str],
) -> int:
    served = f"{server}+{remote}"

    async def read(values: dict[str, str]) -> list[ResourceContent]:
        uri = _VARIABLE.sub(
            lambda m: quote(values.get(m.group(2), ""), safe="/" if m.group(1) else ""), remote
        )
        result = await pool.read_resource(server, uri)
        return [_content(f"{server}+{c.uri}", c) for c in result.contents]

    if not all(_identifier(v) for v in variables):
        log.warning(
            "MCP server %r: resource template %r not re-served (variable names)", server, remote
        )
        return 0
    doc = entry.description or entry.title or entry.name
    fn = _function(f"{server}_{entry.name}", [(v, True) for v in variables], doc, read)
    # The template's arguments complete as the remote server completes them.
    ref = mcp_types.ResourceTemplateReference(uri=remote)
    completions = {v: _completer(pool, server, ref, v) for v in variables}
    try:
        mcp_resource(served, completions=completions, mime_type=entry.mime_type)(fn)
        registry.resources.register(fn, name=f"{server}_{entry.name}")
    except RegistrationError as exc:
        log.warning("MCP server %r: resource %r not re-served: %s", server, remote, exc)
        return 0
    return 1


def _content(uri: str, item: Any) -> ResourceContent:
    text = getattr(item, "text", None)
    blob = None if text is not None else getattr(item, "blob", "")
    return ResourceContent(uri=uri, mime_type=item.mime_type, text=text, blob=blob)


def _add_prompt(
    pool: Catalog, registry: ToolRegistry, server: str, prefix: str, prompt: mcp_types.Prompt
) -> int:
    arguments = [(a.name, bool(a.required)) for a in prompt.arguments or []]
    if not all(_identifier(name) for name, _ in arguments):
        log.warning("MCP server %r: prompt %r not re-served (argument names)", server, prompt.name)
        return 0

    async def get(values: dict[str, str]) -> list[PromptMessage]:
        result = await pool.get_prompt(server, prompt.name, values)
        return [PromptMessage(m.role, content_block(m.content)) for m in result.messages]

    fn = _function(prefix + prompt.name, arguments, prompt.description or prompt.name, get)
    ref = mcp_types.PromptReference(name=prompt.name)
    completions = {name: _completer(pool, server, ref, name) for name, _ in arguments}
    try:
        mcp_prompt(name=prefix + prompt.name, completions=completions)(fn)
        registry.prompts.register(fn)
    except RegistrationError as exc:
        log.warning("MCP server %r: prompt %r not re-served: %s", server, prompt.name, exc)
        return 0
    return 1
