"""The stub's ``chat_format`` answers as the real llama-cpp-python format did.

Each fixture in ``tests/support/llama_formats/`` holds real requests and the real server's
responses (SmolLM2-135M on llama-cpp-python 0.3.36, recorded by
``python -m tests.support.record_formats``). The same requests go to the stub in that format,
scripted with what a model means to say (the recorded call, or a plain sentence), and what
comes back must be of the same kind: tool calls or not, and text that is empty, a bare
``functions.NAME:`` or real words.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from adapters.testing import Call, OpenAIStub, Turn

HERE = Path(__file__).resolve().parents[2] / "support" / "llama_formats"
RECORDED = {path.stem: json.loads(path.read_text()) for path in sorted(HERE.glob("*.json"))}
CASES = [
    (fmt, name)
    for fmt, record in RECORDED.items()
    for name, exchange in record.items()
    if isinstance(exchange, dict) and exchange.get("status") == 200
]


def _kind(message: dict[str, Any]) -> tuple[bool, str]:
    text = (message.get("content") or "").strip()
    shape = (
        "empty" if not text else "bare" if re.fullmatch(r"functions\.[\w.-]+:", text) else "text"
    )
    return bool(message.get("tool_calls")), shape


def _meant(message: dict[str, Any]) -> Turn:
    calls = [
        Call(c["function"]["name"], json.loads(c["function"]["arguments"] or "{}"))
        for c in message.get("tool_calls") or []
    ]
    if calls:
        return Turn(tool_calls=calls)
    text = (message.get("content") or "").strip()
    # An empty or bare answer is what the format let through of a real sentence.
    return Turn(text=text if _kind(message)[1] == "text" else "Ann Lee has booking B-1.")


def test_every_documented_format_was_recorded() -> None:
    assert set(RECORDED) == {"chatml-function-calling", "chatml", "template"}


@pytest.mark.parametrize(("fmt", "name"), CASES)
def test_the_stub_answers_as_the_real_format(fmt: str, name: str) -> None:
    exchange = RECORDED[fmt][name]
    real = exchange["response"]["choices"][0]["message"]
    with OpenAIStub(chat_format=fmt) as stub:
        stub.script(_meant(real))
        response = httpx.post(f"{stub.url}/chat/completions", json=exchange["request"])
    assert response.status_code == 200, response.text
    assert _kind(response.json()["choices"][0]["message"]) == _kind(real)


def test_only_the_models_own_template_shows_the_model_a_tool_result() -> None:
    for fmt, shown in (("template", True), ("chatml", False), ("chatml-function-calling", False)):
        exchange = RECORDED[fmt]["after_result_unbound"]
        answer = exchange["response"]["choices"][0]["message"]["content"] or ""
        assert ("B-1" in answer) is shown, (fmt, answer)  # the tool result held B-1
        with OpenAIStub(chat_format=fmt) as stub:
            stub.script(Turn(text="x"))
            httpx.post(f"{stub.url}/chat/completions", json=exchange["request"])
            roles = [m["role"] for m in stub.visible_messages()]
        assert ("tool" in roles) is shown


def test_chatml_function_calling_shows_the_model_html_escaped_text() -> None:
    with OpenAIStub(chat_format="chatml-function-calling") as stub:
        stub.script(Turn(text="x"))
        body = {"model": "m", "messages": [{"role": "user", "content": 'Say "<ACTION>"'}]}
        httpx.post(f"{stub.url}/chat/completions", json=body)
        (seen,) = stub.visible_messages()
    assert seen["content"] == "Say &#34;&lt;ACTION&gt;&#34;"  # as the bench's answers showed
