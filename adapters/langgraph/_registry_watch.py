"""Keeping an agent's bound tools current: a registry change marks them stale."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Protocol

from toolkit.registry import ToolRegistry

__all__ = ["Stale", "watch"]


class Stale(Protocol):
    """What holds bound tools: told when the registry changed."""

    def stale(self) -> None:
        """Forget what was bound: the registry changed."""


def watch(registry: ToolRegistry, target: Stale) -> None:
    """Call ``target.stale()`` on every registry change, without keeping ``target`` alive."""
    ref = weakref.ref(target)
    unsubscribe: list[Callable[[], None]] = []

    def changed() -> None:
        current = ref()
        if current is None:
            unsubscribe[0]()
            return
        current.stale()

    unsubscribe.append(registry.on_change(changed))
