"""The demo's request and its offline model: turns computed from the conversation so far.

The scripted model does what a good model would do with the request, and reads the real tool
results to decide: it asks for the bin the user named (which does not exist), reads the error,
lists the bins, retries with the closest real code and asks for a shipping quote at the same
time, then asks to delete the empty bin, and finally answers from what the tools said.
"""

from __future__ import annotations

import difflib
import json
import time
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from adapters.testing import ScriptedChatModel

__all__ = ["REQUEST", "SYSTEM_PROMPT", "TENANT", "scripted_model"]

TENANT = "acme"
WANTED_BIN = "A-1-1"  # what the user typed; real codes look like A-01-01
EMPTY_BIN = "A-02-01"
QUOTE_TOOL = "carriers_quote_shipment"
QUOTE_ARGS = {"weight_kg": 2.5, "country": "DE"}

SYSTEM_PROMPT = (
    "You are the warehouse assistant of tenant 'acme'. Use the tools to answer. When a tool "
    "call fails, read the error message and fix the call instead of giving up. Be brief."
)
REQUEST = (
    f"Look up bin {WANTED_BIN} in warehouse 1 for me, get a shipping quote for a 2.5 kg "
    f"parcel to Germany, and delete bin {EMPTY_BIN}: it is empty."
)


@dataclass
class _Outcome:
    """What one tool call of the conversation asked for and got back."""

    tool: str
    args: dict[str, Any]
    text: str
    failed: bool
    value: Any = None


@dataclass
class _Conversation:
    """The tool calls of a conversation with their answers, in order."""

    outcomes: list[_Outcome] = field(default_factory=list)

    @classmethod
    def read(cls, messages: list[BaseMessage]) -> _Conversation:
        asked: dict[str, tuple[str, dict[str, Any]]] = {}
        conversation = cls()
        for message in messages:
            if isinstance(message, AIMessage):
                for call in message.tool_calls:
                    asked[call["id"] or ""] = (call["name"], dict(call["args"]))
            elif isinstance(message, ToolMessage) and message.tool_call_id in asked:
                tool, args = asked[message.tool_call_id]
                failed = message.status == "error"
                value = None if failed else _json(message.text)
                conversation.outcomes.append(_Outcome(tool, args, message.text, failed, value))
        return conversation

    def last(self, tool: str) -> _Outcome | None:
        found = [o for o in self.outcomes if o.tool == tool]
        return found[-1] if found else None


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _call(tool: str, **args: Any) -> dict[str, Any]:
    return {"name": tool, "args": args}


def _closest_code(listing: Any) -> str | None:
    codes = [b["code"] for b in listing if isinstance(b, dict) and "code" in b]
    match = difflib.get_close_matches(WANTED_BIN, codes, n=1, cutoff=0.0)
    return match[0] if match else None


def next_turn(messages: list[BaseMessage], bound: list[str]) -> dict[str, Any]:
    """The next assistant turn for ``messages``; a text answer when no tools are bound."""
    seen = _Conversation.read(messages)
    if bound:
        calls = _next_calls(seen, bound)
        if calls:
            return {"tool_calls": calls}
    return {"text": _answer(seen, quote_possible=QUOTE_TOOL in bound or not bound)}


def _next_calls(seen: _Conversation, bound: list[str]) -> list[dict[str, Any]]:
    lookup, listing = seen.last("get_bin"), seen.last("query_bins")
    if lookup is None:
        return [_call("get_bin", code=WANTED_BIN)]
    if lookup.failed and listing is None:
        return [_call("query_bins", tenant_code=TENANT, warehouse_id=1)]
    if lookup.failed and listing is not None and not listing.failed:
        code = _closest_code(listing.value)
        calls = [_call("get_bin", code=code)] if code and code != lookup.args["code"] else []
        if QUOTE_TOOL in bound and seen.last(QUOTE_TOOL) is None:
            calls.append(_call(QUOTE_TOOL, **QUOTE_ARGS))
        if calls:
            return calls
    if QUOTE_TOOL in bound and seen.last(QUOTE_TOOL) is None:
        return [_call(QUOTE_TOOL, **QUOTE_ARGS)]
    if seen.last("delete_bin") is None:
        return [_call("delete_bin", code=EMPTY_BIN)]
    return []


def _answer(seen: _Conversation, *, quote_possible: bool) -> str:
    parts: list[str] = []
    lookup = seen.last("get_bin")
    first = next((o for o in seen.outcomes if o.tool == "get_bin"), None)
    if first is not None and first.failed and lookup is not first:
        parts.append(f"Bin {WANTED_BIN} does not exist (codes look like A-01-01).")
    if lookup is not None and not lookup.failed and isinstance(lookup.value, dict):
        b = lookup.value
        parts.append(
            f"The closest match, {b['code']}, is an {b['status']} bin in zone {b['zone']} of "
            f"warehouse {b['warehouse_id']} with room for {b['capacity']} units."
        )
    elif lookup is not None:
        parts.append(f"I could not find bin {WANTED_BIN}.")
    quote = seen.last(QUOTE_TOOL)
    if quote is not None and not quote.failed and isinstance(quote.value, dict):
        parts.append(
            f"A {quote.value['service']} 2.5 kg parcel to {quote.value['country']} costs "
            f"{quote.value['price_eur']:.2f} EUR."
        )
    elif quote is not None:
        parts.append("The carrier could not quote the parcel.")
    elif not quote_possible:
        parts.append("I have no shipping quote: the carriers server is not connected.")
    deletion = seen.last("delete_bin")
    if deletion is not None and not deletion.failed:
        parts.append(f"Bin {EMPTY_BIN} is deleted.")
    elif deletion is not None and "[DENIED]" in deletion.text:
        parts.append(f"I did not delete bin {EMPTY_BIN}: the deletion was not approved.")
    elif deletion is not None:
        parts.append(f"Deleting bin {EMPTY_BIN} failed: {deletion.text.splitlines()[0]}")
    return " ".join(parts) or "I could not do anything for this request."


def scripted_model(pause: float = 0.0) -> ScriptedChatModel:
    """The offline model: every turn is :func:`next_turn`, after ``pause`` seconds of thought.

    Args:
        pause: Seconds each turn takes, so a person can follow the run in a terminal.
    """

    def think(messages: list[BaseMessage], bound: list[str]) -> dict[str, Any]:
        time.sleep(pause)
        return next_turn(messages, bound)

    # No token counts: a script reads no tokens, and made-up numbers would mislead.
    return ScriptedChatModel(turns=[think] * 32)
