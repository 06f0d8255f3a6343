"""What the call path works out once and reuses (a registry's chain, its settings, a worker's
wake-up) stays right when registries, runs and options change from one call to the next."""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from typing import Any

import anyio
import pytest

from toolkit import (
    CallNext,
    CallOptions,
    CallRecord,
    ErrorCode,
    ToolCall,
    ToolContext,
    ToolRegistry,
    ToolResult,
    mcp_tool,
)
from toolkit.calls import _redact, _wakeup, _workers
from toolkit.calls._new_context import new_context
from toolkit.calls._new_record import new_call_record
from toolkit.calls._redact import masked_arguments, scrub_secrets


@mcp_tool
def bin_of(code: str) -> str:
    """Say where an article is kept.

    Args:
        code: The article code.
    """
    return f"bin {code}"


class Stamp:
    """Inline: writes its mark on the result."""

    inline = True

    def __init__(self, mark: str) -> None:
        self.mark = mark

    async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        result = await call_next(call)
        result.content = f"{result.content} {self.mark}"
        return result


class Waits:
    """Not inline: awaits the event loop before going on (``call_sync`` must not drive it)."""

    async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        await anyio.sleep(0)
        return await call_next(call)


def _registry(*middleware: object, timeout: float | None = None) -> ToolRegistry:
    registry = ToolRegistry(timeout=timeout, middleware=list(middleware))  # type: ignore[arg-type]
    registry.register(bin_of)
    return registry


def test_registries_with_other_middleware_called_in_turn_each_get_their_own_chain() -> None:
    stamped, waiting, plain = _registry(Stamp("[a]")), _registry(Waits(), Stamp("[b]")), _registry()
    for _ in range(3):
        assert stamped.call_sync("bin_of", {"code": "A1"}).content == "bin A1 [a]"
        assert waiting.call_sync("bin_of", {"code": "A1"}).content == "bin A1 [b]"
        assert plain.call_sync("bin_of", {"code": "A1"}).content == "bin A1"


def test_a_calls_own_middleware_joins_the_registrys_for_that_call_only() -> None:
    registry = _registry(Stamp("[r]"))
    own = CallOptions(middleware=[Stamp("[c]")])
    assert registry.call_sync("bin_of", {"code": "B2"}, options=own).content == "bin B2 [c] [r]"
    assert registry.call_sync("bin_of", {"code": "B2"}).content == "bin B2 [r]"


def test_each_run_counts_its_own_calls_even_right_after_another_run() -> None:
    registry = _registry(Stamp("[r]"))
    for _ in range(2):
        with registry.run(calls=1):
            assert registry.call_sync("bin_of", {"code": "C3"}).content == "bin C3 [r]"
            refused = registry.call_sync("bin_of", {"code": "C3"})
            assert refused.code is ErrorCode.BUDGET_EXCEEDED
    assert registry.call_sync("bin_of", {"code": "C3"}).content == "bin C3 [r]"  # no run now


@mcp_tool
def pack(seconds: float) -> str:
    """Pack an order, which takes a while.

    Args:
        seconds: How long packing takes.
    """
    time.sleep(seconds)
    return "packed"


def test_registries_with_other_timeouts_called_in_turn_each_keep_their_own() -> None:
    quick, patient = ToolRegistry(timeout=0.05), ToolRegistry()
    for registry in (quick, patient):
        registry.register(pack)
    assert quick.call_sync("pack", {"seconds": 0.3}).code is ErrorCode.TIMEOUT
    assert patient.call_sync("pack", {"seconds": 0.1}).content == "packed"
    assert quick.call_sync("pack", {"seconds": 0.3}).code is ErrorCode.TIMEOUT
    own = CallOptions(timeout=1.0)  # the call's options win over the registry's settings
    assert quick.call_sync("pack", {"seconds": 0.1}, options=own).content == "packed"


# Both kinds where the system has eventfd; the lock alone (its fallback) where it has not.
WAKEUPS = ["event", "lock"] if hasattr(os, "eventfd") else ["lock"]


@pytest.mark.parametrize("kind", WAKEUPS)
def test_a_wakeup_wakes_its_waiter_once_and_times_out_without_one(kind: str) -> None:
    wakeup: _wakeup.Wakeup = _wakeup.EventWakeup() if kind == "event" else _wakeup.LockWakeup()
    try:
        assert wakeup.wait(0.01) is False
        woke: list[bool] = []
        waiter = threading.Thread(target=lambda: woke.append(wakeup.wait(5.0)))
        waiter.start()
        wakeup.wake()
        waiter.join(5.0)
        assert woke == [True]
        assert wakeup.wait(0.01) is False  # one wake-up, one run
        wakeup.wake()
        assert wakeup.wait(None) is True
    finally:
        wakeup.close()


