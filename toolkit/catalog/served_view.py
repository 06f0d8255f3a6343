"""One caller's view of a registry's resources, resource templates and prompts.

Rule: every surface answers to the caller. Resources, templates, prompts, completion and
subscriptions answer to the same caller and the same policy as tools:

* An item is visible to a caller when the policy (the server's, else the registry's), asked
  as for a tool with the caller's :class:`~toolkit.context.ToolContext` and no arguments, does
  not answer ``"deny"``; a policy that raises hides it. The request's ``tool`` is the item's
  name (a resource's ``name``, a prompt's name) and its ``spec`` (:func:`served_spec`) says what
  it is: ``tags`` holds ``"resource"`` or ``"prompt"``, ``source`` is ``resource:<uri>`` or
  ``prompt:<name>``, and it is read-only. One policy covers every surface: one that hides the
  ``admin_*`` tools hides the ``admin_keys`` resource and the ``admin_runbook`` prompt too, and
  one that must tell them apart reads ``request.spec.tags``.
* An item relayed from a remote MCP server (a gateway's copy, whose ``server`` is set) is
  visible only to a caller who sees at least one of that server's tools, and then only if the
  policy does not deny the item itself: a remote server's resources and prompts are scoped at
  least like its tools.
* A hidden item is not listed, and reading, getting, completing or subscribing to it is
  answered exactly as for one that does not exist (``NOT_FOUND``, the same message).
* Its function runs with the caller's context, and every read and get is a
  :class:`~toolkit.result.CallRecord` (``resource:<name>``, ``prompt:<name>``) for the
  registry's subscribers, such as the call log, with the caller the server named
  (``ServedView(caller=...)``); a hidden or missing item is recorded as
  ``NOT_FOUND`` with the decision ``"deny"``.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Literal, TypeVar

from toolkit.calls._redact import redact_arguments, redact_text
from toolkit.calls.invoker import new_call_id
from toolkit.calls.spec import ToolAnnotations, ToolSpec
from toolkit.catalog.prompts import FunctionPrompt, PromptMessage, prompt_not_found
from toolkit.catalog.resources import FunctionResource, resource_not_found
from toolkit.context import ToolContext
from toolkit.errors import ErrorCode, ToolError
from toolkit.policy import CallRequest, Policy
from toolkit.registry import ToolRegistry
from toolkit.result import CallRecord, ResourceContent

__all__ = ["ServedView", "outgoing_text", "served_spec"]

log = logging.getLogger("toolkit.calls")

T = TypeVar("T")

#: Characters of a missing resource's URI kept in its record.
_RECORDED_URI = 200

_READ_ONLY = ToolAnnotations(read_only=True, destructive=False)

_specs: weakref.WeakKeyDictionary[FunctionResource | FunctionPrompt, ToolSpec] = (
    weakref.WeakKeyDictionary()
)


def served_spec(item: FunctionResource | FunctionPrompt) -> ToolSpec:
    """The spec the policy is shown for a resource, template or prompt (built once per item)."""
    spec = _specs.get(item)
    if spec is None:
        spec = _specs[item] = _spec(item)
    return spec


def _spec(item: FunctionResource | FunctionPrompt) -> ToolSpec:
    kind = item.runner.kind
    label = item.uri if isinstance(item, FunctionResource) else item.name
    return ToolSpec(
        name=item.name,
        description=item.description,
        input_schema=item.runner.schema.input_schema,
        annotations=_READ_ONLY,
        tags=frozenset({kind}),
        source=f"{kind}:{label}",
    )


def outgoing_text(registry: ToolRegistry, text: str) -> str:
    """``text`` as it may leave the process: through the registry's processor's scrubber,
    then with the registry's ``secrets`` masked."""
    text = registry.processor.scrub(text)
    secrets = registry.settings.secrets
    return redact_text(text, secrets) if secrets else text


