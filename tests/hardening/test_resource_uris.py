"""Resource URIs a client sends: matched in linear time, bounded, and kept inside their path.

Attacks as an outsider sends them: ``resources/read`` of URIs built to make a backtracking
matcher run for minutes (against our HTTP server on 127.0.0.1, and against a remote server's
ambiguous template re-served by the gateway), and percent-encoded ``..`` that reads a file
next to the folder a ``docs://{name}`` resource serves.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from adapters.mcp_client import McpClientPool, register_catalog
from adapters.mcp_server import build_server, http_app
from tests.hardening.conftest import misbehaving
from tests.support.serving import serving
from toolkit import RegistrationError, ToolRegistry, mcp_resource
from toolkit.catalog._uri_template import MAX_URI_LENGTH, UriTemplate
from toolkit.errors import ErrorCode, ToolError

pytestmark = pytest.mark.anyio

#: Far above what a linear match of these URIs takes, far below what backtracking took
#: (20 s, 17 s and 86 s on this machine).
GENEROUS = 2.0

ATTACKS = [
    ("logs://{year}-{month}-{day}", "logs://" + "-" * 3000),
    ("ip://{a}.{b}.{c}.{d}", "ip://" + "." * 400),
    ("ip://{a}.{b}.{c}.{d}", "ip://" + "1." * 200 + "/"),
]


def _attacked_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @mcp_resource("logs://{year}-{month}-{day}")
    def logs(year: str, month: str, day: str) -> str:
        """One day's log."""
        return f"log of {year}-{month}-{day}"

    @mcp_resource("ip://{a}.{b}.{c}.{d}")
    def host(a: str, b: str, c: str, d: str) -> str:
        """One host."""
        return ".".join((a, b, c, d))

    registry.resources.register(logs)
    registry.resources.register(host)
    return registry


@pytest.mark.parametrize(
    "template", ["x://{a}{b}{c}{d}{e}{f}{g}{h}!", "x://{a}{b}", "f://{+a}/{+b}"]
)
def test_ambiguous_templates_are_refused_at_registration(template: str) -> None:
    with pytest.raises(RegistrationError) as refused:
        mcp_resource(template)
    assert "nothing tells where one" in str(refused.value)


@pytest.mark.parametrize(("template", "uri"), ATTACKS)
def test_the_attack_uris_are_matched_at_once(template: str, uri: str) -> None:
    parsed = UriTemplate.parse(template)
    started = time.perf_counter()
    for _ in range(10):
        assert parsed.match(uri) is None
    assert time.perf_counter() - started < GENEROUS


def test_matching_still_finds_the_values_and_bounds_the_uri() -> None:
    assert UriTemplate.parse("logs://{year}-{month}-{day}").match("logs://2024-01-02") == {
        "year": "2024",
        "month": "01",
        "day": "02",
    }
    assert UriTemplate.parse("files://{+dir}/{name}.txt").match("files://a/b/c.txt") == {
        "dir": "a/b",
        "name": "c",
    }
    assert UriTemplate.parse("x://{a}/{+rest}").match("x://one/two/three") == {
        "a": "one",
        "rest": "two/three",
    }
    long = "logs://" + "1" * MAX_URI_LENGTH + "-1-1"
    assert UriTemplate.parse("logs://{year}-{month}-{day}").match(long) is None


async def test_an_attack_uri_over_http_does_not_stop_the_server() -> None:
    server = build_server(_attacked_registry(), name="logs")
    with serving(http_app(server)) as url:
        http = httpx2.AsyncClient(timeout=httpx2.Timeout(20))
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
            health = httpx2.AsyncClient(base_url=url, timeout=httpx2.Timeout(GENEROUS * 5))
            async with health:
                for _, uri in ATTACKS:
                    started = time.perf_counter()
                    async with anyio.create_task_group() as group:
                        answered: list[int] = []

                        async def ping() -> None:
                            answered.append((await health.get("/healthz")).status_code)

                        group.start_soon(ping)
                        with pytest.raises(MCPError) as refused:
                            await client.read_resource(uri)
                    assert time.perf_counter() - started < GENEROUS * 5
                    assert answered == [200]
                    assert refused.value.code == types.INVALID_PARAMS
                    assert "No resource has the URI" in refused.value.message
                read = await client.read_resource("logs://2024-01-02")
    assert isinstance(read.contents[0], types.TextResourceContents)
    assert read.contents[0].text == "log of 2024-01-02"


async def test_the_gateway_skips_a_remote_servers_ambiguous_template(
    log: Path, caplog: pytest.LogCaptureFixture
) -> None:
    registry = ToolRegistry()
    with caplog.at_level(logging.WARNING, logger="toolkit.mcp"):
        async with McpClientPool(misbehaving(log, "templates"), grace=0.5) as pool:
            added = await register_catalog(pool, registry, "m", "m_")
            templates = [t.uri for t in registry.resources.templates()]
            started = time.perf_counter()
            with pytest.raises(ToolError) as missing:
                await registry.resources.read("m+x://" + "a" * 60 + "!")
            took = time.perf_counter() - started
            fine = await registry.resources.read("m+y://1.2")
    assert added == (1, 0) and templates == ["m+y://{a}.{b}"]
    assert took < GENEROUS and missing.value.code is ErrorCode.NOT_FOUND
    assert [c.text for c in fine] == ["y://1.2"]
    warned = [r.getMessage() for r in caplog.records if r.name == "toolkit.mcp"]
    assert any("x://{a}{b}" in w and "adjacent" in w for w in warned)


# -- values that leave their path ---------------------------------------------------------------


def _docs(folder: Path) -> ToolRegistry:
    """The guide's pattern: ``docs://{name}`` reads ``folder / name``."""

    @mcp_resource("docs://{name}", mime_type="text/plain")
    def doc(name: str) -> str:
        """One document of the folder."""
        return (folder / name).read_text()

    @mcp_resource("tree://{+path}", mime_type="text/plain")
    def tree(path: str) -> str:
        """A document anywhere below the folder."""
        return (folder / path).read_text()

    registry = ToolRegistry()
    registry.resources.register(doc)
    registry.resources.register(tree)
    return registry


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "secret.txt").write_text("the launch codes")
    docs = tmp_path / "docs"
    (docs / "guides").mkdir(parents=True)
    (docs / "readme.txt").write_text("welcome")
    (docs / "guides" / "start.txt").write_text("start here")
    return docs


@pytest.mark.parametrize(
    "uri",
    [
        "docs://..%2Fsecret.txt",
        "docs://%2e%2e%2fsecret.txt",
        "docs://..%5Csecret.txt",
        "docs://%2E%2E",
        "docs://readme.txt%00.png",
        "tree://guides/../../secret.txt",
        "tree://guides/%2e%2e/%2e%2e/secret.txt",
        "tree://..%2Fsecret.txt",
    ],
)
async def test_a_value_that_leaves_its_path_is_refused(folder: Path, uri: str) -> None:
    async with Client(build_server(_docs(folder))) as client:
        with pytest.raises(MCPError) as refused:
            await client.read_resource(uri)
        fine = await client.read_resource("docs://readme.txt")
        nested = await client.read_resource("tree://guides/start.txt")
    assert refused.value.code == types.INVALID_PARAMS
    assert "refused" in refused.value.message and "launch" not in refused.value.message
    assert (refused.value.data or {}).get("code") == "INVALID_PARAMS"
    texts: list[Any] = [fine.contents[0], nested.contents[0]]
    assert [getattr(t, "text", None) for t in texts] == ["welcome", "start here"]
