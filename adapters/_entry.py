"""The ``toolkit`` console script's entry point, importable without the ``[cli]`` extra.

``adapters.cli`` refuses to import without typer and rich (an ``ImportError`` naming the extra,
as every adapter does). A person who typed ``toolkit`` gets that as one line and exit status 2,
not a traceback.
"""

from __future__ import annotations

import sys

from adapters._extras import MissingExtraError, install_hint

__all__ = ["main"]


def main() -> None:
    """Run the ``toolkit`` command, or say in one line which extra it needs."""
    try:
        from adapters.cli import main as run
    except MissingExtraError as exc:
        print(
            f"error: the toolkit command needs the '{exc.extra}' extra, which is not installed "
            f"(missing: {', '.join(exc.missing)}). Install it with: {install_hint(exc.extra)}",
            file=sys.stderr,
        )
        raise SystemExit(2) from None
    run()
