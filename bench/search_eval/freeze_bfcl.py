"""Write ``bench/data/bfcl/``: a frozen tool catalog with its questions, from BFCL's data.

The Berkeley Function Calling Leaderboard (``bfcl-eval`` on PyPI, Apache 2.0) ships, for each
question, the functions offered to the model and the function that answers it. Its ``live``
sets are questions users contributed with their own functions; its ``simple_python`` and
``multiple`` sets were written by the leaderboard's authors. Neither was written for this
project, and the ranking was not tuned on them before they were frozen.

Run once, on the wheel unpacked in a folder::

    python -m bench.search_eval.freeze_bfcl /path/to/unpacked/bfcl_eval/data

What it writes (rerunning gives the same files):

* ``tools.json``: one tool per distinct function name of the four sets (the first definition
  met, in file order), with its description and parameters as JSON Schema (BFCL spells the
  object type ``"dict"``; it becomes ``"object"``);
* ``questions.json``: ``[text, expected tool, set, half]`` per question with one expected
  function and not holding that function's name. ``half`` is ``"tune"`` or ``"held-out"``,
  drawn per expected tool (seed 41), so no question of a held-out tool is seen while tuning.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from .heldout import draw_halves

OUT = Path(__file__).resolve().parents[1] / "data" / "bfcl"
SETS = {
    "live_simple": "live (user-contributed)",
    "live_multiple": "live (user-contributed)",
    "simple_python": "written by BFCL's authors",
    "multiple": "written by BFCL's authors",
}


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _schema(node: Any) -> Any:
    """BFCL's parameter schema as JSON Schema: ``"dict"`` → ``"object"``, recursively."""
    if isinstance(node, dict):
        fixed = {k: _schema(v) for k, v in node.items()}
        if fixed.get("type") == "dict":
            fixed["type"] = "object"
        return fixed
    if isinstance(node, list):
        return [_schema(v) for v in node]
    return node


def _question(entry: dict[str, Any]) -> str:
    turns = [m["content"] for m in entry["question"][0] if m.get("role") == "user"]
    return " ".join(t.strip() for t in turns)


def _holds_name(text: str, name: str) -> bool:
    """Whether the question spells the function's name (whole, or its last dotted part when
    that has several words): such a question says which tool it wants."""
    low = f" {text.lower()} "
    tail = name.rsplit(".", 1)[-1]
    spellings = {name, name.replace("_", " ")}
    if "_" in tail.strip("_"):
        spellings |= {tail, tail.replace("_", " ")}
    return any(re.search(rf"(?<!\w){re.escape(s.lower())}(?!\w)", low) for s in spellings)


def main(data: Path) -> None:
    tools: dict[str, dict[str, Any]] = {}
    rows: list[tuple[str, str, str]] = []
    for key, kind in SETS.items():
        answers = {a["id"]: a for a in _lines(data / "possible_answer" / f"BFCL_v4_{key}.json")}
        for entry in _lines(data / f"BFCL_v4_{key}.json"):
            for fn in entry["function"]:
                tools.setdefault(
                    fn["name"],
                    {
                        "name": fn["name"],
                        "description": fn.get("description", ""),
                        "input_schema": _schema(fn.get("parameters", {"type": "object"})),
                    },
                )
            expected = {next(iter(call)) for call in answers[entry["id"]]["ground_truth"]}
            text = _question(entry)
            if len(expected) == 1 and text:
                (name,) = expected
                if not _holds_name(text, name):
                    rows.append((text, name, kind))
    held = draw_halves([name for _, name, _ in rows])
    questions = [[t, n, k, "held-out" if n in held else "tune"] for t, n, k in rows]
    OUT.mkdir(parents=True, exist_ok=True)
    catalog = sorted(tools.values(), key=lambda t: t["name"])
    (OUT / "tools.json").write_text(json.dumps(catalog, ensure_ascii=False) + "\n")
    (OUT / "questions.json").write_text(
        "[\n" + ",\n".join(json.dumps(q, ensure_ascii=False) for q in questions) + "\n]\n"
    )
    print(f"{len(catalog)} tools, {len(questions)} questions written to {OUT}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
