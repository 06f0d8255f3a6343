"""Few-shot examples generated from the registry's own tools and schemas.

Every example call is built from the tool's input schema and kept only if it validates
against it, so a prompt never teaches a call that would fail (the deliberate mistake of the
self-correction example aside).

Rules about copying (small models copy few-shot examples verbatim, values and all):

* A tool's own example calls (``@mcp_tool(examples=[...])``) come first, as written.
* Values come from what the tool's author wrote first (``examples``, ``enum``, ``default``,
  ``format``); a free string otherwise reads as an example (``"example query"``), never as a
  plausible real value, and an empty default (``[]``, ``{}``, ``""``) is not shown, so a list
  example shows items.
* :class:`~adapters.action_xml.XmlToolCallingModel` refuses a call that repeats an example's
  call exactly (see :func:`example_calls`), so an echoed example never runs.
* The wrong-then-fixed correction example is optional and off by default: tiny models were
  seen copying its deliberately wrong call, and every real mistake already gets an error
  observation written for the model to correct itself.
* Examples are chosen to be hard to take for an answer: the CDATA example is shown only for a
  parameter that holds code or prose (a short ``R&D <north wing>`` for a name was copied by a
  real small model), and the no-action example describes an answer instead of being one (its
  earlier sentence, "The request is already answered above...", became the user's answer).
  An answer without calls that repeats an example's sentence is refused like a copied call
  (see :func:`copied_answer`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from jsonschema import Draft202012Validator

from adapters.action_xml._render import _resolve, render_action
from toolkit import ToolSpec

__all__ = [
    "NO_ACTION_EXAMPLE",
    "Example",
    "copied_answer",
    "example_answers",
    "example_calls",
    "sample_value",
    "tool_examples",
]

_FORMATS = {
    "date": "2024-05-17",
    "date-time": "2024-05-17T09:30:00Z",
    "time": "09:30:00",
    "email": "ana@example.com",
    "uri": "https://example.com/page",
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
}
_TEXTY = re.compile(r"content|diff|text|code|body|message|query|script|sql", re.IGNORECASE)
_SHORT_CDATA_TEXT = "R&D <north wing>"  # no longer shown; a copy of it is still refused
#: The no-action example: a description of an answer, not a sentence to take for one.
NO_ACTION_EXAMPLE = "(Here you answer the user in your own words, with no ACTION block.)"
_CDATA_TEXT = 'if a < b && c > 0:\n    print("<done> & ok")'
#: How many tools' own ``examples`` (the first of each) open the few-shot examples.
_AUTHORED = 3
_MADE_UP = frozenset({_SHORT_CDATA_TEXT, _CDATA_TEXT, *_FORMATS.values()})


@dataclass(frozen=True, slots=True)
class Example:
    """One example answer (and, for a correction, what came before it).

    Attributes:
        title: What the example shows.
        answer: The answer text, ACTION block included.
        calls: The calls the answer must parse to, ``(name, arguments)``.
        before: For a correction: the mistaken answer and its error observation.
        before_calls: The mistaken calls, which parse but do not validate.
    """

    title: str
    answer: str
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    before: tuple[str, str] | None = None
    before_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def transcript(self) -> str:
        """The example as the prompt shows it."""
        if self.before is None:
            return self.answer
        wrong, observation = self.before
        return f"{wrong}\n{observation}\n{self.answer}"


def sample_value(schema: Any, root: dict[str, Any], name: str = "value", index: int = 0) -> Any:
    """A plausible value valid for ``schema`` (best effort; callers validate it)."""
    schema = _resolve(schema, root)
    for key in ("examples",):
        if isinstance(schema.get(key), list) and schema[key]:
            return schema[key][0]
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][index % len(schema["enum"])]
    if "default" in schema and schema["default"] not in (None, [], {}, ""):
        # An empty default would show an empty element, not how to write the value.
        return schema["default"]
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            branches = [b for b in schema[key] if _resolve(b, root).get("type") != "null"]
            return sample_value(branches[0] if branches else {}, root, name, index)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "integer" or kind == "number":
        low = schema.get(
            "minimum", schema.get("exclusiveMinimum", 0) + 1 if "exclusiveMinimum" in schema else 1
        )
        high = schema.get(
            "maximum",
            schema.get("exclusiveMaximum", low + 10) - 1
            if "exclusiveMaximum" in schema
            else low + 10,
        )
        value = min(max(low, 1 + index), high)
        return int(value) if kind == "integer" else value + 0.5 if value + 0.5 <= high else value
    if kind == "boolean":
        return index % 2 == 0
    if kind == "array":
        count = max(2, int(schema.get("minItems", 0)))
        count = min(count, int(schema.get("maxItems", count)))
        return [sample_value(schema.get("items", {}), root, name, index + i) for i in range(count)]
    if kind == "object" or "properties" in schema:
        return _sample_object(schema, root, index)
    if kind == "string" or kind is None:
        if isinstance(schema.get("format"), str) and schema["format"] in _FORMATS:
            return _FORMATS[schema["format"]]
        word = name.replace("_", " ").strip() or "value"
        text = f"{word} {index + 1}" if index else f"example {word}"
        return text.ljust(int(schema.get("minLength", 0)), "x")[: schema.get("maxLength", 200)]
    return None


def _sample_object(schema: dict[str, Any], root: dict[str, Any], index: int = 0) -> dict[str, Any]:
    properties = schema.get("properties") or {}
    required = list(schema.get("required") or [])
    return {
        key: sample_value(properties.get(key, {}), root, key, index)
        for key in required
        if key in properties
    }


def _valid(arguments: dict[str, Any], spec: ToolSpec) -> bool:
    try:
        return bool(Draft202012Validator(spec.input_schema).is_valid(arguments))
    except Exception:
        return False


def _kinds(spec: ToolSpec) -> dict[str, str]:
    """Each parameter's kind: ``array``, ``object``, ``text`` (a free string) or ``scalar``."""
    root = spec.input_schema
    out = {}
    for key, sub in (root.get("properties") or {}).items():
        resolved = _resolve(sub, root)
        branches = resolved.get("anyOf") or resolved.get("oneOf")
        if isinstance(branches, list):
            options = [
                _resolve(b, root) for b in branches if _resolve(b, root).get("type") != "null"
            ]
            resolved = options[0] if len(options) == 1 else {}
        kind = resolved.get("type")
        if kind == "array":
            out[key] = "array"
        elif kind == "object" and resolved.get("properties"):
            out[key] = "object"
        elif kind == "string" and not (
            {"enum", "pattern", "format", "maxLength"} & resolved.keys()
        ):
            out[key] = "text"
        else:
            out[key] = "scalar"
    return out


