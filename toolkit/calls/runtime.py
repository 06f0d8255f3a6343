"""The shared background event loop of the sync entry points, for adapters and applications.

``registry.call_sync`` and LangChain's ``invoke`` run coroutines on one background loop, so
resources bound to an event loop (remote connections, their owner tasks) are created and used on
the same loop whichever sync caller comes first. Code that owns such resources (a connection
pool) uses the same loop through these functions. :func:`within` gives an awaited call a
deadline on asyncio at the cost of a dict entry (one timer per loop), as the call path does;
:func:`run_awaitable` runs blocking work on the call path's worker threads.
"""

from toolkit.calls._deadlines import Expired, within
from toolkit.calls._sync import get_portal, is_blocked, run_sync
from toolkit.calls._workers import run_awaitable

__all__ = ["Expired", "get_portal", "is_blocked", "run_awaitable", "run_sync", "within"]
