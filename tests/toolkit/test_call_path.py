"""The one call path: every error code, its message, retries, timeouts, injection, records."""

from __future__ import annotations

import json
import time

import pytest

from tests.toolkit import tools_for_tests as t
from toolkit import (
    Approval,
    CallOptions,
    ErrorCode,
    ExceptionProcessor,
    ToolContext,
    ToolError,
    ToolRegistry,
)


@pytest.fixture
def registry() -> ToolRegistry:
    reg = ToolRegistry(secrets=["sk-live-123456"])
    reg.scan(t)
    return reg


def test_success_sync_and_structured(registry: ToolRegistry) -> None:
    result = registry.call_sync("add", {"a": 2, "b": 3})
    assert not result.is_error
    assert result.content == "5"
    assert result.structured == {"result": 5}
    assert result.record is not None and result.record.outcome == "ok"


@pytest.mark.anyio
async def test_success_async_model_result_is_json_not_repr(registry: ToolRegistry) -> None:
    result = await registry.call(
        "find_player", {"player_id": 7}, ToolContext(values={"tenant": "acme"})
    )
    assert json.loads(result.content) == {"player_id": 7, "name": "acme"}
    assert result.structured == {"player_id": 7, "name": "acme"}


def test_arguments_as_json_string(registry: ToolRegistry) -> None:
    assert registry.call_sync("add", '{"a": 1}').content == "2"


def test_tool_not_found_lists_closest(registry: ToolRegistry) -> None:
    result = registry.call_sync("ad", {"a": 1})
    assert result.is_error and result.code is ErrorCode.TOOL_NOT_FOUND
    assert "Did you mean 'add'" in result.content
    assert "Available tools:" in result.content and "find_player" in result.content
    assert result.content.startswith("Error [TOOL_NOT_FOUND]")


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [("{not json", "invalid JSON"), ("[1, 2]", "JSON list"), ('"text"', "JSON str")],
)
def test_parse_error(registry: ToolRegistry, raw: str, fragment: str) -> None:
    result = registry.call_sync("add", raw)
    assert result.code is ErrorCode.PARSE_ERROR
    assert fragment in result.content and "JSON object" in result.content


def test_unknown_parameter_did_you_mean(registry: ToolRegistry) -> None:
    result = registry.call_sync("find_player", {"playerid": 3})
    assert result.code is ErrorCode.INVALID_PARAMS
    assert "`playerid`: unknown parameter; did you mean `player_id`?" in result.content
    assert (
        "`player_id`: required parameter is missing (expected integer >= 1: The player's id.)"
        in result.content
    )


def test_wrong_type_and_range_each_on_own_line(registry: ToolRegistry) -> None:
    result = registry.call_sync("add", {"a": "seven", "b": [1]})
    assert result.code is ErrorCode.INVALID_PARAMS
    lines = [ln for ln in result.content.splitlines() if ln.startswith("- ")]
    assert len(lines) == 2
    assert lines[0].startswith("- `a`:") and "expected integer: First number." in lines[0]
    out_of_range = registry.call_sync("find_player", {"player_id": 0})
    assert "`player_id`" in out_of_range.content and ">= 1" in out_of_range.content


def test_lax_coercion_of_numeric_strings(registry: ToolRegistry) -> None:
    assert registry.call_sync("add", {"a": "4", "b": "5"}).content == "9"


def test_json_string_fallback_for_object_and_array_params(registry: ToolRegistry) -> None:
    result = registry.call_sync("tag_items", {"items": '["x", "y"]', "labels": '{"x": 2}'})
    assert not result.is_error, result.content
    assert result.structured == {"x": 2, "y": 0}


def test_no_json_string_decoding_for_str_params(registry: ToolRegistry) -> None:
    result = registry.call_sync("crash", {"message": '{"a": 1}'})
    assert result.code is ErrorCode.EXECUTION_ERROR
    assert 'ValueError: {"a": 1}' in result.content


def test_unknown_params_ignore_option() -> None:
    from toolkit import mcp_tool

    @mcp_tool(unknown_params="ignore")
    def echo(text: str) -> str:
        """Echo.

        Args:
            text: Text.
        """
        return text

    reg = ToolRegistry()
    reg.register(echo)
    assert reg.call_sync("echo", {"text": "x", "extra": 1}).content == "x"


def test_tool_error_passes_verbatim(registry: ToolRegistry) -> None:
    result = registry.call_sync("find_player", {"player_id": 404})
    assert result.code is ErrorCode.EXECUTION_ERROR
    assert "Player 404 does not exist." in result.content
    assert "find_player" in result.content and result.content.startswith("Error [EXECUTION_ERROR]")
    assert "Traceback" not in result.content


