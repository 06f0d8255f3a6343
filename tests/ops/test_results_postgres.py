"""Cut results kept in PostgreSQL: one replica cuts a result, another reads it back for its caller."""

from __future__ import annotations

import re
import time

import pytest

from tests.support import big_results
from toolkit import CallOptions, ErrorCode, ToolContext, ToolRegistry
from toolkit.records.call_log import CallLog
from toolkit.results import NO_BUDGET, READ_RESULT, PostgresResultStore, StoredResult, offer_reader

BUDGET = 5_000


def _registry() -> ToolRegistry:
    return big_results.fresh_registry(BUDGET)


def _as(caller: str) -> CallOptions:
    return CallOptions(context=ToolContext(values={"caller": caller}))


def _read_all(registry: ToolRegistry, call_id: str, caller: str) -> str:
    """The whole result through ``read_result``, page by page, as a model reads on."""
    parts, offset = [], 0
    while True:
        answer = registry.call_sync(
            READ_RESULT, {"call_id": call_id, "offset": offset}, options=_as(caller)
        )
        assert not answer.is_error, answer.content
        assert len(answer.content) <= BUDGET
        header, _, body = answer.content.partition("\n")
        parts.append(body)
        found = re.search(r"offset=(\d+)\)\.\]$", header)
        if found is None:
            assert "end of the result" in header
            return "".join(parts)
        offset = int(found[1])


def test_a_result_cut_by_one_replica_is_read_back_by_another(postgres_url: str) -> None:
    worker_a, worker_b = _registry(), _registry()
    logs = [CallLog(postgres_url).attach(worker_a), CallLog(postgres_url).attach(worker_b)]
    try:
        store = worker_b.settings.result_store
        assert isinstance(store, PostgresResultStore)
        password = postgres_url.split(":")[2].split("@")[0]
        assert password not in repr(store) and password not in store.name
        cut = worker_a.call_sync("csv_table", {"mb": 0.05}, options=_as("alice"))
        assert cut.cut is not None and len(cut.content) <= BUDGET
        full = worker_a.call_sync(
            "csv_table", {"mb": 0.05}, options=CallOptions(result_budget=NO_BUDGET)
        )
        offer_reader(worker_b)
        assert _read_all(worker_b, cut.call_id, "alice") == full.content
        assert store.get(cut.call_id).text == full.content  # type: ignore[union-attr]

        refused = worker_b.call_sync(READ_RESULT, {"call_id": cut.call_id}, options=_as("bob"))
        assert refused.is_error and refused.code is ErrorCode.INVALID_PARAMS
        assert "No kept result" in refused.content and "S-0000001" not in refused.content
    finally:
        for log in logs:
            log.close()


def test_the_text_comes_back_byte_for_byte_and_expires(postgres_url: str) -> None:
    store = PostgresResultStore(postgres_url, keep_seconds=60)
    text = "NUL\x00 in the middle, a lone surrogate \udc80, \u00e9\U0001f600 and \r\n ends\n"
    later = time.time() + 60
    store.put(StoredResult("c1", "tool\x00name", "caller=alice", text, 1_000, later))
    kept = store.get("c1")
    assert kept is not None and kept.text == text and kept.owner == "caller=alice"
    assert kept.budget == 1_000 and kept.expires_at == pytest.approx(later)

    store.put(StoredResult("c1", "tool", "caller=bob", "replaced", 10, later))
    assert store.get("c1") == StoredResult("c1", "tool", "caller=bob", "replaced", 10, later)
    store.put(StoredResult("old", "tool", "", "gone", 10, time.time() - 1))
    assert store.get("old") is None and store.get("missing") is None
    # another store on the same database (another host's replica) sees the same rows
    assert PostgresResultStore(postgres_url).get("c1") is not None
