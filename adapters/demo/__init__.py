"""Demo assets shipped with the package: the warehouse tools and a carriers MCP server.

The README, the notebooks, ``toolkit demo`` and the tests use them, and so can you: they are
found by import, so they work from any directory once the package is installed.

    >>> from adapters.demo import carriers_server_config
    >>> config = {"carriers": carriers_server_config()}
    >>> config["carriers"]["args"][0].endswith("carriers_server.py")
    True

* ``adapters.demo.warehouse``: a small warehouse domain (bins, stock, reports) with ``@mcp_tool``
  functions; ``adapters.demo.warehouse_app:registry`` (or ``build_registry()``) assembles them.
* ``adapters.demo.carriers_server``: a shipping-carrier MCP server (stdio), run with
  ``python -m adapters.demo.carriers_server``.
* ``adapters.demo.labels_server``: a label-printing MCP server served by this package (stdio),
  whose tool reports progress and returns a PNG; :func:`labels_server_config` starts it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

__all__ = ["CARRIERS_MODULE", "LABELS_MODULE", "carriers_server_config", "labels_server_config"]

CARRIERS_MODULE = "adapters.demo.carriers_server"
_CARRIERS_SCRIPT = Path(__file__).with_name("carriers_server.py")
LABELS_MODULE = "adapters.demo.labels_server"
_ROOT = Path(__file__).resolve().parents[2]


def carriers_server_config(**options: Any) -> dict[str, Any]:
    """The ``mcpServers`` entry that starts the carriers server with this interpreter.

    The entry names the server's file in this installation, so it starts the same code
    whatever the working directory and whatever the child's ``PYTHONPATH``.

    Args:
        **options: Further keys of the entry, e.g. ``call_timeout=20``.

    Returns:
        A dict for :class:`adapters.mcp_client.McpClientPool` or an ``mcp.json`` file.
    """
    return {"command": sys.executable, "args": [str(_CARRIERS_SCRIPT)], **options}


def labels_server_config(**options: Any) -> dict[str, Any]:
    """The ``mcpServers`` entry that starts the labels server with this interpreter.

    The server imports this package, so the entry puts this installation first on the child's
    ``PYTHONPATH``: it runs the same code whatever the working directory.

    Args:
        **options: Further keys of the entry, e.g. ``call_timeout=20``.

    Returns:
        A dict for :class:`adapters.mcp_client.McpClientPool` or an ``mcp.json`` file.
    """
    env = {"PYTHONPATH": str(_ROOT), **options.pop("env", {})}
    return {"command": sys.executable, "args": ["-m", LABELS_MODULE], "env": env, **options}
