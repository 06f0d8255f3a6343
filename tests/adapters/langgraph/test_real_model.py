"""A real small model (SmolLM2-135M) behind a real llama.cpp server, driven by our agent.

Slow: the server is built from source once and cached (see :mod:`tests.support.local_model`);
where it cannot be built the tests skip and say why. The model is tiny, so what is asserted is
what the library owes whatever the model says, read off each final answer
(:mod:`tests.support.model_cases`): no crash, never an empty answer (the server's
``chatml-function-calling`` format can only answer ``''`` or ``functions.NAME:`` while tools are
offered, so the agent asks again without tools and, failing that, answers with what ran), never
raw tool syntax; with native tool calls (the tools are shown because ``tool_choice`` is sent)
and with the ``<ACTION>`` text protocol.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain_core.language_models import BaseChatModel

from adapters.action_xml import XmlToolCallingModel
from adapters.langgraph import build_agent
from tests.support import local_model
from tests.support.model_runs import QUICK, SYSTEM, TimedTransport, chat_model, run_prompts
from toolkit import ToolRegistry

pytestmark = pytest.mark.slow


def _serve(chat_format: str | None) -> Iterator[str]:
    try:
        python, model = local_model.prepare()
    except local_model.Unavailable as exc:
        pytest.skip(f"SmolLM2 on llama-cpp-python[server] is not available here: {exc}")
    with local_model.serve(python, model, chat_format=chat_format) as url:
        yield url


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The known-bad format for native calls: no text while tools are offered, no results."""
    yield from _serve("chatml-function-calling")


@pytest.fixture(scope="module")
def own_template() -> Iterator[str]:
    """The model's own template (no ``--chat_format``): what the ``<ACTION>`` protocol needs
    (``chatml-function-calling`` HTML-escapes its tags)."""
    yield from _serve(None)


def _agent(model: BaseChatModel, registry: ToolRegistry) -> object:
    return build_agent(model, registry, system_prompt=SYSTEM, max_iterations=2)


def test_native_tool_calls_over_a_real_local_server(server: str) -> None:
    tally = run_prompts("native", lambda t: chat_model(server, t), _agent, QUICK)
    assert tally.crashes == 0, tally.errors
    assert tally.completed == tally.runs == len(QUICK)
    assert tally.tool_called >= 1  # the tools were shown: tool_choice went out
    assert tally.empty == 0 and tally.raw_syntax == 0, tally.answers
    # This format cannot answer in text while tools are offered: answers were asked again.
    assert tally.asked_again + tally.fallback >= 1, tally.answers


def test_action_text_protocol_over_a_real_local_server(own_template: str) -> None:
    def xml(transport: TimedTransport) -> BaseChatModel:
        return XmlToolCallingModel(chat_model(own_template, transport))

    tally = run_prompts("<ACTION>", xml, _agent, QUICK)
    assert tally.crashes == 0, tally.errors
    assert tally.completed == tally.runs == len(QUICK)
    assert tally.empty == 0 and tally.raw_syntax == 0, tally.answers
    assert tally.tool_called >= 1, tally.answers
