"""What the core records of calls: the call log and the store protocol its backends implement
(SQLite and PostgreSQL live in ``adapters.stores``), the wire log, and telemetry.

Every name here is public: adapters import the core's names from ``toolkit`` or from a room.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolkit.records.call_log import CALL_LOG_ENV, CallLog, read_calls
from toolkit.records.labels import UNKNOWN_TOOL, tool_label
from toolkit.records.store import (
    COLUMNS,
    CallQuery,
    CallStore,
    Connection,
    LoggedCall,
    Row,
    display_target,
    open_call_store,
    redact_target,
    register_call_store,
    target_secrets,
)
from toolkit.records.wire_log import (
    WIRE_LOG_ENV,
    httpx_event_hooks,
    log_exchange,
    redact_body,
    redact_headers,
    wire_log_enabled,
)

if TYPE_CHECKING:
    from toolkit.records.telemetry import MAX_ARGUMENT_CHARS, CallTelemetry


def __getattr__(name: str) -> Any:
    # Telemetry needs opentelemetry-api (the [otel] extra): imported when first asked for.
    if name in ("CallTelemetry", "MAX_ARGUMENT_CHARS"):
        return getattr(importlib.import_module("toolkit.records.telemetry"), name)
    raise AttributeError(f"module 'toolkit.records' has no attribute {name!r}")


__all__ = [
    "CALL_LOG_ENV",
    "COLUMNS",
    "MAX_ARGUMENT_CHARS",
    "UNKNOWN_TOOL",
    "WIRE_LOG_ENV",
    "CallLog",
    "CallQuery",
    "CallStore",
    "CallTelemetry",
    "Connection",
    "LoggedCall",
    "Row",
    "display_target",
    "httpx_event_hooks",
    "log_exchange",
    "open_call_store",
    "read_calls",
    "redact_body",
    "redact_headers",
    "redact_target",
    "register_call_store",
    "target_secrets",
    "tool_label",
    "wire_log_enabled",
]
