"""``--search-embedder``: the served search tool ranks by meaning too, loaded from
``module:attribute`` (an embedder or a factory of one); mistakes stop the server with a reason."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from typer.testing import CliRunner

from adapters.cli._serve import app
from adapters.mcp_server import ServeSettings
from adapters.mcp_server._embedder import load_embedder
from tests.support import trigram_embedder

ROOT = Path(__file__).resolve().parents[3]
TARGET = "tests.support.served_registry:registry"
EMBEDDER = "tests.support.trigram_embedder:trigram_vectors"
#: No word of it matches a tool (BM25 finds nothing); its spellings are close to find_bin's.
TYPO = "warehuose binn"


def _params(*args: str) -> StdioServerParameters:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "adapters.mcp_server", *args], env=env, cwd=str(ROOT)
    )


async def _found(*args: str) -> list[str]:
    async with Client(_params(TARGET, "--tool-search", "0", *args), mode="legacy") as client:
        result = await client.call_tool("search_tools", {"query": TYPO, "limit": 2})
    assert not result.is_error
    return [tool["name"] for tool in (result.structured_content or {}).get("tools", [])]


@pytest.mark.anyio
async def test_the_served_search_finds_a_misspelt_tool_only_with_the_embedder() -> None:
    assert "find_bin" not in await _found()
    assert (await _found("--search-embedder", EMBEDDER))[0] == "find_bin"
    factory = "tests.support.trigram_embedder:build"
    assert (await _found("--search-embedder", factory))[0] == "find_bin"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--search-embedder", EMBEDDER], "add --tool-search"),
        (["--tool-search", "1", "--search-embedder", "tests.support.trigram_embedder"], "names no attribute"),
        (["--tool-search", "1", "--search-embedder", "tests.support.trigram_embedder:nope"], "no attribute 'nope'"),
        (["--tool-search", "1", "--search-embedder", "tests.support.trigram_embedder:DIMENSIONS"], "is a int"),
    ],
)  # fmt: skip
def test_a_wrong_embedder_stops_the_server_with_what_to_give(args: list[str], words: str) -> None:
    result = CliRunner().invoke(app, [TARGET, *args])
    assert result.exit_code == 2, result.output
    assert words in result.output and "error:" in result.output


def test_the_factory_is_built_and_its_setting_travels_to_workers() -> None:
    assert load_embedder("tests.support.trigram_embedder:build") is trigram_embedder.trigram_vectors
    spec = "tests.support.trigram_embedder:build"
    unbuilt: object = load_embedder(spec, build=False)
    assert unbuilt is trigram_embedder.build  # checked without loading a model
    settings = ServeSettings(target=TARGET, tool_search=3, search_embedder=EMBEDDER)
    assert ServeSettings.from_env(settings.to_env()).search_embedder == EMBEDDER


def test_a_factory_that_fails_says_so() -> None:
    with pytest.raises(ValueError, match="building the embedder failed: RuntimeError"):
        load_embedder("tests.adapters.mcp_server.test_search_embedder:_broken_factory")


def _broken_factory() -> object:
    raise RuntimeError("model files are missing")
