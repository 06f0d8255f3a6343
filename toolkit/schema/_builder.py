"""The builder: a callable in, a :class:`FunctionSchema` out.

The arguments become one pydantic model (built once; it is both the JSON Schema source and the
validator). Its fields are named ``p0``, ``p1``… with the parameter name as alias, so any
parameter name works, even ``model_config``, ``json`` or ``_private``.

Schema shape: ``{"type": "object", "properties": ..., "required": ..., "additionalProperties":
false}``, JSON Schema 2020-12, without pydantic's auto-titles, local ``$ref``s inlined (recursive
types keep their ``$defs``, see :func:`~toolkit.schema.inline_local_refs`).

Parameter descriptions, strongest first: the ``param_descriptions`` argument,
``Field(description=...)`` / ``Annotated[T, "text"]``, the docstring.

Output schema from the return annotation: none for no annotation, ``Any`` or ``None``; the
type's own schema when it is an object (models, dataclasses, TypedDicts, ``dict[str, T]``);
otherwise ``{"type": "object", "properties": {"result": ...}, "required": ["result"]}`` with
``wraps_result``. A return type pydantic cannot describe gives no output schema (results are
then serialized generically) rather than a registration error.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Mapping
from typing import Annotated, Any, ClassVar, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model
from pydantic.errors import PydanticUserError
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from toolkit.calls.wire import is_content_hint
from toolkit.errors import RegistrationError
from toolkit.schema._callable import EMPTY, CallableInfo, ParamInfo, inspect_callable
from toolkit.schema._class_docs import describe_class_fields
from toolkit.schema._docstring import parse_docstring
from toolkit.schema._fast import LazyValidator, simple_properties
from toolkit.schema._function_schema import FunctionSchema, _Output
from toolkit.schema._portable import portable_hint
from toolkit.schema._refs import inline_local_refs, strip_titles
from toolkit.schema._serialize import AnnotationOutput, SchemaOutput

__all__ = ["build_function_schema"]

_CONFIG = ConfigDict(extra="ignore", arbitrary_types_allowed=False, defer_build=False)
_NO_OUTPUT = (Any, None, type(None), EMPTY)


def build_function_schema(
    fn: Callable[..., Any],
    *,
    description: str | None = None,
    param_descriptions: Mapping[str, str] | None = None,
    output_schema: bool | dict[str, Any] | None = True,
) -> FunctionSchema:
    """Build the schemas, validator, binder and serializer of a function.

    Args:
        fn: A function, async function, bound method, ``functools.partial``, callable object
            or decorated function.
        description: The tool description; default: the docstring's summary and body.
        param_descriptions: Descriptions by parameter name; they win over every other source.
        output_schema: ``True`` derives it from the return annotation, ``False``/``None``
            disables it, a dict is used as it is.

    Returns:
        The :class:`FunctionSchema`.

    Raises:
        RegistrationError: ``fn`` cannot be represented honestly (``*args``, ``**kwargs``, a
            parameter without type, a type with no JSON Schema…); the message names the
            function and the fix.
    """
    info = inspect_callable(fn)
    doc = parse_docstring(info.doc)
    overrides = param_descriptions or {}
    visible = [p for p in info.params if not p.injected]
    unknown = set(overrides) - {p.name for p in visible}
    if unknown:
        raise RegistrationError(
            f"Cannot make a tool of {info.label}: `param_descriptions` names "
            f"{', '.join(sorted(unknown))}, which the model does not set. Describe only the "
            f"parameters {', '.join(p.name for p in visible) or '(none)'}."
        )
    described = [_description(p, overrides.get(p.name), doc.params.get(p.name)) for p in visible]
    properties = simple_properties(visible, described, _JsonSchemaGenerator)

    def validator() -> Any:
        fields = {
            f"p{i}": _field(p, overrides.get(p.name), doc.params.get(p.name))
            for i, p in enumerate(visible)
        }
        return _make_model(info, fields, visible)

    if properties is not None:  # simple parameters: no model until the first call
        schema = _simple_schema(properties, visible)
        check: Any = LazyValidator(lambda: validator().__pydantic_validator__)
    else:
        model = validator()
        schema = _input_schema(info, model, visible)
        check = model.__pydantic_validator__
    out_schema, output, wraps = _output(info, output_schema)
    if out_schema is not None and doc.returns_keys and output_schema is True:
        _describe_keys(out_schema, doc.returns_keys)
    return FunctionSchema(
        description=(description if description is not None else doc.description).strip(),
        input_schema=schema,
        output_schema=out_schema,
        wraps_result=wraps,
        injected=frozenset(p.name for p in info.params if p.injected),
        context_params=tuple(p.name for p in info.params if p.context),
        param_names=tuple(p.name for p in info.params),
        is_async=info.is_async,
        _validator=check,
        _fields=tuple((f"p{i}", p.name) for i, p in enumerate(visible)),
        _params=info.params,
        _output=output,
    )


class _JsonSchemaGenerator(GenerateJsonSchema):
    """pydantic's generator, minus a per-instance method table rebuild that costs ~0.1 ms, and
    with fields of models and dataclasses documented by their class's ``Attributes:``."""

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        json_schema = super().model_schema(schema)
        describe_class_fields(json_schema, schema["cls"])
        return json_schema

    def dataclass_schema(self, schema: core_schema.DataclassSchema) -> JsonSchemaValue:
        json_schema = super().dataclass_schema(schema)
        describe_class_fields(json_schema, schema["cls"])
        return json_schema

    _method_names: ClassVar[tuple[tuple[Any, str], ...] | None] = None

    def build_schema_type_to_method(self) -> dict[Any, Callable[[Any], JsonSchemaValue]]:
        cls = type(self)
        if cls._method_names is None:
            table = super().build_schema_type_to_method()
            cls._method_names = tuple((key, method.__name__) for key, method in table.items())
        return {key: getattr(self, name) for key, name in cls._method_names}


