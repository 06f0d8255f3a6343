"""Any text-only LangChain chat model as a tool-calling one: :class:`XmlToolCallingModel`."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

import anyio
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field, PrivateAttr

from adapters.action_xml._examples import (
    copied_answer,
    example_answers,
    example_calls,
    tool_examples,
)
from adapters.action_xml._observe import (
    copied_observation,
    malformed_observation,
    tool_message_observation,
)
from adapters.action_xml._observe import message_text as _text
from adapters.action_xml._parse import ParsedAction, parse_action, strip_actions
from adapters.action_xml._render import render_action, render_tools_prompt
from adapters.action_xml._stream import TextGate
from toolkit import Tool, ToolRegistry, ToolSpec

__all__ = ["XmlToolCallingModel", "to_specs"]


def to_specs(tools: Sequence[Any] | ToolRegistry) -> list[ToolSpec]:
    """Specs for what ``bind_tools`` accepts: specs, registries, toolkit tools, LangChain tools,
    OpenAI tool dicts and functions."""
    if isinstance(tools, ToolRegistry):
        return tools.specs()
    specs: list[ToolSpec] = []
    for item in tools:
        if isinstance(item, ToolSpec):
            specs.append(item)
        elif isinstance(item, ToolRegistry):
            specs.extend(item.specs())
        elif isinstance(item, Tool):
            specs.append(item.spec)
        else:
            function = convert_to_openai_tool(item)["function"]
            specs.append(
                ToolSpec(
                    name=function["name"],
                    description=function.get("description", ""),
                    input_schema=function.get("parameters") or {"type": "object"},
                )
            )
    return specs


#: Sent once when an answer that may not call tools holds nothing but an ACTION block.
FINAL_ANSWER_NOTE = (
    "Tools are not available for this answer. Answer the user now in plain text, without an "
    "<ACTION> block, with what you have found so far."
)
#: The answer when the model asked for tools again after that note.
NO_ANSWER = "I stopped before finishing: I could only answer with another tool call."
#: Above this many characters an answer is parsed in a worker thread, off the event loop.
THREAD_PARSE_CHARS = 64_000


def _tool_calls(parsed: ParsedAction) -> list[ToolCall]:
    return [
        ToolCall(
            name=c.name, args=c.arguments, id=f"call_{uuid.uuid4().hex[:24]}", type="tool_call"
        )
        for c in parsed.calls
    ]


class XmlToolCallingModel(BaseChatModel):
    """A chat model with tool calling, made of one without it and the ``<ACTION>`` protocol.

    ``bind_tools`` puts the tools prompt into the system message; earlier tool calls go back
    to the wrapped model as ACTION text and tool results as observations; each answer becomes
    an ``AIMessage`` whose ``content`` is the text before the block and whose ``tool_calls``
    are the block's calls. A block that cannot be read is answered here: the wrapped model
    sees the Malformed observation and is asked again, up to ``max_retries`` times, so a graph
    never receives a broken call (after the last try the answer is its text, with no calls,
    and ``response_metadata["action_error"]`` says what was wrong).

    Example:
        >>> from langchain_core.language_models import FakeListChatModel
        >>> model = XmlToolCallingModel(model=FakeListChatModel(responses=["Hello."]))
        >>> model.invoke("Hi").content
        'Hello.'

    Attributes:
        model: The wrapped text-only chat model.
        max_retries: How many times a malformed block is sent back for another answer.
        examples: Put generated few-shot examples in the tools prompt. A call that repeats an
            example's call exactly is not run: the model is told to use the values from the
            request and asked again (counted as a retry).
        correction_example: Add the wrong-then-fixed example to them (off by default: small
            models copy its wrong call; see :mod:`adapters.action_xml._examples`).
        tool_specs: The bound tools (set by ``bind_tools``).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model: BaseChatModel
    max_retries: int = 2
    examples: bool = True
    correction_example: bool = False
    tool_specs: list[Any] = Field(default_factory=list)  # ToolSpec objects
    _shown: tuple[int, list[tuple[str, dict[str, Any]]], list[str]] | None = PrivateAttr(
        default=None
    )

    def __init__(self, model: BaseChatModel | None = None, **kwargs: Any) -> None:
        if model is not None:
            kwargs["model"] = model
        super().__init__(**kwargs)

    @property
    def _llm_type(self) -> str:
        return "action-xml"

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool] | Any,
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """This model with ``tools`` described in its system prompt."""
        return self.model_copy(update={"tool_specs": to_specs(tools)})

    def tools_prompt(self) -> str:
        """The system-prompt text for the bound tools (empty with none)."""
        if not self.tool_specs:
            return ""
        return render_tools_prompt(
            self.tool_specs, examples=self.examples, correction_example=self.correction_example
        )

    def _checked(self, parsed: ParsedAction) -> ParsedAction:
        """``parsed``, or an error when it copies a few-shot example's call or sentence."""
        if not self.examples or parsed.error is not None:
            return parsed
        key = hash((id(self.tool_specs), len(self.tool_specs), self.correction_example))
        if self._shown is None or self._shown[0] != key:
            examples = tool_examples(self.tool_specs, correction=self.correction_example)
            self._shown = (key, example_calls(examples), example_answers(examples))
        _, shown, sentences = self._shown
        for call in parsed.calls:
            if (call.name, call.arguments) in shown:
                values = ", ".join(f"{k}={v!r}" for k, v in call.arguments.items())
                error = (
                    f"the call of {call.name} copies an example from the instructions "
                    f"({values}); call it with the values from the user's request, or "
                    "answer without a tool"
                )
                return ParsedAction(parsed.response_text, error=error, copied=True)
        copied = None if parsed.calls else copied_answer(parsed.response_text, sentences)
        if copied is not None:
            error = f"your answer copies an example from the instructions ({copied!r})"
            return ParsedAction(parsed.response_text, error=error, copied=True)
        return parsed

    # -- the conversation as the wrapped model sees it ------------------------------------

    def to_text_messages(self, messages: Sequence[BaseMessage]) -> list[BaseMessage]:
        """``messages`` rewritten for the wrapped model (prompt, ACTION text, observations)."""
        system: list[str] = []
        out: list[BaseMessage] = []
        pending: list[str] = []
        names: dict[str, str] = {}

        def flush() -> None:
            if pending:
                out.append(HumanMessage("\n".join(pending)))
                pending.clear()

        for message in messages:
            if isinstance(message, SystemMessage):
                system.append(_text(message.content))
            elif isinstance(message, ToolMessage):
                pending.append(tool_message_observation(message, names))
            else:
                flush()
                if isinstance(message, AIMessage) and message.tool_calls:
                    for call in message.tool_calls:
                        names[call.get("id") or ""] = call["name"]
                    block = render_action((c["name"], c["args"]) for c in message.tool_calls)
                    text = _text(message.content).strip()
                    out.append(AIMessage(f"{text}\n{block}" if text else block))
                else:
                    out.append(message)
        flush()
        prompt = self.tools_prompt()
        head = "\n\n".join(p for p in [*system, prompt] if p.strip())
        return [SystemMessage(head), *out] if head else out

    def _answer(self, parsed: ParsedAction, reply: BaseMessage, retried: int) -> AIMessage:
        metadata: dict[str, Any] = {"action_retries": retried}
        content = parsed.response_text
        if parsed.error is not None:
            metadata["action_error"] = parsed.error
            # A copy or a lead-in to a broken block ("The action block is:") is no answer: an
            # empty one, which an agent asks for again (see adapters.langgraph._empty_answer).
            if parsed.copied or content.rstrip().endswith(":"):
                content = ""
        usage = reply.usage_metadata if isinstance(reply, AIMessage) else None
        return AIMessage(
            content=content,
            tool_calls=_tool_calls(parsed),
            response_metadata=metadata,
            usage_metadata=usage,
        )

    def _retry_messages(
        self, conversation: list[BaseMessage], text: str, parsed: ParsedAction
    ) -> None:
        error = parsed.error or ""
        told = copied_observation(error) if parsed.copied else malformed_observation(error)
        conversation.append(AIMessage(text))
        conversation.append(HumanMessage(told))

    # -- sync -------------------------------------------------------------------------------

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        conversation = self.to_text_messages(messages)
        config = _inner_config(run_manager)
        if not self.tool_specs:
            reply = self.model.invoke(conversation, config, stop=stop, **kwargs)
            message = _without_action(reply)
            if message is None:
                _ask_for_text(conversation, reply)
                again = self.model.invoke(conversation, config, stop=stop, **kwargs)
                message = _second_answer(reply, again)
            return ChatResult(generations=[ChatGeneration(message=message)])
        return self._settle(
            conversation,
            self.model.invoke(conversation, config, stop=stop, **kwargs),
            config,
            stop,
            **kwargs,
        )

    def _settle(
        self,
        conversation: list[BaseMessage],
        reply: BaseMessage,
        config: RunnableConfig,
        stop: list[str] | None,
        **kwargs: Any,
    ) -> ChatResult:
        parsed = self._checked(parse_action(_text(reply.content), self.tool_specs))
        retried = 0
        while parsed.error is not None and retried < self.max_retries:
            self._retry_messages(conversation, _text(reply.content), parsed)
            reply = self.model.invoke(conversation, config, stop=stop, **kwargs)
            parsed = self._checked(parse_action(_text(reply.content), self.tool_specs))
            retried += 1
        return ChatResult(
            generations=[ChatGeneration(message=self._answer(parsed, reply, retried))]
        )

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        conversation = self.to_text_messages(messages)
        config = _inner_config(run_manager)
        gate = TextGate()
        for chunk in self.model.stream(conversation, config, stop=stop, **kwargs):
            shown = gate.feed(_text(chunk.content))
            if shown:
                out = ChatGenerationChunk(message=AIMessageChunk(content=shown))
                if run_manager:
                    run_manager.on_llm_new_token(shown, chunk=out)
                yield out
        if not self.tool_specs:
            tail = gate.finish()
            if gate.closed:
                _ask_for_text(conversation, AIMessage(gate.buffer))
                again = self.model.invoke(conversation, config, stop=stop, **kwargs)
                tail = _streamed_tail(gate, again)
            yield from _closing_text(tail, run_manager)
            return
        rest = gate.finish()
        result = self._settle(conversation, AIMessage(gate.buffer), config, stop, **kwargs)
        yield from _closing(rest, result, run_manager)

    # -- async ------------------------------------------------------------------------------

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        conversation = self.to_text_messages(messages)
        config = _inner_config(run_manager)
        reply = await self.model.ainvoke(conversation, config, stop=stop, **kwargs)
        if not self.tool_specs:
            message = _without_action(reply)
            if message is None:
                _ask_for_text(conversation, reply)
                again = await self.model.ainvoke(conversation, config, stop=stop, **kwargs)
                message = _second_answer(reply, again)
            return ChatResult(generations=[ChatGeneration(message=message)])
        return await self._asettle(conversation, reply, config, stop, **kwargs)

    async def _asettle(
        self,
        conversation: list[BaseMessage],
        reply: BaseMessage,
        config: RunnableConfig,
        stop: list[str] | None,
        **kwargs: Any,
    ) -> ChatResult:
        parsed = await self._aparse(_text(reply.content))
        retried = 0
        while parsed.error is not None and retried < self.max_retries:
            self._retry_messages(conversation, _text(reply.content), parsed)
            reply = await self.model.ainvoke(conversation, config, stop=stop, **kwargs)
            parsed = await self._aparse(_text(reply.content))
            retried += 1
        return ChatResult(
            generations=[ChatGeneration(message=self._answer(parsed, reply, retried))]
        )

    async def _aparse(self, text: str) -> ParsedAction:
        """:func:`parse_action`, in a worker thread for a long answer (off the event loop)."""
        if len(text) <= THREAD_PARSE_CHARS:
            return self._checked(parse_action(text, self.tool_specs))
        parsed = await anyio.to_thread.run_sync(parse_action, text, self.tool_specs)
        return self._checked(parsed)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        conversation = self.to_text_messages(messages)
        config = _inner_config(run_manager)
        gate = TextGate()
        async for chunk in self.model.astream(conversation, config, stop=stop, **kwargs):
            shown = gate.feed(_text(chunk.content))
            if shown:
                out = ChatGenerationChunk(message=AIMessageChunk(content=shown))
                if run_manager:
                    await run_manager.on_llm_new_token(shown, chunk=out)
                yield out
        if not self.tool_specs:
            tail = gate.finish()
            if gate.closed:
                _ask_for_text(conversation, AIMessage(gate.buffer))
                again = await self.model.ainvoke(conversation, config, stop=stop, **kwargs)
                tail = _streamed_tail(gate, again)
            for out in _closing_text(tail, None):
                if run_manager:
                    await run_manager.on_llm_new_token(out.text, chunk=out)
                yield out
            return
        rest = gate.finish()
        result = await self._asettle(conversation, AIMessage(gate.buffer), config, stop, **kwargs)
        for out in _closing(rest, result, None):
            if run_manager and out.text:
                await run_manager.on_llm_new_token(out.text, chunk=out)
            yield out


