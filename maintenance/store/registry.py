"""Choosing a store backend by URL: :func:`open_store` and the store registry.

This module sits above the backends: it imports them (lazily, when a store is opened), and
no backend imports it, so there is no import circle. ``base`` imports no backend either.

Built in:

- a plain path, ``:memory:`` or ``sqlite:///path``: :class:`~.sqlite.SQLiteStore`;
- ``postgresql://...`` or ``postgres://...``: :class:`~.postgres.PostgresStore` (extra
  ``postgres``);
- connectors to the memory systems agents already use, each an extra, through
  :class:`~.mirror.ExternalStore` (see ``docs/connectors.md``): ``chroma://``,
  ``chroma+http://``, ``qdrant://``, ``qdrant+http://``, ``langgraph+sqlite://``,
  ``langgraph+postgres://``, ``mem0://``, ``pgvector://``.

Another backend registers an opener for its URL scheme with :func:`register_store`; an opener
is called as ``opener(url, create=create)`` with the URL exactly as given.
"""

from __future__ import annotations

import re
import threading
from typing import Protocol

from memmaint.maintenance.core.errors import UserError
from memmaint.maintenance.store.base import MemoryStore


class StoreOpener(Protocol):
    """Opens the store at ``url``; with ``create=False`` a missing store is a ``UserError``."""

    def __call__(self, url: str, *, create: bool) -> MemoryStore: ...


_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]+$")
# a URL's scheme (two characters at least, so a Windows drive letter is not one)
_URL_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+)://")

_lock = threading.Lock()
_openers: dict[str, StoreOpener] = {}


def _open_sqlite(url: str, *, create: bool) -> MemoryStore:
    from memmaint.maintenance.store.sqlite import SQLiteStore

    return SQLiteStore(url.removeprefix("sqlite:///"), create=create)


def _open_postgres(url: str, *, create: bool) -> MemoryStore:
    from memmaint.maintenance.store.postgres import PostgresStore

    return PostgresStore(url, create=create)


def _connector(module: str) -> StoreOpener:
    """An opener that imports ``memmaint.maintenance.store.<module>`` when first used."""
    def opener(url: str, *, create: bool) -> MemoryStore:
        import importlib

        connector = importlib.import_module(f"memmaint.maintenance.store.{module}")
        store: MemoryStore = connector.open_url(url, create=create)
        return store
    return opener


def register_store(scheme: str, opener: StoreOpener, *, replace: bool = False) -> None:
    """Open URLs ``<scheme>://...`` with ``opener``.

    ``scheme`` is lower case (letters, digits, ``+``, ``-``, ``.``; a letter first). A scheme
    that is already registered is a ``ValueError`` unless ``replace=True``.
    """
    if not _SCHEME.match(scheme):
        raise ValueError(f"invalid store URL scheme {scheme!r} (lower-case letters, digits, "
                         "'+', '-' or '.', starting with a letter, two characters at least)")
    if not callable(opener):
        raise TypeError(f"the opener for {scheme!r} is not callable: {opener!r}")
    with _lock:
        if scheme in _openers and not replace:
            raise ValueError(f"store URL scheme {scheme!r} is already registered")
        _openers[scheme] = opener


def unregister_store(scheme: str) -> None:
    """Forget the opener of ``scheme`` (``KeyError`` if there is none)."""
    with _lock:
        del _openers[scheme]


def available_stores() -> list[str]:
    """The registered URL schemes, sorted (``sqlite`` also opens plain paths)."""
    with _lock:
        return sorted(_openers)


def open_store(url: str | None, *, create: bool = True, dry_run: bool = False) -> MemoryStore:
    """Open a store from a URL or path.

    ``postgresql://...`` opens PostgreSQL (extra ``postgres``); ``sqlite:///path``, a plain
    path or ``:memory:`` opens SQLite; other schemes open what :func:`register_store`
    registered for them. With ``create=False`` a missing store is a ``UserError``, and so is
    an unknown scheme. With ``dry_run`` the store is opened for a dry run: a connector's
    mirror then syncs into a scratch copy of its sidecar, so the dry run writes nothing to
    the sidecar or the system (the built-in stores are only read by a dry run anyway).
    """
    if not url:
        raise UserError("no store given: pass --db PATH (or a postgresql:// URL)")
    match = _URL_SCHEME.match(url)
    scheme = "sqlite" if match is None else match.group(1)
    with _lock:
        opener = _openers.get(scheme)
    if opener is None:
        known = ", ".join(f"{s}://" for s in available_stores())
        raise UserError(f"unknown store URL scheme {scheme + '://'!r}: known schemes are "
                        f"{known} (or give a file path for SQLite)")
    if not dry_run:
        return opener(url, create=create)
    from memmaint.maintenance.store.external import opening_for_dry_run

    with opening_for_dry_run():
        return opener(url, create=create)


register_store("sqlite", _open_sqlite)
register_store("postgresql", _open_postgres)
register_store("postgres", _open_postgres)
for _scheme, _module in (("chroma", "chroma"), ("chroma+http", "chroma"),
                         ("chroma+https", "chroma"), ("qdrant", "qdrant"),
                         ("qdrant+http", "qdrant"), ("qdrant+https", "qdrant"),
                         ("langgraph+sqlite", "langgraph"), ("langgraph+postgres", "langgraph"),
                         ("langgraph+postgresql", "langgraph"), ("mem0", "mem0"),
                         ("pgvector", "pgvector")):
    register_store(_scheme, _connector(_module))

__all__ = ["StoreOpener", "available_stores", "open_store", "register_store",
           "unregister_store"]
