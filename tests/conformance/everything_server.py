"""The tools the MCP conformance suite's server scenarios call, written as ordinary toolkit tools.

Served with ``toolkit serve tests/conformance/everything_server.py --transport http``; every tool
here is what a tool author would write, so a scenario passes only when the toolkit itself
carries the feature (rich content, logging, progress, elicitation, sampling, schemas).
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
from collections.abc import Mapping
from typing import Any

from toolkit import PromptMessage, ToolRegistry, mcp_prompt, mcp_resource, mcp_tool
from toolkit.calls.spec import ToolSpec
from toolkit.context import ToolContext
from toolkit.errors import ToolError
from toolkit.result import (
    AudioContent,
    Content,
    ImageContent,
    ResourceContent,
    TextContent,
    ToolResult,
)

__all__ = ["registry"]

#: A 1x1 red PNG and a 1 ms silent WAV, base64.
PIXEL_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)
AUDIO_WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=="


@mcp_tool
def test_simple_text() -> str:
    """Return a fixed sentence."""
    return "This is a simple text response for testing."


@mcp_tool
def test_image_content() -> ImageContent:
    """Return a 1x1 red PNG."""
    return ImageContent(data=PIXEL_PNG, mime_type="image/png")


@mcp_tool
def test_audio_content() -> AudioContent:
    """Return a short silent WAV."""
    return AudioContent(data=AUDIO_WAV, mime_type="audio/wav")


@mcp_tool
def test_embedded_resource() -> ResourceContent:
    """Return an embedded text resource."""
    return ResourceContent(
        uri="test://embedded-resource",
        mime_type="text/plain",
        text="This is an embedded resource content.",
    )


@mcp_tool
def test_multiple_content_types() -> list[Content]:
    """Return text, an image and a resource together."""
    return [
        TextContent(text="Multiple content types test:"),
        ImageContent(data=PIXEL_PNG, mime_type="image/png"),
        ResourceContent(
            uri="test://mixed-content-resource",
            mime_type="application/json",
            text=json.dumps({"test": "data", "value": 123}),
        ),
    ]


@mcp_tool
async def test_tool_with_logging(context: ToolContext) -> str:
    """Log three messages to the client while running."""
    await context.log("info", "Tool execution started")
    await asyncio.sleep(0.05)
    await context.log("info", "Tool processing data")
    await asyncio.sleep(0.05)
    await context.log("info", "Tool execution completed")
    return "Tool with logging executed successfully"


@mcp_tool
async def test_tool_with_progress(context: ToolContext) -> str:
    """Report 0, 50 and 100 of 100."""
    for step in (0, 50, 100):
        await context.report_progress(step, 100)
        if step < 100:
            await asyncio.sleep(0.05)
    return "Tool with progress executed successfully"


@mcp_tool
def test_error_handling() -> str:
    """Always fail."""
    raise ToolError("This tool intentionally returns an error for testing")


@mcp_tool
async def test_sampling(prompt: str, context: ToolContext) -> str:
    """Ask the client's model to answer ``prompt``."""
    reply = await context.sample(prompt, max_tokens=100)
    return f"LLM response: {reply}"


_USER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}


@mcp_tool
async def test_elicitation(message: str, context: ToolContext) -> str:
    """Ask the user for a name and an email address."""
    answer = await context.elicit(message, _USER_SCHEMA)
    return f"User response: action={answer.action}, content={json.dumps(answer.content)}"


_DEFAULTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {
            "type": "string",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "default": True},
    },
}


@mcp_tool
async def test_elicitation_sep1034_defaults(context: ToolContext) -> str:
    """Ask for values that all have defaults."""
    answer = await context.elicit("Please review and update the form fields", _DEFAULTS_SCHEMA)
    return f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}"


_ENUMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
}


@mcp_tool
async def test_elicitation_sep1330_enums(context: ToolContext) -> str:
    """Ask with every enum form of the spec."""
    answer = await context.elicit("Please select options", _ENUMS_SCHEMA)
    return f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}"


@mcp_tool
async def test_reconnection(context: ToolContext) -> str:
    """Take a moment, so a client may reconnect meanwhile."""
    await asyncio.sleep(0.1)
    return "Reconnection test completed"


class _SchemaTool:
    """A tool whose input schema is written by hand, in JSON Schema 2020-12."""

    runs = "async"

    name = "json_schema_2020_12_tool"
    spec = ToolSpec(
        name=name,
        description="Tool with JSON Schema 2020-12 features",
        input_schema={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
                }
            },
            "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
            "additionalProperties": False,
        },
    )

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return arguments

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        return ToolResult(content=json.dumps(arguments), tool=self.name)

    def renamed(self, name: str) -> _SchemaTool:
        return self


@mcp_resource("test://static-text", mime_type="text/plain")
def static_text() -> str:
    """A fixed text resource."""
    return "This is the content of the static text resource."


@mcp_resource("test://static-binary", mime_type="image/png")
def static_binary() -> bytes:
    """A fixed binary resource (a 1x1 PNG)."""
    return base64.b64decode(PIXEL_PNG)


@mcp_resource("test://template/{id}/data", mime_type="application/json")
def template_data(id: str) -> dict[str, Any]:
    """Data for one id, from a URI template."""
    return {"id": id, "templateTest": True, "data": f"Data for ID: {id}"}


@mcp_resource("test://watched-resource", mime_type="text/plain")
def watched_resource() -> str:
    """A resource clients subscribe to."""
    return "Watched resource content."


def _cities(value: str, context: Mapping[str, str]) -> list[str]:
    return [c for c in ("paris", "park", "party", "london") if c.startswith(value)]


@mcp_prompt(name="test_simple_prompt")
def simple_prompt() -> str:
    """A prompt without arguments."""
    return "This is a simple prompt for testing."


@mcp_prompt(name="test_prompt_with_arguments", completions={"arg1": _cities})
def prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt with two required arguments.

    Args:
        arg1: First test argument.
        arg2: Second test argument.
    """
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@mcp_prompt(name="test_prompt_with_embedded_resource")
def prompt_with_embedded_resource(resourceUri: str) -> list[PromptMessage]:
    """A prompt that embeds a resource.

    Args:
        resourceUri: URI of the resource to embed.
    """
    embedded = ResourceContent(
        uri=resourceUri, mime_type="text/plain", text="Embedded resource content for testing."
    )
    return [
        PromptMessage("user", embedded),
        PromptMessage("user", TextContent(text="Please process the embedded resource above.")),
    ]


@mcp_prompt(name="test_prompt_with_image")
def prompt_with_image() -> list[Content]:
    """A prompt with an image."""
    return [
        ImageContent(data=PIXEL_PNG, mime_type="image/png"),
        TextContent(text="Please analyze the image above."),
    ]


registry = ToolRegistry()
registry.scan(sys.modules[__name__])
registry.register(_SchemaTool())
