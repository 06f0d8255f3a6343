"""Older import paths of the demo assets, which now live in :mod:`adapters.demo`.

``examples/mcp.json`` is a sample server list for ``toolkit mcp``; the Python names here are
aliases, so code written against ``examples.warehouse`` keeps the same objects (one ``STORE``).
"""