def _inner_config(
    run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None,
) -> RunnableConfig:
    """The wrapped model's raw tokens (ACTION blocks included) are kept out of streams."""
    return RunnableConfig(tags=["nostream"])


def _without_action(reply: BaseMessage) -> AIMessage | None:
    """A tool-less answer as it is, or ``None`` when it holds an ACTION block.

    Rule: with no tools bound (e.g. the final answer after the agent's tool-call limit) the
    user never sees raw ACTION XML. An answer with a block is asked for again once
    (:data:`FINAL_ANSWER_NOTE`); see :func:`_second_answer` for what is kept.
    """
    raw = _text(reply.content)
    if strip_actions(raw) is not raw:
        return None
    usage = reply.usage_metadata if isinstance(reply, AIMessage) else None
    return AIMessage(content=raw, usage_metadata=usage)


def _second_answer(first: BaseMessage, again: BaseMessage) -> AIMessage:
    """The answer asked for again if it holds no block; else the text around the blocks of
    the first answer, or of the second; else :data:`NO_ANSWER`."""
    raw = _text(again.content)
    second = strip_actions(raw)
    text = second if second is raw else strip_actions(_text(first.content)) or second
    usage = again.usage_metadata if isinstance(again, AIMessage) else None
    metadata = {"action_removed": True}
    return AIMessage(content=text or NO_ANSWER, usage_metadata=usage, response_metadata=metadata)