def _annotated_description(annotation: Any) -> str | None:
    """A description carried by ``Annotated`` metadata (the last one wins, as in pydantic)."""
    found = None
    if get_origin(annotation) is Annotated:
        for meta in annotation.__metadata__:
            if isinstance(meta, str):
                found = meta
            elif isinstance(meta, FieldInfo) and meta.description:
                found = meta.description
    return found


def _description(param: ParamInfo, override: str | None, documented: str | None) -> str | None:
    """The description the model path would give ``param`` (for the simple path)."""
    return override or _annotated_description(portable_hint(param.annotation)) or documented


def _simple_schema(properties: dict[str, Any], params: list[ParamInfo]) -> dict[str, Any]:
    result: dict[str, Any] = {"type": "object", "properties": properties}
    required = [p.name for p in params if p.default is EMPTY]
    if required:
        result["required"] = required
    result["additionalProperties"] = False
    return result


def _field(param: ParamInfo, override: str | None, documented: str | None) -> tuple[Any, Any]:
    """``(annotation, FieldInfo)`` for :func:`pydantic.create_model`."""
    annotation = portable_hint(param.annotation)
    default = param.default
    own = _annotated_description(annotation)
    if isinstance(default, FieldInfo):  # `x: int = Field(...)` keeps its default and constraints
        own = default.description or own
        annotation = Annotated[annotation, default]
        default = EMPTY
    kwargs: dict[str, Any] = {"alias": param.name}
    description = override or own or documented
    if description:
        kwargs["description"] = description
    if default is not EMPTY:
        kwargs["default"] = default
    return annotation, Field(**kwargs)


def _make_model(
    info: CallableInfo, fields: dict[str, Any], params: list[ParamInfo]
) -> type[BaseModel]:
    try:
        return create_model("Arguments", __config__=_CONFIG, **fields)
    except (PydanticUserError, TypeError, ValueError) as exc:
        raise _type_error(info, params, exc) from exc


