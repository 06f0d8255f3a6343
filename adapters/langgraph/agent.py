"""Levels 2 and 3 of tool calling: a single model turn with tools, and the autonomous agent.

Both are graphs of two nodes: ``model`` and ``tools``. Each tool call of a turn is its own
``tools`` task (LangGraph ``Send``), so the calls run concurrently (async tools at once, sync
tools in threads), each is isolated from the others' failures, and an approval ``interrupt()``
in one call neither re-runs nor loses its siblings on resume.

Rules the model node keeps:

* **Per user turn.** ``iterations`` (the model calls), the ``tool_calls`` log and ``usage`` describe the current
  user turn. A turn starts when the model node is reached from anything but a tool answer
  (a new user message on a checkpointed thread), and then they start again from zero, so a
  second turn on the same thread gets the full ``max_iterations`` and its own log.
* **Tools as they are now.** The tools offered to the model are read from the registry at
  each model call (cached until the registry reports a change), so tools added or removed
  after the agent was built, e.g. on an MCP ``list_changed``, are seen on the next call.
* **No empty tool list.** With no tools the model is called unbound: providers such as OpenAI
  answer ``tools: []`` with HTTP 400.
* **Local servers too.** Tools are bound with an explicit ``tool_choice="auto"``, and a
  request refused for a tool-call turn without text is retried once with it filled (see
  :mod:`adapters.langgraph._model_calls`).
* **Never silence.** An empty final answer is asked for again without tools, then replaced by
  what ran (:mod:`adapters.langgraph._empty_answer`; the state's ``empty_answer`` says so).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import anyio.to_thread
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolCall, ToolMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer, Overwrite, Send

from adapters.langchain.injection import ContextKeys
from adapters.langchain.tool import RegistryTool, to_langchain_tools
from adapters.langchain.tool_images import (
    images_out_of_tool_messages,
    needs_text_only_tool_messages,
)
from adapters.langgraph._budget import AgentRuns, Turn, budget_note
from adapters.langgraph._direct import DirectTools
from adapters.langgraph._empty_answer import EmptyAnswers, empty_update
from adapters.langgraph._model_calls import ToolTurnRepair, bind_tools
from adapters.langgraph._node import Node
from adapters.langgraph._per_run_tools import Choice, PerRunTools
from adapters.langgraph._prompt import SystemPrompt
from adapters.langgraph._registry_watch import watch as _watch
from adapters.langgraph.execution import ToolExecutor, ToolTask
from adapters.langgraph.state import AgentState, usage_of
from adapters.langgraph.tool_search import ToolSearch, search_registry
from toolkit.calls.options import CallOptions
from toolkit.governance.budget import RunBudget
from toolkit.registry import ToolRegistry
from toolkit.toolsets.toolset_kinds import as_toolset

_Graph = CompiledStateGraph[Any, Any, Any, Any]
#: What the model reads of the thread: ``window(messages) -> messages`` (e.g. a trim).
Window = Callable[[Sequence[BaseMessage]], Sequence[BaseMessage]]

__all__ = ["STOP_NOTE", "as_registry", "build_agent", "single_turn_node"]

#: Added to the system prompt for the last, tool-less model call after ``max_iterations``.
STOP_NOTE = (
    "You have used all the tool calls allowed for this request. Do not call tools. Answer "
    "now with what you have found so far, and say what is still missing."
)


def as_registry(tools: ToolRegistry | Iterable[Any]) -> ToolRegistry:
    """``tools`` itself if it is a registry, else a new registry holding them.

    Each item may be anything :func:`toolkit.as_toolset` takes: a function (decorated or
    not), a module, a class or an object with ``@mcp_tool`` methods, a ``Tool`` (local or
    remote), a ``ToolRegistry`` (its tools) or a ``Toolset`` (an ``HttpToolset``, an open
    ``McpClientPool``...), whose tools stay current when its list changes.

    Raises:
        RegistrationError: An item is none of those kinds, or two items give the same name.
    """
    if isinstance(tools, ToolRegistry):
        return tools
    registry = ToolRegistry()
    for item in tools:
        registry.add_toolset_sync(as_toolset(item))
    return registry


def _all_calls(message: AIMessage) -> list[ToolCall]:
    """Valid tool calls plus unparsable ones: every id the model sent needs an answer."""
    calls = list(message.tool_calls)
    for bad in message.invalid_tool_calls:
        calls.append(
            ToolCall(name=bad.get("name") or "", args=bad.get("args") or "", id=bad.get("id"))  # type: ignore[typeddict-item]
        )
    return calls


def _new_turn(state: AgentState) -> bool:
    """Whether this model call starts a user turn (it does not answer tool results)."""
    messages = state.get("messages") or []
    return not messages or not isinstance(messages[-1], ToolMessage)


class _Turns:
    """The model node and the routing after it."""

    def __init__(
        self,
        model: BaseChatModel,
        registry: ToolRegistry,
        executor: ToolExecutor,
        *,
        system_prompt: str | None,
        max_iterations: int | None,
        context_keys: ContextKeys | None,
        search: ToolSearch | None = None,
        runs: AgentRuns,
        direct: DirectTools | None = None,
        per_run: PerRunTools | None = None,
        window: Window | None = None,
    ) -> None:
        self.model = model
        self.runs = runs
        self.direct = direct or DirectTools(registry)
        self.per_run = per_run or PerRunTools(registry, options=None, context_keys=context_keys)
        self.search = search
        self._offers: dict[tuple[str, ...], Runnable[LanguageModelInput, BaseMessage]] = {}
        self.registry = registry
        self.context_keys = context_keys
        self.executor = executor
        self.system_prompt = system_prompt
        self.prompt = SystemPrompt(system_prompt)
        self.window = window
        self.max_iterations = max_iterations
        self._bound: Runnable[LanguageModelInput, BaseMessage] | None = None
        self._repair = ToolTurnRepair()
        self._empty = EmptyAnswers()  # an empty final answer: asked again, then a fallback
        _watch(registry, self)

    def stale(self) -> None:
        """Forget the bound tools: the registry changed."""
        self._bound = None
        self._offers = {}
        self.executor.forget()

    def bound(self, offered: tuple[str, ...] | None) -> Runnable[LanguageModelInput, BaseMessage]:
        """The model with the tools to offer bound: every tool (the bare model when none),
        or, with tool search, the ``offered`` ones and the search tool."""
        if offered is not None:
            return self._offer(offered)
        bound = self._bound
        if bound is None:
            tools = to_langchain_tools(self.registry, context_keys=self.context_keys)
            bound = bind_tools(self.model, tools) if tools else self.model
            self._bound = bound
        return bound

    def _offered(self, state: AgentState) -> tuple[str, ...] | None:
        search = self.search
        if search is None:
            return None
        return tuple(search.offered(self.registry, state.get("messages", [])))

    def _offer(self, names: tuple[str, ...]) -> Runnable[LanguageModelInput, BaseMessage]:
        """The model with the tools that tool search picked for this conversation."""
        offers = self._offers
        bound = offers.get(names)
        if bound is None:
            keys = self.context_keys
            registry = self.registry
            tools = [
                RegistryTool.from_tool(registry, registry.get(n), context_keys=keys)
                for n in names
                if n in registry  # a tool removed since it was picked is not offered
            ]
            extra = self.executor.extra
            if extra is not None:
                tools += to_langchain_tools(extra, context_keys=keys)
            bound = bind_tools(self.model, tools) if tools else self.model
            if len(offers) > 256:  # a long-lived agent: keep the cache bounded
                offers.clear()
            offers[names] = bound
        return bound

    def _chosen(self, choice: Choice) -> Runnable[LanguageModelInput, BaseMessage]:
        """The model with the tools this run's caller is offered (see ``_per_run_tools``)."""
        if choice.tools is not None:
            return bind_tools(self.model, choice.tools) if choice.tools else self.model
        return self.bound(choice.names)

    def _prepare(
        self, state: AgentState, config: RunnableConfig
    ) -> tuple[list[BaseMessage], bool, int, Turn | None]:
        iterations = 0 if _new_turn(state) else state.get("iterations", 0)
        done = self.max_iterations is not None and iterations >= self.max_iterations
        turn = self.runs.turn(state, _new_turn(state))
        prompt = self.prompt.render(state, config)
        if turn is not None and turn.last is not None:
            done, prompt = True, f"{prompt}\n\n{budget_note(turn.last)}".strip()
        elif done:
            prompt = f"{prompt}\n\n{STOP_NOTE}".strip()
        head: list[BaseMessage] = [SystemMessage(prompt)] if prompt else []
        history = state.get("messages", [])
        messages = [*head, *(self.window(history) if self.window else history)]
        if needs_text_only_tool_messages(self.model):  # Chat Completions: images in tool
            messages = images_out_of_tool_messages(messages)  # messages are a 400
        return messages, done, iterations, turn

    def _update(
        self, state: AgentState, message: Any, done: bool, iterations: int, turn: Turn | None
    ) -> dict[str, Any]:
        if not isinstance(message, AIMessage):
            message = AIMessage(content=getattr(message, "content", str(message)))
        if turn is not None:
            self.runs.answered(turn, message)
        if done and (message.tool_calls or message.invalid_tool_calls):
            # The last call is made without tools; a model that still asks gets no more.
            text = message.text or "I stopped before finishing: the tool-call limit was reached."
            message = AIMessage(content=text, id=message.id, usage_metadata=message.usage_metadata)
        iterations += 1  # every model call counts: one call, then a text answer, is 2
        update: dict[str, Any] = {"messages": [message], "iterations": iterations}
        if turn is not None:
            update["run"] = turn.run_id
        if _new_turn(state):
            update["usage"] = Overwrite(usage_of(message))
            update["tool_calls"] = Overwrite([])
        else:
            update["usage"] = usage_of(message)
        update.update(empty_update(state, message, _new_turn(state)))
        return update

    def call(self, state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        if (direct := self.direct.answer(state.get("messages", []))) is not None:
            return {"messages": [direct]}
        messages, done, iterations, turn = self._prepare(state, config)
        if turn is not None and turn.final is not None:  # nothing left for a model call
            return self._update(state, turn.final, True, iterations, turn)
        runnable = (
            self.model if done else self._chosen(self.per_run.choose(self._offered(state), config))
        )
        answer = self._repair.invoke(runnable, messages, config)
        ask = lambda again: self._repair.invoke(self.model, again, config)  # noqa: E731
        answer = self._empty.settle(answer, messages, ask)
        return self._update(state, answer, done, iterations, turn)

    async def acall(self, state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        if (direct := self.direct.answer(state.get("messages", []))) is not None:
            return {"messages": [direct]}
        messages, done, iterations, turn = self._prepare(state, config)
        if turn is not None and turn.final is not None:  # nothing left for a model call
            return self._update(state, turn.final, True, iterations, turn)
        offered = None
        if self.search is not None and not done:
            # A first search builds the index (and every schema): off the event loop.
            offered = await anyio.to_thread.run_sync(self._offered, state)
        runnable = self.model if done else self._chosen(await self.per_run.achoose(offered, config))
        answer = await self._repair.ainvoke(runnable, messages, config)
        aask = lambda again: self._repair.ainvoke(self.model, again, config)  # noqa: E731
        answer = await self._empty.asettle(answer, messages, aask)
        return self._update(state, answer, done, iterations, turn)

    def route(self, state: AgentState) -> list[Send] | str:
        last = state["messages"][-1]
        calls = _all_calls(last) if isinstance(last, AIMessage) else []
        if not calls:
            return END
        iteration = state.get("iterations", 0)
        gate = self.executor.gate_of(calls)  # a sequential tool's call runs alone
        sends = []
        for call in calls:
            carry = self.executor.needs_state(call["name"])
            payload = {"call": call, "iteration": iteration, "state": state if carry else None}
            if state.get("run"):
                payload["run"] = state.get("run")
            if gate is not None:
                payload["gate"] = gate
            sends.append(Send("tools", payload))
        return sends


def _tools_node(executor: ToolExecutor) -> Node:
    def run(payload: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        return executor.run(ToolTask(**payload), config)

    async def arun(payload: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        return await executor.arun(ToolTask(**payload), config)

    return Node("tools", run, arun)


def _model_node(turns: _Turns) -> Node:
    def call(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        return turns.call(state, config)

    async def acall(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        return await turns.acall(state, config)

    return Node("model", call, acall)


#: How many tool calls of one model turn run at once, under ``invoke`` as under ``ainvoke``.
TURN_CONCURRENCY = 64


def _graph(
    model: BaseChatModel,
    tools: ToolRegistry | Iterable[Any],
    *,
    loop: bool,
    system_prompt: str | None,
    max_iterations: int | None,
    context_keys: ContextKeys | None,
    checkpointer: Checkpointer,
    name: str,
    tool_search: int | ToolSearch | None = None,
    options: CallOptions | None = None,
    budget: RunBudget | None = None,
    return_direct: Iterable[str] = (),
    window: Window | None = None,
    max_argument_chars: int | None = None,
) -> _Graph:
    registry = as_registry(tools)
    search = ToolSearch.of(tool_search)
    extra = search_registry(registry, search) if search is not None else None
    runs = AgentRuns(budget)
    executor = ToolExecutor(
        registry, context_keys=context_keys, extra=extra, options=options, runs=runs
    )
    executor.max_argument_chars = max_argument_chars
    turns = _Turns(
        model,
        registry,
        executor,
        system_prompt=system_prompt,
        max_iterations=max_iterations,
        context_keys=context_keys,
        search=search,
        runs=runs,
        direct=DirectTools(registry, return_direct),
        window=window,
        per_run=PerRunTools(registry, options=options, context_keys=context_keys, extra=extra),
    )
    builder = StateGraph(AgentState)
    builder.add_node("model", _model_node(turns))
    builder.add_node("tools", _tools_node(executor))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", turns.route, ["tools", END])
    builder.add_edge("tools", "model" if loop else END)
    graph = builder.compile(checkpointer=checkpointer, name=name)
    # LangGraph runs a sync step's tasks on a thread pool sized by max_concurrency (default:
    # a few threads per CPU), so a turn's sync tool calls would queue behind each other under
    # agent.invoke while agent.ainvoke runs them all at once. A caller's own setting still wins.
    return graph.with_config(max_concurrency=TURN_CONCURRENCY)


def build_agent(
    model: BaseChatModel,
    tools: ToolRegistry | Iterable[Any],
    *,
    system_prompt: str | None = None,
    max_iterations: int = 10,
    checkpointer: Checkpointer = None,
    context_keys: ContextKeys | None = None,
    name: str = "agent",
    tool_search: int | ToolSearch | None = None,
    options: CallOptions | None = None,
    budget: RunBudget | None = None,
    return_direct: Iterable[str] = (),
    window: Window | None = None,
    max_argument_chars: int | None = None,
) -> _Graph:
    """Level 3: an autonomous agent — the model and the tools in a loop.

    Each model turn's tool calls run concurrently, one task per call, every call through
    ``registry.call``: N calls always give N tool messages, a failure reaches the model as a
    message, an unknown tool name gets ``TOOL_NOT_FOUND`` with the valid names. After
    ``max_iterations`` turns with tool calls the model is called once more **without tools**
    and its answer ends the run (never ``GraphRecursionError``).

    Args:
        model: A chat model that supports ``bind_tools``.
        tools: A ``ToolRegistry``, or tools / functions to put in a new one.
        system_prompt: Prepended to the conversation on every model call; ``{name}`` fields
            are filled per run from the state, the run's context and ``configurable`` (a
            missing name raises ``PromptValueMissing``; ``{{``/``}}`` are literal braces).
        max_iterations: Model turns with tool calls before the final tool-less call.
        checkpointer: Saves the state between steps: needed for approvals and for
            conversations over several user turns (``iterations``, ``tool_calls`` and
            ``usage`` then describe the latest turn; ``messages`` keep the whole thread).
        context_keys: Caller values for ``ToolContext.values``, from the graph's runtime
            context or ``config["configurable"]``.
        name: The graph's name.
        tool_search: For big registries: offer each model call only the ``k`` tools that
            best match the conversation, the tools already used and a ``search_tools`` tool
            (whose finds are offered from the next step on). An int is ``k``; a
            :class:`ToolSearch` sets more. A call to a tool not offered still runs through
            the registry. See ``docs/search.md``.
        options: :class:`~toolkit.CallOptions` for every tool call: a timeout, an
            ``on_record`` hook, a ``policy`` deciding allow / deny / ask for each call
            (default: the registry's policy, which asks before destructive tools). Inside the
            graph ``"ask"`` pauses it with ``interrupt()``; resume with
            ``Command(resume="approve" | "reject" | {"action": "edit", "arguments": {...}})``.
            Without a ``checkpointer`` the graph could never resume, so such a call is
            answered ``DENIED`` with the reason (how to allow it) and the run goes on.
        budget: Limits of each user turn (:class:`~toolkit.RunBudget`): tool calls (nested
            ones included), calls per tool, repeats of one call, seconds, model calls and
            tokens (from the model's usage). A tool call past a limit is answered
            ``BUDGET_EXCEEDED``; the model is then called once more without tools, or, when
            model calls or tokens ran out, a final message ends the run. See
            ``docs/middleware.md``.
        return_direct: Names of tools whose successful result ends the run as the final
            answer, as ``@mcp_tool(return_direct=True)`` does (see ``docs/agents.md``).
        window: What the model reads of the thread, e.g. a ``trim_messages`` that keeps the
            last N tokens from a human message on; the state keeps the whole thread.
        max_argument_chars: A call whose arguments (as JSON) are longer is not run; the
            model is answered ``INVALID_PARAMS`` saying so (see ``docs/local-models.md``).

    The tools offered to the model are the registry's at each model call: tools added or
    removed later (e.g. after a server's ``list_changed``) are seen on the next call, and an
    empty registry calls the model without tools.

    Returns:
        A compiled graph. Its state (:class:`AgentState`) has ``messages``, and for the
        current user turn the ``tool_calls`` log, ``iterations`` and summed token ``usage``;
        see :class:`RunSummary`.
    """
    if max_iterations < 0:
        raise ValueError(f"max_iterations must be 0 or more, got {max_iterations}.")
    return _graph(
        model,
        tools,
        loop=True,
        system_prompt=system_prompt,
        max_iterations=max_iterations,
        context_keys=context_keys,
        checkpointer=checkpointer,
        name=name,
        tool_search=tool_search,
        options=options,
        budget=budget,
        return_direct=return_direct,
        window=window,
        max_argument_chars=max_argument_chars,
    )


def single_turn_node(
    model: BaseChatModel,
    tools: ToolRegistry | Sequence[Any],
    *,
    system_prompt: str | None = None,
    context_keys: ContextKeys | None = None,
    name: str = "single_turn",
    options: CallOptions | None = None,
) -> _Graph:
    """Level 2: one model turn that may call tools; their results are appended, no loop.

    The result is a graph to add as a node of your own graph (its state needs a
    ``messages`` key with the ``add_messages`` reducer); it shares the parent's checkpointer,
    so approvals work as in :func:`build_agent`.

    Args:
        model: A chat model that supports ``bind_tools``.
        tools: A ``ToolRegistry``, or tools / functions to put in a new one.
        system_prompt: Prepended to the conversation for the model call.
        context_keys: Caller values for ``ToolContext.values``.
        name: The node's name.
        options: :class:`~toolkit.CallOptions` for every tool call (a timeout, an
            ``on_record`` hook, a policy instead of the registry's...); inside the graph
            ``"ask"`` is always answered through ``interrupt()``.
    """
    return _graph(
        model,
        tools,
        loop=False,
        system_prompt=system_prompt,
        max_iterations=None,
        context_keys=context_keys,
        checkpointer=None,
        name=name,
        options=options,
    )
