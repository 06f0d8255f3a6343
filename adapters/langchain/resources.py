"""Remote MCP resources as LangChain ``Document`` objects, prompts as LangChain messages.

They take what :class:`adapters.mcp_client.McpClientPool` returns (the MCP SDK's
``ReadResourceResult`` and ``GetPromptResult``) by shape, so this module needs no MCP import::

    docs = resource_documents(await pool.read_resource("shop", "orders://7"))
    messages = prompt_messages(await pool.get_prompt("shop", "review_order", {"order_id": "7"}))
"""

from __future__ import annotations

from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

__all__ = ["prompt_messages", "resource_documents"]


def resource_documents(result: Any, *, server: str | None = None) -> list[Document]:
    """One ``Document`` per item of a ``resources/read`` result.

    Text becomes ``page_content``; binary contents stay base64 in ``metadata["blob"]`` with an
    empty ``page_content``. ``metadata`` holds ``uri``, ``mime_type`` and ``server``.

    Args:
        result: A ``ReadResourceResult`` (anything with ``contents``).
        server: The server name, kept in the metadata.
    """
    documents = []
    for item in result.contents:
        metadata: dict[str, Any] = {"uri": str(item.uri), "mime_type": item.mime_type}
        if server is not None:
            metadata["server"] = server
        text = getattr(item, "text", None)
        if text is None:
            metadata["blob"] = getattr(item, "blob", "")
        documents.append(Document(page_content=text or "", metadata=metadata))
    return documents


def prompt_messages(result: Any) -> list[BaseMessage]:
    """A ``prompts/get`` result as LangChain messages (user → human, assistant → AI).

    Text stays text; an image becomes a standard ``image`` block with its base64 data; an
    embedded text resource becomes a text block naming its URI; other content is named in text.

    Args:
        result: A ``GetPromptResult`` (anything with ``messages``).
    """
    out: list[BaseMessage] = []
    for message in result.messages:
        block = _block(message.content)
        content: Any = block["text"] if block["type"] == "text" else [block]
        out.append(AIMessage(content) if message.role == "assistant" else HumanMessage(content))
    return out


def _block(content: Any) -> dict[str, Any]:
    kind = getattr(content, "type", "")
    if kind == "text":
        return {"type": "text", "text": content.text}
    if kind == "image":
        return {"type": "image", "base64": content.data, "mime_type": content.mime_type}
    if kind == "resource":
        resource = content.resource
        text = getattr(resource, "text", None)
        if text is not None:
            return {"type": "text", "text": f"[resource {resource.uri}]\n{text}"}
        return {"type": "text", "text": f"[binary resource {resource.uri}, {resource.mime_type}]"}
    if kind == "resource_link":
        return {"type": "text", "text": f"[resource link {content.uri}]"}
    return {"type": "text", "text": f"[{kind or 'unknown'} content]"}