def _call_with(spec: ToolSpec, key: str | None, value: Any = None) -> dict[str, Any] | None:
    root = spec.input_schema
    arguments = _sample_object(root, root)
    if key is not None:
        sub = (root.get("properties") or {})[key]
        arguments[key] = sample_value(sub, root, key) if value is None else value
    return arguments if _valid(arguments, spec) else None


def _answer(reason: str, name: str, arguments: dict[str, Any]) -> str:
    return f"{reason}\n{render_action([(name, arguments)])}"


def tool_examples(specs: list[ToolSpec], *, correction: bool = False) -> list[Example]:
    """The few-shot examples for ``specs`` (those the tools make possible).

    Args:
        specs: The tools.
        correction: Add the wrong-then-fixed example (a call missing a required parameter,
            its error observation, the fixed call). Off by default, see above.
    """
    examples: list[Example] = []
    # Examples show harmless tools first: read-only ones, never a destructive one if avoidable.
    specs = sorted(
        specs, key=lambda s: (bool(s.annotations.destructive), not s.annotations.read_only)
    )
    kinds = {s.name: _kinds(s) for s in specs}

    def first(kind: str) -> tuple[ToolSpec, str] | None:
        found = [(spec, key) for spec in specs for key, k in kinds[spec.name].items() if k == kind]
        # A free-text parameter that sounds like code or prose shows CDATA best.
        found.sort(key=lambda pair: not (kind == "text" and _TEXTY.search(pair[1])))
        return found[0] if found else None

    for spec in [s for s in specs if s.examples][:_AUTHORED]:
        args = dict(spec.examples[0])  # the author's own call comes first
        answer = _answer(f"I will call {spec.name}.", spec.name, args)
        examples.append(Example(f"a call of {spec.name}", answer, [(spec.name, args)]))
    callable_specs = [s for s in specs if _call_with(s, None) is not None]
    simple = max(
        callable_specs, key=lambda s: len(s.input_schema.get("required") or []), default=None
    )
    if simple is not None:
        args = _call_with(simple, None) or {}
        examples.append(
            Example(
                "a simple value",
                _answer(f"I need {simple.name} for this.", simple.name, args),
                [(simple.name, args)],
            )
        )
    for kind, title, value in (
        ("array", "a list", None),
        ("object", "a nested object", None),
        ("text", "a CDATA value", _CDATA_TEXT),
    ):
        found = first(kind)
        if found is None or (kind == "text" and not _TEXTY.search(found[1])):
            continue  # a name or a code holds no < or &: its example would only be copied
        spec, key = found
        with_value = _call_with(spec, key, value)
        if with_value is not None:
            args = with_value
            reason = f"I will call {spec.name} with `{key}` written as {title}."
            examples.append(Example(title, _answer(reason, spec.name, args), [(spec.name, args)]))
    examples.append(Example("an answer with no action", NO_ACTION_EXAMPLE))
    fixed = _correction(specs) if correction else None
    if fixed is not None:
        examples.append(fixed)
    return examples


