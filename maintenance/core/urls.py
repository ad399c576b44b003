"""Store URLs shown to people and written to files: the one redaction, and a store's identity.

:func:`redact_url` is the only function that makes a store URL safe to show or to write:
every plan file, review page, run record, queue export, log line and message names a store
through it. It replaces the password of ``scheme://user:password@host`` with ``***`` and the
value of every secret query parameter (``password``, ``sslpassword``, ``token``,
``api_key`` ...) with ``***``; a plain path is returned unchanged.

:func:`store_fingerprint` names *which* store a URL opens, without secrets: a digest of the
store's location (a SQLite file's resolved path; a server URL's scheme, host, port, path and
non-secret query parameters, with no user name or password). A plan records it; ``apply``
refuses a plan made for another store.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

MASK = "***"
#: Query parameters whose values are secrets (compared lower case).
SECRET_PARAMS = frozenset({"password", "passwd", "pwd", "pass", "sslpassword", "secret",
                           "token", "api_key", "apikey", "api-key", "key", "access_token",
                           "auth", "authorization"})
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
# userinfo password anywhere in a text: "//user:secret@" (also inside a longer message)
_USERINFO = re.compile(r"(//[^/:@\s]*:)[^@/\s]*@")
_QUERY_SECRET = re.compile(r"([?&;](?:" + "|".join(re.escape(p) for p in sorted(SECRET_PARAMS))
                           + r")=)[^&#\s]*", re.IGNORECASE)


def redact_url(url: str) -> str:
    """``url`` with its password and secret query values replaced by ``***``.

    Works on a URL, a plain path (unchanged) or a longer text that contains URLs (each
    password in it is masked), so a message built around a URL can be passed whole.
    """
    text = str(url)
    text = _USERINFO.sub(lambda m: m.group(1) + MASK + "@", text)
    return _QUERY_SECRET.sub(lambda m: m.group(1) + MASK, text)


def store_location(url: str) -> str:
    """The canonical, secret-free location of the store ``url`` opens (see the module
    docstring): ``sqlite:/abs/path``, or ``scheme://host:port/path?params`` without user
    name, password or secret parameters (parameters sorted)."""
    text = str(url)
    if text == ":memory:":
        return "sqlite::memory:"
    if not _URL.match(text):
        return "sqlite:" + str(Path(text).expanduser().resolve())
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme == "sqlite":
        path = parts.path
        if parts.netloc and parts.netloc not in ("", "localhost"):
            path = "/" + parts.netloc + path
        path = path[1:] if path.startswith("//") else path
        return "sqlite:" + str(Path(path or ".").expanduser().resolve())
    if scheme == "postgres":
        scheme = "postgresql"
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host + (f":{port}" if port else "")
    params = sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                    if k.lower() not in SECRET_PARAMS)
    query = "&".join(f"{quote(k)}={quote(v)}" for k, v in params)
    return urlunsplit((scheme, netloc, os.path.normpath(parts.path) if parts.path else "",
                       query, ""))


def store_fingerprint(url: str) -> str:
    """A short digest of :func:`store_location` (16 hex digits)."""
    return hashlib.sha256(store_location(url).encode("utf-8", "surrogatepass")).hexdigest()[:16]


__all__ = ["MASK", "SECRET_PARAMS", "redact_url", "store_fingerprint", "store_location"]
