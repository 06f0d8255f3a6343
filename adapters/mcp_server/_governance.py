"""A served registry's budget per caller and rate limits: built-in middleware of the core,
given by ``toolkit serve --budget/--rate-limit``, ``TOOLKIT_BUDGET``/``TOOLKIT_RATE_LIMIT``
or ``create_app(budget=..., middleware=...)``."""

from __future__ import annotations

from collections.abc import Sequence

from toolkit import CallerBudget, CallOptions, Middleware, RateLimit, RunBudget

__all__ = ["check_limits", "govern"]


def govern(
    options: CallOptions | None,
    *,
    budget: RunBudget | str | None = None,
    rate_limit: RateLimit | str | None = None,
    middleware: Sequence[Middleware] = (),
) -> CallOptions | None:
    """``options`` with the server's middleware in front of their own: the caller's budget
    (outermost, so every call counts), the rate limit, then ``middleware``.

    The middleware goes in the server's call options, never into the registry: a registry
    shared by several apps in one process (a ``module:attribute`` target) keeps its own.

    Raises:
        ValueError: A budget or rate limit given as text does not parse.
    """
    added: list[Middleware] = []
    if budget is not None:
        added.append(CallerBudget(RunBudget.parse(budget) if isinstance(budget, str) else budget))
    if rate_limit is not None:
        added.append(RateLimit.parse(rate_limit) if isinstance(rate_limit, str) else rate_limit)
    added.extend(middleware)
    if not added:
        return options
    base = options or CallOptions()
    return base.replace(middleware=(*added, *(base.middleware or ())))


def check_limits(budget: str | None, rate_limit: str | None) -> None:
    """Parse ``--budget`` and ``--rate-limit`` once, before any worker starts.

    Raises:
        ValueError: One does not parse (the message says the spelling).
    """
    if budget is not None:
        RunBudget.parse(budget)
    if rate_limit is not None:
        RateLimit.parse(rate_limit)
