"""``@mcp_resource``: the data business functions read, served to MCP clients as resources.

A resource is a function with a URI template::

    @mcp_resource("orders://{order_id}", mime_type="application/json")
    def order(order_id: int) -> dict:
        '''One order as a document.'''
        return load_order(order_id)

``{order_id}`` in the template is the parameter ``order_id`` (coerced to ``int`` from the URI's
text); a URI without variables is one fixed resource. The function returns ``str`` (text),
``bytes`` (binary), any JSON-able value (JSON text), or :class:`~toolkit.result.ResourceContent`
items. As with ``@mcp_tool`` the function is returned unchanged.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, TypeVar

from toolkit.calls.processor import ExceptionProcessor
from toolkit.catalog._served import Completer, Runner, ServedRegistry, bound_decorated, decorated
from toolkit.catalog._uri_template import UriTemplate, UriTemplateError
from toolkit.context import ToolContext
from toolkit.decorator import where
from toolkit.errors import ErrorCode, RegistrationError, ToolError
from toolkit.result import ResourceContent

__all__ = [
    "RESOURCE_ATTRIBUTE",
    "Completer",
    "FunctionResource",
    "ResourceDefinition",
    "ResourceRegistry",
    "mcp_resource",
    "resource_not_found",
]

F = TypeVar("F", bound=Callable[..., Any])

#: The attribute ``@mcp_resource`` sets on a function.
RESOURCE_ATTRIBUTE = "__mcp_resource__"


@dataclass(frozen=True, slots=True)
class ResourceDefinition:
    """What ``@mcp_resource`` recorded.

    Attributes:
        fn: The decorated function.
        template: The parsed URI (template).
        name: Short name (default: the function's).
        title: Human-readable title.
        description: Explicit description (default: the docstring's).
        mime_type: MIME type of what it returns (default: guessed from the value).
        completions: Completion functions by parameter name.
        timeout: Seconds a read may take.
    """

    fn: Callable[..., Any]
    template: UriTemplate
    name: str | None = None
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    completions: Mapping[str, Completer] = field(default_factory=dict)
    timeout: float | None = 60.0


def mcp_resource(
    uri: str,
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    mime_type: str | None = None,
    completions: Mapping[str, Completer] | None = None,
    timeout: float | None = 60.0,
) -> Callable[[F], F]:
    """Mark a function as the resource at ``uri`` (a fixed URI or an RFC 6570 template).

    Args:
        uri: Such as ``config://app`` or ``orders://{order_id}``: each ``{name}`` is a
            parameter of the function (one path segment; ``{+name}`` takes the rest of a path).
        name: Short name for listings (default: the function's name).
        title: Human-readable title.
        description: For the client (default: the docstring without its sections).
        mime_type: What the function returns (default: ``text/plain`` for ``str``,
            ``application/octet-stream`` for ``bytes``, ``application/json`` otherwise).
        completions: ``{parameter: completer}`` for ``completion/complete``; without one a
            ``Literal``/``Enum`` parameter completes from its choices.
        timeout: Seconds a read may take (``None``: no limit).

    Raises:
        RegistrationError: The URI template is not valid.
    """
    try:
        template = UriTemplate.parse(uri)
    except UriTemplateError as exc:
        raise RegistrationError(f"@mcp_resource({uri!r}): {exc}.") from None

    def decorate(fn: F) -> F:
        if not callable(fn) or not hasattr(fn, "__name__"):
            raise RegistrationError(
                f"@mcp_resource decorates functions and methods, not {type(fn).__name__} objects."
            )
        definition = ResourceDefinition(
            fn, template, name, title, description, mime_type, dict(completions or {}), timeout
        )
        setattr(getattr(fn, "__func__", fn), RESOURCE_ATTRIBUTE, definition)
        return fn

    return decorate


def resource_definition(obj: Any) -> ResourceDefinition | None:
    """The :class:`ResourceDefinition` of a decorated function or method, if any."""
    found = getattr(getattr(obj, "__func__", obj), RESOURCE_ATTRIBUTE, None)
    return found if isinstance(found, ResourceDefinition) else None


class FunctionResource:
    """A function served as a resource (or a template of resources).

    Args:
        fn: The function (decorated or not; a bound method for an instance's resource).
        uri: The URI (template); default: the decorator's.
        name: Short name (default: the decorator's, else the function's name).

    Raises:
        RegistrationError: The template and the parameters disagree (the message says how),
            or the function cannot be served.
    """

    def __init__(
        self, fn: Callable[..., Any], uri: str | None = None, *, name: str | None = None
    ) -> None:
        found = resource_definition(fn)
        if found is None and uri is None:
            raise RegistrationError(
                f"{where(fn)} has no URI: decorate it with @mcp_resource('scheme://...') or "
                f"pass uri= when registering it."
            )
        if uri is not None:
            try:
                template = UriTemplate.parse(uri)
            except UriTemplateError as exc:
                raise RegistrationError(f"Resource {where(fn)}: {exc}.") from None
            base = found or ResourceDefinition(fn, template)
            found = ResourceDefinition(
                fn, template, base.name, base.title, base.description, base.mime_type,
                base.completions, base.timeout,
            )  # fmt: skip
        assert found is not None
        self.definition = found
        #: The remote MCP server this entry relays (a gateway's copy), else ``None``: such an
        #: entry is seen only by callers who see one of that server's tools.
        self.server: str | None = None
        self.template = found.template
        self.name = name or found.name or str(getattr(fn, "__name__", "resource"))
        self.runner = Runner(
            fn,
            kind="resource",
            label=found.template.text,
            description=found.description,
            completers=found.completions,
            timeout=found.timeout,
        )
        params = set(self.runner.parameters)
        variables = set(self.template.variables)
        missing = sorted(variables - params)
        if missing:
            raise RegistrationError(
                f"The URI template {self.template.text!r} of {where(fn)} uses "
                f"{', '.join('{' + m + '}' for m in missing)}, which "
                f"{'is not a parameter' if len(missing) == 1 else 'are not parameters'} of the "
                f"function. Add the parameter, or take it out of the template."
            )
        unfilled = sorted((params - variables) & self.runner.required)
        if unfilled:
            raise RegistrationError(
                f"{where(fn)} has the parameter {', '.join(unfilled)} without a default, which "
                f"the URI template {self.template.text!r} does not fill. Add "
                f"{', '.join('{' + u + '}' for u in unfilled)} to the template, or give the "
                f"parameter a default."
            )

    @property
    def uri(self) -> str:
        """The URI, or the URI template of a template."""
        return self.template.text

    @property
    def title(self) -> str | None:
        """Human-readable title."""
        return self.definition.title

    @property
    def description(self) -> str:
        """The description (explicit, else the docstring's)."""
        return self.runner.schema.description

    @property
    def mime_type(self) -> str | None:
        """The declared MIME type, if any."""
        return self.definition.mime_type

    @property
    def is_template(self) -> bool:
        """Whether the URI has variables."""
        return self.template.is_template

    async def read(
        self,
        uri: str,
        *,
        processor: ExceptionProcessor | None = None,
        context: ToolContext | None = None,
    ) -> list[ResourceContent]:
        """The contents at ``uri`` (which must match this resource's template).

        Raises:
            ToolError: ``NOT_FOUND`` (the URI does not match), ``INVALID_PARAMS`` (a value the
                parameter's type refuses, or one that would leave its path: see
                :mod:`toolkit.catalog.path_values`), ``TIMEOUT``, or the function's failure.
        """
        values = self.template.match(uri)
        if values is None:
            raise ToolError(f"{uri!r} is not a URI of {self.uri!r}.", code=ErrorCode.NOT_FOUND)
        problem = self.template.problem(values)
        if problem is not None:
            raise ToolError(f"{uri!r} is refused: {problem}.", code=ErrorCode.INVALID_PARAMS)
        value = await self.runner.run(
            values, processor=processor or ExceptionProcessor(), context=context
        )
        return _contents(value, uri, self.mime_type)

    def __repr__(self) -> str:
        return f"FunctionResource({self.uri!r}, name={self.name!r})"


def resource_not_found(uri: str) -> ToolError:
    """The answer for a URI no resource serves (or none the caller may see: the same words)."""
    return ToolError(
        f"No resource has the URI {uri!r}. List resources and templates to see which exist.",
        code=ErrorCode.NOT_FOUND,
    )


def _contents(value: Any, uri: str, mime_type: str | None) -> list[ResourceContent]:
    """A function's return value as resource contents."""
    if isinstance(value, ResourceContent):
        return [value]
    if (
        isinstance(value, list | tuple)
        and value
        and all(isinstance(v, ResourceContent) for v in value)
    ):
        return list(value)
    if isinstance(value, bytes | bytearray | memoryview):
        blob = base64.b64encode(bytes(value)).decode("ascii")
        return [
            ResourceContent(uri=uri, mime_type=mime_type or "application/octet-stream", blob=blob)
        ]
    if isinstance(value, str):
        return [ResourceContent(uri=uri, mime_type=mime_type or "text/plain", text=value)]
    from pydantic_core import to_jsonable_python

    text = json.dumps(to_jsonable_python(value), ensure_ascii=False)
    return [ResourceContent(uri=uri, mime_type=mime_type or "application/json", text=text)]


class ResourceRegistry(ServedRegistry[FunctionResource]):
    """The resources of an application, by URI; fixed URIs win over templates.

    Listeners (:meth:`on_update`) hear about changed contents (:meth:`updated`) and about
    resources added or removed (:meth:`on_change`); the MCP server turns them into
    ``notifications/resources/updated`` and ``list_changed``.

    Args:
        processor: Words a failing function's exception (default: the default processor).
    """

    def __init__(self, processor: ExceptionProcessor | None = None) -> None:
        super().__init__(processor)
        self._update_listeners: list[Callable[[str], None]] = []
        self._subscribe_hooks: list[Callable[[str], Awaitable[None]]] = []
        self._unsubscribe_hooks: list[Callable[[str], Awaitable[None]]] = []

    def register(
        self, fn: Callable[..., Any], uri: str | None = None, *, name: str | None = None
    ) -> FunctionResource:
        """Add a function as a resource (its decorator's URI unless ``uri`` is given).

        Raises:
            RegistrationError: The URI is taken, or the function and template disagree.
        """
        resource = FunctionResource(fn, uri, name=name)
        return self._add(
            resource.uri,
            resource,
            lambda taken: (
                f"The resource URI {resource.uri!r} of {where(fn)} is already served "
                f"by {where(taken.runner.fn)}. Give one of them another URI."
            ),
        )

    def remove(self, uri: str) -> FunctionResource:
        """Remove the resource registered under ``uri`` (a URI or template as registered).

        Raises:
            KeyError: None is.
        """
        return self._pop(uri)

    def scan_module(self, module: ModuleType) -> list[FunctionResource]:
        """Register every ``@mcp_resource`` function defined in ``module``."""
        return [self.register(fn) for fn in decorated(module, resource_definition)]

    def scan_object(self, obj: Any) -> list[FunctionResource]:
        """Register every ``@mcp_resource`` method of an instance, bound to it."""
        return [self.register(fn) for fn in bound_decorated(obj, resource_definition)]

    def resources(self) -> list[FunctionResource]:
        """The fixed resources (no variables), in registration order."""
        return [r for r in self._items.values() if not r.is_template]

    def templates(self) -> list[FunctionResource]:
        """The resource templates, in registration order."""
        return [r for r in self._items.values() if r.is_template]

    def get(self, uri: str) -> FunctionResource | None:
        """The resource registered under exactly ``uri`` (URI or template text)."""
        return self._items.get(uri)

    def find(self, uri: str) -> FunctionResource | None:
        """The resource serving ``uri``: the fixed one, else the first template matching it."""
        fixed = self._items.get(uri)
        if fixed is not None and not fixed.is_template:
            return fixed
        return next((r for r in self.templates() if r.template.match(uri) is not None), None)

    async def read(self, uri: str, context: ToolContext | None = None) -> list[ResourceContent]:
        """The contents at ``uri``.

        Raises:
            ToolError: ``NOT_FOUND`` when no resource serves ``uri``; else as
                :meth:`FunctionResource.read`.
        """
        resource = self.find(uri)
        if resource is None:
            raise resource_not_found(uri)
        return await resource.read(uri, processor=self.processor, context=context)

    def updated(self, uri: str) -> None:
        """Announce that the contents at ``uri`` changed (subscribed clients are told)."""
        for listener in list(self._update_listeners):
            listener(uri)

    def on_update(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """Call ``callback(uri)`` on every :meth:`updated`; returns a function that stops it."""
        self._update_listeners.append(callback)
        return lambda: self._update_listeners.remove(callback)

    def on_subscribe(self, hook: Callable[[str], Awaitable[None]]) -> Callable[[], None]:
        """Await ``hook(uri)`` whenever a client subscribes to ``uri`` (a gateway subscribes to
        the remote resource it relays); a ``ToolError`` it raises refuses the subscription.
        Returns a function that removes the hook."""
        self._subscribe_hooks.append(hook)
        return lambda: self._subscribe_hooks.remove(hook)

    async def subscribing(self, uri: str) -> None:
        """Run the :meth:`on_subscribe` hooks for a client's subscription to ``uri``.

        Raises:
            ToolError: A hook refused it (the message says why).
        """
        for hook in list(self._subscribe_hooks):
            await hook(uri)

    def on_unsubscribe(self, hook: Callable[[str], Awaitable[None]]) -> Callable[[], None]:
        """Await ``hook(uri)`` when the last client subscribed to ``uri`` unsubscribes (a
        gateway unsubscribes from the remote resource). Returns a function that removes it."""
        self._unsubscribe_hooks.append(hook)
        return lambda: self._unsubscribe_hooks.remove(hook)

    async def unsubscribed(self, uri: str) -> None:
        """Run the :meth:`on_unsubscribe` hooks: nobody listens to ``uri`` any more."""
        for hook in list(self._unsubscribe_hooks):
            await hook(uri)

    def __repr__(self) -> str:
        return f"ResourceRegistry({len(self)} resources)"
