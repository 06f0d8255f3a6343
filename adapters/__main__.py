"""``python -m adapters``: the ``toolkit`` command, for configs that start it with an interpreter.

``{"command": "python", "args": ["-m", "adapters", "serve", "app:registry"]}`` serves a registry
to an MCP client with the interpreter mcp-toolkit is installed in (see ``examples/served.json``).
"""

from adapters._entry import main

main()
