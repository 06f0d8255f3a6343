"""A local OpenAI-compatible chat-completions server, for tests and offline notebooks.

It is a real HTTP server on 127.0.0.1 that speaks ``POST /v1/chat/completions`` (plain JSON and
SSE streaming) and checks each request the way the OpenAI API does: tool names, ``parameters``
object schemas, strict-mode rules, at most 128 tools, and every assistant tool call answered by a
``tool`` message before the conversation moves on. A request that breaks a rule gets HTTP 400
with an OpenAI-shaped error body, so a client bug fails the test exactly as it would in
production.

Replies are scripted per test or per notebook::

    from adapters.testing import Call, OpenAIStub, Turn


    with OpenAIStub() as stub:
        stub.script(
            Turn(tool_calls=[Call("get_bin", {"code": "B-1"})]),
            Turn(text="Bin B-1 holds 3 items."),
        )
        model = ChatOpenAI(base_url=stub.url, api_key="test", model="gpt-test")

A turn may also be a callable ``(request_json) -> Turn`` for replies that depend on the request.
``OpenAIStub(api_key="sk-good")`` answers any other key with OpenAI's HTTP 401.

``OpenAIStub(local_server=True)`` behaves as an OpenAI-compatible local server does
(llama.cpp's ``llama-cpp-python[server]`` with a function-calling chat format): the model is
shown the tools only when the request sends ``tool_choice`` (a scripted tool call is then
answered as text), and an assistant message whose ``content`` is ``null`` fails the server's
request validation, which it answers with HTTP 500. ``tool_choices`` lists what each request
sent. ``chat_format="chatml-function-calling"``, ``"chatml"`` or ``"template"`` (which imply
``local_server``) also behave as llama-cpp-python's format of that name (``template``: the
model's own) does with a real model (see :mod:`adapters.testing._chat_formats`): the first
answers text as ``''`` or a bare ``functions.NAME:`` when ``tool_choice="auto"`` is sent and the
others never call a tool natively under it; only ``template`` shows the model ``tool`` messages
(``visible_messages``).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import count
from typing import Any

from adapters.testing._chat_formats import (
    CHAT_FORMATS,
    answer_text,
    calls_possible,
    visible_messages,
)
from adapters.testing._openai_requests import (
    BadRequest,
    check_request,
    null_assistant_content,
    null_content,
    validate_request,
)

__all__ = ["Call", "OpenAIStub", "Turn", "validate_request"]

_INVALID_KEY = {
    "error": {
        "message": "Incorrect API key provided. You can find your API key at "
        "https://platform.openai.com/account/api-keys.",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_api_key",
    }
}


@dataclass(frozen=True)
class Call:
    """One tool call the scripted assistant makes."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class Turn:
    """One scripted assistant reply: text, tool calls, or both."""

    text: str | None = None
    tool_calls: list[Call] = field(default_factory=list)
    prompt_tokens: int = 10
    completion_tokens: int = 5


ScriptItem = Turn | Callable[[dict[str, Any]], Turn]


