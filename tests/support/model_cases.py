"""The fixed prompts of the real-model runs, what each should do, and how an answer is read.

Each :class:`Case` names the tool a run should call, the arguments it should call it with
(a free-text value such as a message body needs only to contain the words given, any case) and
a pattern the final answer should match once that tool ran. :func:`read_answer` sorts a final
answer the way a user would meet it: empty, raw tool syntax, a tool "called" in prose while
nothing ran, or a real answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CASES", "QUICK", "Case", "Reading", "exact_arguments", "read_answer"]

#: Arguments whose value is free text: the expected words need only appear in it.
_FREE = frozenset({"body", "reason"})


@dataclass(frozen=True)
class Case:
    """One prompt and what a right run does with it.

    Attributes:
        tool: The tool to call.
        prompt: What the user asks.
        arguments: The arguments to send (``None``: left out or null).
        answer: A pattern (case-insensitive) the final answer matches when it is right.
    """

    tool: str
    prompt: str
    arguments: dict[str, Any] = field(default_factory=dict)
    answer: str = ""


def _send(to: str, body: str, prompt: str, **more: Any) -> Case:
    args = {"recipient": to, "body": body, **more}
    return Case("send_message", prompt, args, r"\bsent\b|M-4")


def _book(prompt: str, **args: Any) -> Case:
    return Case("book_room", prompt, args, r"B-4")


CASES: list[Case] = [
    _send("ann@example.org", "room is ready", "Send a message to ann@example.org saying her room is ready."),
    _send("bo@example.org", "booking is confirmed", "Email bo@example.org: your booking is confirmed."),
    _send("cy@example.org", "breakfast starts at 7", "Tell cy@example.org by message that breakfast starts at 7."),
    _send("dee@example.org", "flight is delayed", "Send an urgent message to dee@example.org: the flight is delayed.", urgent=True),
    _send("eve@example.org", "check-out is at 11", "Message eve@example.org that check-out is at 11."),
    _send("fay@example.org", "thank you for staying with us", "Please send fay@example.org a note: thank you for staying with us."),
    _book("Book a room for Ann Lee for 2 nights.", guest="Ann Lee", nights=2),
    _book("Book 3 nights at Dune Lodge for Bo Chen.", guest="Bo Chen", nights=3, hotel="Dune Lodge"),
    _book("Reserve a hotel room for Cy Park, 1 night, without breakfast.", guest="Cy Park", nights=1, breakfast=False),
    _book("I need a room for Dee Rao for 4 nights.", guest="Dee Rao", nights=4),
    _book("Book Eve Moss into the Harbour Inn for 2 nights.", guest="Eve Moss", nights=2, hotel="Harbour Inn"),
    _book("Make a booking for Fay Lin, 5 nights.", guest="Fay Lin", nights=5),
    Case("list_bookings", "List all bookings.", {"guest": None}, r"B-1.*B-3|B-3.*B-1"),
    Case("list_bookings", "Show me the bookings of Ann Lee.", {"guest": "Ann Lee"}, r"B-1"),
    Case("list_bookings", "What bookings do we have?", {"guest": None}, r"B-1.*B-3|B-3.*B-1"),
    Case("list_bookings", "Show the last 3 bookings.", {"guest": None, "limit": 3}, r"B-1.*B-3|B-3.*B-1"),
    Case("list_bookings", "Which bookings does Bo Chen have?", {"guest": "Bo Chen"}, r"B-2"),
    Case("list_bookings", "List bookings, at most 5.", {"guest": None, "limit": 5}, r"B-1.*B-3|B-3.*B-1"),
    Case("cancel_booking", "Cancel booking B-1.", {"booking_id": "B-1"}, r"cancel"),
    Case("cancel_booking", "Please cancel the booking B-2 because the guest is ill.", {"booking_id": "B-2", "reason": "ill"}, r"cancel"),
    Case("cancel_booking", "Cancel B-3.", {"booking_id": "B-3"}, r"cancel"),
    Case("cancel_booking", "The customer wants booking B-1 cancelled.", {"booking_id": "B-1"}, r"cancel"),
    Case("cancel_booking", "Cancel booking B-2, reason: double booking.", {"booking_id": "B-2", "reason": "double booking"}, r"cancel"),
    Case("cancel_booking", "Remove booking B-3.", {"booking_id": "B-3"}, r"cancel|remov"),
]  # fmt: skip

#: One prompt per tool, for quick runs.
QUICK = [CASES[0], CASES[6], CASES[12], CASES[18]]

_TOOLS = ("send_message", "book_room", "list_bookings", "cancel_booking")
_RAW = re.compile(
    r"<ACTION|</?(?:send_message|book_room|list_bookings|cancel_booking)>|functions\.\w+"
    r"|<tool_call>|\{\s*\"(?:name|arguments)\"\s*:",
    re.IGNORECASE,
)
_CLAIM = re.compile(
    r"\b(?:sent|booked|reserved|cancell?ed|emailed|messaged|(?:have|'ve) (?:called|used))\b"
    r"|" + "|".join(_TOOLS),
    re.IGNORECASE,
)
_BARE = re.compile(r"^\s*functions\.[\w.-]*:?\s*$")


@dataclass(frozen=True)
class Reading:
    """How a final answer reads to its user.

    Attributes:
        empty: Nothing to read (empty, blank, or a bare ``functions.NAME:``).
        raw_syntax: Tool-call syntax shown as text (``<ACTION>``, ``functions.X``, JSON calls).
        prose_call: It claims an action or names a tool while no tool ran.
        right: The right tool ran with success and the answer says what the case expects.
    """

    empty: bool
    raw_syntax: bool
    prose_call: bool
    right: bool


def read_answer(case: Case, text: str, ran: list[str], right_tool_ok: bool) -> Reading:
    """Read ``text``, the final answer of a run of ``case`` in which ``ran`` tools ran."""
    empty = not text.strip() or bool(_BARE.match(text))
    raw = not empty and bool(_RAW.search(text))
    prose = not empty and not ran and bool(_CLAIM.search(text))
    right = (
        right_tool_ok
        and not empty
        and not raw
        and bool(re.search(case.answer, text, re.IGNORECASE | re.DOTALL))
    )
    return Reading(empty, raw, prose, right)


def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9-]+", text.lower()))


def exact_arguments(case: Case, sent: Any) -> bool:
    """Whether ``sent`` holds the arguments ``case`` expects (free text: the words in it)."""
    if not isinstance(sent, dict):
        return False
    for key, want in case.arguments.items():
        got = sent.get(key)
        if want is None:
            if got is not None:
                return False
        elif key in _FREE:
            if not isinstance(got, str) or _words(str(want)) not in _words(got):
                return False
        elif got != want:
            return False
    return True
