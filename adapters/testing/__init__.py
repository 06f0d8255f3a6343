"""Testing helpers: run agents and OpenAI clients offline.

* :class:`ScriptedChatModel`: a LangChain chat model that replays scripted turns.
* :class:`OpenAIStub`: a real local HTTP server on 127.0.0.1 that speaks the OpenAI
  chat-completions API (JSON and streaming), checks requests as OpenAI does and answers with
  scripted :class:`Turn` replies; point ``ChatOpenAI(base_url=stub.url)`` or the ``openai``
  client at it.
"""

from adapters._extras import require

require("adapters.testing", "langchain")

from adapters.testing.openai_stub import Call, OpenAIStub, Turn, validate_request
from adapters.testing.scripted import ScriptedCall, ScriptedChatModel, ScriptError, TurnFactory

__all__ = [
    "Call",
    "OpenAIStub",
    "ScriptError",
    "ScriptedCall",
    "ScriptedChatModel",
    "Turn",
    "TurnFactory",
    "validate_request",
]
