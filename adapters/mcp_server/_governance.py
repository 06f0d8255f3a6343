"""A served registry's budget per caller and rate limits: built-in middleware of the core,
given by ``toolkit serve --budget/--rate-limit``, ``TOOLKIT_BUDGET``/``TOOLKIT_RATE_LIMIT``
or ``create_app(budget=..., middleware=...)``."""

from __future__ import annotations

from collections.abc import Sequence

from toolkit import CallerBudget, Middleware, RateLimit, RunBudget, ToolRegistry

__all__ = ["check_limits", "govern"]


def govern(
    registry: ToolRegistry,
    *,
    budget: RunBudget | str | None = None,
    rate_limit: RateLimit | str | None = None,
    middleware: Sequence[Middleware] = (),
) -> bool:
    """Put the server's middleware in front of the registry's own: the caller's budget
    (outermost, so every call counts), the rate limit, then ``middleware``.

    Returns:
        Whether anything was added (the server then tells callers apart).

    Raises:
        ValueError: A budget or rate limit given as text does not parse.
    """
    added: list[Middleware] = []
    if budget is not None:
        added.append(CallerBudget(RunBudget.parse(budget) if isinstance(budget, str) else budget))
    if rate_limit is not None:
        added.append(RateLimit.parse(rate_limit) if isinstance(rate_limit, str) else rate_limit)
    added.extend(middleware)
    if added:
        registry.configure(middleware=(*added, *registry.settings.middleware))
    return bool(added)


def check_limits(budget: str | None, rate_limit: str | None) -> None:
    """Parse ``--budget`` and ``--rate-limit`` once, before any worker starts.

    Raises:
        ValueError: One does not parse (the message says the spelling).
    """
    if budget is not None:
        RunBudget.parse(budget)
    if rate_limit is not None:
        RateLimit.parse(rate_limit)