def _ask_for_text(conversation: list[BaseMessage], reply: BaseMessage) -> None:
    conversation.append(AIMessage(_text(reply.content)))
    conversation.append(HumanMessage(FINAL_ANSWER_NOTE))


def _streamed_tail(gate: TextGate, again: BaseMessage) -> str:
    """What follows the text already streamed when a tool-less answer held a block."""
    shown = gate.buffer[: gate.sent].strip()
    raw = _text(again.content)
    second = strip_actions(raw)
    text = second if second is raw else strip_actions(gate.buffer[gate.sent :]) or second
    if not text:
        return "" if shown else NO_ANSWER
    return f"\n{text}" if shown else text


def _closing_text(
    text: str, run_manager: CallbackManagerForLLMRun | None
) -> Iterator[ChatGenerationChunk]:
    if text:
        out = ChatGenerationChunk(message=AIMessageChunk(content=text))
        if run_manager:
            run_manager.on_llm_new_token(text, chunk=out)
        yield out


def _closing(
    rest: str, result: ChatResult, run_manager: CallbackManagerForLLMRun | None
) -> Iterator[ChatGenerationChunk]:
    """The held text (if any), then one chunk carrying the calls."""
    if rest:
        out = ChatGenerationChunk(message=AIMessageChunk(content=rest))
        if run_manager:
            run_manager.on_llm_new_token(rest, chunk=out)
        yield out
    message = result.generations[0].message
    assert isinstance(message, AIMessage)
    chunks = [
        {
            "name": c["name"],
            "args": json.dumps(c["args"]),
            "id": c["id"],
            "index": i,
            "type": "tool_call_chunk",
        }
        for i, c in enumerate(message.tool_calls)
    ]
    yield ChatGenerationChunk(
        message=AIMessageChunk(
            content="",
            tool_call_chunks=chunks,  # type: ignore[arg-type]
            response_metadata=message.response_metadata,
            usage_metadata=message.usage_metadata,
        )
    )
