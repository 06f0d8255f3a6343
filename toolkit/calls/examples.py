"""Example arguments of a tool (``@mcp_tool(examples=[...])``), checked when the tool is made.

Examples are shown to models: Anthropic's ``input_examples``, the few-shot calls of the
``<ACTION>`` prompt, the MCP tool's ``_meta`` (:data:`EXAMPLES_META_KEY`). An example that does
not fit the tool's input schema would teach a call that fails, so registering such a tool
raises :class:`~toolkit.RegistrationError` naming the example and what is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from toolkit.calls.spec import ToolSpec
from toolkit.errors import RegistrationError

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

__all__ = ["EXAMPLES_META_KEY", "check_examples"]

#: The key of a tool's examples in its MCP ``_meta`` (a list of argument objects).
EXAMPLES_META_KEY = "mcp-toolkit/calls/examples"


def check_examples(spec: ToolSpec, where: str = "") -> None:
    """Raise if an example of ``spec`` is not a valid argument object for its input schema.

    Raises:
        RegistrationError: Naming the tool, the example's position and each problem.
    """
    if not spec.examples:
        return
    # Imported here: jsonschema's import can take seconds (where rfc3987-syntax is installed,
    # it compiles grammars at load), and most tools have no examples.
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(spec.input_schema)
    for index, example in enumerate(spec.examples):
        problems = _problems(validator, example)
        if problems:
            at = f" ({where})" if where else ""
            raise RegistrationError(
                f"Example {index + 1} of tool {spec.name}{at} does not fit its input schema: "
                f"{'; '.join(problems)}. Fix the example (or the parameters): models copy "
                "examples, so each must be a call that would succeed."
            )


def _problems(validator: Draft202012Validator, example: Any) -> list[str]:
    if not isinstance(example, Mapping):
        return [f"it is a {type(example).__name__}, not an object of arguments"]
    return [
        f"{'.'.join(str(p) for p in error.absolute_path) or 'arguments'}: {error.message}"
        for error in validator.iter_errors(dict(example))
    ]
