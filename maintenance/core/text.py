"""Text hygiene shared by input checks and terminal output.

- :func:`for_terminal` makes memory text (and anything else a user or an agent wrote) safe to
  print: control characters (C0, DEL, C1: terminal escape sequences start with ESC or CSI),
  bidirectional overrides, line and paragraph separators and lone surrogates are shown as
  ``\\x1b`` / ``\\u202e`` escapes instead of being sent to the terminal raw.
- :func:`json_for_terminal` does the same to JSON text without changing what it decodes to
  (inside a JSON string ``\\u001b`` and the raw character are the same value).
- :func:`json_problem` finds what a store cannot keep in a decoded JSON value: a lone
  surrogate (not encodable as UTF-8), a non-finite number, an integer too large for a
  store column (when asked), or nesting deeper than :data:`MAX_DEPTH`; it walks without
  recursion.
"""

from __future__ import annotations

import math
import re
from typing import Any

#: Deepest nesting of lists and objects accepted in imported values (metadata).
MAX_DEPTH = 64
#: Largest magnitude of an integer a store column keeps (SQLite and PostgreSQL: 64 bits).
MAX_INT = 2**63 - 1

# C0 controls, DEL, C1 controls, ALM, LRM/RLM, LS/PS, bidi embeddings/overrides/isolates,
# lone surrogates.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                     "\u2066-\u2069\ud800-\udfff]")
_UNSAFE_KEEP_NEWLINES = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f"
                                   "\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# In JSON text control characters below 0x20 are escaped already; the rest still reach
# a terminal raw when ``ensure_ascii=False``.
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                             "\u2066-\u2069\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    if match.group() in _NAMED:
        return _NAMED[match.group()]
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def for_terminal(text: Any, *, keep_newlines: bool = False) -> str:
    """``text`` with every character that could steer a terminal shown as an escape
    (``\\x1b``, ``\\u202e``); newlines are kept when ``keep_newlines``."""
    pattern = _UNSAFE_KEEP_NEWLINES if keep_newlines else _UNSAFE
    return pattern.sub(_escape, str(text))


def json_for_terminal(text: str) -> str:
    """JSON text with the characters :func:`for_terminal` escapes written as ``\\uXXXX``
    escapes: it decodes to the same value and prints safely."""
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (it cannot be encoded as UTF-8)."""
    return _SURROGATE.search(text) is not None


def _string_problem(value: str, where: str) -> str | None:
    found = _SURROGATE.search(value)
    if found is None:
        return None
    return (f"{where} holds a lone surrogate \\u{ord(found.group()):04x} at character "
            f"{found.start() + 1} (not valid Unicode text)")


def json_problem(value: Any, where: str = "value", *, max_depth: int = MAX_DEPTH,
                 max_int: int | None = None) -> str | None:
    """The first thing a store cannot keep in a decoded JSON value, or None.

    ``where`` names the value in the message (``metadata``, ``field 'text'``); ``max_int``
    bounds integers (a store column's range; JSON text itself keeps any integer).
    """
    stack: list[tuple[Any, int]] = [(value, 0)]
    path = where
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            problem = _string_problem(item, path)
            if problem:
                return problem
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if max_int is not None and abs(item) > max_int:
                return f"{path} holds an integer too large to store (more than 64 bits)"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"{path} holds {item} (JSON allows only finite numbers)"
        elif isinstance(item, (dict, list)):
            if depth >= max_depth:
                return f"{path} is nested more than {max_depth} levels deep"
            if isinstance(item, dict):
                for key, sub in item.items():
                    problem = _string_problem(str(key), f"a key in {path}")
                    if problem:
                        return problem
                    stack.append((sub, depth + 1))
            else:
                stack.extend((sub, depth + 1) for sub in item)
    return None


def parse_json(data: bytes | str, where: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """Decode untrusted JSON (bytes as UTF-8) in one step that never raises anything but
    :class:`~memmaint.maintenance.core.errors.InputError`, one line naming ``where``: not
    UTF-8, not JSON, nested deeper than ``max_depth`` (also when the decoder itself gives up),
    an integer too long to read, a lone surrogate or a non-finite number anywhere."""
    import json

    from memmaint.maintenance.core.errors import InputError

    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start})"
                             ) from None
    else:
        text = data
    try:
        value = json.loads(text)
    except RecursionError:
        raise InputError(f"{where}: nested more than {max_depth} levels deep") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno} column "
                         f"{exc.colno})") from None
    except ValueError as exc:  # e.g. an integer longer than Python reads
        raise InputError(f"{where}: not valid JSON ({str(exc).splitlines()[0]})") from None
    problem = json_problem(value, where, max_depth=max_depth)
    if problem:
        raise InputError(problem)
    return value


__all__ = ["MAX_DEPTH", "MAX_INT", "for_terminal", "has_surrogate", "json_for_terminal",
           "json_problem", "parse_json"]
