"""The server guide states the output rule where a server author looks: ``outputSchema`` is
published only for tools whose output is enforced (its runnable block shows it on the wire)."""

from __future__ import annotations

from pathlib import Path

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "mcp-server.md"


def test_the_server_guide_says_output_schemas_are_published_only_where_enforced() -> None:
    text = " ".join(GUIDE.read_text().split())
    assert "`outputSchema` is published only for tools whose output is enforced" in text
    assert "with annotations, `outputSchema` and `structuredContent`" not in text
    assert "# stock True" in text and "# price False" in text