def _type_error(info: CallableInfo, params: list[ParamInfo], exc: Exception) -> RegistrationError:
    """Name the parameter whose type pydantic rejects, and how to fix it."""
    culprit = "one of its parameters"
    for param in params:
        try:
            TypeAdapter(param.annotation).json_schema()
        except Exception:
            culprit = f"parameter `{param.name}` ({_type_name(param.annotation)})"
            break
    return RegistrationError(
        f"Cannot make a tool of {info.label}: {culprit} has no JSON Schema ({exc}). Use JSON "
        "types, a pydantic model, a dataclass or a TypedDict; or, if the caller provides the "
        "value, mark it `Annotated[T, Injected]`."
    )


def _input_schema(
    info: CallableInfo, model: type[BaseModel], params: list[ParamInfo]
) -> dict[str, Any]:
    try:
        raw = model.model_json_schema(by_alias=True, schema_generator=_JsonSchemaGenerator)
    except (PydanticUserError, TypeError, ValueError) as exc:
        raise _type_error(info, params, exc) from exc
    schema = inline_local_refs(strip_titles(raw))
    result: dict[str, Any] = {"type": "object", "properties": schema.get("properties", {})}
    if schema.get("required"):
        result["required"] = schema["required"]
    result["additionalProperties"] = False
    if "$defs" in schema:
        result["$defs"] = schema["$defs"]
    return result


def _type_name(hint: Any) -> str:
    if isinstance(hint, type) and not get_args(hint):
        return hint.__name__
    return repr(hint).replace("typing.", "")


def _output(
    info: CallableInfo, requested: bool | dict[str, Any] | None
) -> tuple[dict[str, Any] | None, _Output | None, bool]:
    """``(output_schema, output checker, wraps_result)``."""
    if isinstance(requested, dict):
        return requested, SchemaOutput(requested), False
    hint = portable_hint(info.return_hint)
    if not requested or any(hint is no for no in _NO_OUTPUT) or is_content_hint(hint):
        return None, None, False
    try:
        schema, checker, wraps = _output_of(hint)
    except TypeError:  # an unhashable hint: built for this function alone
        schema, checker, wraps = _output_of.__wrapped__(hint)
    return copy.deepcopy(schema), checker, wraps


def _describe_keys(schema: dict[str, Any], keys: Mapping[str, str]) -> None:
    """Descriptions from the docstring's ``Returns`` keys, on the object's properties.

    A key the schema names gets the description unless it has one; a key of a mapping
    (``dict[str, T]``, no named properties) becomes a property with ``T``'s schema and the
    description. A type with named keys (a model, a TypedDict) gains none, and a wrapped
    (non-object) result has no keys.
    """
    if schema.get("type") != "object" or "result" in schema.get("required", ()):
        return
    named = schema.get("properties")
    if isinstance(named, dict):
        for key, text in keys.items():
            if isinstance(named.get(key), dict):
                named[key].setdefault("description", text)
        return
    extra = schema.get("additionalProperties", True)
    if extra is not False:
        value = extra if isinstance(extra, dict) else {}
        schema["properties"] = {key: {**value, "description": text} for key, text in keys.items()}


@functools.lru_cache(maxsize=512)
def _output_of(hint: Any) -> tuple[dict[str, Any] | None, _Output | None, bool]:
    """The output side of a return type, built once per type: tools of one codebase share a
    handful of return types, and the checker holds no state of its own."""
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(hint)
        schema = inline_local_refs(
            strip_titles(
                adapter.json_schema(mode="serialization", schema_generator=_JsonSchemaGenerator)
            )
        )
    except (PydanticUserError, TypeError, ValueError):
        return None, None, False
    name = _type_name(hint)
    if schema.get("type") == "object":
        return schema, AnnotationOutput(adapter, name, wraps=False), False
    defs = schema.pop("$defs", None)
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {"result": schema},
        "required": ["result"],
    }
    if defs:
        wrapped["$defs"] = defs
    return wrapped, AnnotationOutput(adapter, name, wraps=True, hint=hint), True
