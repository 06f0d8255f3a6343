"""The carriers MCP server under its older path: ``python examples/carriers_server.py``."""

from adapters.demo.carriers_server import main

if __name__ == "__main__":
    main()