def test_plain_exception_message_names_type_no_traceback(registry: ToolRegistry, caplog) -> None:
    result = registry.call_sync("crash", {"message": "bin 404 not found"})
    assert "ValueError: bin 404 not found" in result.content
    assert "Traceback" not in result.content and "File " not in result.content
    assert f"(ref {result.call_id})" in result.content
    assert any(
        result.call_id in r.getMessage() and "Traceback" in r.getMessage() for r in caplog.records
    )


def test_secrets_are_redacted_in_messages_and_records(registry: ToolRegistry) -> None:
    result = registry.call_sync("login", {"user": "bob", "password": "hunter22"})
    assert "hunter22" not in result.content and "***" in result.content
    assert result.record is not None and result.record.arguments["password"] == "***"
    leaky = ToolRegistry(secrets=["sk-live-123456"])

    def boom(token_hint: str) -> str:
        """Fails with a configured secret in the message.

        Args:
            token_hint: Anything.
        """
        raise RuntimeError("upstream said sk-live-123456 is invalid")

    leaky.register(boom)
    assert "sk-live-123456" not in leaky.call_sync("boom", {"token_hint": "x"}).content


@pytest.mark.anyio
async def test_timeout_async_and_sync(registry: ToolRegistry) -> None:
    for name in ("slow_async", "slow_sync"):
        t0 = time.monotonic()
        result = await registry.call(name, {})
        assert result.code is ErrorCode.TIMEOUT, result.content
        assert "did not finish within 0.2 s" in result.content
        assert "may be temporary" in result.content
        assert time.monotonic() - t0 < 3


def test_retries_with_backoff_until_success() -> None:
    flaky = t.Flaky(failures=2)
    reg = ToolRegistry()
    reg.configure(retry_wait=(0.01, 0.01))
    reg.scan(flaky)
    result = reg.call_sync("fetch", {"key": "k"})
    assert result.content == "value of k"
    assert result.record is not None and result.record.attempts == 3 and flaky.calls == 3


def test_retries_exhausted_gives_message() -> None:
    flaky = t.Flaky(failures=10)
    reg = ToolRegistry()
    reg.configure(retry_wait=(0.01, 0.01))
    reg.scan(flaky)
    result = reg.call_sync("fetch", {"key": "k"})
    assert (
        result.code is ErrorCode.EXECUTION_ERROR
        and "ConnectionError: backend busy" in result.content
    )
    assert flaky.calls == 4


def test_processor_rules_message_retry_raise(registry: ToolRegistry) -> None:
    proc = (
        ExceptionProcessor()
        .on(PermissionError, message="You may not log in as this user; ask a human.", code="DENIED")
        .on(ValueError, action="raise")
    )
    reg = ToolRegistry(processor=proc)
    reg.scan(t)
    denied = reg.call_sync("login", {"user": "a", "password": "b"})
    assert denied.code is ErrorCode.DENIED and "ask a human" in denied.content
    with pytest.raises(ValueError, match="boom"):
        reg.call_sync("crash", {"message": "boom"})
    calls = {"n": 0}

    def sometimes() -> str:
        """Fails once with KeyError."""
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyError("first")
        return "ok"

    retrying = ToolRegistry(processor=ExceptionProcessor().on(KeyError, action="retry", retries=1))
    retrying.configure(retry_wait=(0.0, 0.0))
    retrying.register(sometimes)
    assert retrying.call_sync("sometimes").content == "ok" and calls["n"] == 2


def test_always_raise_mode() -> None:
    reg = ToolRegistry(processor=ExceptionProcessor(always_raise=True))
    reg.scan(t)
    with pytest.raises(ValueError):
        reg.call_sync("crash", {"message": "x"})
    with pytest.raises(ToolError) as info:
        reg.call_sync("nope", {})
    assert info.value.code is ErrorCode.TOOL_NOT_FOUND


def test_mask_unexpected_hides_text_keeps_ref() -> None:
    reg = ToolRegistry(processor=ExceptionProcessor(mask_unexpected=True))
    reg.scan(t)
    result = reg.call_sync("crash", {"message": "db password is xyz"})
    assert "xyz" not in result.content and "internal error" in result.content
    assert result.call_id in result.content
    assert "does not exist" in reg.call_sync("find_player", {"player_id": 404}).content


def test_per_tool_processor_overrides_registry() -> None:
    from toolkit import mcp_tool

    @mcp_tool(processor=ExceptionProcessor().on(LookupError, message="No such thing; list first."))
    def lookup(key: str) -> str:
        """Look up.

        Args:
            key: Key.
        """
        raise LookupError(key)

    reg = ToolRegistry(processor=ExceptionProcessor().on(LookupError, action="raise"))
    reg.register(lookup)
    assert "No such thing; list first." in reg.call_sync("lookup", {"key": "k"}).content