def example_calls(examples: list[Example]) -> list[tuple[str, dict[str, Any]]]:
    """The calls shown in ``examples`` (the mistaken ones too) that a copy would repeat.

    Only calls holding a value made up here count (an ``"example ..."`` string, the CDATA
    samples, a format sample): a call whose values all come from the tool's author (enum,
    default, ``examples``) may well be what the user asked for.
    """
    calls = []
    for example in examples:
        for name, arguments in [*example.calls, *example.before_calls]:
            if _made_up(arguments):
                calls.append((name, arguments))
    return calls


#: Sentences of earlier example sets, still refused when a model repeats them.
_OLD_ANSWERS = ("The request is already answered above, so no tool is needed",)


def example_answers(examples: list[Example]) -> list[str]:
    """The sentences of ``examples`` (the text around their blocks) a copy would repeat."""
    out = [*_OLD_ANSWERS]
    for example in examples:
        for text in (example.answer, *(example.before or ())):
            head = text.split("<ACTION>", 1)[0].strip()
            if head and not head.startswith("Observation:"):
                out.append(head)
    return out


def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def copied_answer(text: str, sentences: list[str]) -> str | None:
    """The example sentence that ``text``, an answer without calls, repeats, or ``None``."""
    said = _words(text)
    if not said:
        return None
    for sentence in sentences:
        words = _words(sentence)
        if len(words) < 12:
            continue
        # A copy with one value changed ("with `M-6` written as a CDATA value") is a copy too.
        if words in said or SequenceMatcher(None, words, said[: 2 * len(words)]).ratio() >= 0.8:
            return sentence
    return None


def _made_up(value: Any) -> bool:
    if isinstance(value, str):
        return value.startswith("example ") or value in _MADE_UP
    if isinstance(value, dict):
        return any(_made_up(v) for v in value.values())
    if isinstance(value, list):
        return any(_made_up(v) for v in value)
    return False


def _correction(specs: list[ToolSpec]) -> Example | None:
    for spec in reversed(specs[:3]) if len(specs) > 1 else specs:
        required = list(spec.input_schema.get("required") or [])
        args = _call_with(spec, None)
        if not required or args is None:
            continue
        missing = required[0]
        wrong = {k: v for k, v in args.items() if k != missing}
        observation = (
            f"Observation: Error [INVALID_PARAMS] in tool '{spec.name}': The arguments are not "
            f"valid:\n- `{missing}`: required parameter is missing\nFix the arguments and call "
            "the tool again."
        )
        return Example(
            "a correction after an error",
            _answer(f"I forgot `{missing}`; calling {spec.name} again with it.", spec.name, args),
            [(spec.name, args)],
            before=(_answer(f"I will call {spec.name}.", spec.name, wrong), observation),
            before_calls=[(spec.name, wrong)],
        )
    return None
