"""The server middleware one request needs: layers that would only hand it on are left out.

Every layer of ``Server.middleware`` costs a call, a coroutine and an await on every request,
even when all it does for that request is call the next one. A middleware of this package
that has nothing to do for some requests says so with ``passes_through(method, version,
params)``, written next to its ``__call__`` and true only where ``__call__`` would just call
``call_next``. The requests answered in their own task (:mod:`._direct`) run a chain without
those layers; every other middleware (the SDK's, an application's) runs as always, in order.
Should the SDK's kernel stop composing its chain through ``_compose_server_middleware``, the
whole chain runs again: slower, never different.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.server.runner import ServerRunner

__all__ = ["ChainRunner", "needed"]


def needed(
    middleware: Sequence[ServerMiddleware[Any]],
    method: str,
    version: str,
    params: Mapping[str, Any] | None,
) -> list[ServerMiddleware[Any]]:
    """The layers of ``middleware`` that do something for this request, in order."""
    kept = []
    for each in middleware:
        passes = getattr(each, "passes_through", None)
        if passes is None or not passes(method, version, params):
            kept.append(each)
    return kept


@dataclass
class ChainRunner(ServerRunner[Any]):
    """The SDK's kernel for one request, composing ``chain`` instead of all the middleware."""

    chain: Sequence[ServerMiddleware[Any]] = ()

    def _compose_server_middleware(self, inner: CallNext) -> CallNext:
        call = inner
        for middleware in reversed(self.chain):
            call = partial(_apply, middleware, call)
        return call


def _apply(
    middleware: ServerMiddleware[Any], call_next: CallNext, ctx: ServerRequestContext[Any, Any]
) -> Awaitable[HandlerResult]:
    return middleware(ctx, call_next)
