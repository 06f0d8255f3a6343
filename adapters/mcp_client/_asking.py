"""Questions from a server answered by whoever called the tool, in the task of that call.

A server's ``elicitation/create`` arrives in the connection's own task, but the one who can
answer is the caller of the tool: the client of our MCP server (the gateway relays the
question), or the person behind a LangGraph run (an interrupt, which must be raised in the
graph node that called the tool). :class:`AskInCaller` is an elicitation handler that carries
each question to the call waiting on that server and answers it there: by default through the
call's ``ToolContext`` (``context.elicit``, whatever the sink put there), or with the ``ask``
function given to it. If answering raises (an interrupt does), the call is cancelled on the
server and the question answered ``cancel``.

Routing: MCP does not say which request a server's question belongs to, so a question goes to
the one call in flight on that server; with none or several in flight it is declined (with a
warning naming the server), never guessed.

A call whose caller can be asked from any task (a channel that says so with
``answers_in_any_task``, such as our MCP server's client, asked the default way) runs in the
caller's task itself, and its questions are answered where they arrive: no task per call and
no hand-off back to the caller when it ends. A failed answer still ends the call, cancelled
on the server, with that failure.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio

from toolkit.calls.interaction import Elicitation, SamplingMessage
from toolkit.context import ToolContext
from toolkit.errors import ErrorCode, ToolError

__all__ = ["AskInCaller", "Question"]

log = logging.getLogger("toolkit.mcp")

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Question:
    """A server's question, as the caller of the tool sees it.

    Attributes:
        server: The server's config key.
        tool: The tool whose call the server is running (its registry name).
        message: What the server asks.
        schema: The JSON Schema of the answer (a flat object of typed fields).
        context: The context of the call that caused the question.
    """

    server: str
    tool: str
    message: str
    schema: Mapping[str, Any]
    context: ToolContext = field(repr=False)
    _answer: concurrent.futures.Future[Elicitation] = field(repr=False, compare=False)

    def reply(self, answer: Elicitation) -> None:
        """Give the answer (once; later replies are ignored)."""
        if not self._answer.done():
            self._answer.set_result(answer)


@dataclass(eq=False)
class _Waiter:
    """A call in flight: the questions for it, and the future its task sleeps on."""

    tool: str
    context: ToolContext
    loop: asyncio.AbstractEventLoop
    questions: deque[Question] = field(default_factory=deque)
    wake: asyncio.Future[None] | None = None
    #: Set when the call runs in the caller's task: cancelling it ends the call.
    inline: anyio.CancelScope | None = None
    failure: Exception | None = None  # an inline answer that failed: the call ends with it

    def put(self, question: Question) -> None:
        """Hand over a question (on the waiter's loop) and wake the call's task."""
        self.questions.append(question)
        self.wake_up()

    def wake_up(self, *_: object) -> None:
        if self.wake is not None and not self.wake.done():
            self.wake.set_result(None)


Ask = Callable[[Question], Elicitation | Awaitable[Elicitation]]


async def ask_the_caller(question: Question) -> Elicitation:
    """Ask through the call's context (the caller's client, a LangGraph interrupt…)."""
    if question.context.client is None:
        log.warning(
            "MCP server %r asked for input (%r) during a call of %s, whose caller cannot be "
            "asked; declined",
            question.server,
            question.message,
            question.tool,
        )
        return Elicitation(action="decline")
    return await question.context.client.elicit(question.message, question.schema)


class AskInCaller:
    """An elicitation handler for ``McpClientPool(elicitation=...)`` answering in the caller.

    Args:
        ask: Called in the task of the tool call with each question; returns the answer (or
            raises, which cancels the call). Default: ask whoever called the tool, through the
            call's ``ToolContext``: a LangGraph run pauses with an interrupt, and a client of
            our MCP server is asked in turn.
    """

    def __init__(self, ask: Ask = ask_the_caller) -> None:
        self._ask = ask
        self._waiting: dict[str, list[_Waiter]] = {}

    async def __call__(self, server: str, message: str, schema: Mapping[str, Any]) -> Elicitation:
        """The pool's side: hand the question to the call in flight and wait for the answer."""
        waiters = self._waiting.get(server, [])
        if len(waiters) != 1:
            log.warning(
                "MCP server %r asked for input (%r) while %d of its tool calls were in flight; "
                "declined, since the question cannot be matched to one call",
                server,
                message,
                len(waiters),
            )
            return Elicitation(action="decline")
        waiter = waiters[0]
        answer: concurrent.futures.Future[Elicitation] = concurrent.futures.Future()
        question = Question(server, waiter.tool, message, dict(schema), waiter.context, answer)
        if waiter.inline is not None:
            if asyncio.get_running_loop() is waiter.loop:
                return await self._answer_here(waiter, question)
            here = asyncio.run_coroutine_threadsafe(
                self._answer_here(waiter, question), waiter.loop
            )
            return await asyncio.wrap_future(here)
        waiter.loop.call_soon_threadsafe(waiter.put, question)
        try:
            return await asyncio.wrap_future(answer)
        finally:
            question.reply(Elicitation(action="cancel"))  # a cancelled wait leaves no one hanging

    async def sample(
        self,
        server: str,
        messages: Sequence[SamplingMessage],
        system_prompt: str | None,
        max_tokens: int,
    ) -> str:
        """A sampling handler for ``McpClientPool(sampling=...)``: the server's request goes to
        the model of whoever called the tool in flight on it (the client of our MCP server,
        through ``context.client.sample``).

        Raises:
            ToolError: ``DENIED`` when no single call is in flight on ``server`` or its caller
                cannot sample (the message says which).
        """
        waiters = self._waiting.get(server, [])
        if len(waiters) != 1:
            raise ToolError(
                f"MCP server {server!r} asked for sampling while {len(waiters)} of its tool "
                "calls were in flight; declined, since the request cannot be matched to one "
                "caller.",
                code=ErrorCode.DENIED,
            )
        waiter = waiters[0]
        client = waiter.context.client
        if client is None:
            raise ToolError(
                f"MCP server {server!r} asked for sampling during a call of {waiter.tool}, whose "
                "caller has no model to lend.",
                code=ErrorCode.DENIED,
            )
        asked = client.sample(
            messages, max_tokens=max_tokens, system_prompt=system_prompt, temperature=None
        )
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(asked, waiter.loop))

    async def run(
        self, server: str, tool: str, context: ToolContext, call: Callable[[], Awaitable[T]]
    ) -> T:
        """Run ``call`` (a tool call on ``server``), answering its questions in this task."""
        loop = asyncio.get_running_loop()
        waiter = _Waiter(tool, context, loop)
        self._waiting.setdefault(server, []).append(waiter)
        if self._ask is ask_the_caller and getattr(context.client, "answers_in_any_task", False):
            try:
                return await self._run_inline(waiter, call)
            finally:
                self._waiting[server].remove(waiter)
        running = asyncio.ensure_future(call())
        # One future to sleep on, set by the call's end or a question: no task per wait.
        running.add_done_callback(waiter.wake_up)
        try:
            while True:
                if not waiter.questions:
                    if running.done():
                        return running.result()  # its result, or its exception
                    waiter.wake = loop.create_future()
                    await waiter.wake
                    continue
                question = waiter.questions.popleft()
                try:
                    answer = self._ask(question)
                    if inspect.isawaitable(answer):
                        answer = await answer
                except BaseException:
                    question.reply(Elicitation(action="cancel"))
                    raise
                question.reply(answer)
        finally:
            self._waiting[server].remove(waiter)
            if not running.done():
                running.cancel()  # the server hears notifications/cancelled
                await asyncio.wait({running})

    @staticmethod
    async def _run_inline(waiter: _Waiter, call: Callable[[], Awaitable[T]]) -> T:
        """Run ``call`` in this task; an answer that fails cancels it and is raised here."""
        try:
            with anyio.CancelScope() as scope:
                waiter.inline = scope
                result = await call()
        except Exception:
            if waiter.failure is not None:  # what ended the call, as when answered in turn
                raise waiter.failure from None
            raise
        if waiter.failure is not None:
            raise waiter.failure
        if scope.cancelled_caught:  # not reachable without a failure; never return nothing
            raise RuntimeError(f"the call of {waiter.tool} was cancelled while answering")
        return result

    async def _answer_here(self, waiter: _Waiter, question: Question) -> Elicitation:
        """Answer ``question`` of an inline call in this task (on the call's loop)."""
        try:
            answer = self._ask(question)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception as exc:  # the call ends with it, cancelled on the server
            if waiter.failure is None:
                waiter.failure = exc
            if waiter.inline is not None:
                waiter.inline.cancel()
            return Elicitation(action="cancel")
        return answer
