"""The result budget: a corpus of oversized results of every shape, cut in the one call path.

For each shape: what the model reads never exceeds the budget, cut JSON parses, the note says
how to read more, and the kept copy is the full result, byte for byte.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support import big_results
from tests.support.big_results import NEEDLE
from toolkit import (
    CallOptions,
    ErrorCode,
    ImageContent,
    TextContent,
    ToolContext,
    ToolRegistry,
    ToolResult,
    mcp_tool,
)
from toolkit.calls.settings import RegistrySettings
from toolkit.results.budget import (
    DEFAULT_RESULT_BUDGET,
    NO_BUDGET,
    READ_RESULT,
    fit_result,
    model_size,
)
from toolkit.results.store import MemoryResultStore, SqliteResultStore

BUDGET = 20_000

CORPUS = [
    ("json_array", {"mb": 1}),
    ("json_array", {"mb": 8}),
    ("json_object", {"mb": 4}),
    ("json_text", {"mb": 6}),
    ("nested", {"depth": 6, "width": 4}),
    ("server_log", {"mb": 50}),
    ("html_page", {"mb": 3}),
    ("csv_table", {"mb": 3}),
    ("image", {"kb": 600}),
    ("haystack", {"mb": 20, "seed": 5}),
]


def _registry(budget: int = BUDGET) -> ToolRegistry:
    return big_results.fresh_registry(budget)


def _model_text(result: ToolResult) -> str:
    """Everything the model reads of ``result`` (base64 of images included), as one string."""
    if not result.blocks:
        return result.content
    parts = [] if any(isinstance(b, TextContent) for b in result.blocks) else [result.content]
    for block in result.blocks:
        parts.append(block.text if isinstance(block, TextContent) else getattr(block, "data", ""))
    return "".join(parts)


@pytest.fixture(scope="module")
def corpus() -> dict[str, tuple[ToolResult, ToolResult, ToolRegistry]]:
    registry = _registry()
    out = {}
    for name, args in CORPUS:
        full = registry.call_sync(name, args, options=CallOptions(result_budget=NO_BUDGET))
        cut = registry.call_sync(name, args)
        out[f"{name}{args}"] = (full, cut, registry)
    return out


@pytest.mark.parametrize("key", [f"{n}{a}" for n, a in CORPUS])
def test_no_message_to_the_model_exceeds_the_budget(corpus: dict[str, Any], key: str) -> None:
    full, cut, _ = corpus[key]
    assert len(_model_text(full)) > BUDGET
    assert len(_model_text(cut)) <= BUDGET
    assert cut.cut is not None and cut.cut.full_size == len(_model_text(full))
    assert cut.record.full_size == cut.cut.full_size and cut.record.was_cut
    assert not cut.is_error


@pytest.mark.parametrize("key", [f"{n}{a}" for n, a in CORPUS])
def test_the_note_says_the_size_what_was_left_out_and_how_to_read_more(
    corpus: dict[str, Any], key: str
) -> None:
    _, cut, _ = corpus[key]
    note = cut.content[cut.content.rindex("\n[Result cut") :]
    assert f"{cut.cut.full_size:,} characters" in note and "Left out: " in note
    assert f'read_result(call_id="{cut.call_id}"' in note


@pytest.mark.parametrize(
    "key", [f"{n}{a}" for n, a in CORPUS if n in ("json_array", "json_object", "nested")]
)
def test_cut_json_parses_and_keeps_its_shape(corpus: dict[str, Any], key: str) -> None:
    full, cut, _ = corpus[key]
    value, end = json.JSONDecoder().raw_decode(cut.content)
    assert cut.content[end:].startswith("\n[Result cut")
    assert value == cut.structured
    original = full.structured
    assert type(value) is type(original)
    if isinstance(original, dict):
        assert list(value) == list(original)  # objects keep every key
        inner = original.get("result", original.get("rows"))
        if isinstance(inner, list):  # a list keeps its first items, unchanged
            kept = value.get("result", value.get("rows"))
            assert kept and kept == inner[: len(kept)]


@pytest.mark.parametrize("key", [f"{n}{a}" for n, a in CORPUS])
def test_the_kept_copy_is_the_full_result_byte_for_byte(corpus: dict[str, Any], key: str) -> None:
    full, cut, registry = corpus[key]
    kept = registry.settings.result_store.get(cut.call_id)
    assert kept.text.encode() == full.content.encode()
    assert kept.tool == cut.tool


def test_json_sent_as_text_keeps_whole_items_and_parses(corpus: dict[str, Any]) -> None:
    full, cut, _ = corpus["json_text{'mb': 6}"]
    assert full.structured is None and cut.structured is None
    value, end = json.JSONDecoder().raw_decode(cut.content)
    assert cut.content[end:].startswith("\n[Result cut")
    assert value == json.loads(full.content)[: len(value)] and len(value) > 100
    assert cut.content[:end] == full.content[: end - 1] + "]"  # as written, then closed


def test_the_image_is_replaced_by_a_note_with_its_size(corpus: dict[str, Any]) -> None:
    _, cut, _ = corpus["image{'kb': 600}"]
    assert not any(isinstance(b, ImageContent) for b in cut.blocks)
    texts = [b.text for b in cut.blocks if isinstance(b, TextContent)]
    assert texts[0] == "The warehouse floor plan."
    assert "image (image/png, 800,012 characters of base64) left out" in texts[1]


def test_text_keeps_head_and_tail_on_whole_lines(corpus: dict[str, Any]) -> None:
    full, cut, _ = corpus["server_log{'mb': 50}"]
    head, _, rest = cut.content.partition("\n[… ")
    assert full.content.startswith(head + "\n")  # the head ends on a whole line
    tail = rest[rest.index("…]\n") + 3 : rest.index("\n[Result cut")]
    assert full.content.endswith(tail + "\n") or full.content.endswith(tail)
    assert tail.startswith("2026-11-27T")
    csv_cut = corpus["csv_table{'mb': 3}"][1]
    assert csv_cut.content.startswith("id,sku,place,qty\n")


def test_a_result_under_the_budget_is_the_same_object() -> None:
    result = ToolResult(content="x" * 100, structured=None)
    store = MemoryResultStore()
    same = fit_result(result, 1_000, call_id="c", context_values={}, store=store)
    assert same is result and result.cut is None and len(store) == 0
    big = ToolResult(content="y" * 5_000)
    assert fit_result(big, NO_BUDGET, call_id="c", context_values={}, store=store) is big
    registry = _registry()
    small = registry.call_sync("server_log", {"mb": 0.001})
    assert small.cut is None and small.record is not None and small.record.full_size is None
    assert READ_RESULT not in registry  # offered only once something was cut


def test_budget_from_the_call_wins_over_the_tool_and_the_registry() -> None:
    @mcp_tool(result_budget=3_000)
    def long_text() -> str:
        """Long text."""
        return "z" * 10_000

    @mcp_tool(result_budget=NO_BUDGET)
    def never_cut() -> str:
        """Never cut."""
        return "w" * 200_000

    registry = ToolRegistry(result_budget=50_000)
    registry.register(long_text)
    registry.register(never_cut)
    assert len(registry.call_sync("long_text", {}).content) <= 3_000
    options = CallOptions(result_budget=NO_BUDGET)
    assert len(registry.call_sync("long_text", {}, options=options).content) == 10_000
    assert registry.call_sync("never_cut", {}).cut is None
    assert RegistrySettings().result_budget == DEFAULT_RESULT_BUDGET == 100_000


def test_read_result_finds_a_needle_at_a_random_offset_within_three_calls() -> None:
    registry = _registry()
    for seed in random.Random(7).sample(range(1000), 3):
        cut = registry.call_sync("haystack", {"mb": 2, "seed": seed})
        note = cut.content[cut.content.rindex("[Result cut") :]
        call_id = re.search(r'call_id="([^"]+)"', note)[1]  # type: ignore[index]
        reads = 0
        found = None
        offset = 0
        while reads < 3 and found is None:
            reads += 1
            answer = registry.call_sync(READ_RESULT, {"call_id": call_id, "find": NEEDLE})
            assert len(answer.content) <= BUDGET and answer.cut is None
            found = re.search(rf"{NEEDLE} is in bin B-(\d+)", answer.content)
            offset += 1
        assert found is not None and found[1] == str(seed) and reads == 1


def test_read_result_reads_on_by_offset_to_the_end() -> None:
    registry = _registry(budget=5_000)
    cut = registry.call_sync("csv_table", {"mb": 0.05})
    full = registry.settings.result_store.get(cut.call_id).text  # type: ignore[union-attr]
    parts, offset = [], 0
    while True:
        answer = registry.call_sync(READ_RESULT, {"call_id": cut.call_id, "offset": offset})
        header, _, body = answer.content.partition("\n")
        assert len(answer.content) <= 5_000
        parts.append(body)
        found = re.search(r"offset=(\d+)\)\.\]$", header)
        if found is None:
            assert "end of the result" in header
            break
        offset = int(found[1])
    assert "".join(parts) == full


def test_read_result_answers_only_the_caller_who_made_the_call() -> None:
    registry = _registry()
    alice = CallOptions(context=ToolContext(values={"caller": "alice"}))
    cut = registry.call_sync("server_log", {"mb": 1}, options=alice)
    bob = CallOptions(context=ToolContext(values={"caller": "bob"}))
    refused = registry.call_sync(READ_RESULT, {"call_id": cut.call_id}, options=bob)
    assert refused.is_error and refused.code is ErrorCode.INVALID_PARAMS
    assert "No kept result" in refused.content
    unknown = registry.call_sync(READ_RESULT, {"call_id": "nope"}, options=alice)
    same = refused.content.replace(cut.call_id, "nope").rsplit("(ref", 1)[0]
    assert unknown.content.rsplit("(ref", 1)[0] == same  # another's result reads as unknown
    mine = registry.call_sync(READ_RESULT, {"call_id": cut.call_id}, options=alice)
    assert not mine.is_error and mine.content.startswith(f"[Result of call {cut.call_id}")


@pytest.mark.anyio
async def test_await_call_cuts_the_same_way_as_call_sync() -> None:
    registry = _registry()
    sync = registry.call_sync("json_object", {"mb": 1})
    awaited = await registry.call("json_object", {"mb": 1})
    assert awaited.content.replace(awaited.call_id, "") == sync.content.replace(sync.call_id, "")


def test_results_kept_in_a_sqlite_file_are_read_by_another_registry(tmp_path: Path) -> None:
    path = str(tmp_path / "calls.db")
    worker_a = _registry()
    worker_a.configure(result_store=SqliteResultStore(path))
    cut = worker_a.call_sync("server_log", {"mb": 1})
    worker_b = _registry()
    worker_b.configure(result_store=SqliteResultStore(path))
    from toolkit.results.reader import offer_reader

    offer_reader(worker_b)
    answer = worker_b.call_sync(READ_RESULT, {"call_id": cut.call_id, "find": "GET /orders/9999 "})
    assert not answer.is_error and "GET /orders/9999 " in answer.content
    full = worker_a.call_sync("server_log", {"mb": 1}, options=CallOptions(result_budget=0))
    assert SqliteResultStore(path).get(cut.call_id).text == full.content  # type: ignore[union-attr]


def test_without_a_store_the_note_says_the_full_result_is_not_kept() -> None:
    registry = _registry()
    registry.configure(result_store=None)
    cut = registry.call_sync("server_log", {"mb": 1})
    assert "The full result is not available" in cut.content and READ_RESULT not in cut.content
    assert cut.cut is not None and cut.cut.kept_until is None and len(cut.content) <= BUDGET


def test_model_size_counts_images_by_their_base64() -> None:
    result = ToolResult(content="", blocks=[ImageContent("a" * 500, "image/png")])
    assert model_size(result, 10) == 500


def test_the_memory_store_drops_the_oldest_past_its_size() -> None:
    from toolkit.results.store import StoredResult

    store = MemoryResultStore(max_chars=10)
    store.put(StoredResult("a", "t", "", "x" * 6, 100, 2e9))
    store.put(StoredResult("b", "t", "", "y" * 6, 100, 2e9))
    assert store.get("a") is None and store.get("b") is not None
    store.put(StoredResult("c", "t", "", "z", 100, 0.0))  # already expired
    assert store.get("c") is None


def test_a_call_log_keeps_cut_results_in_its_file_for_every_process(tmp_path: Path) -> None:
    from toolkit.records.call_log import CallLog
    from toolkit.results.reader import offer_reader

    path = tmp_path / "calls.db"
    worker_a, worker_b = _registry(), _registry()
    logs = [CallLog(path).attach(worker_a), CallLog(f"sqlite:///{path}").attach(worker_b)]
    try:
        assert isinstance(worker_a.settings.result_store, SqliteResultStore)
        cut = worker_a.call_sync("csv_table", {"mb": 1})
        offer_reader(worker_b)
        answer = worker_b.call_sync(READ_RESULT, {"call_id": cut.call_id, "find": "S-0031337"})
        assert not answer.is_error and "31337,S-0031337" in answer.content
    finally:
        for log in logs:
            log.close()
