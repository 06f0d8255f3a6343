"""A throwaway PostgreSQL server for tests: its own cluster, on a free 127.0.0.1 port.

:func:`start_cluster` runs the server's own ``initdb`` into a fresh temporary directory and
starts it with ``pg_ctl`` listening on 127.0.0.1 only (its Unix socket in the same directory),
with durability off (a test database is thrown away). ``initdb`` refuses to run as root, so when
the tests run as root the cluster belongs to the ``postgres`` system user (``runuser``).
:meth:`PostgresCluster.stop` ends the server by the pid it wrote, and removes the directory.

The server binaries are found in ``$TOOLKIT_PG_BIN``, on ``PATH``, or in Debian's
``/usr/lib/postgresql/<version>/bin``. ``bash tests/support/postgres.sh`` installs them.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["PostgresCluster", "PostgresUnavailable", "find_bin_dir", "start_cluster"]

#: The superuser the cluster is created with (its password is random per cluster).
SUPERUSER = "toolkit"


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server binaries on this machine (the message says how to install them)."""


def find_bin_dir() -> Path:
    """The folder holding ``initdb``, ``pg_ctl`` and ``postgres``.

    Raises:
        PostgresUnavailable: None was found.
    """
    candidates: list[Path] = []
    if os.environ.get("TOOLKIT_PG_BIN"):
        candidates.append(Path(os.environ["TOOLKIT_PG_BIN"]))
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).parent)
    debian = Path("/usr/lib/postgresql")
    if debian.is_dir():
        versions = [p for p in debian.iterdir() if p.name.isdigit()]
        candidates += [p / "bin" for p in sorted(versions, key=lambda p: -int(p.name))]
    for folder in candidates:
        if all((folder / tool).is_file() for tool in ("initdb", "pg_ctl", "postgres")):
            return folder
    raise PostgresUnavailable(
        "No PostgreSQL server found (initdb, pg_ctl): install it with "
        "'bash tests/support/postgres.sh' (apt-get install postgresql-15), or set "
        "TOOLKIT_PG_BIN to the folder holding initdb and pg_ctl."
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PostgresCluster:
    """A running throwaway cluster.

    Attributes:
        root: The temporary folder (data directory, socket, log).
        port: The TCP port on 127.0.0.1.
        password: The superuser's password.
        pid: The postmaster's process id.
    """

    root: Path
    port: int
    password: str = field(repr=False)
    pid: int
    _databases: int = field(default=0, repr=False)

    @property
    def url(self) -> str:
        """A ``postgresql://`` URL of the ``postgres`` database, password included."""
        return self.url_of("postgres")

    def url_of(self, database: str, *, password: str | None = None) -> str:
        """The URL of ``database`` on this cluster (with another password if given)."""
        secret = self.password if password is None else password
        return f"postgresql://{SUPERUSER}:{secret}@127.0.0.1:{self.port}/{database}"

    def create_database(self, prefix: str = "t") -> str:
        """A new empty database; returns its URL."""
        import psycopg

        self._databases += 1
        name = f"{prefix}_{self._databases}_{secrets.token_hex(3)}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url_of(name)

    def stop(self) -> None:
        """Stop the server by its pid (fast shutdown, then harder) and remove the folder."""
        self.stop_server()
        shutil.rmtree(self.root, ignore_errors=True)

    def stop_server(self) -> None:
        """Stop the server by its pid: fast shutdown, then immediate, then kill."""
        if self.pid <= 0:  # never a process group
            return
        for sig, wait_s in ((signal.SIGINT, 20.0), (signal.SIGQUIT, 5.0), (signal.SIGKILL, 5.0)):
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                break
            if _gone(self.pid, wait_s):
                break


def _gone(pid: int, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reap it if it is ours
        time.sleep(0.05)
    return False


def _postmaster_pid(data: Path) -> int | None:
    try:
        return int((data / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return None


def _owner() -> tuple[list[str], int | None, int | None]:
    """The command prefix and ids that run the server as a non-root user."""
    if os.geteuid() != 0:
        return [], None, None
    try:
        user = pwd.getpwnam("postgres")
    except KeyError:
        raise PostgresUnavailable(
            "Running as root, and initdb refuses root: create a 'postgres' system user (the "
            "postgresql package does) or run the tests as another user."
        ) from None
    runner = shutil.which("runuser") or shutil.which("su")
    if runner is None:
        raise PostgresUnavailable("Running as root without runuser or su to become 'postgres'.")
    prefix = [runner, "-u", "postgres", "--"] if runner.endswith("runuser") else []
    if not prefix:
        raise PostgresUnavailable("Running as root: install util-linux's runuser.")
    return prefix, user.pw_uid, user.pw_gid


def start_cluster(bin_dir: Path | None = None, *, attempts: int = 3) -> PostgresCluster:
    """Create and start a throwaway cluster; the caller must :meth:`~PostgresCluster.stop` it.

    Raises:
        PostgresUnavailable: No server binaries, or no way to run them as a non-root user.
        RuntimeError: The server did not start (the message holds its log's end).
    """
    bin_dir = bin_dir or find_bin_dir()
    prefix, uid, gid = _owner()
    root = Path(tempfile.mkdtemp(prefix="toolkit-pg-"))
    if uid is not None and gid is not None:
        os.chown(root, uid, gid)
    os.chmod(root, 0o700)
    data = root / "data"
    password = secrets.token_urlsafe(18)
    pwfile = root / "pw"
    pwfile.write_text(password + "\n")
    if uid is not None and gid is not None:
        os.chown(pwfile, uid, gid)
    try:
        subprocess.run(
            [
                *prefix,
                str(bin_dir / "initdb"),
                "-D",
                str(data),
                "-U",
                SUPERUSER,
                f"--pwfile={pwfile}",
                "--auth-host=scram-sha-256",
                "--auth-local=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
            text=True,
            timeout=120,
        )
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"initdb failed: {exc.stderr[-2000:]}") from None
    finally:
        pwfile.unlink(missing_ok=True)
    last_error = ""
    for _ in range(attempts):
        port = _free_port()
        options = " ".join(
            [
                "-c listen_addresses=127.0.0.1",
                f"-c port={port}",
                f"-c unix_socket_directories={root}",
                "-c fsync=off",
                "-c synchronous_commit=off",
                "-c full_page_writes=off",
                "-c max_connections=60",
                "-c shared_buffers=16MB",
            ]
        )
        log = root / "server.log"
        started = subprocess.run(
            [
                *prefix,
                str(bin_dir / "pg_ctl"),
                "start",
                "-w",
                "-t",
                "60",
                "-D",
                str(data),
                "-l",
                str(log),
                "-o",
                options,
            ],
            capture_output=True,
            text=True,
            timeout=90,
        )
        pid = _postmaster_pid(data)
        if started.returncode == 0 and pid is not None:
            return PostgresCluster(root=root, port=port, password=password, pid=pid)
        if pid is not None:  # started but not ready in time: stop it before the next try
            PostgresCluster(root=root, port=port, password=password, pid=pid).stop_server()
        last_error = (log.read_text() if log.exists() else "") + started.stderr
    shutil.rmtree(root, ignore_errors=True)
    raise RuntimeError(f"PostgreSQL did not start: {last_error[-2000:]}")
