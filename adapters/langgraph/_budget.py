"""An agent's :class:`~toolkit.RunBudget`: one run per user turn, checked at every step.

The model node starts a run when a user turn starts (nested in the run current there, so an
agent inside a graph tool counts against the outer run too; an agent without a budget of its
own follows that outer run) and keeps its id in the state; the
tools tasks make it the current run, so the pipeline counts and checks every tool call, nested
ones included. Before each model call the node asks the run what is left:

* model calls or tokens used up: no model call; a final message says what ran out;
* a tool limit reached (a call was answered ``BUDGET_EXCEEDED``), or this is the last model
  call the budget allows: the model is called once more **without tools**, told what ran out,
  and its answer ends the run.
"""

from __future__ import annotations

import contextlib
import uuid
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage

from adapters.langgraph.state import usage_of
from toolkit import Run, RunBudget
from toolkit.governance.budget import current_run

__all__ = ["AgentRuns", "Turn", "budget_note"]

#: Runs an agent remembers (one per user turn in flight); the oldest go first.
MAX_RUNS = 1024


def budget_note(spent: str) -> str:
    """What the last, tool-less model call is told when the budget stops the run."""
    return (
        f"This request's budget is used up ({spent}). Do not call tools. Answer now with what "
        "you have found so far, and say what is still missing."
    )


@dataclass(frozen=True, slots=True)
class Turn:
    """The budget's say on one model call.

    Attributes:
        run_id: The run's id, kept in the state for the tools tasks.
        run: The run.
        last: What ran out when this call must be the last and without tools, else ``None``.
        final: The message that ends the run without a model call, when nothing is left.
    """

    run_id: str
    run: Run
    last: str | None
    final: AIMessage | None


class AgentRuns:
    """The runs of one agent graph, by id.

    Args:
        budget: The agent's own budget; ``None``: the agent has none, and runs inside the run
            current where it is called (a graph tool's agent inside another agent's run), if
            any, so that run's limits stop it too.
    """

    def __init__(self, budget: RunBudget | None) -> None:
        self.budget = budget
        self._runs: OrderedDict[str, Run] = OrderedDict()

    def turn(self, state: Any, new_turn: bool) -> Turn | None:
        """The run of this model call (a new one when a user turn starts) and what it allows;
        ``None`` without a budget or a current run."""
        run_id = None if new_turn else state.get("run")
        run = self._runs.get(run_id) if run_id else None
        if run is None or run_id is None:
            outer = current_run()
            if self.budget is not None:
                run = Run(self.budget, parent=outer)
            elif outer is not None:
                run = outer
            else:
                return None
            run_id = uuid.uuid4().hex
            self._runs[run_id] = run
            if len(self._runs) > MAX_RUNS:
                self._runs.popitem(last=False)
        spent = run.model_limit()
        if spent is not None:
            final = AIMessage(
                content=f"I stopped before finishing: {spent} for this request was reached."
            )
            return Turn(run_id, run, spent, final)
        last = run.stopped or next(iter(_stops(run)), None) or run.model_limit(ahead=1)
        return Turn(run_id, run, last, None)

    def answered(self, turn: Turn, message: AIMessage) -> None:
        """Count the model call that gave ``message``."""
        if turn.final is None:
            turn.run.count_model_call(usage_of(message)["total_tokens"])

    @contextlib.contextmanager
    def scope(self, run_id: str | None) -> Iterator[None]:
        """Make the run ``run_id`` current (nothing when it is unknown)."""
        run = self._runs.get(run_id) if run_id else None
        if run is None:
            yield
            return
        with run.current():
            yield


def _stops(run: Run) -> Iterator[str]:
    """What already stops any tool call of ``run`` or a parent (time, calls, a stop)."""
    for each in run.chain():
        if each.stopped is not None:
            yield each.stopped
        budget = each.budget
        if budget.seconds is not None and each.elapsed >= budget.seconds:
            yield f"the time limit of {budget.seconds:g} s"
        if budget.calls is not None and each.calls >= budget.calls:
            yield f"the limit of {budget.calls} tool calls"
