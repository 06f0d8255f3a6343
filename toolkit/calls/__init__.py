"""The call path: one call from its entry point to its result.

Options and settings (what a call runs with), the invoker (parse, validate, policy, approval,
run with timeout and retries, exception rules, redaction, the record), the tool spec, the
neutral content rules of results, what a tool may ask its client, and the shared event loop
of the sync entry points.

Every name here is public: adapters import the core's names from ``toolkit`` or from a room.
"""

from toolkit.calls.examples import EXAMPLES_META_KEY
from toolkit.calls.interaction import (
    LOG_LEVELS,
    ClientChannel,
    Elicitation,
    LogLevel,
    SamplingMessage,
)
from toolkit.calls.invoker import Invoker, new_call_id
from toolkit.calls.options import CallOptions
from toolkit.calls.processor import Action, ExceptionProcessor, Outcome, Rule
from toolkit.calls.runtime import (
    Expired,
    get_portal,
    is_blocked,
    run_awaitable,
    run_sync,
    within,
)
from toolkit.calls.settings import DEFAULT_TIMEOUT, RegistrySettings, SettingsFields
from toolkit.calls.spec import (
    NAME_PATTERN,
    TaskSupport,
    ToolAnnotations,
    ToolOptions,
    ToolSpec,
    UnknownParams,
    is_valid_name,
)
from toolkit.calls.unset import UNSET, Unset, given_or
from toolkit.calls.wire import (
    CONTENT_TYPES,
    USER_ONLY,
    content_blocks,
    content_result,
    for_model,
    is_content_hint,
    model_content,
    resource_text,
)
from toolkit.context import LogCallback, ProgressCallback

__all__ = [
    "CONTENT_TYPES",
    "DEFAULT_TIMEOUT",
    "EXAMPLES_META_KEY",
    "LOG_LEVELS",
    "NAME_PATTERN",
    "UNSET",
    "USER_ONLY",
    "Action",
    "CallOptions",
    "ClientChannel",
    "Elicitation",
    "ExceptionProcessor",
    "Expired",
    "Invoker",
    "LogCallback",
    "LogLevel",
    "Outcome",
    "ProgressCallback",
    "RegistrySettings",
    "Rule",
    "SamplingMessage",
    "SettingsFields",
    "TaskSupport",
    "ToolAnnotations",
    "ToolOptions",
    "ToolSpec",
    "UnknownParams",
    "Unset",
    "content_blocks",
    "content_result",
    "for_model",
    "get_portal",
    "given_or",
    "is_blocked",
    "is_content_hint",
    "is_valid_name",
    "model_content",
    "new_call_id",
    "resource_text",
    "run_awaitable",
    "run_sync",
    "within",
]