def test_without_eventfd_a_worker_waits_on_a_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "eventfd", raising=False)
    wakeup = _wakeup.new_wakeup()
    assert isinstance(wakeup, _wakeup.LockWakeup)


def test_an_idle_worker_still_leaves_after_its_idle_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_workers, "_IDLE_SECONDS", 0.5)
    worker = _workers._Worker()
    with _workers._guard:  # idle, as after a call; nobody picks it
        _workers._idle.insert(0, worker)
    deadline = time.monotonic() + 10
    while worker in _workers._idle and time.monotonic() < deadline:
        time.sleep(0.05)
    assert worker not in _workers._idle
    while time.monotonic() < deadline and any(
        t.native_id == worker.native_id for t in threading.enumerate()
    ):
        time.sleep(0.05)
    assert all(t.native_id != worker.native_id for t in threading.enumerate())


def test_the_call_paths_record_is_the_record_the_class_makes() -> None:
    fields: dict[str, Any] = {"call_id": "c-1", "tool": "bin_of", "outcome": "ok", "code": None}
    made = new_call_record(**fields, arguments={"code": "E5"}, duration_ms=1.5, attempts=1)
    assert made == CallRecord(**fields, arguments={"code": "E5"}, duration_ms=1.5, attempts=1)
    assert type(made) is CallRecord and made.peer is None and made.decision == "allow"
    registry = _registry()
    record = registry.call_sync("bin_of", {"code": "E5"}).record
    assert record is not None and record.tool == "bin_of" and record.arguments == {"code": "E5"}


def test_the_call_paths_context_is_the_context_the_class_makes() -> None:
    made = new_context("bin_of", "c-1")
    assert made == ToolContext(tool="bin_of", call_id="c-1") and type(made) is ToolContext
    assert {f.name for f in dataclasses.fields(ToolContext)} == set(ToolContext.__slots__)
    for name in ToolContext.__slots__:  # every field is set: a new one must be added there too
        getattr(made, name)
    other = new_context("bin_of", "c-2")
    assert other.values is not made.values and other.injected is not made.injected


@mcp_tool
def sign_in(user: str, api_token: str, note: str, tries: int) -> str:
    """Sign a user in.

    Args:
        user: The user id.
        api_token: The user's token.
        note: Free text.
        tries: How many times so far.
    """
    return "signed in"


def test_flat_arguments_reach_the_record_masked_scrubbed_and_uncopied_when_clean() -> None:
    registry = ToolRegistry(secrets=("u42x",))
    registry.register(sign_in)
    aws_key = "AKIAIOSFODNN7EXAMPLE"  # letters and digits only, and a secret's shape
    arguments = {"user": "u42x", "api_token": "t0ken", "note": aws_key, "tries": 2}
    given = dict(arguments)
    record = registry.call_sync("sign_in", arguments).record
    assert record is not None and arguments == given
    assert record.arguments == {"user": "***", "api_token": "***", "note": "***", "tries": 2}
    clean = {"user": "ada", "api_token": "", "note": "first try", "tries": 1}
    record = registry.call_sync("sign_in", {**clean, "api_token": "t0ken"}).record
    assert record is not None and record.arguments == {**clean, "api_token": "***"}


@pytest.mark.parametrize(
    ("text", "scrubbed"),
    [
        ("AKIAIOSFODNN7EXAMPLE", "***"),
        ("ASIAIOSFODNN7EXAMPLE", "***"),
        ("AKIAIOSFODNN7EXAMPL", "AKIAIOSFODNN7EXAMPL"),
        ("o7", "o7"),
        ("Bearer abcdefgh", "Bearer ***"),
        ("token=abc", "token=***"),
    ],
)
def test_a_short_string_of_letters_and_digits_is_the_only_one_the_scrubber_skips(
    text: str, scrubbed: str
) -> None:
    assert scrub_secrets(text) == scrubbed


def test_the_argument_names_remembered_stay_few_and_short() -> None:
    for i in range(_redact._SECRET_NAMES_KEPT + 10):
        assert masked_arguments({f"field_{i}": "v"}) == {f"field_{i}": "v"}
    long_name = "x" * 10_000 + "_token"
    assert masked_arguments({long_name: "t0ken"}) == {long_name: "***"}
    assert len(_redact._SECRET_NAMES) <= _redact._SECRET_NAMES_KEPT
    assert all(len(name) <= _redact._NAME_KEPT_CHARS for name in _redact._SECRET_NAMES)
