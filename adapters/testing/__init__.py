"""Testing helpers: a scripted chat model for running agents offline."""

from adapters._extras import require

require("adapters.testing", "langchain")

from adapters.testing.scripted import ScriptedCall, ScriptedChatModel, ScriptError, TurnFactory

__all__ = ["ScriptError", "ScriptedCall", "ScriptedChatModel", "TurnFactory"]
