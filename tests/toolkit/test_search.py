"""Tool search: name splitting, field ranking, tags, and an index that follows the registry."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

import pytest

from toolkit import JsonSchemaTool, ToolContext, ToolRegistry, ToolResult, ToolSpec, mcp_tool
from toolkit.search import ToolIndex, fts5_available, query_terms, split_name, tool_fields

pytestmark = pytest.mark.anyio


@mcp_tool(tags={"billing"})
def refund_payment(payment_id: str, amount_cents: int) -> str:
    """Give money back to a customer for a captured card payment.

    Args:
        payment_id: The payment to reimburse.
        amount_cents: How much to return, in cents.
    """
    return payment_id


@mcp_tool(tags={"shipping"})
def createShipmentLabel(carrier: str, weight_grams: int) -> str:
    """Print a postage label for a parcel.

    Args:
        carrier: Delivery company, e.g. UPS or DHL.
        weight_grams: Parcel weight.
    """
    return carrier


@mcp_tool(tags={"hr"})
def list_employees(department: str) -> list[str]:
    """Staff directory of one department.

    Args:
        department: Department name, such as sales.
    """
    return [department]


@mcp_tool(tags={"hr", "calendar"})
def book_meeting_room(room: str, starts_at: str) -> str:
    """Reserve a conference room.

    Args:
        room: Room code.
        starts_at: ISO date-time of the start.
    """
    return room


def _registry() -> ToolRegistry:
    registry = ToolRegistry()
    for fn in (refund_payment, createShipmentLabel, list_employees, book_meeting_room):
        registry.register(fn)
    return registry


class _Described(JsonSchemaTool):
    """A tool known only by its spec, as a remote server lists it."""

    def __init__(self, spec: ToolSpec) -> None:
        self._spec = spec

    @property
    def name(self) -> str:
        return self._spec.name

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        return ToolResult(content=self.name, tool=self.name)

    def renamed(self, name: str) -> _Described:
        return _Described(dataclasses.replace(self._spec, name=name))


def _remote(name: str, description: str) -> _Described:
    schema = {"type": "object", "properties": {}}
    return _Described(ToolSpec(name=name, description=description, input_schema=schema))


def _names(tools: list[Any]) -> list[str]:
    return [t.name for t in tools]


def test_this_python_has_fts5() -> None:
    assert fts5_available()


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("query_bins", ["query", "bins"]),
        ("createShipmentLabel", ["create", "shipment", "label"]),
        ("crm.getUserByID", ["crm", "get", "user", "by", "id"]),
        ("github-list-pull-requests", ["github", "list", "pull", "requests"]),
        ("HTTPServerStatus2", ["http", "server", "status", "2"]),
    ],
)
def test_names_are_split_into_words(name: str, words: list[str]) -> None:
    assert split_name(name) == words


def test_fields_hold_name_words_params_tags_and_verb_synonyms() -> None:
    fields = tool_fields(_registry().get("refund_payment").spec)
    assert fields["name"] == "refund payment"
    assert fields["tags"] == "billing"
    assert "amount cents" in fields["params"] and "reimburse" in fields["params"]
    assert "money back" in fields["aka"]


def test_query_words_drop_stop_words_and_split_names() -> None:
    assert query_terms("Can you please refundPayment for my order?") == [
        "refund",
        "payment",
        "order",
    ]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("give the customer their money back", "refund_payment"),  # description + synonyms
        ("print postage for a parcel going by DHL", "createShipmentLabel"),  # camel name
        ("who works in the sales department?", "list_employees"),  # parameter text
        ("reserving a conference room tomorrow", "book_meeting_room"),  # stemming
        ("shipments", "createShipmentLabel"),  # plural matches the singular name word
    ],
)
def test_the_right_tool_comes_first(question: str, expected: str) -> None:
    assert _names(_registry().search(question, k=1)) == [expected]


def test_k_and_tags_limit_the_results() -> None:
    registry = _registry()
    assert len(registry.search("room department payment label", k=2)) == 2
    assert _names(registry.search("room department", k=5, tags={"calendar"})) == [
        "book_meeting_room"
    ]
    assert registry.search("payment", tags={"hr"}) == []


def test_questions_without_a_known_word_find_nothing() -> None:
    registry = _registry()
    assert registry.search("") == []
    assert registry.search("the of and?!") == []
    assert registry.search("zyxxy quux") == []
    assert registry.search("payment", k=0) == []


def test_hostile_queries_are_plain_text_never_fts_syntax() -> None:
    registry = _registry()
    for query in ['"unbalanced', "room OR NOT (", "name:room*", "a" * 100_000, "NEAR(x y)"]:
        registry.search(query)  # no sqlite syntax error escapes
    assert _names(registry.search('room" OR "payment', k=1)) in (
        ["book_meeting_room"],
        ["refund_payment"],
    )


def test_added_removed_and_replaced_tools_are_followed_after_the_first_search() -> None:
    registry = _registry()
    assert registry.search("weather forecast") == []  # builds the index
    registry.add(_remote("forecast", "Weather forecast for a city."))
    assert _names(registry.search("weather forecast", k=1)) == ["forecast"]
    registry.remove("refund_payment")
    assert "refund_payment" not in _names(registry.search("refund payment money back", k=10))
    registry.remove("forecast")
    registry.add(_remote("forecast", "Tide tables for a harbour."))
    assert registry.search("weather") == []
    assert _names(registry.search("tide harbour", k=1)) == ["forecast"]


def test_the_index_is_built_only_on_the_first_search() -> None:
    registry = _registry()
    assert registry._index is None
    registry.add(_remote("forecast", "Weather forecast for a city."))
    assert registry._index is None
    registry.search("weather")
    assert registry._index is not None and len(registry.search_index) == 5


def test_hits_carry_scores_best_first() -> None:
    hits = _registry().search_index.search("room payment refund", k=3)
    assert hits[0].tool.name == "refund_payment"
    assert hits[0].score >= hits[-1].score > 0


def test_field_weights_change_the_ranking() -> None:
    tools = {
        "send_invoice": _remote("send_invoice", "Email a document to a client."),
        "print_document": _remote("print_document", "Send an invoice to the printer."),
    }
    by_name = ToolIndex(tools, weights={"name": 10.0, "description": 0.1})
    by_text = ToolIndex(tools, weights={"name": 0.1, "description": 10.0})
    assert by_name.search("invoice", k=1)[0].tool.name == "send_invoice"
    assert by_text.search("printer invoice", k=1)[0].tool.name == "print_document"
    with pytest.raises(ValueError, match="Unknown search fields"):
        ToolIndex(tools, weights={"body": 1.0})


def test_a_filtered_view_searches_only_its_own_tools() -> None:
    registry = _registry()
    registry.search("payment")
    view = registry.filter(tags={"hr"})
    assert "refund_payment" not in _names(view.search("payment refund room department", k=5))


async def test_async_search_gives_the_same_answer() -> None:
    registry = _registry()
    assert _names(await registry.search_async("money back for a payment", k=2)) == _names(
        registry.search("money back for a payment", k=2)
    )


def test_concurrent_changes_and_searches_stay_consistent() -> None:
    registry = _registry()
    registry.search("payment")
    errors: list[BaseException] = []

    def churn(i: int) -> None:
        try:
            for j in range(50):
                name = f"tool_{i}_{j}"
                registry.add(_remote(name, f"Temporary tool number {j}."))
                registry.search("temporary tool", k=3)
                registry.remove(name)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=churn, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors
    assert registry.search("temporary") == []
    assert len(registry.search_index) == 4


class _Broken(_Described):
    @property
    def spec(self) -> ToolSpec:
        raise RuntimeError("schema cannot be built")


def test_a_tool_whose_spec_fails_is_left_out_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    registry = _registry()
    registry.add(_Broken(ToolSpec(name="broken", description="x", input_schema={})))
    with caplog.at_level("WARNING", logger="toolkit.search"):
        assert _names(registry.search("money back", k=1)) == ["refund_payment"]
    assert "'broken' is left out of search: schema cannot be built" in caplog.text


def test_without_fts5_the_first_search_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolkit.search as search_module

    # A tokenizer this SQLite lacks fails exactly where a missing FTS5 module would.
    monkeypatch.setattr(search_module, "_TOKENIZER", "no_such_tokenizer")
    assert not search_module.fts5_available()
    with pytest.raises(search_module.ToolSearchUnavailable, match="needs SQLite's FTS5"):
        _registry().search("payment")
