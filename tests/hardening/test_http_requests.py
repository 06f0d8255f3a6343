"""A bad header value from a model is the model's to fix: ``INVALID_PARAMS``, nothing sent."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from adapters.http import HttpToolset
from tests.support.serving import serving
from toolkit import ToolRegistry
from toolkit.errors import ErrorCode

RECEIVED: list[str] = []


async def echo(request: Request) -> JSONResponse:
    RECEIVED.append(request.headers.get("x-tag", ""))
    return JSONResponse({"tag": request.headers.get("x-tag", "")})


@pytest.fixture(scope="module")
def tools() -> Iterator[ToolRegistry]:
    with serving(Starlette(routes=[Route("/echo", echo)])) as base:
        config = {
            "t": {
                "endpoint": base + "/echo",
                "parameters": [{"name": "X-Tag", "position": "header", "required": True}],
            }
        }
        registry = ToolRegistry()
        with HttpToolset.from_config(config) as toolset:
            toolset.register_into(registry)
            yield registry


@pytest.mark.parametrize(
    "value", ["a\x0bb", "a\x0cb", "a\x7fb", "a\x00b", "a\x1bb", "caf\u00e9", "a\u2028b"]
)
def test_control_characters_and_non_ascii_are_invalid_params(
    tools: ToolRegistry, value: str
) -> None:
    RECEIVED.clear()
    result = tools.call_sync("t", {"X-Tag": value})
    assert result.code is ErrorCode.INVALID_PARAMS, result.content
    assert "X-Tag" in result.content and "printable ASCII" in result.content
    assert RECEIVED == []


def test_tabs_inside_and_spaces_around_a_value_are_fine(tools: ToolRegistry) -> None:
    result = tools.call_sync("t", {"X-Tag": "  a\tb  "})
    assert not result.is_error, result.content
    assert result.structured == {"tag": "a\tb"}
