"""Which optional extra each adapter needs, and a clear ``ImportError`` when it is missing.

``pip install mcp-toolkit`` installs the core only. Each adapter package calls
:func:`require` first thing in its ``__init__``, so importing it without its extra fails at once
with the command that fixes it, instead of a bare ``No module named 'mcp'`` from deep inside.
"""

from __future__ import annotations

from importlib.util import find_spec

__all__ = ["EXTRAS", "MissingExtraError", "install_hint", "require"]

#: The distribution's extras and the top-level modules each one must make importable.
EXTRAS: dict[str, tuple[str, ...]] = {
    "langchain": ("langchain_core", "langgraph"),
    "langgraph": ("langchain_core", "langgraph", "jinja2"),
    "mcp": ("mcp", "httpx2", "yaml", "starlette", "uvicorn", "typer"),
    "http": ("httpx", "jinja2", "yaml"),
    "cli": ("typer", "rich"),
    "xml": ("defusedxml", "langchain_core"),
    "otel": ("opentelemetry",),
    "sqlite": ("langgraph.checkpoint.sqlite",),
    "metrics": ("prometheus_client",),
    "postgres": ("psycopg", "psycopg_pool", "langgraph.checkpoint.postgres"),
}


def install_hint(extra: str) -> str:
    """The command that installs ``extra``, from the package index or from a checkout.

    Args:
        extra: The extra to install.

    Returns:
        ``pip install 'mcp-toolkit[extra]'`` and its form for a source checkout.
    """
    return f"pip install 'mcp-toolkit[{extra}]' (from a checkout: pip install -e '.[{extra}]')"


class MissingExtraError(ImportError):
    """An adapter was imported without the optional extra it needs.

    Attributes:
        extra: The extra to install.
        missing: The modules that could not be found.
    """

    def __init__(self, package: str, extra: str, missing: list[str]) -> None:
        self.extra = extra
        self.missing = missing
        super().__init__(
            f"{package} needs the '{extra}' extra, which is not installed (missing: "
            f"{', '.join(missing)}). Install it with: {install_hint(extra)}; "
            "'[all]' installs every adapter.",
            name=missing[0],
        )


def _found(module: str) -> bool:
    try:
        return find_spec(module) is not None
    except ImportError:  # a dotted name whose parent is missing
        return False


def require(package: str, extra: str) -> None:
    """Raise :class:`MissingExtraError` unless every module of ``extra`` can be imported.

    Args:
        package: The adapter package asking (named in the message).
        extra: The extra it needs, a key of :data:`EXTRAS`.

    Raises:
        MissingExtraError: Naming the extra and the install command.
    """
    missing = [module for module in EXTRAS[extra] if not _found(module)]
    if missing:
        raise MissingExtraError(package, extra, missing)
