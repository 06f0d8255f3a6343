"""Adapters: one package per outside world (LangChain, LangGraph, MCP client and server, …)."""
