"""docs/ARCHITECTURE.md stays true: every adapter package is on the map with its extra."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _packages() -> list[str]:
    return sorted(
        p.name
        for p in (ROOT / "adapters").iterdir()
        if p.is_dir() and (p / "__init__.py").exists() and not p.name.startswith("_")
    )


def test_every_adapter_package_is_on_the_map_with_the_extra_it_requires() -> None:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    rows = dict(re.findall(r"^\| `adapters\.(\w+)` \|.*\| (\S+) \|$", text, re.MULTILINE))
    for name in _packages():
        assert name in rows, f"adapters.{name} is missing from docs/ARCHITECTURE.md"
        init = (ROOT / "adapters" / name / "__init__.py").read_text()
        required = re.search(r'^require\("adapters\.\w+", "(\w+)"\)', init, re.MULTILINE)
        expected = f"`[{required.group(1)}]`" if required else "none"
        if rows[name] != "`[all]`":
            assert rows[name] == expected, f"adapters.{name}: map says {rows[name]}"
