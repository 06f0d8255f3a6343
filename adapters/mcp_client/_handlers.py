"""What our client answers when a remote server asks or tells it something.

* ``clientInfo`` is ``mcp-toolkit <version>``.
* ``notifications/message`` → Python logging under ``toolkit.remote.<server>``; the record keeps
  the server's own MCP level (``notice``, ``alert``, ``emergency``…) as ``record.mcp_level``,
  so a relay passes it on unchanged.
* ``elicitation/create`` → the pool's elicitation handler (defaults of the schema filled in for
  fields the handler left out); without one, a clear refusal.
* ``sampling/createMessage`` → the pool's sampling handler: a LangChain chat model or an async
  function; without one, a clear refusal.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Protocol, runtime_checkable

import mcp_types
from mcp.client.session import ClientRequestContext

from adapters.mcp_client._config import McpServerConfig, expand
from adapters.mcp_client._oauth import OAuthFlow, browser_flow, oauth_provider
from adapters.mcp_client._service_auth import service_auth
from adapters.network import NetworkPolicy
from toolkit.calls.interaction import Elicitation, SamplingMessage

__all__ = [
    "ClientHandlers",
    "ElicitationHandler",
    "SamplingHandler",
    "client_options",
    "oauth_for",
    "with_defaults",
]

#: ``(server, message, schema) -> Elicitation``: ask the user for what a server needs.
ElicitationHandler = Callable[[str, str, Mapping[str, Any]], Awaitable[Elicitation]]

#: ``(server, messages, system_prompt, max_tokens) -> text``: answer with a model.
SamplingFunction = Callable[[str, Sequence[SamplingMessage], str | None, int], Awaitable[str]]

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}


@runtime_checkable
class _ChatModel(Protocol):
    async def ainvoke(self, input: Any, /) -> Any: ...


SamplingHandler = SamplingFunction | _ChatModel


@dataclass(frozen=True, slots=True)
class ClientHandlers:
    """The answers a pool gives to servers' requests.

    Attributes:
        elicitation: Asks the user (a prompt on a terminal, a LangGraph interrupt…).
        sampling: A LangChain chat model, or an async function returning the text.
        oauth_flow: How users log in to OAuth servers (default: the browser).
    """

    elicitation: ElicitationHandler | None = None
    sampling: SamplingHandler | None = None
    oauth_flow: OAuthFlow | None = None


def _version() -> str:
    try:
        return metadata.version("mcp-toolkit")
    except metadata.PackageNotFoundError:
        return "0.0.0"


def client_options(
    server: str,
    handlers: ClientHandlers | None,
    relay: Callable[[mcp_types.LoggingMessageNotificationParams], Awaitable[None]] | None = None,
) -> dict[str, Any]:
    """Keyword arguments for ``mcp.Client`` that make it speak for the toolkit to ``server``.

    ``relay`` also receives each log message of the server, after Python logging.
    """
    handlers = handlers or ClientHandlers()
    options: dict[str, Any] = {
        "client_info": mcp_types.Implementation(name="mcp-toolkit", version=_version()),
        "logging_callback": _logger(server, relay),
    }
    if handlers.elicitation is not None:
        options["elicitation_callback"] = _elicitation(server, handlers.elicitation)
    if handlers.sampling is not None:
        options["sampling_callback"] = _sampling(server, handlers.sampling)
    return options


def oauth_for(
    config: McpServerConfig,
    handlers: ClientHandlers | None,
    network: NetworkPolicy | None = None,
) -> Any:
    """The SDK's OAuth ``httpx2.Auth`` for a server configured with an OAuth auth type.

    The SDK sends its OAuth requests through the MCP connection's own (pinned) client; an
    exchange at an identity provider is pinned by ``network``.
    """
    auth = config.auth
    if auth.type in ("client_credentials", "identity_assertion"):
        return service_auth(config.name, expand(config.url or ""), auth, network)
    if auth.type != "oauth":
        return None
    flow = (handlers or ClientHandlers()).oauth_flow or browser_flow(auth.redirect_uri)
    return oauth_provider(
        config.name,
        expand(config.url or ""),
        flow,
        scope=auth.scope,
        client_id=expand(auth.client_id) if auth.client_id else None,
        client_secret=expand(auth.client_secret) if auth.client_secret else None,
        client_metadata_url=auth.client_metadata_url,
    )


def _logger(
    server: str,
    relay: Callable[[mcp_types.LoggingMessageNotificationParams], Awaitable[None]] | None = None,
) -> Callable[[mcp_types.LoggingMessageNotificationParams], Awaitable[None]]:
    log = logging.getLogger(f"toolkit.remote.{server}")

    async def on_log(params: mcp_types.LoggingMessageNotificationParams) -> None:
        name = f"{params.logger}: " if params.logger else ""
        level = _LEVELS.get(params.level, logging.INFO)
        log.log(level, "%s%s", name, params.data, extra={"mcp_level": params.level})
        if relay is not None:
            await relay(params)

    return on_log


def _elicitation(server: str, handler: ElicitationHandler) -> Any:
    async def on_elicit(
        context: ClientRequestContext, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult | mcp_types.ErrorData:
        if not isinstance(params, mcp_types.ElicitRequestFormParams):
            return mcp_types.ErrorData(
                code=mcp_types.INVALID_REQUEST,
                message="mcp-toolkit answers form elicitations only, not URL ones.",
            )
        schema = params.requested_schema
        answer = await handler(server, params.message, schema)
        content = with_defaults(answer.content, schema) if answer.accepted else None
        return mcp_types.ElicitResult(action=answer.action, content=content)

    return on_elicit


def with_defaults(content: Mapping[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """``content`` plus the schema's ``default`` of every property it leaves out (SEP-1034)."""
    out = dict(content)
    for name, prop in (schema.get("properties") or {}).items():
        if name not in out and isinstance(prop, Mapping) and "default" in prop:
            out[name] = prop["default"]
    return out


def _sampling(server: str, handler: SamplingHandler) -> Any:
    async def on_sample(
        context: ClientRequestContext, params: mcp_types.CreateMessageRequestParams
    ) -> mcp_types.CreateMessageResult | mcp_types.ErrorData:
        messages = [SamplingMessage(role=m.role, text=_text_of(m.content)) for m in params.messages]
        if isinstance(handler, _ChatModel):
            text, model = await _with_chat_model(handler, messages, params.system_prompt)
        else:
            text = await handler(server, messages, params.system_prompt, params.max_tokens)
            model = "mcp-toolkit-sampler"
        return mcp_types.CreateMessageResult(
            role="assistant",
            content=mcp_types.TextContent(type="text", text=text),
            model=model,
            stop_reason="endTurn",
        )

    return on_sample


async def _with_chat_model(
    model: _ChatModel, messages: Sequence[SamplingMessage], system: str | None
) -> tuple[str, str]:
    chat: list[tuple[str, str]] = [("system", system)] if system else []
    chat += [("human" if m.role == "user" else "ai", m.text) for m in messages]
    reply = await model.ainvoke(chat)
    text = getattr(reply, "text", None)
    if callable(text):  # older LangChain: a method
        text = text()
    name = getattr(model, "model_name", None) or getattr(model, "model", None) or "langchain"
    return str(text if text is not None else reply), str(name)


def _text_of(content: Any) -> str:
    blocks = content if isinstance(content, list) else [content]
    return "\n".join(b.text for b in blocks if isinstance(b, mcp_types.TextContent))
