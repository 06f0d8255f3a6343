"""Business code written without the toolkit in mind: a travel desk, as an existing codebase has it.

Nothing here is decorated. The annotations are the loose ones real code carries: methods say
``-> Dict[str, Union[str, bool]]`` and return nested dicts, optional parameters have plain
types with defaults (a model's ``null`` for them means "not given"), and the docstrings name the
keys they return. ``registry`` serves one desk over MCP:
``python -m adapters.mcp_server tests.support.business:registry``.
"""

from __future__ import annotations

from itertools import count
from typing import Any, Dict, List, Union  # noqa: UP035 - written as such code is

from toolkit import ToolRegistry


class TravelDesk:
    """Bookings and customer messages of a small travel agency."""

    def __init__(self) -> None:
        self.bookings: dict[str, dict[str, Any]] = {}
        self.outbox: list[dict[str, Any]] = []
        self._ids = count(1)

    @property
    def open_bookings(self) -> int:
        """How many bookings are not cancelled."""
        return sum(1 for b in self.bookings.values() if not b["cancelled"])

    def send_message(
        self, recipient: str, body: str, urgent: bool = False
    ) -> Dict[str, Union[str, bool]]:  # noqa: UP006, UP007
        """Send a message to a customer.

        Args:
            recipient: The customer's e-mail address.
            body: The text of the message.
            urgent: Send it by SMS as well.

        Returns:
            Dict[str, Union[str, bool]]: The delivery report.
                sent_status (bool): Whether the message left the outbox.
                message_id (str): The id to quote when asking about the message.
        """
        message_id = f"M-{next(self._ids)}"
        channels = ["email", "sms"] if urgent else ["email"]
        self.outbox.append({"id": message_id, "to": recipient, "body": body})
        return {
            "sent_status": True,
            "message_id": message_id,
            "delivery": {"channels": channels, "attempts": 1},
        }

    def book_room(
        self, guest: str, nights: int, hotel: str = "Harbour Inn", breakfast: bool = True
    ) -> Dict[str, Union[str, int]]:  # noqa: UP006, UP007
        """Book a hotel room.

        Args:
            guest: Full name of the guest.
            nights: How many nights.
            hotel: The hotel.
            breakfast: Whether breakfast is included.

        Returns:
            Dict[str, Union[str, int]]: The booking.
                booking_id (str): The booking's id.
                price (dict): Amount and currency.
        """
        booking_id = f"B-{next(self._ids)}"
        amount = self._price(nights, breakfast)
        self.bookings[booking_id] = {
            "guest": guest,
            "hotel": hotel,
            "nights": nights,
            "cancelled": False,
        }
        return {
            "booking_id": booking_id,
            "hotel": hotel,
            "price": {"amount": amount, "currency": "EUR"},
        }

    def list_bookings(
        self,
        guest: str | None = None,
        limit: int = 10,
    ) -> List[Dict[str, Any]]:  # noqa: UP006
        """List bookings, newest first.

        Args:
            guest: Only this guest's bookings; all when left out.
            limit: At most this many.
        """
        found = [
            {"booking_id": key, **value}
            for key, value in reversed(self.bookings.items())
            if guest is None or value["guest"] == guest
        ]
        return found[:limit]

    def cancel_booking(self, booking_id: str, reason: str = "customer request") -> bool:
        """Cancel a booking.

        Args:
            booking_id: The booking's id, such as B-2.
            reason: Why it is cancelled.

        Returns:
            Whether a booking was cancelled.
        """
        booking = self.bookings.get(booking_id)
        if booking is None or booking["cancelled"]:
            return False
        booking["cancelled"] = True
        booking["reason"] = reason
        return True

    def _price(self, nights: int, breakfast: bool) -> int:
        return nights * (95 if breakfast else 80)

    def __len__(self) -> int:
        return len(self.bookings)


def build(*, strict_output: bool = False) -> ToolRegistry:
    """A registry serving a fresh desk's public methods."""
    reg = ToolRegistry(strict_output=strict_output)
    reg.scan(TravelDesk(), public=True)
    return reg


registry = build()
