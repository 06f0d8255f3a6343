"""One demo run: build the registry, start the remote server, stream the agent, decide approvals."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command, Interrupt
from rich.console import Console
from rich.prompt import Confirm
from rich.status import Status

from adapters.cli import _demo_view as view
from adapters.cli._demo_model import ModelChoice
from adapters.cli._demo_script import REQUEST, SYSTEM_PROMPT, TENANT
from adapters.demo import carriers_server_config
from adapters.demo.warehouse_app import build_registry
from adapters.langgraph import RunSummary, async_checkpointer, build_agent, is_tool_event
from adapters.mcp_client import McpClientPool, McpServerConfig
from toolkit import CallRecord, ToolError, ToolRegistry
from toolkit.records.store import display_target

__all__ = ["DemoOptions", "run_demo"]

_THINKING = "the model is thinking…"
_PAUSE = 0.5  # seconds per scripted turn in a terminal, so a person can follow the spinner


@dataclass(frozen=True)
class DemoOptions:
    """What the command line asked for.

    Attributes:
        model: The model to use.
        approve: Approve destructive calls without asking (``--yes``).
        max_iterations: Model turns with tool calls before the final answer.
        remote: Start the carriers MCP server and add its tools.
        checkpoint: A SQLite file or ``postgresql://`` URL keeping the run's state, so a
            pending approval can be answered by a later ``toolkit demo --checkpoint``, from this
            machine or another one (default: in memory).
        protocol: ``"native"`` function calling, or ``"xml"``: the ``<ACTION>`` text protocol.
    """

    model: ModelChoice
    approve: bool = False
    max_iterations: int = 10
    remote: bool = True
    checkpoint: Path | str | None = None
    protocol: str = "native"


def carriers_config() -> McpServerConfig:
    """The example carriers server, started over stdio with this Python."""
    entry = carriers_server_config()
    return McpServerConfig(name="carriers", command=entry["command"], args=tuple(entry["args"]))


def demo_registry() -> ToolRegistry:
    """The warehouse tools, with a rule that turns a missing bin into a hint the model can use."""
    registry = build_registry()
    registry.processor.on(
        LookupError,
        message=lambda exc: f"{exc}. Bin codes look like 'A-01-01'; query_bins lists them.",
    )
    return registry


@dataclass
class _Run:
    """The live part: prints each update as it arrives and keeps the spinner honest."""

    console: Console
    options: DemoOptions
    status: Status
    records: dict[str, CallRecord] = field(default_factory=dict)
    running: dict[str, str] = field(default_factory=dict)  # call id -> tool name
    turns: int = 0

    def record(self, record: CallRecord) -> None:
        if record.outcome != "raised":  # "raised": paused for approval, it runs again later
            self.records[record.call_id] = record

    def _working(self) -> None:
        names = sorted(set(self.running.values()))
        self.status.update(f"running {', '.join(names)}…" if names else _THINKING)

    def on_model(self, change: dict[str, Any]) -> None:
        for message in change.get("messages", []):
            if not isinstance(message, AIMessage):
                continue
            if not (message.tool_calls or message.invalid_tool_calls):
                continue  # the final answer: shown once, in its own panel, at the end
            self.turns += 1
            self.running.update({c["id"] or "": c["name"] for c in message.tool_calls})
            self.console.print(view.turn_panel(message, self.turns))
        self._working()

    def on_tools(self, change: dict[str, Any]) -> None:
        for message in change.get("messages", []):
            if isinstance(message, ToolMessage):
                self.running.pop(message.tool_call_id, None)
                record = self.records.get(message.tool_call_id)
                self.console.print(view.tool_result_panel(message, record))
        self._working()

    def on_event(self, event: Any) -> None:
        """A tool's progress (on the spinner) or log line (printed), from the run's stream."""
        if not is_tool_event(event):
            return
        if event["type"] == "tool_log":
            self.console.print(f"[dim]  {event['tool']} ({event['level']}): {event['message']}[/]")
            return
        done, total = event["progress"], event["total"]
        share = f"{done:g}/{total:g}" if total else f"{done:g}"
        note = f" {event['message']}" if event["message"] else ""
        self.status.update(f"running {event['tool']}: {share}{note}…")

    @property
    def can_answer(self) -> bool:
        """Whether someone (``--yes`` or a person at a terminal) can answer an approval."""
        return self.options.approve or sys.stdin.isatty()

    def show(self, item: Interrupt) -> str:
        """Print the approval panel of a pending call; returns the call as text."""
        value = item.value if isinstance(item.value, dict) else {}
        call = view.call_text(str(value.get("tool")), value.get("arguments"))
        self.console.print(view.approval_panel(call, value.get("description", "")))
        return call

    async def decide(self, pending: Sequence[Interrupt]) -> Command[Any]:
        answers: dict[str, Any] = {}
        for item in pending:
            answers[item.id] = await self._answer(self.show(item))
        self._working()
        return Command(resume=answers)

    async def _answer(self, call: str) -> Any:
        if self.options.approve:
            self.console.print("[green]approved[/] (--yes)")
            return "approve"
        if not sys.stdin.isatty():
            self.console.print(
                "[yellow]denied:[/] stdin is not a terminal, so nobody can approve; "
                "run with --yes to approve."
            )
            return "unasked"  # the model hears that no one could be asked, not "rejected"
        self.status.stop()
        try:
            yes = await anyio.to_thread.run_sync(
                lambda: Confirm.ask(f"Run {call}?", console=self.console, default=False),
                abandon_on_cancel=True,  # Ctrl-C at the prompt ends the demo at once
            )
        finally:
            self.status.start()
        self.console.print("[green]approved[/]" if yes else "[yellow]denied[/] by you")
        return "approve" if yes else {"action": "reject", "reason": "the user said no"}


async def _connect(
    stack: contextlib.AsyncExitStack, registry: ToolRegistry, console: Console
) -> None:
    with console.status("starting the carriers MCP server (stdio)…"):
        pool = await stack.enter_async_context(McpClientPool({"carriers": carriers_config()}))
        try:
            await pool.register_into(registry)
        except ToolError as exc:
            # The local half of the demo still shows everything but the remote call.
            console.print(f"[yellow]remote tools skipped:[/] {exc.message}")


async def _agent_run(run: _Run, registry: ToolRegistry) -> RunSummary | None:
    async with contextlib.AsyncExitStack() as stack:
        if run.options.checkpoint is None:
            saver: Any = InMemorySaver()
        else:
            saver = await stack.enter_async_context(async_checkpointer(run.options.checkpoint))
        return await _agent_loop(run, registry, saver)


async def _agent_loop(run: _Run, registry: ToolRegistry, saver: Any) -> RunSummary | None:
    options = run.options
    pause = _PAUSE if run.console.is_terminal else 0.0
    if options.protocol == "xml":
        from adapters.cli._demo_xml import xml_model

        model = xml_model(options.model, pause=pause)
    else:
        model = options.model.build(pause=pause)
    agent = build_agent(
        model,
        registry,
        system_prompt=SYSTEM_PROMPT,
        max_iterations=options.max_iterations,
        checkpointer=saver,
        context_keys=["tenant"],
    )
    # The tenant comes from the application (here: the config), never from the model.
    config: RunnableConfig = {"configurable": {"thread_id": "demo", "tenant": TENANT}}
    payload: Any = {"messages": [("user", REQUEST)]}
    saved_in = display_target(options.checkpoint) if options.checkpoint is not None else ""
    waiting = (await agent.aget_state(config)).interrupts
    if waiting:  # a run saved in the checkpoint stopped at an approval: answer it now
        run.console.print(f"[cyan]resuming[/] the run saved in {saved_in}")
        payload = await run.decide(waiting)
    while payload is not None:
        pending: Sequence[Interrupt] = ()
        chunks = agent.astream(payload, config, stream_mode=["updates", "custom"])
        async for mode, update in chunks:
            if mode == "custom":  # a tool's progress or log line
                run.on_event(update)
                continue
            changes: dict[str, Any] = update  # type: ignore[assignment]
            for node, change in changes.items():
                if node == "__interrupt__":
                    pending = change
                elif node == "model":
                    run.on_model(change)
                elif node == "tools":
                    run.on_tools(change)
        if pending and options.checkpoint is not None and not run.can_answer:
            for item in pending:
                run.show(item)
            run.console.print(
                f"[yellow]waiting for approval:[/] the run is saved in {saved_in}; "
                f"answer it later with toolkit demo --checkpoint {saved_in} --yes"
            )
            return None
        payload = await run.decide(pending) if pending else None
    return RunSummary.from_state(await agent.aget_state(config))


async def run_demo(options: DemoOptions, console: Console) -> None:
    """Run the demo, printing as it goes. Model endpoint failures propagate as raised."""
    console.print(view.intro(options.model.describe()))
    registry = demo_registry()
    async with contextlib.AsyncExitStack() as stack:
        if options.remote:
            await _connect(stack, registry, console)
        else:
            console.print("[dim]--no-remote: the carriers MCP server is not started.[/]")
        console.print(view.tools_table(registry))
        console.print(view.request_panel(REQUEST))
        with console.status(_THINKING) as status:
            run = _Run(console, options, status)
            unsubscribe = registry.subscribe(run.record)
            started = time.perf_counter()
            try:
                summary = await _agent_run(run, registry)
            finally:
                unsubscribe()
            seconds = time.perf_counter() - started
    if summary is None:
        return
    console.print(view.answer_panel(summary.answer))
    console.print(view.call_log(summary, run.records))
    console.print(view.footer(summary.usage, seconds))
    console.print(view.NEXT_STEPS)
