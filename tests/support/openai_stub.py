"""The OpenAI-compatible stub server, a public utility in :mod:`adapters.testing`."""

from adapters.testing.openai_stub import Call, OpenAIStub, Turn, validate_request

__all__ = ["Call", "OpenAIStub", "Turn", "validate_request"]
