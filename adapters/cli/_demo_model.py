"""Which model the demo talks to, and what to tell a person when the endpoint says no."""

from __future__ import annotations

import os
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from adapters.cli._demo_script import scripted_model

__all__ = ["DEFAULT_BASE_URL", "DEFAULT_MODEL", "ModelChoice", "endpoint_problem"]

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_BASE_URL = "https://api.openai.com/v1"


@dataclass(frozen=True)
class ModelChoice:
    """The model of a run: scripted offline, or an OpenAI-compatible endpoint.

    Attributes:
        api_key: ``OPENAI_API_KEY``; ``None`` means offline.
        name: The model name for the endpoint.
        base_url: ``OPENAI_BASE_URL``; ``None`` means OpenAI's.
    """

    api_key: str | None
    name: str
    base_url: str | None

    @classmethod
    def from_env(cls, model: str | None) -> ModelChoice:
        """Read ``OPENAI_API_KEY``, ``OPENAI_BASE_URL`` and ``OPENAI_MODEL`` (``model`` wins)."""
        return cls(
            api_key=os.environ.get("OPENAI_API_KEY") or None,
            name=model or os.environ.get("OPENAI_MODEL") or DEFAULT_MODEL,
            base_url=os.environ.get("OPENAI_BASE_URL") or None,
        )

    @property
    def offline(self) -> bool:
        """Whether the scripted model answers."""
        return self.api_key is None

    @property
    def endpoint(self) -> str:
        """The URL requests go to."""
        return self.base_url or DEFAULT_BASE_URL

    def describe(self) -> str:
        """One line saying which model answers."""
        if self.offline:
            return "offline: scripted model; set OPENAI_API_KEY to use a real one"
        return f"model: {self.name} at {self.endpoint}"

    def build(self, *, pause: float) -> BaseChatModel:
        """The chat model (``pause``: seconds each scripted turn takes, for watching)."""
        if self.offline:
            return scripted_model(pause)
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(
            model=self.name,
            base_url=self.base_url,
            api_key=self.api_key,  # type: ignore[arg-type]
            max_retries=1,
            timeout=120,
        )


def _root(exc: BaseException) -> BaseException:
    while exc.__cause__ is not None or exc.__context__ is not None:
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return exc


def endpoint_problem(exc: BaseException, choice: ModelChoice) -> str | None:
    """A one-line explanation of a model endpoint failure, or ``None`` if ``exc`` is not one."""
    if isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        return endpoint_problem(exc.exceptions[0], choice)
    if choice.offline:
        return None
    import openai  # only a real model gets here; the offline demo need not load the client

    url = choice.endpoint
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return (
            f"the model endpoint {url} rejected the API key (HTTP {exc.status_code}). "
            "Check OPENAI_API_KEY (for a local server any non-empty value usually works)."
        )
    if isinstance(exc, openai.NotFoundError):
        return (
            f"the model endpoint {url} answered HTTP 404 for model {choice.name!r}. Check "
            "--model / OPENAI_MODEL, and that OPENAI_BASE_URL ends in /v1."
        )
    if isinstance(exc, openai.APIConnectionError):
        cause = _root(exc)
        detail = str(cause) or type(cause).__name__
        return (
            f"cannot reach the model endpoint {url} ({detail}). Check OPENAI_BASE_URL and that "
            "the server is running, or unset OPENAI_API_KEY for the offline demo."
        )
    if isinstance(exc, openai.APIStatusError):
        return (
            f"the model endpoint {url} answered HTTP {exc.status_code}: {exc.message}. Check "
            "OPENAI_BASE_URL and OPENAI_MODEL."
        )
    return None
