"""Run one program from the docs and record what each of its ``print`` lines printed.

Usage: ``python doc_runner.py PROGRAM RECORDS``. The program runs as ``__main__`` in the current
directory; ``RECORDS`` receives ``[[line, text], ...]`` for every print the program itself made
(as JSON, also when the program fails).
"""

from __future__ import annotations

import builtins
import io
import json
import sys
import types
from typing import Any

FILENAME = "<doc>"


def main() -> None:
    program, records_path = sys.argv[1], sys.argv[2]
    with open(program, encoding="utf-8") as handle:
        source = handle.read()
    records: list[list[Any]] = []
    real_print = builtins.print

    def recording_print(*args: Any, **kwargs: Any) -> None:
        caller = sys._getframe(1)
        if kwargs.get("file") is None and caller.f_code.co_filename == FILENAME:
            text = io.StringIO()
            real_print(*args, **{**kwargs, "file": text})
            records.append([caller.f_lineno, text.getvalue()])
        real_print(*args, **kwargs)

    builtins.print = recording_print
    try:
        # a module of its own, so that dataclasses and pydantic resolve the program's names
        module = types.ModuleType("__main__")
        sys.modules["__main__"] = module
        exec(compile(source, FILENAME, "exec"), module.__dict__)
    finally:
        with open(records_path, "w", encoding="utf-8") as handle:
            json.dump(records, handle)


if __name__ == "__main__":
    main()
