"""Response templates see the call's arguments as ``args``: the guide's example, run for real.

The service here answers an order without echoing its id (as most services do), so the only way
the guide's template can name the order is through the arguments.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi import FastAPI

from adapters.http import HttpToolset, ResponseTemplate
from tests.support.serving import serving
from toolkit import ToolContext, ToolRegistry

pytestmark = pytest.mark.anyio

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "http-tools.md"


def _quiet_orders() -> FastAPI:
    app = FastAPI()

    @app.get("/users/{userId}/orders/{orderId}")
    def get_order(userId: str, orderId: str) -> dict[str, Any]:
        return {"status": "shipped", "items": [{"name": "widget"}, {"name": "gadget"}]}

    return app


@pytest.fixture(scope="module")
def quiet_base() -> Iterator[str]:
    with serving(_quiet_orders(), lifespan="off") as url:
        yield url


def _guide_config(base: str) -> dict[str, Any]:
    """The guide's YAML example, as a reader copies it, pointed at the local service."""
    text = GUIDE.read_text()
    start = text.index("```yaml\nhttpTools:") + len("```yaml\n")
    loaded = yaml.safe_load(text[start : text.index("```", start)])
    config: dict[str, Any] = loaded["httpTools"]["get_order"]
    config["endpoint"] = config["endpoint"].replace("https://api.example.com", base)
    return {"get_order": config}


async def test_the_guides_template_names_the_order_from_the_arguments(
    quiet_base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORDERS_KEY", "k-123")
    registry = ToolRegistry()
    toolset = HttpToolset.from_config(_guide_config(quiet_base))
    toolset.register_into(registry)
    async with toolset:
        result = await registry.call(
            "get_order",
            {"userId": "u1", "orderId": "o7"},
            context=ToolContext(values={"tenant": "acme"}),
        )
    assert not result.is_error, result.content
    assert result.content == "Order o7: shipped, widget, gadget"
    assert "orderId" not in result.structured  # the service did not echo it


def test_args_is_the_arguments_even_when_the_response_has_an_args_key() -> None:
    template = ResponseTemplate("{{ args.id }} / {{ data.args }}")
    assert template.render({"args": "from the service"}, {"id": "o1"}) == "o1 / from the service"
    assert ResponseTemplate("{{ args | length }}").render({"x": 1}) == "0"


def test_an_argument_the_template_names_but_the_call_lacks_is_a_note() -> None:
    text = ResponseTemplate("{{ args.orderId.upper() }}").render({"status": "paid"}, {})
    assert text.splitlines()[-1].startswith("(response template failed:")