class ServedView:
    """What one caller may list, read, get, complete and subscribe to (see the module's rule).

    Args:
        registry: The registry whose ``resources`` and ``prompts`` are served.
        context: The caller's context (its ``values`` name the caller); default: an empty one.
        policy: The policy that decides; default: the registry's.
        caller: Who asks, as every record of a read or get names them (the server's
            authenticated caller, a trusted header's, or the peer); default: the context's.
        peer: The network address the request came from, if any.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        context: ToolContext | None = None,
        *,
        policy: Policy | None = None,
        caller: str | None = None,
        peer: str | None = None,
    ) -> None:
        self.registry = registry
        self.context = context or ToolContext()
        self.policy = policy or registry.settings.policy
        named = self.context.get("caller")
        self.caller = caller or (str(named) if named else None)
        self.peer = peer
        self._servers: set[str] | None = None

    async def sees(self, item: FunctionResource | FunctionPrompt) -> bool:
        """Whether the caller may see ``item``."""
        server = getattr(item, "server", None)
        if server is not None and not await self.sees_server(server):
            return False
        request = CallRequest(
            item.name, {}, served_spec(item), dataclasses.replace(self.context, tool=item.name)
        )
        try:
            decision = self.policy(request)
            if inspect.isawaitable(decision):
                decision = await decision
        except Exception as exc:
            log.warning(
                "the policy raised %s deciding whether a caller may see the %s %s, so it is "
                "hidden; make the policy answer for a request without arguments",
                type(exc).__name__,
                item.runner.kind,
                item.name,
            )
            return False
        return bool(decision != "deny")

    async def sees_server(self, server: str) -> bool:
        """Whether the caller sees at least one tool of the remote MCP server ``server``."""
        if self._servers is None:
            names = await self.registry.visible_names(self.context, policy=self.policy)
            tools = (self.registry.get(name) for name in names)
            self._servers = {s for t in tools if isinstance(s := getattr(t, "server", None), str)}
        return server in self._servers

    async def resources(self) -> list[FunctionResource]:
        """The fixed resources the caller may see, in registration order."""
        return [r for r in self.registry.resources.resources() if await self.sees(r)]

    async def templates(self) -> list[FunctionResource]:
        """The resource templates the caller may see, in registration order."""
        return [r for r in self.registry.resources.templates() if await self.sees(r)]

    async def prompts(self) -> list[FunctionPrompt]:
        """The prompts the caller may see, in registration order."""
        return [p for p in self.registry.prompts.prompts() if await self.sees(p)]

    async def resource(self, uri: str) -> FunctionResource | None:
        """The visible resource serving ``uri`` (the fixed one, else the first visible template
        matching it), or the visible template registered as ``uri`` itself; else ``None``."""
        resources = self.registry.resources
        fixed = resources.get(uri)
        if fixed is not None and await self.sees(fixed):
            return fixed
        for template in resources.templates():
            if template.template.match(uri) is not None and await self.sees(template):
                return template
        return None

    async def prompt(self, name: str) -> FunctionPrompt | None:
        """The prompt ``name`` if the caller may see it, else ``None``."""
        prompt = self.registry.prompts.get(name)
        return prompt if prompt is not None and await self.sees(prompt) else None

    async def read(self, uri: str) -> list[ResourceContent]:
        """The contents at ``uri``, read with the caller's context, recorded.

        Raises:
            ToolError: ``NOT_FOUND`` when no visible resource serves ``uri`` (worded as when
                none exists); else as :meth:`~toolkit.catalog.resources.FunctionResource.read`.
        """
        resource = await self.resource(uri)
        if resource is None:
            hidden = self.registry.resources.find(uri)
            label = hidden.name if hidden is not None else uri[:_RECORDED_URI]
            refusal = _refuse(resource_not_found(uri))
            return await self._recorded(f"resource:{label}", {"uri": uri}, refusal, hidden=True)
        processor, context = self.registry.resources.processor, self._for(resource.name)

        async def run() -> list[ResourceContent]:
            return await resource.read(uri, processor=processor, context=context)

        return await self._recorded(f"resource:{resource.name}", {"uri": uri}, run)

    async def render(self, name: str, arguments: Mapping[str, str]) -> list[PromptMessage]:
        """The messages of the prompt ``name``, rendered with the caller's context, recorded.

        Raises:
            ToolError: ``NOT_FOUND`` when the caller sees no prompt ``name`` (the message names
                only the prompts it sees); else as :meth:`~toolkit.catalog.prompts.FunctionPrompt.render`.
        """
        prompt = await self.prompt(name)
        if prompt is None:
            known = [p.name for p in await self.prompts()]
            refusal = _refuse(prompt_not_found(name, known))
            tool = f"prompt:{name[:_RECORDED_URI]}"
            return await self._recorded(tool, dict(arguments), refusal, hidden=True)
        processor, context = self.registry.prompts.processor, self._for(prompt.name)

        async def run() -> list[PromptMessage]:
            return await prompt.render(arguments, processor=processor, context=context)

        return await self._recorded(f"prompt:{prompt.name}", dict(arguments), run)

    def _for(self, name: str) -> ToolContext:
        return dataclasses.replace(self.context, tool=name)

    async def _recorded(
        self,
        tool: str,
        arguments: dict[str, str],
        run: Callable[[], Awaitable[T]],
        *,
        hidden: bool = False,
    ) -> T:
        started, t0 = time.time(), time.perf_counter()
        outcome: Literal["ok", "error", "raised"] = "raised"
        code: ErrorCode | None = None
        try:
            value = await run()
            outcome = "ok"
            return value
        except ToolError as error:
            outcome, code = "error", error.code
            raise
        finally:
            on_record = self.registry.invoker.on_record
            if on_record is not None:
                record = CallRecord(
                    call_id=new_call_id(),
                    tool=tool,
                    arguments=redact_arguments(arguments),
                    outcome=outcome,
                    code=code,
                    duration_ms=(time.perf_counter() - t0) * 1000,
                    attempts=1,
                    decision="deny" if hidden else "allow",
                    started_at=started,
                    caller=self.caller,
                    peer=self.peer,
                )
                on_record(record)


def _refuse(error: ToolError) -> Callable[[], Awaitable[T]]:
    async def refuse() -> T:
        raise error

    return refuse
