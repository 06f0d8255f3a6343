"""Every registry's calls reach OpenTelemetry with no set-up, when ``opentelemetry-api`` is there.

Whether the package is installed is looked up once per process (on the first call); without it
each call costs one function call and a test here. With it, :class:`toolkit.records.telemetry.
CallTelemetry` decides: without a configured SDK it checks again at most once a second.
"""

from __future__ import annotations

import logging
from importlib.util import find_spec
from typing import Any

from toolkit.result import CallRecord

log = logging.getLogger("toolkit.telemetry")

# None: not looked for yet; False: opentelemetry-api is not installed; else the emitter.
_emitter: Any = None


def _find() -> Any:
    try:
        if find_spec("opentelemetry") is None:
            return False
        from toolkit.records.telemetry import CallTelemetry
    except ImportError:  # a broken or partial install: no telemetry rather than no calls
        return False
    return CallTelemetry()


def emit(registry: Any, record: CallRecord) -> None:
    """Send the span and metrics of ``record`` (a call of ``registry``); never raises."""
    global _emitter
    emitter = _emitter
    if emitter is None:
        emitter = _emitter = _find()
    if emitter is False:
        return
    try:
        emitter.emit(record, registry)
    except Exception:
        log.exception("telemetry for call %s failed", record.call_id)
