"""``@mcp_prompt``: how to use the tools, served to MCP clients as prompts.

A prompt is a function of string arguments that returns the messages to start from::

    @mcp_prompt
    def review_order(order_id: str, tone: Literal["short", "detailed"] = "short") -> str:
        '''Ask for a review of one order.

        Args:
            order_id: The order to review.
            tone: How long the review should be.
        '''
        return f"Review order {order_id}; keep it {tone}."

The arguments and their descriptions come from the signature and the docstring, as for tools.
The function returns a ``str`` (one user message), content items (text, image, audio, an
embedded resource), :class:`PromptMessage` objects, or a list of any of these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Literal, TypeVar, overload

from toolkit.calls.processor import ExceptionProcessor
from toolkit.catalog._served import Completer, Runner, ServedRegistry, bound_decorated, decorated
from toolkit.context import ToolContext
from toolkit.decorator import check_name, where
from toolkit.errors import ErrorCode, RegistrationError, ToolError
from toolkit.result import AudioContent, Content, ImageContent, ResourceContent, TextContent

__all__ = [
    "PROMPT_ATTRIBUTE",
    "FunctionPrompt",
    "PromptArgument",
    "PromptDefinition",
    "PromptMessage",
    "PromptRegistry",
    "mcp_prompt",
    "prompt_not_found",
]

F = TypeVar("F", bound=Callable[..., Any])

#: The attribute ``@mcp_prompt`` sets on a function.
PROMPT_ATTRIBUTE = "__mcp_prompt__"

_CONTENT = (TextContent, ImageContent, AudioContent, ResourceContent)


@dataclass(frozen=True, slots=True)
class PromptMessage:
    """One message of a prompt.

    Attributes:
        role: ``"user"`` or ``"assistant"``.
        content: Text, an image, audio or an embedded resource.
    """

    role: Literal["user", "assistant"]
    content: Content


@dataclass(frozen=True, slots=True)
class PromptArgument:
    """One argument of a prompt, as listed to clients.

    Attributes:
        name: The parameter name.
        description: From the docstring's ``Args:`` section.
        required: Whether it has no default.
    """

    name: str
    description: str | None
    required: bool


@dataclass(frozen=True, slots=True)
class PromptDefinition:
    """What ``@mcp_prompt`` recorded (see :func:`mcp_prompt` for the fields)."""

    fn: Callable[..., Any]
    name: str | None = None
    title: str | None = None
    description: str | None = None
    completions: Mapping[str, Completer] = field(default_factory=dict)
    timeout: float | None = 60.0


@overload
def mcp_prompt(fn: F, /) -> F: ...


@overload
def mcp_prompt(
    fn: None = None,
    /,
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    completions: Mapping[str, Completer] | None = None,
    timeout: float | None = 60.0,
) -> Callable[[F], F]: ...


def mcp_prompt(
    fn: Any = None,
    /,
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    completions: Mapping[str, Completer] | None = None,
    timeout: float | None = 60.0,
) -> Any:
    """Mark a function as a prompt; bare (``@mcp_prompt``) or with options.

    Args:
        fn: The function (when used bare).
        name: Prompt name (default: the function's); must match ``^[a-zA-Z0-9_-]{1,64}$``.
        title: Human-readable title.
        description: For the client (default: the docstring without its sections).
        completions: ``{argument: completer}`` for ``completion/complete``; without one a
            ``Literal``/``Enum`` argument completes from its choices.
        timeout: Seconds the function may take (``None``: no limit).

    Raises:
        RegistrationError: The name is not valid, or the target is not a function.
    """

    def decorate(target: Any) -> Any:
        if not callable(target) or not hasattr(target, "__name__"):
            raise RegistrationError(
                f"@mcp_prompt decorates functions and methods, not {type(target).__name__} objects."
            )
        check_name(name or target.__name__, target)
        definition = PromptDefinition(
            target, name, title, description, dict(completions or {}), timeout
        )
        setattr(getattr(target, "__func__", target), PROMPT_ATTRIBUTE, definition)
        return target

    return decorate(fn) if fn is not None else decorate


def prompt_definition(obj: Any) -> PromptDefinition | None:
    """The :class:`PromptDefinition` of a decorated function or method, if any."""
    found = getattr(getattr(obj, "__func__", obj), PROMPT_ATTRIBUTE, None)
    return found if isinstance(found, PromptDefinition) else None


class FunctionPrompt:
    """A function served as a prompt.

    Args:
        fn: The function (decorated or not).
        name: Prompt name (default: the decorator's, else the function's).

    Raises:
        RegistrationError: The name is not valid, or the function cannot be served.
    """

    def __init__(self, fn: Callable[..., Any], *, name: str | None = None) -> None:
        found = prompt_definition(fn) or PromptDefinition(fn)
        self.definition = found
        #: The remote MCP server this prompt relays (a gateway's copy), else ``None``: such a
        #: prompt is seen only by callers who see one of that server's tools.
        self.server: str | None = None
        self.name = check_name(name or found.name or str(getattr(fn, "__name__", "")), fn)
        self.runner = Runner(
            fn,
            kind="prompt",
            label=self.name,
            description=found.description,
            completers=found.completions,
            timeout=found.timeout,
        )

    @property
    def title(self) -> str | None:
        """Human-readable title."""
        return self.definition.title

    @property
    def description(self) -> str:
        """The description (explicit, else the docstring's)."""
        return self.runner.schema.description

    @property
    def arguments(self) -> list[PromptArgument]:
        """The arguments a client fills, in signature order."""
        required = self.runner.required
        return [
            PromptArgument(name, schema.get("description"), name in required)
            for name, schema in self.runner.parameters.items()
        ]

    async def render(
        self,
        arguments: Mapping[str, str],
        *,
        processor: ExceptionProcessor | None = None,
        context: ToolContext | None = None,
    ) -> list[PromptMessage]:
        """The prompt's messages for ``arguments``.

        Raises:
            ToolError: ``INVALID_PARAMS`` (missing, unknown or ill-typed arguments),
                ``TIMEOUT``, ``EXECUTION_ERROR`` (the function returned something that is not
                a message), or the function's failure.
        """
        value = await self.runner.run(
            arguments, processor=processor or ExceptionProcessor(), context=context
        )
        return _messages(value, self.name)

    def __repr__(self) -> str:
        return f"FunctionPrompt({self.name!r})"


def prompt_not_found(name: str, known: Sequence[str]) -> ToolError:
    """The answer for a prompt name that does not exist; ``known`` are the prompts the asker
    may see (a hidden prompt is answered with the same words as a missing one)."""
    return ToolError(
        f"No prompt is called {name!r}. Prompts: {', '.join(known) or 'none'}.",
        code=ErrorCode.NOT_FOUND,
    )


def _messages(value: Any, name: str) -> list[PromptMessage]:
    items: Sequence[Any] = value if isinstance(value, list | tuple) else [value]
    messages = []
    for item in items:
        if isinstance(item, PromptMessage):
            messages.append(item)
        elif isinstance(item, str):
            messages.append(PromptMessage("user", TextContent(text=item)))
        elif isinstance(item, _CONTENT):
            messages.append(PromptMessage("user", item))
        else:
            raise ToolError(
                f"The prompt {name!r} returned a {type(item).__name__}; a prompt returns "
                f"str, TextContent, ImageContent, AudioContent, ResourceContent or "
                f"PromptMessage values (or a list of them).",
                code=ErrorCode.EXECUTION_ERROR,
            )
    return messages


class PromptRegistry(ServedRegistry[FunctionPrompt]):
    """The prompts of an application, by name.

    Args:
        processor: Words a failing function's exception (default: the default processor).
    """

    def register(self, fn: Callable[..., Any], *, name: str | None = None) -> FunctionPrompt:
        """Add a function as a prompt.

        Raises:
            RegistrationError: The name is taken or invalid.
        """
        prompt = FunctionPrompt(fn, name=name)
        return self._add(
            prompt.name,
            prompt,
            lambda taken: (
                f"The prompt name {prompt.name!r} of {where(fn)} is taken by "
                f"{where(taken.runner.fn)}. Use @mcp_prompt(name=...) to tell them apart."
            ),
        )

    def remove(self, name: str) -> FunctionPrompt:
        """Remove a prompt.

        Raises:
            KeyError: No prompt has that name.
        """
        return self._pop(name)

    def scan_module(self, module: ModuleType) -> list[FunctionPrompt]:
        """Register every ``@mcp_prompt`` function defined in ``module``."""
        return [self.register(fn) for fn in decorated(module, prompt_definition)]

    def scan_object(self, obj: Any) -> list[FunctionPrompt]:
        """Register every ``@mcp_prompt`` method of an instance, bound to it."""
        return [self.register(fn) for fn in bound_decorated(obj, prompt_definition)]

    def get(self, name: str) -> FunctionPrompt | None:
        """The prompt called ``name``, if any."""
        return self._items.get(name)

    def prompts(self) -> list[FunctionPrompt]:
        """Every prompt, in registration order."""
        return list(self._items.values())

    async def render(
        self, name: str, arguments: Mapping[str, str], context: ToolContext | None = None
    ) -> list[PromptMessage]:
        """The messages of the prompt ``name``.

        Raises:
            ToolError: ``NOT_FOUND`` for an unknown name; else as :meth:`FunctionPrompt.render`.
        """
        prompt = self._items.get(name)
        if prompt is None:
            raise prompt_not_found(name, list(self._items))
        return await prompt.render(arguments, processor=self.processor, context=context)

    def __repr__(self) -> str:
        return f"PromptRegistry({len(self)} prompts)"
