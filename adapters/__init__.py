"""Adapters: the outside worlds a registry meets (map: docs/ARCHITECTURE.md).

Sources make tools: ``mcp_client`` (remote MCP servers), ``http`` (HTTP endpoints).
Sinks call tools: ``langchain``, ``langgraph``, ``mcp_server``, ``openai``, ``action_xml``,
``cli``. Each one needs its extra (``pip install 'mcp-toolkit[NAME]'``) and says so on import.
"""
