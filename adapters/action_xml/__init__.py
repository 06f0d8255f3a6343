"""The ``<ACTION>`` text protocol: tool calling for models without function calling.

The model reads the tools in its prompt (:func:`render_tools_prompt`) and answers with text
in which one ``<ACTION>`` block names a tool and its arguments as XML; :func:`parse_action`
reads it back (hardened: no DTDs, no entities, limits on size and depth), coercing values by
the tool's schema; :func:`format_observation` writes what the model reads next.
:class:`XmlToolCallingModel` wraps any text-only LangChain chat model so that ``bind_tools``
and the whole agent stack work with it unchanged.
"""

from adapters._extras import require

require("adapters.action_xml", "xml")

from adapters.action_xml._examples import Example, tool_examples
from adapters.action_xml._model import XmlToolCallingModel
from adapters.action_xml._names import to_tag
from adapters.action_xml._observe import format_observation, malformed_observation
from adapters.action_xml._parse import (
    MAX_BLOCK_CHARS,
    MAX_DEPTH,
    MAX_ELEMENTS,
    ActionCall,
    ParsedAction,
    clean_text,
    parse_action,
    strip_actions,
)
from adapters.action_xml._render import render_action, render_tools_prompt

__all__ = [
    "MAX_BLOCK_CHARS",
    "MAX_DEPTH",
    "MAX_ELEMENTS",
    "ActionCall",
    "Example",
    "ParsedAction",
    "XmlToolCallingModel",
    "clean_text",
    "format_observation",
    "malformed_observation",
    "parse_action",
    "render_action",
    "render_tools_prompt",
    "strip_actions",
    "to_tag",
    "tool_examples",
]
