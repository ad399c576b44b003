"""The store registry: ``open_store`` dispatches on the URL scheme to registered openers."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from store_conformance import mem

from memmaint.maintenance.core.errors import UserError
from memmaint.maintenance.store import registry
from memmaint.maintenance.store.base import MemoryStore
from memmaint.maintenance.store.registry import (
    available_stores,
    open_store,
    register_store,
    unregister_store,
)
from memmaint.maintenance.store.sqlite import SQLiteStore


@pytest.fixture
def scheme():
    """A scheme name no other test uses; unregistered afterwards."""
    name = "memtest"
    yield name
    if name in available_stores():
        unregister_store(name)


def test_builtin_schemes():
    assert {"sqlite", "postgresql", "postgres"} <= set(available_stores())
    assert available_stores() == sorted(available_stores())


def test_a_registered_scheme_is_opened_by_open_store(scheme, tmp_path):
    calls = []

    def opener(url: str, *, create: bool) -> MemoryStore:
        calls.append((url, create))
        return SQLiteStore(tmp_path / "via-registry.db", create=create)

    register_store(scheme, opener)
    assert scheme in available_stores()
    with open_store(f"{scheme}://somewhere/db?x=1") as store:
        store.add_memories([mem("a")])
        assert isinstance(store, MemoryStore) and store.count_memories() == 1
    with open_store(f"{scheme}://somewhere/db?x=1", create=False) as store:
        assert store.count_memories() == 1
    assert calls == [(f"{scheme}://somewhere/db?x=1", True),
                     (f"{scheme}://somewhere/db?x=1", False)]
    unregister_store(scheme)
    with pytest.raises(UserError, match="unknown store URL scheme"):
        open_store(f"{scheme}://somewhere/db")


def test_unknown_scheme_is_a_one_line_user_error_naming_the_known_ones():
    with pytest.raises(UserError) as err:
        open_store("mysql://user:s3cret@host/db")
    message = str(err.value)
    assert "\n" not in message
    assert "'mysql://'" in message
    for known in available_stores():
        assert f"{known}://" in message
    assert "s3cret" not in message


def test_paths_and_sqlite_urls_still_open_sqlite(tmp_path):
    path = tmp_path / "s.db"
    with open_store(str(path)) as a:
        assert isinstance(a, SQLiteStore)
    with open_store(f"sqlite:///{path}", create=False) as b:
        assert isinstance(b, SQLiteStore) and b.url == str(path.resolve())
    with open_store(":memory:") as c:
        assert isinstance(c, SQLiteStore) and c.url == ":memory:"
    with pytest.raises(UserError, match="--db"):
        open_store(None)


def test_registering_twice_needs_replace(scheme):
    def opener(url: str, *, create: bool) -> MemoryStore:
        raise AssertionError("not called")

    register_store(scheme, opener)
    with pytest.raises(ValueError, match="already registered"):
        register_store(scheme, opener)
    register_store(scheme, opener, replace=True)
    with pytest.raises(ValueError, match="invalid store URL scheme"):
        register_store("Bad_Scheme", opener)
    with pytest.raises(TypeError):
        register_store("other", "not callable")  # type: ignore[arg-type]


def test_base_imports_no_backend_and_backends_do_not_import_the_registry():
    code = (
        "import sys\n"
        "import memmaint.maintenance.store.base\n"
        "import memmaint.maintenance.store\n"
        "loaded = [m for m in ('memmaint.maintenance.store.sqlite',\n"
        "          'memmaint.maintenance.store.postgres') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    for module in ("base", "_sql", "sqlite", "postgres"):
        tree = ast.parse(Path(registry.__file__).with_name(f"{module}.py").read_text("utf-8"))
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                     for alias in node.names}
        assert "memmaint.maintenance.store.registry" not in imported, module
        assert "memmaint.maintenance.store" not in imported, module  # the package's names
        if module == "base":
            assert not {"memmaint.maintenance.store.sqlite",
                        "memmaint.maintenance.store.postgres"} & imported
