"""A stdio server whose tool writes to stdout; after serving it reports the state of fd 0 and 1.

Run: ``python tests/support/noisy_stdio_server.py`` (with the repository on ``PYTHONPATH``).
"""

from __future__ import annotations

import json
import os

from adapters.mcp_server import build_server, run_stdio
from toolkit import ToolRegistry, mcp_tool


@mcp_tool
def shout(text: str) -> str:
    """Return the text in capitals, printing to stdout on the way.

    Args:
        text: What to shout.
    """
    print("stray print from a tool")
    os.write(1, b"stray write to fd 1\n")
    return text.upper()


if __name__ == "__main__":
    registry = ToolRegistry(result_budget=0)  # the pipes carry 2 MB whole: no model reads it
    registry.register(shout)
    run_stdio(build_server(registry, name="noisy"))
    after = {"served": True, "blocking": [os.get_blocking(0), os.get_blocking(1)]}
    print(json.dumps(after), flush=True)
