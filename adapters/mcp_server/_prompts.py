"""``prompts/list``, ``prompts/get`` and ``completion/complete`` for a registry's prompts and
resource templates.

Rule: every surface answers to the caller (:mod:`toolkit.catalog.served_view`): a caller lists, gets and
completes only the prompts and templates the policy lets it see; a hidden one is answered as a
missing one, a prompt runs with the caller's context, and each get is recorded with the caller.
"""

from __future__ import annotations

from collections.abc import Callable
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
from toolkit.catalog.prompts import FunctionPrompt, PromptRegistry, prompt_not_found
from toolkit.catalog.resources import ResourceRegistry
from toolkit.catalog.served_view import ServedView
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
        view: The caller's view of the registry for a request.
    """

    def __init__(
        self,
        prompts: PromptRegistry,
        resources: ResourceRegistry,
        view: Callable[[ServerRequestContext[Any]], ServedView],
    ) -> None:
        self.prompts = prompts
        self.resources = resources
        self._view = view

    def install(self, server: Any) -> None:
        """Register the handlers on ``server`` (a low-level SDK ``Server``)."""
        server.add_request_handler("prompts/list", PaginatedRequestParams, self.list)
        server.add_request_handler("prompts/get", GetPromptRequestParams, self.get)
        server.add_request_handler("completion/complete", CompleteRequestParams, self.complete)

    async def list(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> dict[str, Any]:
        """``prompts/list``: every prompt the caller may see, in one page."""
        entries = [prompt_entry(p) for p in await self._view(ctx).prompts()]
        return wire_result(mcp_types.ListPromptsResult, {"prompts": entries})

    async def get(
        self, ctx: ServerRequestContext[Any], params: GetPromptRequestParams
    ) -> dict[str, Any]:
        """``prompts/get``: the prompt's messages for the arguments given."""
        view = self._view(ctx)
        try:
            messages = await view.render(params.name, params.arguments or {})
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
        ref, view = params.ref, self._view(ctx)
        if isinstance(ref, PromptReference):
            prompt = await view.prompt(ref.name)
            if prompt is None:
                known = [p.name for p in await view.prompts()]
                raise mcp_error(prompt_not_found(ref.name, known), name=ref.name)
            runner = prompt.runner
        else:
            resource = await view.resource(ref.uri)
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
            caller = view.context.for_call(runner.label, view.context.call_id or "")
            values = await runner.complete(argument.name, argument.value, context, caller)
        except ToolError as error:
            raise mcp_error(error) from None
        except Exception as exc:
            raise mcp_error(self.prompts.processor.process(exc).error) from None
        completion = {"values": values, "total": len(values), "hasMore": False}
        return wire_result(mcp_types.CompleteResult, {"completion": completion})