def test_injected_params_filled_by_caller_never_by_model(registry: ToolRegistry) -> None:
    assert "user" not in registry.get("whoami").spec.parameters
    ok = registry.call_sync("whoami", {}, ToolContext(injected={"user": "ann"}))
    assert ok.content == "hi ann"
    forged = registry.call_sync("whoami", {"user": "root"}, ToolContext(injected={"user": "ann"}))
    assert forged.code is ErrorCode.INVALID_PARAMS
    assert "set by the application" in forged.content
    assert "ctx" not in registry.get("find_player").spec.parameters


def test_policy_deny_ask_and_approvals(registry: ToolRegistry) -> None:
    no_approver = registry.call_sync("wipe", {"scope": "all"})
    assert no_approver.code is ErrorCode.DENIED and "approval" in no_approver.content
    assert no_approver.record is not None and no_approver.record.decision == "deny"

    approved = registry.call_sync(
        "wipe", {"scope": "all"}, options=CallOptions(approver=lambda req: Approval(True))
    )
    assert approved.content == "wiped all" and approved.record.decision == "approved"

    edited = registry.call_sync(
        "wipe",
        {"scope": "all"},
        options=CallOptions(approver=lambda req: Approval(True, arguments={"scope": "tmp"})),
    )
    assert edited.content == "wiped tmp" and edited.record.decision == "edited"

    rejected = registry.call_sync(
        "wipe",
        {"scope": "all"},
        options=CallOptions(approver=lambda req: Approval(False, reason="too risky")),
    )
    assert rejected.code is ErrorCode.DENIED and "Reason: too risky. Do not" in rejected.content
    assert rejected.record.decision == "rejected"

    deny_all = registry.call_sync("add", {"a": 1}, options=CallOptions(policy=lambda req: "deny"))
    assert deny_all.code is ErrorCode.DENIED and "policy" in deny_all.content


@pytest.mark.anyio
async def test_call_many_isolates_failures_and_keeps_order(registry: ToolRegistry) -> None:
    results = await registry.call_many(
        [
            ("add", {"a": 1}, "c1"),
            ("crash", {"message": "x"}, "c2"),
            ("nope", {}, "c3"),
            ("add", {"a": 5}),
        ]
    )
    assert [r.is_error for r in results] == [False, True, True, False]
    assert [r.call_id for r in results[:3]] == ["c1", "c2", "c3"]
    assert results[3].content == "6"


def test_records_are_observable(registry: ToolRegistry) -> None:
    seen = []
    unsubscribe = registry.subscribe(seen.append)
    registry.call_sync("add", {"a": 1})
    registry.call_sync("crash", {"message": "x"})
    unsubscribe()
    registry.call_sync("add", {"a": 1})
    assert [(r.tool, r.outcome, r.code) for r in seen] == [
        ("add", "ok", None),
        ("crash", "error", ErrorCode.EXECUTION_ERROR),
    ]
    assert all(r.duration_ms >= 0 for r in seen) and len(registry.records) == 3


def test_call_sync_inside_running_loop_is_safe(registry: ToolRegistry) -> None:
    import anyio

    async def inside() -> str:
        return registry.call_sync("find_player", {"player_id": 2}).content

    assert json.loads(anyio.run(inside))["player_id"] == 2


def test_records_hold_json_data_not_validated_objects() -> None:
    from adapters.demo.warehouse_app import build_registry

    registry = build_registry()
    registry.call_sync("set_bin_status", {"code": "A-01-01", "status": "locked"})
    (record,) = registry.records
    assert record.arguments == {"code": "A-01-01", "status": "locked"}
    assert type(record.arguments["status"]) is str
    assert json.loads(str(record))["arguments"]["status"] == "locked"


def test_no_did_you_mean_guess_from_a_single_letter(registry: ToolRegistry) -> None:
    result = registry.call_sync("a", {})
    assert result.code is ErrorCode.TOOL_NOT_FOUND
    assert "Did you mean" not in result.content and "Available tools:" in result.content
    assert "did you mean" not in registry.call_sync("add", {"a": 1, "x": 2}).content


def test_waiting_for_approval_is_not_the_calls_duration() -> None:
    def slow_question(request: object) -> Approval:
        time.sleep(1.5)  # a person reading the question
        return Approval(approved=True)

    def nap() -> str:
        """Sleep a little."""
        time.sleep(0.2)
        return "done"

    def refuse(request: object) -> Approval:
        time.sleep(1.5)
        return Approval(approved=False, reason="not today")

    reg = ToolRegistry(policy=lambda request: "ask")
    reg.register(nap)
    approved = reg.call_sync("nap", options=CallOptions(approver=slow_question))
    assert approved.content == "done" and approved.record is not None
    assert approved.record.decision == "approved"
    # The tool's own 0.2 s is there; the 1.5 s of the question is not.
    assert 200 <= approved.record.duration_ms < 1500
    rejected = reg.call_sync("nap", options=CallOptions(approver=refuse))
    assert rejected.code is ErrorCode.DENIED and rejected.record is not None
    assert rejected.record.duration_ms < 1500
