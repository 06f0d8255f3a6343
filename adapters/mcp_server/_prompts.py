"""``prompts/list``, ``prompts/get`` and ``completion/complete`` for a registry's prompts and
resource templates."""

from __future__ import annotations

from typing import Any

import mcp_types
from mcp.server import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CompleteRequestParams,
    GetPromptRequestParams,
    PaginatedRequestParams,
    PromptReference,
)

from adapters.mcp_server._resources import mcp_error, wire_result
from adapters.mcp_wire import mcp_block
from toolkit.catalog.prompts import FunctionPrompt, PromptRegistry
from toolkit.catalog.resources import ResourceRegistry
from toolkit.errors import ToolError

__all__ = ["PromptHandlers"]


def prompt_entry(prompt: FunctionPrompt) -> dict[str, Any]:
    """The ``prompts/list`` entry of ``prompt``."""
    entry: dict[str, Any] = {"name": prompt.name}
    if prompt.title:
        entry["title"] = prompt.title
    if prompt.description:
        entry["description"] = prompt.description
    arguments = []
    for argument in prompt.arguments:
        item: dict[str, Any] = {"name": argument.name, "required": argument.required}
        if argument.description:
            item["description"] = argument.description
        arguments.append(item)
    if arguments:
        entry["arguments"] = arguments
    return entry


class PromptHandlers:
    """The request handlers for prompts and for completing prompt and template arguments.

    Args:
        prompts: The registry's prompts.
        resources: The registry's resources (their templates' arguments complete too).
    """

    def __init__(self, prompts: PromptRegistry, resources: ResourceRegistry) -> None:
        self.prompts = prompts
        self.resources = resources

    def install(self, server: Any) -> None:
        """Register the handlers on ``server`` (a low-level SDK ``Server``)."""
        server.add_request_handler("prompts/list", PaginatedRequestParams, self.list)
        server.add_request_handler("prompts/get", GetPromptRequestParams, self.get)
        server.add_request_handler("completion/complete", CompleteRequestParams, self.complete)

    async def list(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> dict[str, Any]:
        """``prompts/list``: every prompt, in one page."""
        entries = [prompt_entry(p) for p in self.prompts.prompts()]
        return wire_result(mcp_types.ListPromptsResult, {"prompts": entries})

    async def get(
        self, ctx: ServerRequestContext[Any], params: GetPromptRequestParams
    ) -> dict[str, Any]:
        """``prompts/get``: the prompt's messages for the arguments given."""
        try:
            messages = await self.prompts.render(params.name, params.arguments or {})
        except ToolError as error:
            raise mcp_error(error, name=params.name) from None
        out: dict[str, Any] = {
            "messages": [{"role": m.role, "content": mcp_block(m.content)} for m in messages]
        }
        prompt = self.prompts.get(params.name)
        if prompt is not None and prompt.description:
            out["description"] = prompt.description
        return wire_result(mcp_types.GetPromptResult, out)

    async def complete(
        self, ctx: ServerRequestContext[Any], params: CompleteRequestParams
    ) -> dict[str, Any]:
        """``completion/complete``: candidates for one argument of a prompt or template."""
        ref = params.ref
        if isinstance(ref, PromptReference):
            prompt = self.prompts.get(ref.name)
            if prompt is None:
                raise MCPError(INVALID_PARAMS, f"No prompt is called {ref.name!r}.")
            runner = prompt.runner
        else:
            resource = self.resources.get(ref.uri) or self.resources.find(ref.uri)
            if resource is None:
                raise MCPError(INVALID_PARAMS, f"No resource template is {ref.uri!r}.")
            runner = resource.runner
        argument = params.argument
        if argument.name not in runner.parameters:
            raise MCPError(
                INVALID_PARAMS,
                f"{argument.name!r} is not an argument of {runner.label!r}; its arguments: "
                f"{', '.join(runner.parameters) or 'none'}.",
            )
        context = (params.context.arguments if params.context else None) or {}
        try:
            values = await runner.complete(argument.name, argument.value, context)
        except ToolError as error:
            raise mcp_error(error) from None
        except Exception as exc:
            raise mcp_error(self.prompts.processor.process(exc).error) from None
        completion = {"values": values, "total": len(values), "hasMore": False}
        return wire_result(mcp_types.CompleteResult, {"completion": completion})
