"""The result budget in agents: a function-calling model and an ``<ACTION>`` model each call a
tool whose result is far past the budget, get the cut result, are offered ``read_result`` on
their next turn (not before), and find a needle hidden at a random offset with it."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from adapters.action_xml import XmlToolCallingModel, render_action
from adapters.langchain import to_langchain_tools
from adapters.langgraph import build_agent
from adapters.testing import ScriptedChatModel
from tests.support import big_results
from tests.support.big_results import NEEDLE
from toolkit import ToolRegistry
from toolkit.results.budget import READ_RESULT

BUDGET = 8_000


def _registry() -> ToolRegistry:
    registry = ToolRegistry(result_budget=BUDGET)
    registry.register(big_results.haystack)
    registry.register(big_results.server_log)
    return registry


def _last_observation(messages: list[BaseMessage]) -> str:
    last = messages[-1]
    return str(last.content)


class _Seeker:
    """A scripted model: call the haystack, then read_result with find until the needle shows
    (at most three reads), then answer with the bin it names."""

    def __init__(self, seed: int, xml: bool) -> None:
        self.seed, self.xml, self.reads, self.tools_seen = seed, xml, 0, []  # type: ignore[var-annotated]

    def _call(self, name: str, args: dict[str, Any]) -> AIMessage | str:
        if self.xml:
            return f"Let me look.\n{render_action([(name, args)])}"
        return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"c{self.reads}"}])

    def turn(self, messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
        self.tools_seen.append(tools)
        if not any(isinstance(m, ToolMessage) for m in messages) and self.reads == 0:
            if len(self.tools_seen) == 1:
                return self._call("haystack", {"mb": 2, "seed": self.seed})
        seen = _last_observation(messages)
        assert len(seen) <= BUDGET + 200  # the observation frame of <ACTION> adds a few words
        found = re.search(rf"{NEEDLE} is in bin (B-\d+)", seen)
        if found:
            return f"The needle is in bin {found[1]}."
        call_id = re.findall(r'call_id="([^"]+)"', seen)
        assert call_id and self.reads < 3
        self.reads += 1
        return self._call(READ_RESULT, {"call_id": call_id[0], "find": NEEDLE})


@pytest.mark.parametrize("xml", [False, True], ids=["function-calling", "action-xml"])
def test_an_agent_finds_a_needle_in_a_cut_result_with_read_result(xml: bool) -> None:
    seed = random.Random().randrange(1, 10_000)
    seeker = _Seeker(seed, xml)
    turns = [seeker.turn] * 5
    if xml:
        model: Any = XmlToolCallingModel(model=ScriptedChatModel(turns=turns))
    else:
        model = ScriptedChatModel(turns=turns)
    agent = build_agent(model, _registry())
    state = agent.invoke({"messages": [HumanMessage("Where is the needle?")]})
    assert state["messages"][-1].content.endswith(f"The needle is in bin B-{seed}.")
    assert seeker.reads <= 3  # none when the needle happens to sit in the shown tail
    if not xml:  # bound tools are visible to the scripted model only with function calling
        assert READ_RESULT not in seeker.tools_seen[0] and READ_RESULT in seeker.tools_seen[1]
    observations = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert all(len(str(m.content)) <= BUDGET for m in observations)


def test_langchain_tools_return_the_cut_result() -> None:
    registry = _registry()
    (log_tool,) = [t for t in to_langchain_tools(registry) if t.name == "server_log"]
    text = log_tool.invoke({"mb": 1})
    assert len(text) <= BUDGET and "[Result cut to fit the context" in text
    assert READ_RESULT in [t.name for t in to_langchain_tools(registry)]


def test_tool_search_offers_read_result_once_a_result_was_cut() -> None:
    from adapters.langgraph import ToolSearch

    registry = _registry()
    search = ToolSearch(k=1)
    question = [HumanMessage("Show me the server log")]
    assert READ_RESULT not in search.offered(registry, question)
    registry.call_sync("server_log", {"mb": 1})
    assert READ_RESULT in search.offered(registry, question)