class OpenAIStub:
    """A scripted, validating chat-completions server on 127.0.0.1.

    Attributes:
        requests: Every request body received, in order (including rejected ones).
        rejections: The messages of the HTTP 400 answers sent.
    """

    def __init__(
        self,
        *,
        model: str = "gpt-stub",
        api_key: str | None = None,
        local_server: bool = False,
        chat_format: str | None = None,
    ) -> None:
        if chat_format is not None and chat_format not in CHAT_FORMATS:
            raise ValueError(
                f"chat_format must be one of {sorted(CHAT_FORMATS)}, got {chat_format!r}"
            )
        self.model = model
        self.api_key = api_key
        self.local_server = local_server or chat_format is not None
        self.chat_format = chat_format
        self.requests: list[dict[str, Any]] = []
        self.rejections: list[str] = []
        self._script: deque[ScriptItem] = deque()
        self._lock = threading.Lock()
        self._ids = count(1)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> OpenAIStub:
        """Bind a free port on 127.0.0.1 and serve in a background thread."""
        handler = _make_handler(self)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        # A short poll interval: stop() waits up to one interval (0.5 s by default) for the loop.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> OpenAIStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The base URL to give an OpenAI client (ends in ``/v1``)."""
        assert self._server is not None, "start() the stub first"
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    # -- scripting -------------------------------------------------------------------------
    def script(self, *turns: ScriptItem) -> None:
        """Queue assistant replies, consumed one per request."""
        with self._lock:
            self._script.extend(turns)

    @property
    def remaining(self) -> int:
        """Scripted replies not yet consumed."""
        return len(self._script)

    @property
    def tool_choices(self) -> list[Any]:
        """The ``tool_choice`` of every request (``None`` where none was sent)."""
        return [body.get("tool_choice") for body in self.requests]

    def last_messages(self) -> list[dict[str, Any]]:
        """The ``messages`` of the last request."""
        return list(self.requests[-1]["messages"])

    def visible_messages(self, index: int = -1) -> list[dict[str, Any]]:
        """The messages of request ``index`` that the ``chat_format``'s template renders."""
        return visible_messages(self.chat_format, self.requests[index]["messages"])

    # -- serving ---------------------------------------------------------------------------
    def _next_turn(self, body: dict[str, Any]) -> Turn:
        with self._lock:
            if not self._script:
                raise BadRequest("The test script has no reply left for this request.")
            item = self._script.popleft()
        return item(body) if callable(item) else item

    def _handle(self, body: dict[str, Any]) -> tuple[int, Any]:
        self.requests.append(body)
        if self.local_server and null_assistant_content(body.get("messages")):
            # llama-cpp-python types an assistant's content as a string; its error handler
            # answers the failed validation with a 500.
            i = next(i for i, m in enumerate(body["messages"]) if null_content(m))
            message = (
                f"messages.{i}.content: Input should be a valid string "
                "(ChatCompletionRequestAssistantMessage)"
            )
            self.rejections.append(message)
            error = {"message": message, "type": "internal_server_error", "param": None}
            return 500, {"error": {**error, "code": None}}
        try:
            check_request(body)
            turn = self._next_turn(body)
        except BadRequest as exc:
            self.rejections.append(exc.message)
            error = {
                "message": exc.message,
                "type": "invalid_request_error",
                "param": exc.param,
                "code": None,
            }
            return 400, {"error": error}
        shown = calls_possible(self.chat_format, body, self.local_server)
        if turn.tool_calls and not shown:
            # A real model cannot call tools it was not given: keep only the text.
            turn = Turn(
                text=turn.text or "(no answer)",
                prompt_tokens=turn.prompt_tokens,
                completion_tokens=turn.completion_tokens,
            )
        if not turn.tool_calls:
            text = answer_text(self.chat_format, body, turn.text)
            if text != turn.text:
                turn = Turn(text, [], turn.prompt_tokens, turn.completion_tokens)
        return 200, turn

    def _tool_calls(self, turn: Turn) -> list[dict[str, Any]]:
        out = []
        for call in turn.tool_calls:
            args = call.arguments
            out.append(
                {
                    "id": call.id or f"call_{next(self._ids)}",
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": args if isinstance(args, str) else json.dumps(args),
                    },
                }
            )
        return out

    def _usage(self, turn: Turn) -> dict[str, int]:
        return {
            "prompt_tokens": turn.prompt_tokens,
            "completion_tokens": turn.completion_tokens,
            "total_tokens": turn.prompt_tokens + turn.completion_tokens,
        }

    def completion(self, turn: Turn) -> dict[str, Any]:
        """The non-streaming response body for ``turn``."""
        calls = self._tool_calls(turn)
        message: dict[str, Any] = {"role": "assistant", "content": turn.text}
        if calls:
            message["tool_calls"] = calls
        return {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion",
            "created": 0,
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "stop",
                    "logprobs": None,
                }
            ],
            "usage": self._usage(turn),
        }

    def chunks(self, turn: Turn, *, include_usage: bool) -> Iterator[dict[str, Any]]:
        """The SSE chunks for ``turn``: role, text pieces, tool-call pieces, finish, usage."""
        cid = f"chatcmpl-{next(self._ids)}"

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
            return {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": 0,
                "model": self.model,
                "choices": [choice],
            }

        yield chunk({"role": "assistant", "content": ""})
        text = turn.text or ""
        for start in range(0, len(text), 8):
            yield chunk({"content": text[start : start + 8]})
        calls = self._tool_calls(turn)
        for index, call in enumerate(calls):
            fn = call["function"]
            head = {"index": index, "id": call["id"], "type": "function"}
            yield chunk(
                {"tool_calls": [{**head, "function": {"name": fn["name"], "arguments": ""}}]}
            )
            args = fn["arguments"]
            for start in range(0, len(args), 16):
                piece = {"index": index, "function": {"arguments": args[start : start + 16]}}
                yield chunk({"tool_calls": [piece]})
        yield chunk({}, "tool_calls" if calls else "stop")
        if include_usage:
            yield {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": 0,
                "model": self.model,
                "choices": [],
                "usage": self._usage(turn),
            }


def _make_handler(stub: OpenAIStub) -> type[BaseHTTPRequestHandler]:
    class _Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet."""

        def _send_json(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if stub.api_key is not None and self.headers.get("Authorization") != (
                f"Bearer {stub.api_key}"
            ):
                self._send_json(401, _INVALID_KEY)
                return
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send_json(404, {"error": {"message": f"Unknown path {self.path}"}})
                return
            try:
                body = json.loads(raw)
            except ValueError:
                self._send_json(400, {"error": {"message": "We could not parse the JSON body."}})
                return
            status, result = stub._handle(body)
            if status != 200:
                self._send_json(status, result)
            elif body.get("stream"):
                include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
                self._send_stream(stub.chunks(result, include_usage=include_usage))
            else:
                self._send_json(200, stub.completion(result))

        def _send_stream(self, chunks: Iterator[dict[str, Any]]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            for item in chunks:
                self.wfile.write(f"data: {json.dumps(item)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

    return _Handler
