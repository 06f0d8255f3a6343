"""The corpus: model outputs (clean, messy, hostile) and what each must parse to."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from adapters.action_xml import ActionCall, parse_action
from tests.adapters.action_xml.tools import protocol_registry
from toolkit import InvalidArguments

CORPUS = Path(__file__).parent / "corpus"
CASES = sorted(CORPUS.glob("*.yaml"))
REGISTRY = protocol_registry()


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


def test_the_corpus_is_large_and_varied() -> None:
    assert len(CASES) >= 40
    kinds = {p.name.split("_", 1)[0] for p in CASES}
    assert kinds == {"clean", "messy", "bad", "hostile"}


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_corpus_case_parses_as_expected(path: Path) -> None:
    case = _load(path)
    specs = REGISTRY if case["tools"] == "protocol" else None
    parsed = parse_action(case["output"], specs)
    assert parsed.response_text == case["response_text"]
    if case["error"] is not None:
        assert parsed.error is not None, f"{path.name}: expected a Malformed parse"
        assert case["error"] in parsed.error
        assert parsed.calls == []
        return
    assert parsed.error is None, parsed.error
    assert parsed.calls == [ActionCall(c["name"], c["arguments"]) for c in case["calls"]]


@pytest.mark.parametrize(
    "path", [p for p in CASES if p.stem.startswith(("clean", "messy"))], ids=lambda p: p.stem
)
def test_corpus_calls_to_known_tools_validate(path: Path) -> None:
    case = _load(path)
    if case["tools"] != "protocol":
        return
    for call in parse_action(case["output"], REGISTRY).calls:
        if call.name not in REGISTRY or (call.name == "ReadWorldStateTool" and not call.arguments):
            continue
        try:
            REGISTRY.get(call.name).validate(dict(call.arguments))
        except InvalidArguments as exc:  # pragma: no cover - the message is the point
            pytest.fail(f"{path.name}: {call.name} {call.arguments}: {exc}")
