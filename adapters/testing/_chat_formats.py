"""How llama-cpp-python's chat formats treat a request, for the stub's ``chat_format``.

Each rule was read off the real server (``llama-cpp-python[server]`` 0.3.36 serving
SmolLM2-135M; recorded responses in ``tests/support/llama_formats/``):

* ``chatml-function-calling``: with ``tools`` and ``tool_choice="auto"`` the model first picks
  ``message:`` or ``functions.NAME:`` under a grammar; after ``message:`` a second grammar
  allows only ``functions.NAME:`` or the end, so a text answer is ``''`` or a bare
  ``functions.NAME:``. Its template renders no ``tool`` message, so the model never reads a
  tool's result, and it lists the tools only inside a system message. With no
  ``tool_choice``, ``"none"`` or no tools, it answers text freely. Its template HTML-escapes
  every message (``"`` is read as ``&#34;``, ``<ACTION>`` as ``&lt;ACTION&gt;``): the model
  answered with those entities, and never wrote an ``<ACTION>`` block over it.
* ``chatml``: tools and ``tool_choice="auto"`` are ignored, so a model never calls a tool
  natively; ``tool`` messages are not rendered either (the model answered about Ann Lee's
  bookings without the one it was given). Text protocols such as ``<ACTION>`` work: their
  results come back as user messages.
* ``template`` (no ``--chat_format``: the model's own template, SmolLM2's renders every role):
  no native call under ``tool_choice="auto"`` (only a forced ``tool_choice`` naming a function
  is parsed as a call), but ``tool`` messages are rendered: the model quoted booking B-1.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["CHAT_FORMATS", "answer_text", "calls_possible", "visible_messages"]

#: The formats the stub can behave as.
CHAT_FORMATS = frozenset({"chatml-function-calling", "chatml", "template"})

_BARE_CALL = re.compile(r"^functions\.[\w.-]+:$")
#: Jinja's autoescape (MarkupSafe), as the format's template applies it to every message.
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;"})


def _escaped(text: str) -> str:
    return text.translate(_ESCAPES)


def calls_possible(chat_format: str | None, body: dict[str, Any], local: bool) -> bool:
    """Whether the model may answer this request with native tool calls."""
    if not body.get("tools"):
        return False
    if chat_format == "chatml":
        return False
    if chat_format == "template":
        return isinstance(body.get("tool_choice"), dict)
    if chat_format is not None or local:
        return body.get("tool_choice") not in (None, "none")
    return True


def answer_text(chat_format: str | None, body: dict[str, Any], text: str | None) -> str | None:
    """The text the format lets through for a scripted text answer."""
    if chat_format != "chatml-function-calling" or not calls_possible(chat_format, body, True):
        return text
    if body.get("tool_choice") != "auto":
        return text
    kept = (text or "").strip()
    return kept if _BARE_CALL.match(kept) else ""


def visible_messages(chat_format: str | None, messages: list[dict[str, Any]]) -> list[Any]:
    """The messages the format's template renders for the model (``tool`` ones dropped)."""
    if chat_format in (None, "template"):
        return list(messages)
    kept = [m for m in messages if m.get("role") != "tool"]
    if chat_format != "chatml-function-calling":
        return kept
    return [
        {**m, "content": _escaped(m["content"])} if isinstance(m.get("content"), str) else m
        for m in kept
    ]
