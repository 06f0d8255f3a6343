"""``toolkit.records.call_log``: the durable call log, where applications import it from.

It lives in the records room (:mod:`toolkit.records.call_log`); this path stays for users.
"""

from toolkit.records.call_log import (
    CALL_LOG_ENV,
    CallLog,
    LoggedCall,
    display_target,
    read_calls,
    register_call_store,
)

__all__ = [
    "CALL_LOG_ENV",
    "CallLog",
    "LoggedCall",
    "display_target",
    "read_calls",
    "register_call_store",
]
