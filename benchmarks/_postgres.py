"""A throwaway PostgreSQL server for the scale benchmark and the tests (no system service).

The server runs Debian's ``postgresql`` binaries (``/usr/lib/postgresql/*/bin``) from a new
temporary folder, listens on a Unix socket in that folder only (no TCP), trusts local
connections and is stopped, its folder removed, by :meth:`LocalPostgres.stop` (or on leaving
a ``with`` block).  PostgreSQL refuses to run as root, so when this process is root the
server runs as the ``postgres`` user (``runuser``), which is why the folder is made with
:func:`tempfile.mkdtemp` and handed to that user rather than put under a root-only folder
such as pytest's ``tmp_path``.
"""

from __future__ import annotations

import glob
import os
import random
import shutil
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

INSTALL_HINT = (
    "PostgreSQL's server binaries (Debian: apt-get install -y postgresql) and psycopg2 "
    "(pip install psycopg2-binary)"
)


def missing() -> str | None:
    """Why no local server can be started here, or ``None`` if one can."""
    if not glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"):
        return f"no /usr/lib/postgresql/*/bin/pg_ctl: needs {INSTALL_HINT}"
    if _is_root() and shutil.which("runuser") is None:
        return "running as root needs runuser to start PostgreSQL as another user"
    try:
        import psycopg2  # noqa: F401
    except ImportError:
        return f"psycopg2 is not installed: needs {INSTALL_HINT}"
    return None


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


class LocalPostgres:
    """A throwaway server whose ``url`` (SQLAlchemy) names its ``postgres`` database;
    ``durable=False`` (a test) turns ``fsync`` and synchronous commits off.  Raises
    ``RuntimeError`` if :func:`missing` names something missing."""

    def __init__(self, *, durable: bool = True) -> None:
        reason = missing()
        if reason is not None:
            raise RuntimeError(f"LocalPostgres cannot start a server: {reason}.")
        self.bin = Path(sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))[-1]).parent
        self.root = Path(tempfile.mkdtemp(prefix="treeucb-pg-"))
        self._as: list[str] = []
        if _is_root():
            shutil.chown(self.root, "postgres")
            self._as = ["runuser", "-u", "postgres", "--"]
        self.data = self.root / "data"
        self.durable = durable
        # The socket lives in a folder of its own, so the port only names its file: any port
        # is free there; a random one keeps two servers' names apart in logs.
        self.port = random.randint(20_000, 60_000)
        self.url = f"postgresql+psycopg2://postgres@/postgres?host={self.root}&port={self.port}"

    def _run(self, *cmd: str, timeout: float = 120) -> None:
        subprocess.run(
            [*self._as, *cmd], check=True, capture_output=True, text=True, timeout=timeout
        )

    def start(self) -> LocalPostgres:
        """Create the cluster and start the server (waits until it accepts connections)."""
        try:
            initdb = [str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust"]
            self._run(*initdb, "-U", "postgres", *([] if self.durable else ["--no-sync"]))
            options = (
                f"-k {self.root} -p {self.port} -c listen_addresses='' -c max_connections=200"
            )
            if not self.durable:
                options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            log = str(self.root / "server.log")
            pg_ctl = str(self.bin / "pg_ctl")
            self._run(
                pg_ctl, "-D", str(self.data), "-o", options, "-l", log, "-w", "-t", "60", "start"
            )
        except BaseException:
            shutil.rmtree(self.root, ignore_errors=True)
            raise
        return self

    def stop(self) -> None:
        """Stop the server (immediate shutdown: nothing is kept) and remove its folder."""
        try:
            if (self.data / "postmaster.pid").exists():
                pg_ctl = str(self.bin / "pg_ctl")
                self._run(
                    pg_ctl, "-D", str(self.data), "-m", "immediate", "-w", "-t", "60", "stop"
                )
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> LocalPostgres:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
