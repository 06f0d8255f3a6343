"""Response templates: :class:`ResponseTemplate`, Jinja2 in its sandbox, with limits.

A template turns the JSON an endpoint returns into text for the model. It is compiled once, at
load time, in Jinja2's :class:`~jinja2.sandbox.ImmutableSandboxedEnvironment` (attribute
access to Python internals and changes to lists and dicts are refused), and each render is
bounded: loop iterations, the size of every value it builds, the text it produces and its time
(the rules are in :mod:`adapters._template_guard`). A render that fails or hits a limit
returns the raw JSON with a one-line note, never an exception. Renders may take up to their
time limit, so :class:`~adapters.http.HttpTool` runs them in a worker thread, never on the
event loop.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from jinja2 import TemplateSyntaxError

from adapters._template_guard import (
    TemplateLimitError,
    compile_template,
    environment,
    rendering,
)

__all__ = ["ResponseTemplate", "TemplateLimitError"]

#: Default limits of one render.
MAX_ITERATIONS = 100_000
MAX_OUTPUT = 100_000
MAX_SECONDS = 0.5


class ResponseTemplate:
    """A Jinja2 template for JSON responses, compiled once and rendered in the sandbox.

    The response JSON is the template's context: an object's keys are variables; any other
    value is available as ``data`` (an object is also available as ``data``). The call's
    arguments are available as ``args`` (``{{ args.orderId }}``), whether or not the service
    echoes them; a response key named ``args`` stays reachable as ``data.args``.

    Limits of one render:

    * every item a loop or a sequence filter goes through, and every macro call, is one
      iteration (``max_iterations``); ``range()`` is no longer than that;
    * every size-producing operation (``*``, ``+``, ``~``, ``%``, ``center``, ``indent``,
      ``replace``, ``join``, ``format``, ``lipsum()``, padding ``str`` methods ...) is checked
      before it runs: no value may be larger than ``max_output`` plus the size of the response;
    * the text produced, also inside ``{% set %}`` blocks, macros and filter blocks, may not pass
      four times that, and the output may not pass ``max_output``;
    * the deadline (``max_seconds``) is checked at every such operation and every few loop
      iterations. ``pprint``, ``urlize``, ``str.encode``, ``str.translate`` and methods of
      numbers are not available.

    Args:
        source: The template text.
        max_iterations: Loop iterations (and macro calls) allowed per render.
        max_output: Characters of output allowed per render.
        max_seconds: Render time allowed.

    Raises:
        TemplateSyntaxError: The template does not compile (the message gives the line).
    """

    def __init__(
        self,
        source: str,
        *,
        max_iterations: int = MAX_ITERATIONS,
        max_output: int = MAX_OUTPUT,
        max_seconds: float = MAX_SECONDS,
    ) -> None:
        self.source = source
        self.max_iterations = max_iterations
        self.max_output = max_output
        self.max_seconds = max_seconds
        self._template = compile_template(source)

    @staticmethod
    def syntax_problem(source: str) -> str | None:
        """The syntax error of ``source`` with its line, or ``None`` if it compiles."""
        try:
            environment.parse(source)
        except TemplateSyntaxError as exc:
            return f"line {exc.lineno}: {exc.message}"
        return None

    def render(self, data: Any, arguments: Mapping[str, Any] | None = None) -> str:
        """Render ``data``; on failure, the raw JSON and a one-line note of the error.

        Args:
            data: The response JSON.
            arguments: The call's arguments, seen by the template as ``args``.
        """
        try:
            return self.render_strict(data, arguments)
        except Exception as exc:
            raw = json.dumps(data, ensure_ascii=False, default=str)
            note = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return f"{raw[: self.max_output]}\n(response template failed: {note})"

    def render_strict(self, data: Any, arguments: Mapping[str, Any] | None = None) -> str:
        """Render ``data`` or raise (template errors, :class:`TemplateLimitError`).

        Args:
            data: The response JSON.
            arguments: The call's arguments, seen by the template as ``args``.
        """
        if isinstance(data, dict):
            variables = {str(k): v for k, v in data.items()}
            variables.setdefault("data", data)
        else:
            variables = {"data": data}
        variables["args"] = dict(arguments or {})
        # Values may be as large as what came in: the response, and the arguments if any.
        measured = [data, variables["args"]] if variables["args"] else data
        with rendering(measured, self.max_iterations, self.max_output, self.max_seconds):
            # Memory stays bounded while rendering: the text produced is counted as it is made.
            text = "".join(self._template.generate(variables))
        if len(text) > self.max_output:
            raise TemplateLimitError(f"output longer than {self.max_output} characters")
        return text

    def __repr__(self) -> str:
        return f"ResponseTemplate({self.source[:40]!r})"
