"""Hand-written tools of everyday business and developer work, each with a user's question.

``handwritten.json`` holds rows ``[name, description, parameters, question]``; parameters are
``"name: description"`` joined with ``" | "``. The questions are what a person would type to an
assistant; none holds the tool's name (checked by the benchmark).
"""

from __future__ import annotations

import json
from pathlib import Path

ROWS: list[tuple[str, str, str, str]] = [
    (row[0], row[1], row[2], row[3])
    for row in json.loads((Path(__file__).resolve().parent / "handwritten.json").read_text())
]
