"""The words a model reads when a call fails.

Every message says it is an error, names the tool and the code, and ends with what to do.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

from toolkit.calls.spec import ToolSpec
from toolkit.errors import ErrorCode, ToolError
from toolkit.tool import ArgumentProblem
from toolkit.views._describe import describe_type

_MAX_LISTED_TOOLS = 25


def frame(tool: str, error: ToolError, ref: str) -> str:
    """The full text the model reads for ``error``."""
    where = f" in tool '{tool}'" if tool and error.code is not ErrorCode.TOOL_NOT_FOUND else ""
    text = f"Error [{error.code.value}]{where}: {error.message}"
    if error.retryable and error.code is not ErrorCode.INVALID_PARAMS:
        text += "\nThis may be temporary: the same call can be tried again."
    ref = str(error.details.get("remote_ref") or ref)  # a remote failure: the server's log has it
    if ref:
        text += f"\n(ref {ref})"
    return text


def closest(word: str, choices: Sequence[str], n: int = 3) -> list[str]:
    """Up to ``n`` names in ``choices`` that look like ``word`` (typos, case, separators)."""
    lowered = {c.lower(): c for c in choices}
    hits = difflib.get_close_matches(word.lower(), list(lowered), n=n, cutoff=0.6)
    if not hits and len(word) >= 3:  # "bins" for "query_bins": containment is a strong hint
        hits = [c for c in lowered if word.lower() in c or (len(c) >= 3 and c in word.lower())][:n]
    return [lowered[h] for h in hits]


def tool_not_found(name: str, available: Sequence[str]) -> ToolError:
    """``TOOL_NOT_FOUND`` listing the closest valid names, then the others."""
    if not available:
        return ToolError(
            f"There is no tool named '{name}', and no tools are available.",
            code=ErrorCode.TOOL_NOT_FOUND,
        )
    near = closest(name, available)
    text = f"There is no tool named '{name}'."
    if near:
        text += " Did you mean " + " or ".join(f"'{n}'" for n in near) + "?"
    listed = sorted(available)[:_MAX_LISTED_TOOLS]
    more = len(available) - len(listed)
    text += " Available tools: " + ", ".join(listed) + (f" (and {more} more)." if more else ".")
    return ToolError(text, code=ErrorCode.TOOL_NOT_FOUND, details={"suggestions": near})


def misconfigured(name: str) -> ToolError:
    """``EXECUTION_ERROR`` for a tool the application registered but cannot describe."""
    return ToolError(
        f"The tool '{name}' cannot be called: it is misconfigured in the application (the "
        "details are in the application's log). Do not retry it; tell the user.",
        code=ErrorCode.EXECUTION_ERROR,
    )


def parse_error(detail: str) -> ToolError:
    """``PARSE_ERROR`` for arguments that are not a JSON object."""
    return ToolError(
        f"The arguments are not a JSON object ({detail}). Send the arguments as one JSON "
        'object, e.g. {"name": "value"}.',
        code=ErrorCode.PARSE_ERROR,
    )


def _param_hint(spec: ToolSpec, param: str) -> str:
    top, *path = param.split(".")
    schema = _inside(spec, spec.parameters.get(top), path)
    if schema is None:
        return ""
    hint = f"expected {describe_type(schema)}"
    if isinstance(schema, dict) and (desc := schema.get("description")):
        hint += f": {desc}"
    return f" ({hint})"


def _inside(spec: ToolSpec, schema: Any, path: list[str]) -> Any:
    """The schema of ``item.quantity`` / ``lines.0.sku`` inside a parameter's, or ``None``."""
    for step in path:
        schema = _resolved(spec, schema)
        if not isinstance(schema, dict):
            return None
        options = [_resolved(spec, s) for s in schema.get("anyOf") or schema.get("oneOf") or []]
        for candidate in [schema, *options]:
            if not isinstance(candidate, dict):
                continue
            if step.isdigit() and isinstance(candidate.get("items"), dict):
                schema = candidate["items"]
                break
            properties = candidate.get("properties")
            if isinstance(properties, dict) and step in properties:
                schema = properties[step]
                break
        else:
            return None
    return _resolved(spec, schema)


def _resolved(spec: ToolSpec, schema: Any) -> Any:
    """``schema``, or the local definition its ``$ref`` points to (recursive types keep them)."""
    ref = schema.get("$ref") if isinstance(schema, dict) else None
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return (spec.input_schema.get("$defs") or {}).get(ref.removeprefix("#/$defs/"))
    return schema


def _line(spec: ToolSpec, problem: ArgumentProblem) -> str:
    name = f"`{problem.param}`" if problem.param else "arguments"
    if problem.kind == "unknown":
        return f"- {name}: {problem.message}"
    if problem.kind == "missing":
        return f"- {name}: required parameter is missing{_param_hint(spec, problem.param)}"
    return f"- {name}: {problem.message}{_param_hint(spec, problem.param)}"


def invalid_params(spec: ToolSpec, problems: Sequence[ArgumentProblem]) -> ToolError:
    """``INVALID_PARAMS``: one line per problem, each with the parameter's type and meaning."""
    lines = [_line(spec, p) for p in problems]
    valid = ", ".join(f"`{n}`" for n in spec.parameters) or "none"
    text = (
        "The arguments are not valid:\n"
        + "\n".join(lines)
        + f"\nValid parameters: {valid}. Fix the arguments and call the tool again."
    )
    return ToolError(
        text,
        code=ErrorCode.INVALID_PARAMS,
        details={"problems": [{"param": p.param, "kind": p.kind} for p in problems]},
    )


def unknown_param(name: str, spec: ToolSpec) -> ArgumentProblem:
    """The problem for a parameter the tool does not have, with a did-you-mean."""
    near = closest(name, [p for p in spec.parameters])
    hint = f"; did you mean `{near[0]}`?" if near else ""
    return ArgumentProblem(name, "unknown", f"unknown parameter{hint}")


def injected_param(name: str) -> ArgumentProblem:
    """The problem for a model trying to set a parameter only the caller may set."""
    return ArgumentProblem(
        name, "injected", "this parameter is set by the application and cannot be sent"
    )
