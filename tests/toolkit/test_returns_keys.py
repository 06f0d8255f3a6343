"""Keys a docstring's ``Returns:`` section names become descriptions in the output schema."""

from __future__ import annotations

from typing import Any, TypedDict

from pydantic import BaseModel, Field

from tests.support.business import TravelDesk
from toolkit import ToolRegistry
from toolkit.schema import build_function_schema, parse_docstring


def test_keys_are_read_in_the_usual_shapes() -> None:
    info = parse_docstring(
        """Send it.

        Returns:
            dict: The report, with
                sent_status (bool): Whether the message
                    left the outbox.
                - message_id: The id to quote.
                Note: prose, not a key.
        """
    )
    assert info.returns_keys == {
        "sent_status": "Whether the message left the outbox.",
        "message_id": "The id to quote.",
    }
    assert parse_docstring("Do it.\n\nReturns:\n    The count.").returns_keys == {}


def test_an_open_mapping_gains_described_properties_of_its_value_type() -> None:
    registry = ToolRegistry()
    registry.scan(TravelDesk(), public=True)
    schema = registry.get("send_message").spec.output_schema
    assert schema is not None
    value = {"anyOf": [{"type": "string"}, {"type": "boolean"}]}
    assert schema["additionalProperties"] == value
    assert schema["properties"] == {
        "sent_status": {**value, "description": "Whether the message left the outbox."},
        "message_id": {**value, "description": "The id to quote when asking about the message."},
    }


class Report(TypedDict):
    sent_status: bool
    message_id: str


class Booking(BaseModel):
    booking_id: str = Field(description="Quoted on the invoice.")
    nights: int


def test_named_properties_are_described_and_closed_objects_gain_nothing() -> None:
    def report() -> Report:
        """Send.

        Returns:
            sent_status (bool): Whether it left.
            extra (str): Not in the type.
        """
        return {"sent_status": True, "message_id": "M-1"}

    def booking() -> Booking:
        """Book.

        Returns:
            booking_id (str): The id.
            nights (int): How long.
        """
        return Booking(booking_id="B-1", nights=1)

    def count() -> int:
        """Count.

        Returns:
            total (int): Not a key of an int.
        """
        return 1

    def untyped() -> dict[str, Any]:
        """Look.

        Returns:
            found (bool): Whether anything was found.
        """
        return {}

    props = build_function_schema(report).output_schema["properties"]  # type: ignore[index]
    assert props["sent_status"]["description"] == "Whether it left."
    assert "description" not in props["message_id"] and "extra" not in props
    model = build_function_schema(booking).output_schema["properties"]  # type: ignore[index]
    assert model["booking_id"]["description"] == "Quoted on the invoice."  # its own wins
    assert model["nights"]["description"] == "How long."
    wrapped = build_function_schema(count).output_schema
    assert wrapped == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
    }
    open_schema = build_function_schema(untyped).output_schema
    assert open_schema is not None
    assert open_schema["properties"] == {"found": {"description": "Whether anything was found."}}
