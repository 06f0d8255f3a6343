"""HTTP endpoints as tools: declared REST calls and OpenAPI operations.

A config entry (or an OpenAPI operation) becomes a tool in the same
:class:`toolkit.ToolRegistry` as decorated functions, with the same validation, error
messages, policy, records and adapters::

    toolset = HttpToolset.from_file("http_tools.json")  # {"httpTools": {name: config}}
    toolset.register_into(registry)
    result = registry.call_sync("get_order", {"userId": "u1", "orderId": "o7"})
    toolset.close()

Every connection goes only to an address a :class:`adapters.network.NetworkPolicy` judged (cloud
metadata is never reachable), each attempt has a total deadline (``timeout_seconds``) and each
answer a cap on its decoded size (``max_response_bytes``), ``${VAR}`` secrets are read only when
a request is sent and masked in every answer, and JSON responses can be turned into text by a
sandboxed Jinja2 :class:`ResponseTemplate`.
"""

from adapters._extras import require

require("adapters.http", "http")

from adapters.http._config import HttpAuth, HttpConfigError, HttpParameter, HttpToolConfig
from adapters.http._template import ResponseTemplate, TemplateLimitError
from adapters.http._tool import HttpTool
from adapters.http._toolset import HttpToolset, load_http_file

__all__ = [
    "HttpAuth",
    "HttpConfigError",
    "HttpParameter",
    "HttpTool",
    "HttpToolConfig",
    "HttpToolset",
    "ResponseTemplate",
    "TemplateLimitError",
    "load_http_file",
]
