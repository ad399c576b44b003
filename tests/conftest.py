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
    from memmaint.maintenance.sqlite_store import SQLiteStore

    store = SQLiteStore(tmp_path / "store.db")
    yield store
    store.close()


@pytest.fixture
def cli():
    """Invoke the ``memmaint`` CLI in-process: ``cli("stats", "--db", path)``."""
    from click.testing import CliRunner

    from memmaint.maintenance.cli import main

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
