"""The per-call options of each caller, made once instead of on every ``tools/call``.

A served call's options are the server's own with the caller and the peer filled in (the call
record names them). Building them is a dataclass replace with validation of every field; the
server has few distinct callers and peers, so each combination is made once and kept.
"""

from __future__ import annotations

from toolkit.calls.options import CallOptions

__all__ = ["PerCallerOptions"]

#: Combinations kept (forgotten all at once past it: a header's caller names are unbounded).
_LIMIT = 1024


class PerCallerOptions:
    """``base.replace(caller=..., peer=...)``, remembered per base, caller and peer."""

    def __init__(self) -> None:
        self._made: dict[tuple[int, str | None, str | None], tuple[CallOptions, CallOptions]] = {}

    def of(self, base: CallOptions, caller: str | None, peer: str | None) -> CallOptions:
        """The options of one call by ``caller`` from ``peer`` (``CallOptions`` is frozen)."""
        if not isinstance(caller, str | None):  # not a name to key by: made for this call
            return base.replace(caller=caller, peer=peer)
        key = (id(base), caller, peer)
        made = self._made.get(key)
        if made is not None and made[0] is base:
            return made[1]
        if len(self._made) >= _LIMIT:
            self._made.clear()
        options = base.replace(caller=caller, peer=peer)
        self._made[key] = (base, options)
        return options
