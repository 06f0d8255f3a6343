"""build_agent(tool_search=k): each model call sees the top k tools, the used ones, and a search tool."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import BaseMessage, ToolMessage

from adapters.action_xml import XmlToolCallingModel
from adapters.langgraph import ToolSearch, build_agent
from adapters.langgraph.tool_search import search_registry
from adapters.openai import to_openai_tools
from adapters.testing import ScriptedChatModel
from toolkit import ToolRegistry, mcp_tool

pytestmark = pytest.mark.anyio

# (name, description) of a registry too big to send whole: 40 filler tools and a few real ones
_FILLER = [
    (f"{area}_{verb}_{thing}", f"{verb.capitalize()} a {thing} of the {area} system.")
    for area in ("crm", "hr", "cloud", "shop")
    for verb in ("list", "get", "archive", "export", "count")
    for thing in ("record", "item")
]
_TOOLS = [
    *_FILLER,
    ("get_weather_forecast", "Weather forecast for a city: temperature, rain and wind."),
    ("convert_currency", "Convert an amount of money between two currencies."),
    ("refund_payment", "Give money back for a card payment."),
    ("translate_text", "Translate text into another language."),
]


def _tool(name: str, description: str, *, destructive: bool = False) -> Any:
    def run(text: str) -> str:
        return f"{name}({text})"

    return mcp_tool(name=name, description=description, destructive=destructive)(run)


def _registry() -> ToolRegistry:
    registry = ToolRegistry()
    for name, description in _TOOLS:
        registry.register(_tool(name, description))
    registry.register(_tool("wipe_database", "Erase every table.", destructive=True))
    return registry


def _answers(state: dict[str, Any]) -> dict[str, str]:
    return {m.name or "": m.text for m in state["messages"] if isinstance(m, ToolMessage)}


def test_each_model_call_is_offered_the_top_k_and_the_search_tool() -> None:
    model = ScriptedChatModel(turns=["Sunny."])
    build_agent(model, _registry(), tool_search=3).invoke(
        {"messages": [("user", "will it rain in Lisbon? I need the weather forecast")]}
    )
    assert model.calls[0].tools == ["get_weather_forecast", "search_tools"]
    many = ScriptedChatModel(turns=["Here."])
    build_agent(many, _registry(), tool_search=3).invoke(
        {"messages": [("user", "list the records and items of the crm system")]}
    )
    assert len(many.calls[0].tools) == 4 and many.calls[0].tools[0].startswith("crm_list")


def test_what_search_tools_finds_is_offered_from_the_next_step() -> None:
    model = ScriptedChatModel(
        turns=[
            {"tool_calls": [{"name": "search_tools", "args": {"query": "translate language"}}]},
            {"tool_calls": [{"name": "translate_text", "args": {"text": "hello"}}]},
            "Bonjour.",
        ]
    )
    state = build_agent(model, _registry(), tool_search=ToolSearch(k=2, found=1)).invoke(
        {"messages": [("user", "say hello in French")]}
    )
    first, second, _ = model.calls
    assert "translate_text" not in first.tools
    assert "translate_text" in second.tools
    answers = _answers(state)
    assert json.loads(answers["search_tools"])[0]["name"] == "translate_text"
    assert answers["translate_text"] == "translate_text(hello)"


def test_tools_already_used_stay_offered_when_the_talk_moves_on() -> None:
    model = ScriptedChatModel(
        turns=[
            {"tool_calls": [{"name": "refund_payment", "args": {"text": "p-1"}}]},
            "Refunded.",
            "It will be sunny.",
        ]
    )
    agent = build_agent(model, _registry(), tool_search=2)
    state = agent.invoke({"messages": [("user", "give the money back for card payment p-1")]})
    state["messages"].append(("user", "and what is the weather forecast in Rome?"))
    agent.invoke({"messages": state["messages"]})
    last = model.calls[-1]
    assert "refund_payment" in last.tools and "get_weather_forecast" in last.tools


def test_a_tool_not_offered_still_runs_through_the_registry_and_its_policy() -> None:
    registry = _registry()
    model = ScriptedChatModel(
        turns=[
            {
                "tool_calls": [
                    {"name": "convert_currency", "args": {"text": "10 EUR"}},
                    {"name": "wipe_database", "args": {"text": "all"}},
                ]
            },
            "Done.",
        ],
        allow_unbound=True,
    )
    state = build_agent(model, registry, tool_search=1).invoke(
        {"messages": [("user", "hello there")]}
    )
    assert "convert_currency" not in model.calls[0].tools
    answers = _answers(state)
    assert answers["convert_currency"] == "convert_currency(10 EUR)"
    entries = {e["tool"]: e for e in state["tool_calls"]}
    assert entries["wipe_database"]["code"] == "DENIED"  # asked, and no one can approve
    assert {r.tool for r in registry.records} >= {"convert_currency", "wipe_database"}


async def test_async_runs_offer_the_same_tools() -> None:
    model = ScriptedChatModel(
        turns=[
            {"tool_calls": [{"name": "search_tools", "args": {"query": "currency"}}]},
            {"tool_calls": [{"name": "convert_currency", "args": {"text": "5 USD"}}]},
            "4.6 EUR.",
        ]
    )
    state = await build_agent(model, _registry(), tool_search=2).ainvoke(
        {"messages": [("user", "how much is 5 dollars in euros")]}
    )
    assert _answers(state)["convert_currency"] == "convert_currency(5 USD)"
    assert "convert_currency" in model.calls[1].tools


def test_a_text_only_model_searches_through_the_action_protocol() -> None:
    seen: list[list[BaseMessage]] = []

    class Recording(FakeListChatModel):
        def _call(self, messages: list[Any], *args: Any, **kw: Any) -> str:
            seen.append(list(messages))
            return super()._call(messages, *args, **kw)

    inner = Recording(
        responses=[
            "<ACTION><search_tools><query>refund card payment</query></search_tools></ACTION>",
            "<ACTION><refund_payment><text>p-9</text></refund_payment></ACTION>",
            "Refunded p-9.",
        ]
    )
    state = build_agent(XmlToolCallingModel(inner), _registry(), tool_search=1).invoke(
        {"messages": [("user", "hello")]}
    )
    assert _answers(state)["refund_payment"] == "refund_payment(p-9)"
    first_prompt, second_prompt = (str(m[0].content) for m in seen[:2])
    assert "refund_payment" not in first_prompt and "search_tools" in first_prompt
    assert "refund_payment" in second_prompt


def test_the_search_tool_is_strict_mode_ready() -> None:
    meta = search_registry(_registry(), ToolSearch())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a tool that cannot be strict warns
        (function,) = to_openai_tools(meta, strict=True)
    assert function["function"]["strict"] is True
    assert function["function"]["parameters"]["required"] == ["query"]


def test_bad_options_and_name_clashes_are_refused() -> None:
    with pytest.raises(TypeError, match="int or a ToolSearch"):
        ToolSearch.of("5")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="0 or more"):
        ToolSearch(k=-1)
    registry = _registry()
    registry.register(_tool("search_tools", "Mine."))
    with pytest.raises(ValueError, match="find_tools"):
        build_agent(ScriptedChatModel(turns=[]), registry, tool_search=3)
    build_agent(ScriptedChatModel(turns=[]), registry, tool_search=ToolSearch(tool_name="find"))
