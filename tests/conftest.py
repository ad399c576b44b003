"""Shared fixtures (keep this small: module-specific helpers live in their test files)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


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


@pytest.fixture
def pg_url(pg_server):
    """The URL of a fresh, empty database on ``pg_server`` (dropped afterwards)."""
    url = pg_server.new_database()
    yield url
    pg_server.drop_database(url)
