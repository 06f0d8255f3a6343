"""Inside a venv made by wheel_check.sh: check what the installed wheel can import.

``python wheel_check.py bare`` (no extras): ``import toolkit`` and a decorated call work, and every
adapter package either imports (it needs no extra) or raises ``MissingExtraError`` naming its
extra; prints ``package=extra`` lines for the extras to check next.

``python wheel_check.py extra NAME PACKAGE...``: with only extra NAME installed, its modules and
the adapter packages that asked for it import.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys


def _fail(message: str) -> None:
    print(f"wheel check FAILED: {message}", file=sys.stderr)
    raise SystemExit(1)


def bare() -> None:
    import adapters
    import toolkit
    from adapters._extras import MissingExtraError

    @toolkit.mcp_tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    registry = toolkit.ToolRegistry()
    registry.register(add)
    result = registry.call_sync("add", {"a": 2, "b": 3})
    if result.is_error or result.content != "5":
        _fail(f"a decorated call in the bare install answered {result.content!r}")
    bad = registry.call_sync("add", {"a": "two"})
    if not bad.is_error:
        _fail("invalid arguments were not refused in the bare install")
    for spec in pkgutil.iter_modules(adapters.__path__):
        if not spec.ispkg or spec.name.startswith("_"):
            continue
        package = f"adapters.{spec.name}"
        try:
            importlib.import_module(package)
        except MissingExtraError as exc:
            print(f"{package}={exc.extra}")
        except ImportError as exc:
            _fail(
                f"{package} failed with {exc!r} instead of naming its extra: call "
                "adapters._extras.require(...) first in its __init__"
            )
        else:
            print(f"{package}=")


def extra(name: str, packages: list[str]) -> None:
    from adapters._extras import EXTRAS, MissingExtraError

    for module in EXTRAS[name]:
        importlib.import_module(module)
    for package in packages:
        try:
            importlib.import_module(package)
        except MissingExtraError as exc:
            _fail(f"with only [{name}] installed, {package} still says: {exc}")


if __name__ == "__main__":
    if sys.argv[1] == "bare":
        bare()
    else:
        extra(sys.argv[2], sys.argv[3:])
