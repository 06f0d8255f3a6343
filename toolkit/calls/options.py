"""``CallOptions``: everything a caller may set for one call, in one typed value.

Every entry point (``registry.call``, ``call_sync``, ``call_many``, the LangChain tools, the
LangGraph tool node, the MCP server, the CLI) takes the same options and hands them down
unchanged, so adding an option touches this definition and the step that reads it, nothing else.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolkit.calls.unset import UNSET, Unset
from toolkit.context import ToolContext
from toolkit.policy import Approver, Policy

if TYPE_CHECKING:
    from toolkit.governance.middleware import Middleware
    from toolkit.result import CallRecord

__all__ = ["CallOptions"]


@dataclass(frozen=True, slots=True)
class CallOptions:
    """Per-call options; every field left at its default means "the registry's setting".

    Attributes:
        context: Caller data the model cannot see or set (tenant, user, injected values).
        call_id: The model's tool-call id (default: a fresh correlation id).
        policy: Decides allow / deny / ask for this call instead of the registry's policy.
        approver: Answers ``"ask"`` for this call instead of the registry's approver.
        propagate: Exception types that always propagate out of the call (a framework's
            interrupt, for instance) instead of becoming an error result.
        timeout: Seconds for this call, winning over the tool's and the registry's timeout;
            ``None`` runs it with no timeout, :data:`~toolkit.UNSET` (the default) leaves the
            tool's or the registry's.
        on_record: Called with this call's :class:`~toolkit.CallRecord`, after the registry's
            own subscribers.
        caller: Who makes the call (a user, tenant or client id): the call's record, and so the
            call log, names it. A server sets it where the call arrives.
        peer: The network address the call came from, when it came over a network.
        hide_denied: The caller sees only the tools the policy does not deny it (see
            :meth:`~toolkit.ToolRegistry.visible_names`): any other tool is ``TOOL_NOT_FOUND``
            before its arguments are read, and every message names visible tools only. Sinks
            that list tools per caller (the MCP server with callers) set it.
        middleware: :class:`~toolkit.Middleware` for this call, inside the registry's (the
            first listed is the outermost); see ``docs/middleware.md``.
        result_budget: Characters of the result the model may read for this call, winning
            over the tool's and the registry's budget (``0``: no limit; see
            :mod:`toolkit.results.budget`).

    Example:
        >>> from toolkit import CallOptions
        >>> options = CallOptions(call_id="call_1", timeout=5.0)
        >>> options.replace(timeout=1.0).timeout
        1.0
    """

    context: ToolContext | None = None
    call_id: str | None = None
    policy: Policy | None = None
    approver: Approver | None = None
    propagate: tuple[type[BaseException], ...] = ()
    timeout: float | Unset | None = UNSET
    on_record: Callable[[CallRecord], None] | None = None
    hide_denied: bool = False
    middleware: Sequence[Middleware] | None = None
    result_budget: int | None = None
    caller: str | None = None
    peer: str | None = None

    def replace(self, **changes: Any) -> CallOptions:
        """A copy with ``changes`` applied."""
        return dataclasses.replace(self, **changes)


#: The options of a call that sets nothing.
DEFAULT_OPTIONS = CallOptions()


_NAMES = tuple(field.name for field in dataclasses.fields(CallOptions))
#: The fields after ``context`` and ``call_id``, read in one call: a ``replace()`` costs 2.5x.
_rest = operator.attrgetter(*_NAMES[2:])


def merge_options(
    options: CallOptions | None,
    *,
    context: ToolContext | None = None,
    call_id: str | None = None,
) -> CallOptions:
    """``options`` with the entry points' ``context=`` and ``call_id=`` keywords applied on top.

    A keyword that is given wins over the field of ``options``; every other per-call choice is
    a field of :class:`CallOptions`, its one spelling.
    """
    base = options or DEFAULT_OPTIONS
    if context is None and call_id is None:
        return base
    if base is DEFAULT_OPTIONS:  # the usual case: one constructor call, not a replace()
        return CallOptions(context=context, call_id=call_id)
    if _NAMES[:2] == ("context", "call_id"):
        return CallOptions(
            base.context if context is None else context,
            base.call_id if call_id is None else call_id,
            *_rest(base),
        )
    changes: dict[str, Any] = {}
    if context is not None:
        changes["context"] = context
    if call_id is not None:
        changes["call_id"] = call_id
    return dataclasses.replace(base, **changes)
