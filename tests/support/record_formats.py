"""Record how llama-cpp-python's chat formats answer, for the stub's ``chat_format``.

Run ``python -m tests.support.record_formats`` where the real server can be built (see
:mod:`tests.support.local_model`): for each format it sends a few fixed chat-completion
requests over the travel desk's tools to SmolLM2-135M and saves every request and response in
``tests/support/llama_formats/<format>.json``. ``tests/adapters/testing/test_chat_formats.py``
replays them against :class:`~adapters.testing.OpenAIStub` in that format, so the stub can only
answer as the real server does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx

from adapters.langchain import to_langchain_tools
from tests.support import local_model
from tests.support.model_runs import SYSTEM, desk_registry

__all__ = ["FORMATS", "HERE", "exchanges"]

HERE = Path(__file__).with_name("llama_formats")
FORMATS = ("chatml-function-calling", "chatml", "template")  # template: the model's own


def _tools() -> list[dict[str, Any]]:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    _, registry = desk_registry()
    return [convert_to_openai_tool(t) for t in to_langchain_tools(registry)]


def exchanges() -> dict[str, dict[str, Any]]:
    """The requests sent to each format, by name."""
    tools = _tools()
    ask = {"role": "user", "content": "Show me the bookings of Ann Lee."}
    system = {"role": "system", "content": SYSTEM}
    call = {
        "role": "assistant",
        "content": " ",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "list_bookings", "arguments": '{"guest": "Ann Lee"}'},
            }
        ],
    }
    result = {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": '[{"booking_id": "B-1", "guest": "Ann Lee", "hotel": "Harbour Inn"}]',
    }
    base = {"model": "smollm2", "temperature": 0, "max_tokens": 64}
    return {
        "first_turn_auto": {**base, "messages": [system, ask], "tools": tools, "tool_choice": "auto"},
        "first_turn_no_choice": {**base, "messages": [system, ask], "tools": tools},
        "after_result_auto": {
            **base, "messages": [system, ask, call, result], "tools": tools, "tool_choice": "auto"
        },
        "after_result_unbound": {**base, "messages": [system, ask, call, result]},
        "plain_text": {**base, "messages": [system, {"role": "user", "content": "Say hello."}]},
        "plain_text_auto": {
            **base, "messages": [system, {"role": "user", "content": "Say hello."}],
            "tools": tools, "tool_choice": "auto",
        },
    }  # fmt: skip


def record(chat_format: str) -> Path:
    """Send :func:`exchanges` to the real server in ``chat_format``; save what came back."""
    python, model = local_model.prepare()
    out: dict[str, Any] = {"chat_format": chat_format, "server": local_model.SERVER_PACKAGE}
    served = None if chat_format == "template" else chat_format
    with local_model.serve(python, model, chat_format=served) as url:
        for name, body in exchanges().items():
            response = httpx.post(f"{url}/chat/completions", json=body, timeout=300)
            out[name] = {
                "request": body,
                "status": response.status_code,
                "response": response.json(),
            }
    path = HERE / f"{chat_format}.json"
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    return path


if __name__ == "__main__":
    for name in sys.argv[1:] or FORMATS:
        print(record(name))
